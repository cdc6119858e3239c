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

"""The resource type reference, generated from the resource schemas.

render() turns available_resource_mapping() into one reStructuredText
page: per OS::Kubernetes::* type its description, every property (type,
required, default, constraints, update behaviour), every attribute and an
example. Update behaviour combines Heat's schema flags with the
immutable fields each kind declares, so the page says which fields of a
spec replace the object. As a Sphinx extension it writes the page before
Sphinx reads the sources, so the reference cannot drift from the code.
"""

import importlib.util
import inspect
import json
import os
import re
import textwrap
import warnings

import generated_page  # doc/source/_ext, on Sphinx's path

PAGE = os.path.join('reference', 'resources.rst')
INDENT = '   '

TITLE = 'Resource type reference'
INTRO = """\
.. This page is generated from the resource schemas at build time by
   doc/source/_ext/resource_reference.py; do not edit it.

Every ``OS::Kubernetes::*`` resource type with its properties and
attributes, generated from the schemas heat-engine loads, and
``OS::HeatK8s::RenderedFiles``, which renders configuration files for the
backends that have no ConfigMap to render into.

*Update* says what a change to a property does in a stack update:

in place
    The object is changed with server-side apply and the update waits
    for it to be ready again (a rollout, for workloads). Rendered files
    are rendered again.
replaces the object
    Heat creates a new object and deletes the old one (with a fixed
    ``name``, the old one is deleted first). Fields Kubernetes cannot
    change in place are listed with the property that holds them; an
    update the API server still rejects as immutable replaces too.
not updatable
    A stack update that changes the property fails.
"""

SENSITIVE_NOTE = ('the value is written to Kubernetes only; Heat stores a '
                  'keyed fingerprint in its place, and no attribute, event '
                  'or log message shows it.')

# Characters that start inline markup in reStructuredText.
_MARKUP = re.compile(r'([\\*`|_])')


def load_mapping():
    """{type name: class} as Heat's plugin loader sees it."""
    # Heat's dependencies warn about eventlet when imported; that noise is
    # not about our schemas, and the Sphinx build should not print it.
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        # heat-engine and Heat's test harness select this backend before
        # they load plugins; choosing it first works alongside both. Heat
        # 24's oslo.service (2025.1) has only eventlet, its default.
        if importlib.util.find_spec('oslo_service.backend.threading'):
            from oslo_service import backend
            backend.init_backend(backend.BackendType.THREADING)
        from heat_k8s.resources.registry import available_resource_mapping
    return available_resource_mapping()


def anchor(type_name):
    """The :ref: label of a type, e.g. os-kubernetes-job."""
    return type_name.lower().replace('::', '-')


def escape(text):
    """Plain text made safe to place in reStructuredText."""
    return _MARKUP.sub(r'\\\1', ' '.join(str(text).split()))


def literal(value):
    """A value as a template author writes it in YAML, as inline code."""
    text = value if isinstance(value, str) else json.dumps(value)
    return '``%s``' % text if text else '``""``'


def heading(text, underline):
    return [text, underline * len(text), '']


def indented(lines, prefix=INDENT):
    return [prefix + line if line else '' for line in lines]


def _schemata(cls):
    # Imported here so that importing this module needs no Heat.
    from heat.engine import attributes
    from heat.engine import properties
    props = properties.schemata(cls.properties_schema)
    attrs = attributes.schemata(cls.attributes_schema)
    attrs.update(attributes.schemata(
        getattr(cls, 'base_attributes_schema', {})))
    return props, attrs


def _documented(schema):
    # Heat hides HIDDEN properties and attributes from users everywhere.
    return getattr(schema.support_status, 'status', None) != 'HIDDEN'


# --- update behaviour --------------------------------------------------------

def _body_keys(cls):
    """{manifest key: property name} of a kind's body properties."""
    return {key: prop for prop, key in
            (getattr(cls, 'body_properties', None) or {}).items()}


def _rule_text(rule, spell):
    """An immutable.Rule in words; spell(path) names a manifest path."""
    text = literal(spell(rule))
    if rule.exceptions:
        text += ' (other than %s)' % ', '.join(
            literal(spell(e)) for e in rule.exceptions)
    if rule.values:
        text += ' (to or from %s)' % ' or '.join(literal(v)
                                                 for v in rule.values)
    if rule.when_old:
        text += ' (once %s is true)' % literal(spell(rule.when_old))
    return text


def replacing_rules(cls, prop_name):
    """The immutable-field rules under the manifest key a property sets."""
    from heat_k8s import kinds
    key = (getattr(cls, 'body_properties', None) or {}).get(prop_name)
    kind = getattr(cls, 'kind', None)
    if not key or not kind:
        return ()
    return tuple(rule for rule in kinds.declared(kind).immutable
                 if rule == key or rule.startswith(key + '.'))


def _kind_property_text(cls, prop_name):
    """Fields of the kind under the property that replace the object."""
    keys = _body_keys(cls)

    def spell(path):
        head, dot, rest = path.partition('.')
        return keys.get(head, head) + dot + rest

    rules = replacing_rules(cls, prop_name)
    if not rules:
        return ''
    return ('a change to %s%s replaces the object' % (
        'any of ' if len(rules) > 1 else '',
        ', '.join(_rule_text(rule, spell) for rule in rules)))


def manifest_rules(prop_name):
    """Per kind, the fields that replace an object given as a manifest."""
    from heat_k8s import kinds
    from heat_k8s.kinds import immutable

    def spell(path):
        return '%s.%s' % (prop_name, path)

    declared = sorted((kind.name, kind.immutable)
                      for kind in kinds.DECLARATIONS if kind.immutable)
    return ['%s: %s' % (kind, ', '.join(_rule_text(rule, spell)
                                        for rule in rules))
            for kind, rules in [('any kind', immutable.EVERY_KIND)]
            + declared]


def _holds_manifest(cls, prop_name):
    # A type without a kind of its own takes a whole manifest instead.
    return (not getattr(cls, 'kind', None) and
            prop_name == getattr(cls, 'schema_property', None))


def update_behaviour(cls, prop_name, schema):
    """What a change to the property does, in one sentence."""
    if schema.immutable:
        return 'not updatable.'
    if not schema.update_allowed:
        return 'replaces the object.'
    if _holds_manifest(cls, prop_name):
        return ('in place, except that a change to a field the kind fixes '
                'at creation replaces the object (listed below).')
    text = _kind_property_text(cls, prop_name)
    return 'in place, except that %s.' % text if text else 'in place.'


# --- properties and attributes -----------------------------------------------

def _type_text(schema):
    text = schema.type.lower()
    if schema.type == 'List' and schema.schema:
        item = schema.schema['*']
        text = 'list of %s' % _type_text(item)
    return text


def _sub_schemata(schema):
    """Named sub-properties of a map property (None for other types)."""
    if schema.type == 'Map' and schema.schema:
        return dict(schema.schema)
    if schema.type == 'List' and schema.schema:
        item = schema.schema['*']
        if item.type == 'Map' and item.schema:
            return dict(item.schema)
    return None


def property_lines(cls, name, schema, sensitive=False, update=True):
    """A definition-list entry for one property (nested ones indented)."""
    head = '%s (%s, %s)' % (literal(name), _type_text(schema),
                            'required' if schema.required else 'optional')
    body = [escape(schema.description or 'No description.'), '']
    if update:
        body.append(':Update: %s' % update_behaviour(cls, name, schema))
    if sensitive:
        body.append(':Sensitive: %s' % getattr(cls, 'sensitive_note',
                                               SENSITIVE_NOTE))
    elif schema.default is not None:
        body.append(':Default: %s' % literal(schema.default))
    for constraint in schema.constraints or ():
        body.append(':Constraint: %s' % escape(constraint))
    if body[-1]:
        body.append('')
    if update and schema.update_allowed and _holds_manifest(cls, name):
        body.extend(['Fields that replace the object, by kind:', ''])
        body.extend(['* %s' % text for text in manifest_rules(name)] + [''])
    subs = _sub_schemata(schema)
    if subs:
        body.extend(['Keys:', ''])
        for sub_name in sorted(subs):
            if _documented(subs[sub_name]):
                body.extend(property_lines(cls, sub_name, subs[sub_name],
                                           sensitive, update=False))
    return [head] + indented(body)


def attribute_lines(name, schema):
    kind = (schema.type or 'any').lower()
    return (['%s (%s)' % (literal(name), kind)] +
            indented([escape(schema.description or 'No description.'),
                      '']))


# --- examples ----------------------------------------------------------------

def _placeholder(schema):
    return '<%s>' % _type_text(schema)


def example_lines(type_name, cls, props):
    """The example the class declares, else a skeleton of its properties."""
    declared = getattr(cls, 'example', None)
    if declared:
        text = textwrap.dedent(declared).strip('\n')
        lead = 'Example:'
    else:
        short = type_name.rsplit('::', 1)[-1].lower()
        names = sorted(props, key=lambda n: (not props[n].required, n))
        text = '\n'.join(
            ['resources:', '  %s:' % short, '    type: %s' % type_name,
             '    properties:'] +
            ['      %s: %s' % (n, _placeholder(props[n])) for n in names])
        lead = 'Syntax (required properties first):'
    return [lead, '', '.. code-block:: yaml', ''] + indented(
        text.splitlines()) + ['']


# --- pages -------------------------------------------------------------------

def type_lines(type_name, cls):
    props, attrs = _schemata(cls)
    props = {n: s for n, s in props.items() if _documented(s)}
    attrs = {n: s for n, s in attrs.items() if _documented(s)}
    sensitive = set(getattr(cls, 'sensitive_properties', ()) or ())
    lines = ['.. _%s:' % anchor(type_name), ''] + heading(type_name, '-')
    doc = inspect.cleandoc(cls.__dict__.get('__doc__') or '')
    if doc:
        lines.extend(doc.splitlines() + [''])
    lines.extend(example_lines(type_name, cls, props))
    lines.extend(heading('Properties', '~'))
    for name in sorted(props, key=lambda n: (not props[n].required, n)):
        lines.extend(property_lines(cls, name, props[name],
                                    name in sensitive))
    lines.extend(heading('Attributes', '~'))
    for name in sorted(attrs):
        lines.extend(attribute_lines(name, attrs[name]))
    return lines


def render(mapping):
    """The reference page for {type name: resource class}."""
    rule = '=' * len(TITLE)
    lines = [rule, TITLE, rule, '', INTRO]
    for type_name in sorted(mapping):
        lines.extend(type_lines(type_name, mapping[type_name]))
    while lines[-1] == '':
        lines.pop()
    return '\n'.join(lines) + '\n'


def write(srcdir, mapping=None):
    """Write the page under srcdir unless it already holds this text."""
    return generated_page.write(srcdir, PAGE, render(
        load_mapping() if mapping is None else mapping))


def _builder_inited(app):
    write(app.srcdir)


def setup(app):
    app.connect('builder-inited', _builder_inited)
    return {'parallel_read_safe': True, 'parallel_write_safe': True}
