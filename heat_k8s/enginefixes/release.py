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

"""Which Heat release is installed, and which ones heat-k8s supports."""

from importlib import metadata

DISTRIBUTION = 'openstack-heat'
# Major versions of the supported Heat releases, oldest first: 2025.1
# (SLURP) to 2026.2, each tested in CI with its series' upper-constraints.
SUPPORTED = {24: '2025.1', 25: '2025.2', 26: '2026.1', 27: '2026.2'}


def installed():
    """The installed Heat's version string, or None when unknown."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return None


def major(version):
    """The major release number of a version string, or None."""
    try:
        return int(str(version).split('.', 1)[0])
    except (TypeError, ValueError):
        return None


def supported(version):
    """Whether heat-k8s supports Heat `version`."""
    return major(version) in SUPPORTED


def describe(version):
    """'Heat 24.1.2 (2025.1)' for the log."""
    series = SUPPORTED.get(major(version))
    if series:
        return 'Heat %s (%s)' % (version, series)
    return 'Heat %s' % (version or '(version unknown)')


def supported_range():
    """'24 (2025.1) to 27 (2026.2)'."""
    first, last = min(SUPPORTED), max(SUPPORTED)
    return '%d (%s) to %d (%s)' % (first, SUPPORTED[first], last,
                                   SUPPORTED[last])
