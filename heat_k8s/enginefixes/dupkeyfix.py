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

"""Refuse a template or environment that writes a key twice in a mapping.

Heat parses templates and environments with PyYAML (JSON first, for
templates), which keeps the last value of a key written twice and says
nothing: a template author loses the first value and never learns why.
apply() makes Heat's YAML loader (``template_format.yaml_loader``, which
``environment_format`` uses too) refuse such a mapping, and Heat's JSON
parse (``template_format.simple_parse``) such an object, naming the key
and both of its lines. heat-api parses the templates and environments a
request carries as text, heat-engine the nested templates and environment
files of ``files``: heat-api applies it through the paste filter of
``apistartup``, heat-engine when it loads the plugin. The upstream change
is patches/dupkeyfix.patch. A template parsed by the client
(python-heatclient sends what it read as JSON) reaches Heat with the key
already gone: clientdupkeyfix makes the same change in heatclient.
"""

from heat.common import template_format

from heat_k8s.enginefixes import uniquekeys

# Every supported Heat parses templates so (heat/common/template_format.py).
RELEASES = (24, 27)
MAP = uniquekeys.MAP


# simple_parse's JSON check names the lines through the same YAML loader.
_FIX = uniquekeys.ParserFix(template_format, 'simple_parse',
                            has=('jsonutils.loads(tmpl_str)', 'yaml_loader'))

probe, apply, restore = _FIX.probe, _FIX.apply, _FIX.restore
# What apply() replaces (tests check it is done once and undone).
TARGETS = _FIX.targets
