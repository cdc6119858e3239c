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

"""A mapping that writes a key twice, refused with the key and its lines.

What dupkeyfix (Heat's parsers) and clientdupkeyfix (python-heatclient's)
put in place: a PyYAML mapping constructor and a JSON check. It imports
PyYAML alone, so that ``openstack`` loads it without Heat.
"""

import functools
import json

import yaml

from heat_k8s.enginefixes import patching

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


def json_checked(loader):
    """A wrapper of a parse function that refuses a JSON object writing
    a key twice, named with its lines when `loader` can read the text."""
    def wrapper(parse):
        @functools.wraps(parse)
        def checked(tmpl_str, *args, **kwargs):
            tpl = parse(tmpl_str, *args, **kwargs)
            try:
                json.loads(tmpl_str, object_pairs_hook=_unique_pairs)
            except DuplicateKey:
                try:  # YAML reads most JSON, and gives the lines
                    yaml.load(tmpl_str, Loader=loader)  # noqa: S506
                except yaml.YAMLError:
                    pass
                raise
            except (TypeError, ValueError):
                pass  # not JSON: the YAML loader checked it
            return tpl
        return checked
    return wrapper


def checks(loader):
    """Whether `loader` constructs mappings through unique_keys."""
    return getattr(loader.yaml_constructors.get(MAP), patching.MARK, False)


def plain(loader):
    """None when `loader` constructs mappings as PyYAML's SafeLoader does
    (keeping the last of a repeated key) or through ours; else why not."""
    constructor = loader.yaml_constructors.get(MAP)
    if checks(loader) or constructor is (
            yaml.constructor.SafeConstructor.construct_yaml_map):
        return None
    return '%s.%s constructs mappings its own way' % (loader.__module__,
                                                     loader.__name__)


def install(loader):
    """Make `loader` (a SafeLoader's subclass) refuse a repeated key."""
    constructors = loader.yaml_constructors
    if not checks(loader):
        checked = unique_keys(constructors[MAP])
        checked.__wrapped__ = constructors[MAP]
        setattr(checked, patching.MARK, True)
        constructors[MAP] = checked


def uninstall(loader):
    """Undo install (for tests)."""
    if checks(loader):
        loader.yaml_constructors[MAP] = loader.yaml_constructors[
            MAP].__wrapped__


class ParserFix(object):
    """The fix to one parser: `module.function` (a template string in, a
    dict out; JSON read without a check) and `module.yaml_loader`, both
    made to refuse a repeated key. Heat's and heatclient's fixes differ
    only in their module, function and the source the probe expects."""

    def __init__(self, module, function, has):
        self.module, self.function, self.has = module, function, has
        self.json_checked = json_checked(module.yaml_loader)
        # What apply() replaces (tests check it is done once and undone).
        self.targets = ((module, function),)

    def probe(self):
        """None when the parser reads YAML with a loader that keeps the
        last of a repeated key and JSON without a check; else why not."""
        return plain(self.module.yaml_loader) or patching.expect(
            self.module, self.function, has=self.has,
            lacks=('object_pairs_hook',))

    def apply(self):
        patching.wrap_once(self.module, self.function, self.json_checked)
        install(self.module.yaml_loader)

    def restore(self):
        patching.restore(self.module, self.function)
        uninstall(self.module.yaml_loader)
