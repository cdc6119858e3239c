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

"""The generated resource type reference covers every schema entry.

Runs the generator of doc/source/_ext/resource_reference.py (not Sphinx)
over the registered types and reads the page back.
"""

import os
import re
import tempfile
import unittest

from tests.unit import doc_ext

ref = doc_ext.load('resource_reference')


def _sections(page):
    """{anchor: text} of each type's part of the page."""
    parts = re.split(r'^\.\. _([\w-]+):$', page, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def _entries(section, title):
    """{name: entry text} of the top-level entries under a subheading."""
    match = re.search(r'^%s\n~+\n(.*?)(?=^\S+\n~+\n|\Z)' % title, section,
                      flags=re.M | re.S)
    assert match, 'no %s in %r' % (title, section[:80])
    found = {}
    for entry in re.split(r'^(?=``)', match.group(1), flags=re.M):
        name = re.match(r'``([^`]+)``', entry)
        if name:
            found[name.group(1)] = entry
    return found


def _field(entry, name):
    match = re.search(r'^\s+:%s: (.*)$' % name, entry, flags=re.M)
    return match.group(1) if match else None


class ReferenceTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        from heat.engine import attributes
        from heat.engine import properties
        from heat.engine import support

        cls.mapping = ref.load_mapping()
        cls.page = ref.render(cls.mapping)
        cls.sections = _sections(cls.page)
        cls.properties, cls.attributes, cls.support = (properties,
                                                       attributes, support)

    def schemata(self, resource_class):
        props = self.properties.schemata(resource_class.properties_schema)
        attrs = self.attributes.schemata(resource_class.attributes_schema)
        attrs.update(self.attributes.schemata(
            resource_class.base_attributes_schema))
        return props, attrs

    def section(self, type_name):
        anchor = type_name.lower().replace('::', '-')
        self.assertIn(anchor, self.sections, type_name)
        return self.sections[anchor]

    def test_every_registered_type_has_a_section(self):
        self.assertGreaterEqual(len(self.mapping), 12)
        for type_name, resource_class in self.mapping.items():
            section = self.section(type_name)
            self.assertIn('\n%s\n%s\n' % (type_name, '-' * len(type_name)),
                          section)
            doc = (resource_class.__doc__ or '').strip().splitlines()
            if doc:
                self.assertIn(doc[0].strip(), section, type_name)

    def test_every_property_with_type_and_update_behaviour(self):
        for type_name, resource_class in self.mapping.items():
            props, _ = self.schemata(resource_class)
            entries = _entries(self.section(type_name), 'Properties')
            self.assertEqual(sorted(props), sorted(entries), type_name)
            for name, schema in props.items():
                where = '%s %s' % (type_name, name)
                entry = entries[name]
                head = entry.splitlines()[0]
                self.assertIn(schema.type.lower(), head, where)
                self.assertIn('required' if schema.required else 'optional',
                              head, where)
                update = _field(entry, 'Update')
                if schema.immutable:
                    self.assertEqual('not updatable.', update, where)
                elif not schema.update_allowed:
                    self.assertEqual('replaces the object.', update, where)
                else:
                    self.assertTrue(update.startswith('in place'), where)
                for constraint in schema.constraints:
                    self.assertIn(ref.escape(constraint), entry, where)

    def test_replacing_fields_are_named_with_their_refinements(self):
        from heat_k8s import kinds
        checked = 0
        for type_name, resource_class in self.mapping.items():
            props, _ = self.schemata(resource_class)
            entries = _entries(self.section(type_name), 'Properties')
            body = getattr(resource_class, 'body_properties', {})
            for prop, key in body.items():
                if not props[prop].update_allowed:
                    continue  # any change replaces: no field list needed
                update = _field(entries[prop], 'Update')
                for rule in kinds.declared(resource_class.kind).immutable:
                    if rule != key and not rule.startswith(key + '.'):
                        continue
                    where = '%s %s %s' % (type_name, prop, rule)
                    path = prop + rule[len(key):]
                    self.assertIn('``%s``' % path, update, where)
                    for exception in rule.exceptions:
                        self.assertIn('``%s%s``' % (
                            prop, exception[len(key):]), update, where)
                    for value in rule.values:
                        self.assertIn('``%s``' % value, update, where)
                    if rule.when_old:
                        self.assertIn('once ``%s`` is true' % rule.when_old,
                                      update, where)
                    checked += 1
        self.assertGreater(checked, 10)

    def test_a_whole_manifest_lists_the_replacing_fields_of_every_kind(self):
        from heat_k8s import kinds
        from heat_k8s.kinds import immutable
        entry = _entries(self.section('OS::Kubernetes::Resource'),
                         'Properties')['manifest']
        self.assertIn('(listed below)', _field(entry, 'Update'))
        declared = [(kind.name, kind.immutable)
                    for kind in kinds.DECLARATIONS if kind.immutable]
        self.assertGreater(len(declared), 10)
        for kind, rules in [('any kind', immutable.EVERY_KIND)] + declared:
            line = re.search(r'^   \* %s: (.*)$' % kind, entry, flags=re.M)
            self.assertTrue(line, kind)
            for rule in rules:
                self.assertIn('``manifest.%s``' % rule, line.group(1), kind)

    def test_examples_cover_every_property(self):
        for type_name, resource_class in self.mapping.items():
            props, _ = self.schemata(resource_class)
            section = self.section(type_name)
            self.assertIn('    type: %s\n' % type_name, section)
            for name in props:
                self.assertIn('\n         %s: <' % name, section,
                              '%s %s' % (type_name, name))

    def test_defaults_are_shown(self):
        for type_name, resource_class in self.mapping.items():
            props, _ = self.schemata(resource_class)
            entries = _entries(self.section(type_name), 'Properties')
            sensitive = resource_class.sensitive_properties
            for name, schema in props.items():
                if schema.default is not None and name not in sensitive:
                    self.assertEqual(ref.literal(schema.default),
                                     _field(entries[name], 'Default'),
                                     '%s %s' % (type_name, name))

    def test_every_attribute_with_its_description(self):
        for type_name, resource_class in self.mapping.items():
            _, attrs = self.schemata(resource_class)
            entries = _entries(self.section(type_name), 'Attributes')
            self.assertEqual(sorted(attrs), sorted(entries), type_name)
            self.assertIn('show', entries)
            for name, schema in attrs.items():
                self.assertIn(ref.escape(schema.description), entries[name],
                              '%s %s' % (type_name, name))
                self.assertIn('(%s)' % (schema.type or 'any').lower(),
                              entries[name].splitlines()[0])

    def test_secret_values_are_marked_sensitive(self):
        entries = _entries(self.section('OS::Kubernetes::Secret'),
                           'Properties')
        for name in ('data', 'string_data'):
            self.assertIsNotNone(_field(entries[name], 'Sensitive'), name)
        self.assertIsNone(_field(entries['type'], 'Sensitive'))

    def fake_type(self, **namespace):
        from heat_k8s.resources import secret
        return type('Fake', (secret.Secret,), namespace)

    def test_no_default_of_a_sensitive_or_hidden_property_is_rendered(self):
        props = self.properties
        schema = dict(self.mapping['OS::Kubernetes::Secret'].properties_schema)
        schema['data'] = props.Schema(
            props.Schema.MAP, 'Values.',
            default={'password': 'czNjcjN0LWRlZmF1bHQ='})
        schema['string_data'] = props.Schema(
            props.Schema.MAP, 'Values.',
            default={'password': 's3cr3t-default'})
        schema['legacy'] = props.Schema(
            props.Schema.STRING, 'Old.', default='hidden-default',
            support_status=self.support.SupportStatus(
                status=self.support.HIDDEN))
        page = ref.render({'OS::Kubernetes::Fake': self.fake_type(
            properties_schema=schema)})
        for value in ('czNjcjN0LWRlZmF1bHQ=', 's3cr3t-default', 'password',
                      'hidden-default', 'legacy'):
            self.assertNotIn(value, page)
        from heat_k8s.resources import secret
        self.assertEqual(len(secret.Secret.sensitive_properties),
                         page.count(':Sensitive:'))

    def test_nested_schemas_are_rendered(self):
        props = self.properties
        schema = {'ports': props.Schema(
            props.Schema.LIST, 'Ports.', update_allowed=True,
            schema=props.Schema(props.Schema.MAP, schema={
                'port': props.Schema(props.Schema.INTEGER, 'Port number.',
                                     required=True),
                'protocol': props.Schema(props.Schema.STRING, 'TCP or UDP.',
                                         default='TCP')}))}
        page = ref.render({'OS::Kubernetes::Fake': self.fake_type(
            properties_schema=schema, body_properties={})})
        self.assertIn('``ports`` (list of map, optional)', page)
        self.assertIn('\n   ``port`` (integer, required)\n', page)
        self.assertIn('\n   ``protocol`` (string, optional)\n', page)
        self.assertIn(':Default: ``TCP``', page)

    def test_a_declared_example_replaces_the_syntax_skeleton(self):
        page = ref.render({'OS::Kubernetes::Fake': self.fake_type(
            example='''
                resources:
                  creds:
                    type: OS::Kubernetes::Fake
                    properties:
                      string_data: {user: demo}
            ''')})
        self.assertIn('Example:\n\n.. code-block:: yaml\n\n   resources:\n'
                      '     creds:\n', page)
        self.assertNotIn('<map>', page)

    def test_text_is_escaped_and_values_spelled_as_in_yaml(self):
        self.assertEqual(r'a \*b\* \`c\` d\_ \|e\| \\', ref.escape(
            'a *b* `c` d_ |e|\n \\'))
        self.assertEqual(['``true``', '``{}``', '``Opaque``', '``""``',
                          '``3``'],
                         [ref.literal(v) for v in (True, {}, 'Opaque', '',
                                                   3)])

    def test_write_only_changes_the_file_when_the_text_changes(self):
        with tempfile.TemporaryDirectory() as srcdir:
            path = ref.write(srcdir, self.mapping)
            self.assertEqual(os.path.join(srcdir, 'reference',
                                          'resources.rst'), path)
            with open(path, encoding='utf-8') as page:
                self.assertEqual(self.page, page.read())
            os.utime(path, (0, 0))
            ref.write(srcdir, self.mapping)
            self.assertEqual(0, os.stat(path).st_mtime)
            ref.write(srcdir, {})
            self.assertNotEqual(0, os.stat(path).st_mtime)


if __name__ == '__main__':
    unittest.main()
