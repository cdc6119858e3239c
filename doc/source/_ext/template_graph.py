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

"""The control plane's graph, generated from its templates.

Heat orders resources by what each takes from another (get_attr,
get_resource) and by depends_on; this reads those references from
templates/controlplane.yaml and, through an environment's
resource_registry, from each service's own template, and writes what
waits for what as reStructuredText. OS::Heat::Value resources are
passed through (what waits for a value waits for what the value takes);
secrets and checks (RandomSecret, Requires) order nothing a reader needs
and are left out. A resource whose condition this cannot decide is shown
with it. As a Sphinx extension it writes the page before Sphinx reads the
sources, so the page cannot drift from the templates.
"""

import os

import generated_page  # doc/source/_ext, on Sphinx's path
import yaml

PAGE = os.path.join('user', 'controlplane-graph.inc')
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
TEMPLATE = os.path.join('templates', 'controlplane.yaml')
ENVIRONMENT = os.path.join('environments', 'kubernetes.yaml')
# Passed through: a reader waits for what they take, not for them.
THROUGH = {'OS::Heat::Value'}
# Left out: they order nothing a reader follows.
LEFT_OUT = {'OS::HeatK8s::RandomSecret', 'OS::HeatK8s::Requires'}
UNKNOWN = object()
FUNCTIONS = {'get_param', 'get_attr', 'get_resource', 'get_file', 'if',
             'yaql', 'list_join', 'str_replace', 'map_merge', 'repeat',
             'filter', 'map_replace', 'make_url', 'list_concat', 'contains',
             'equals', 'not', 'and', 'or', 'str_split', 'digest'}

INTRO = """\
.. This page is generated from templates/controlplane.yaml and the
   service templates environments/kubernetes.yaml maps, at build time, by
   doc/source/_ext/template_graph.py; do not edit it.

Each resource in the order Heat may start it, with what it waits for:
the resources whose attributes it takes or that it depends_on. A service
of its own template is followed by its template's resources, indented.
"""


def references(node):
    """Names of the resources `node` (a property value, recursively)
    takes an attribute or the id of."""
    found = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == 'get_attr' and isinstance(value, list) and value:
                found.add(value[0])
            elif key == 'get_resource' and isinstance(value, str):
                found.add(value)
            found |= references(value)
    elif isinstance(node, list):
        for item in node:
            found |= references(item)
    return found


def waits_for(resources):
    """{name: the names it waits for directly} of a template's
    resources (references to outside the template dropped)."""
    graph = {}
    for name, definition in resources.items():
        depends = definition.get('depends_on') or []
        if isinstance(depends, str):
            depends = [depends]
        direct = references(definition.get('properties') or {}) | set(
            depends)
        graph[name] = sorted(direct & set(resources))
    return graph


def through(graph, types):
    """The graph without the resources of THROUGH and LEFT_OUT types: a
    Value's readers wait for what the Value waits for."""
    def shown(name):
        return types[name] not in THROUGH | LEFT_OUT

    def expand(name, seen):
        found = set()
        for dep in graph[name]:
            if dep in seen:
                continue
            seen.add(dep)
            if shown(dep):
                found.add(dep)
            elif types[dep] in THROUGH:
                found |= expand(dep, seen)
        return found
    return {name: sorted(expand(name, {name}))
            for name in graph if shown(name)}


def in_order(graph, listed):
    """Names in an order Heat could start them: every one after what it
    waits for; ties in the template's order."""
    done, order = set(), []
    while len(order) < len(graph):
        ready = [n for n in listed if n in graph and n not in done
                 and set(graph[n]) <= done]
        if not ready:
            raise ValueError('a cycle among %s' % sorted(set(graph) - done))
        order.append(ready[0])
        done.add(ready[0])
    return order


def condition_value(condition, conditions, params):
    """True, False or UNKNOWN for a template's condition, given the
    parameters' values (UNKNOWN where a value is a function's)."""
    if isinstance(condition, bool):
        return condition
    if isinstance(condition, str):
        return condition_value(conditions.get(condition, UNKNOWN),
                               conditions, params)
    if not isinstance(condition, dict) or len(condition) != 1:
        return UNKNOWN
    [(fn, args)] = condition.items()
    if fn == 'not':
        value = condition_value(args, conditions, params)
        return UNKNOWN if value is UNKNOWN else not value
    if fn in ('and', 'or'):
        values = [condition_value(a, conditions, params) for a in args]
        if fn == 'and' and False in values:
            return False
        if fn == 'or' and True in values:
            return True
        return UNKNOWN if UNKNOWN in values else fn == 'and'
    if fn == 'equals':
        left, right = (_param_value(a, params) for a in args)
        if UNKNOWN in (left, right):
            return UNKNOWN
        return left == right
    return UNKNOWN


def _param_value(arg, params):
    if isinstance(arg, dict) and list(arg) == ['get_param']:
        value = params.get(arg['get_param'], UNKNOWN)
        # A dict or list given whole is known not to be empty, even if
        # what it holds comes from functions; a function's value is not.
        if isinstance(value, list) and value or isinstance(
                value, dict) and not _a_function(value):
            return value
        arg = value
    return UNKNOWN if references(arg) or _a_function(arg) else arg


def _a_function(value):
    """Whether a dict is an intrinsic function's call ({get_param: x})."""
    return isinstance(value, dict) and len(value) == 1 and next(
        iter(value)) in FUNCTIONS


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def template_params(template, given):
    """Each parameter's value: what the parent gives, else its default."""
    values = {name: spec.get('default', UNKNOWN)
              for name, spec in (template.get('parameters') or {}).items()}
    values.update(given)
    return values


def lines_for(path, registry, given=None, depth=0):
    """The page's lines for the template at `path` (a service's template
    under its resource, indented)."""
    template = load(path)
    resources = template.get('resources') or {}
    params = template_params(template, given or {})
    conditions = template.get('conditions') or {}
    kept, notes = {}, {}
    for name, definition in resources.items():
        condition = definition.get('condition')
        if condition is None:
            kept[name] = definition
            continue
        value = condition_value(condition, conditions, params)
        if value is UNKNOWN:
            kept[name] = definition
            notes[name] = ' (when ``%s``)' % condition
        elif value:
            kept[name] = definition
    types = {name: d['type'] for name, d in kept.items()}
    graph = through(waits_for(kept), types)
    lines = []
    indent = '  ' * depth
    for name in in_order(graph, list(kept)):
        kind = types[name]
        nested = registry.get(kind)
        shown_type = kind if not nested else '%s: %s' % (
            kind, os.path.relpath(nested, REPO))
        after = ', '.join('``%s``' % dep for dep in graph[name]) or 'nothing'
        lines.append('%s* ``%s`` (%s)%s, after %s' % (
            indent, name, shown_type, notes.get(name, ''), after))
        if nested:
            lines.append('')
            lines += lines_for(nested, registry,
                               kept[name].get('properties') or {}, depth + 1)
            lines.append('')
    return lines


def registry_of(environment_path):
    """{type: absolute template path} of an environment's
    resource_registry entries that map to this repository's templates."""
    env = load(environment_path)
    base = os.path.dirname(environment_path)
    return {kind: os.path.normpath(os.path.join(base, target))
            for kind, target in (env.get('resource_registry') or {}).items()
            if isinstance(target, str) and target.endswith('.yaml')
            and '/services/' not in target and '/hosts/' not in target}


def render(repo=REPO):
    registry = registry_of(os.path.join(repo, ENVIRONMENT))
    lines = lines_for(os.path.join(repo, TEMPLATE), registry)
    # One blank line between blocks, none at the end.
    text = '\n'.join(lines)
    while '\n\n\n' in text:
        text = text.replace('\n\n\n', '\n\n')
    return INTRO + '\n' + text.strip('\n') + '\n'


def write(srcdir):
    """Write the page under srcdir unless it already holds this text."""
    return generated_page.write(srcdir, PAGE, render())


def _builder_inited(app):
    write(app.srcdir)


def setup(app):
    app.connect('builder-inited', _builder_inited)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
