# Copyright 2026 heat-k8s developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""dupkeyfix's change in python-heatclient, for ``openstack``'s commands.

heatclient parses a template (``template_format.parse``: JSON when the
text starts with ``{``, else YAML) and an environment
(``environment_format.parse``, through the same YAML loader) on the
client, and sends Heat what it read, as JSON: a key written twice is gone
before Heat's own check (dupkeyfix) can see it. apply() makes heatclient's
YAML loader refuse such a mapping and its parse such a JSON object, with
dupkeyfix's words (the key and its lines). ``clientstartup`` applies it
when ``openstack`` runs a command that reads templates. The upstream
change is patches/clientdupkeyfix.patch, against python-heatclient.
"""

from importlib import metadata

from heatclient.common import template_format

from heat_k8s.enginefixes import release
from heat_k8s.enginefixes import uniquekeys

DISTRIBUTION = 'python-heatclient'
# The heatclient major versions whose parse it was checked against
# (2025.1's 4.1.0 to 2026.2's 5.3.0).
RELEASES = (4, 5)


def version():
    """The installed python-heatclient's version ('unknown' if none)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return 'unknown'


def refusal(found):
    """Why a heatclient of version `found` is not one to patch, or None."""
    first, last = RELEASES
    major = release.major(found)
    if major is None or not first <= major <= last:
        return '%s %s is not a release it applies to (%d.x to %d.x)' % (
            DISTRIBUTION, found, first, last)
    return None


# parse's JSON check names the lines through the same YAML loader.
_FIX = uniquekeys.ParserFix(template_format, 'parse',
                            has=('json.loads(tmpl_str', 'Loader=yaml_loader'))

probe, apply, restore = _FIX.probe, _FIX.apply, _FIX.restore
# What apply() replaces (tests check it is done once and undone).
TARGETS = _FIX.targets
