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
already gone: heatclient needs the same change.
"""

import functools
import json

from heat.common import template_format
import yaml

from heat_k8s.enginefixes import patching

# Every supported Heat parses templates so (heat/common/template_format.py).
RELEASES = (24, 27)
MAP = 'tag:yaml.org,2002:map'
MERGE = 'tag:yaml.org,2002:merge'   # '<<': its keys may be overridden


class DuplicateKey(ValueError):
    """A key written twice; a ValueError, as Heat's parse errors are."""


def _refuse(key, first, again):
    where = 'lines %d and %d' % (first, again) if first else 'one object'
    raise DuplicateKey('Duplicate key %r in one mapping (%s): Heat would '
                       'keep only the last value' % (key, where))


def check_mapping(loader, node):
    """Raise DuplicateKey when the mapping `node` writes a key twice."""
    seen = {}
    for key_node, _ in node.value:
        if key_node.tag == MERGE or not isinstance(key_node,
                                                   yaml.ScalarNode):
            continue
        key = loader.construct_object(key_node)
        line = key_node.start_mark.line + 1
        if key in seen:
            _refuse(key, seen[key], line)
        seen[key] = line


def unique_keys(construct):
    """A mapping constructor that checks for repeated keys first."""
    @functools.wraps(construct)
    def checked(loader, node):
        check_mapping(loader, node)
        return construct(loader, node)
    return checked


def _unique_pairs(pairs):
    keys = [key for key, _ in pairs]
    for key in keys:
        if keys.count(key) > 1:
            _refuse(key, None, None)
    return dict(pairs)


def json_checked(parse):
    """simple_parse, refusing a JSON object that writes a key twice,
    named with its lines when YAML can read the text too."""
    @functools.wraps(parse)
    def checked(tmpl_str, *args, **kwargs):
        tpl = parse(tmpl_str, *args, **kwargs)
        try:
            json.loads(tmpl_str, object_pairs_hook=_unique_pairs)
        except DuplicateKey:
            loader = template_format.yaml_loader  # a SafeLoader's subclass
            try:  # YAML reads most JSON, and gives the lines
                yaml.load(tmpl_str, Loader=loader)  # noqa: S506
            except yaml.YAMLError:
                pass
            raise
        except (TypeError, ValueError):
            pass  # not JSON: the YAML loader checked it
        return tpl
    return checked


def probe():
    """None when Heat parses with a loader that keeps the last of a
    repeated key and JSON without a check; else why not."""
    constructor = template_format.yaml_loader.yaml_constructors.get(MAP)
    if getattr(constructor, patching.MARK, False):
        return None  # ours, applied before
    if constructor is not yaml.constructor.SafeConstructor.\
            construct_yaml_map:
        return 'template_format.yaml_loader constructs mappings its own way'
    return patching.expect(template_format, 'simple_parse',
                           has=('jsonutils.loads(tmpl_str)', 'yaml_loader'),
                           lacks=('object_pairs_hook',))


def apply():
    patching.wrap_once(template_format, 'simple_parse', json_checked)
    constructors = template_format.yaml_loader.yaml_constructors
    if not getattr(constructors[MAP], patching.MARK, False):
        checked = unique_keys(constructors[MAP])
        checked.__wrapped__ = constructors[MAP]
        setattr(checked, patching.MARK, True)
        constructors[MAP] = checked


def restore():
    patching.restore(template_format, 'simple_parse')
    constructors = template_format.yaml_loader.yaml_constructors
    if getattr(constructors[MAP], patching.MARK, False):
        constructors[MAP] = constructors[MAP].__wrapped__


# What apply() replaces (tests check it is done once and undone).
TARGETS = ((template_format, 'simple_parse'),)
