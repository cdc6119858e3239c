# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""OS::Kubernetes::Objects: identities, the update plan, validation."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy
import unittest

from heat_k8s.kinds import objectset
from tests.unit.heat_harness import PROJECT_ID
from tests.unit.heat_harness import deployment
from tests.unit.heat_harness import template

NS = PROJECT_ID  # the default namespace of the harness's stacks


def config_map(name, data=None, namespace=None):
    meta = {'name': name}
    if namespace:
        meta['namespace'] = namespace
    return {'apiVersion': 'v1', 'kind': 'ConfigMap', 'metadata': meta,
            'data': data or {'k': 'v'}}


def web(name, replicas=2, app='web'):
    spec = copy.deepcopy(deployment()['properties']['spec'])
    spec['replicas'] = replicas
    spec['selector']['matchLabels']['app'] = app
    spec['template']['metadata']['labels']['app'] = app
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
            'metadata': {'name': name, 'namespace': NS}, 'spec': spec}


def objects(*manifests, **props):
    props['manifests'] = list(manifests)
    return {'type': 'OS::Kubernetes::Objects', 'properties': props}


def ident(manifest):
    return objectset.identity(manifest)


class IdentityTest(unittest.TestCase):

    def test_group_kind_namespace_name(self):
        self.assertEqual(objectset.Identity('apps', 'Deployment', NS, 'x'),
                         ident(web('x')))
        self.assertEqual(objectset.Identity('', 'ConfigMap', None, 'c'),
                         ident(config_map('c')))

    def test_describe_as_the_single_types_do(self):
        self.assertEqual('Deployment %s/x' % NS,
                         objectset.describe(ident(web('x'))))
        self.assertEqual('ConfigMap c', objectset.describe(
            ident(config_map('c'))))

    def test_duplicates_name_both_entries(self):
        keys = [ident(config_map('a', namespace='n')),
                ident(config_map('b', namespace='n')), None,
                ident(config_map('a', namespace='n'))]
        self.assertEqual([(0, 3, keys[0])], objectset.duplicates(keys))

    def test_same_name_in_another_namespace_or_kind_is_another_object(self):
        keys = [ident(config_map('a', namespace='n')),
                ident(config_map('a', namespace='m')), ident(web('a'))]
        self.assertEqual([], objectset.duplicates(keys))


class PlanTest(unittest.TestCase):

    def plan(self, old, new, existing=None):
        old = {ident(m): m for m in old}
        new = {ident(m): m for m in new}
        return objectset.plan(list(old) if existing is None else existing,
                              old, new)

    def test_change_one_add_one_remove_one(self):
        before = [config_map('a'), config_map('b'), config_map('c')]
        after = [config_map('a'), config_map('b', {'k': 'new'}),
                 config_map('d')]
        todo = self.plan(before, after)
        self.assertEqual([ident(config_map('d'))], todo.create)
        self.assertEqual([ident(config_map('b'))], todo.apply)
        self.assertEqual([ident(config_map('c'))], todo.delete)
        self.assertEqual([ident(config_map('a'))], todo.keep)
        self.assertEqual([], todo.replace)

    def test_an_immutable_change_replaces_that_object_alone(self):
        before = [web('w'), web('v')]
        after = [web('w', app='other'), web('v', replicas=5)]
        todo = self.plan(before, after)
        self.assertEqual([ident(web('w'))], todo.replace)
        self.assertEqual([ident(web('v'))], todo.apply)
        self.assertEqual([], todo.create + todo.delete + todo.keep)

    def test_an_object_left_by_a_failed_update_is_applied(self):
        # It exists (recorded) but the stored manifests do not hold it.
        todo = self.plan([], [config_map('a')],
                         existing=[ident(config_map('a'))])
        self.assertEqual([ident(config_map('a'))], todo.apply)

    def test_an_object_never_created_is_created(self):
        todo = self.plan([config_map('a')], [config_map('a')], existing=[])
        self.assertEqual([ident(config_map('a'))], todo.create)


class RecordTest(unittest.TestCase):

    def entries(self, count):
        return [objectset.entry(ident(config_map('c%d' % i, namespace='n')),
                                'v1', 'uid-%d' % i) for i in range(count)]

    def test_round_trip_in_small_pieces(self):
        entries = self.entries(40)
        chunks = objectset.encode(entries, size=100)
        self.assertGreater(len(chunks), 10)
        self.assertTrue(all(len(c) <= 100 for c in chunks))
        self.assertEqual(entries, objectset.decode(chunks))

    def test_400_objects_fit_heats_text_column(self):
        # MySQL TEXT holds 65535 bytes per resource_data value.
        chunks = objectset.encode(self.entries(400))
        self.assertTrue(all(len(c) < 65535 for c in chunks))

    def test_entry_identity(self):
        entry = self.entries(1)[0]
        self.assertEqual(ident(config_map('c0', namespace='n')),
                         objectset.entry_identity(entry))

    def test_progress_names_what_it_waits_for(self):
        pending = [ident(web('w%d' % i)) for i in range(5)]
        self.assertEqual(
            '17/400 objects ready; waiting for Deployment %s/w0, '
            'Deployment %s/w1, Deployment %s/w2 and 2 more' % (NS, NS, NS),
            objectset.progress_text(17, 400, pending))
        self.assertEqual('3/3 objects ready',
                         objectset.progress_text(3, 3, []))


class ValidateTest(heat_harness.KubernetesTestCase):

    def refused(self, resources, blamed=('objs',)):
        """The message of both `template validate` and stack create,
        which blames one of the resources named in `blamed`."""
        tmpl = template(resources)
        answer = self.template_validate(tmpl).get('Error') or ''
        created = self.create_refused(tmpl)
        for message in (answer, created):
            self.assertTrue(any('resources.%s.properties' % name in message
                                for name in blamed), message)
        return answer, created

    def assertRefused(self, resources, *fragments):
        for message in self.refused(resources):
            for fragment in fragments:
                self.assertIn(fragment, message)

    def test_valid_objects(self):
        tmpl = template({'objs': objects(config_map('a'), web('w'))})
        self.assertNotIn('Error', self.template_validate(tmpl))
        self.parse(tmpl).validate()

    def test_a_missing_name_is_named_by_its_index(self):
        nameless = config_map('x')
        del nameless['metadata']['name']
        self.assertRefused({'objs': objects(config_map('a'), nameless)},
                           'manifests[1].metadata.name is required')

    def test_a_missing_kind(self):
        kindless = config_map('x')
        del kindless['kind']
        self.assertRefused({'objs': objects(kindless)},
                           'manifests[0].kind is required')

    def test_a_bad_name(self):
        self.assertRefused({'objs': objects(config_map('a'),
                                            config_map('a'),
                                            config_map('Bad_Name'))},
                           'manifests[2].metadata.name', "'Bad_Name'")

    def test_a_bad_namespace(self):
        self.assertRefused({'objs': objects(config_map('a', namespace='N!'))},
                           'manifests[0].metadata.namespace', "'N!'")

    def test_schema_errors_name_the_entry_and_the_field(self):
        bad = web('w')
        bad['spec']['replicas'] = 'three'
        self.assertRefused({'objs': objects(config_map('a'), bad)},
                           'manifests[1]', "spec.replicas: 'three' is not "
                           "of type 'integer'")

    def test_secrets_are_refused(self):
        secret = {'apiVersion': 'v1', 'kind': 'Secret',
                  'metadata': {'name': 's'}, 'stringData': {'p': 'x'}}
        self.assertRefused({'objs': objects(secret)}, 'manifests[0]',
                           'OS::Kubernetes::Secret')

    def test_two_entries_naming_one_object(self):
        self.assertRefused(
            {'objs': objects(config_map('a'), web('w'),
                             config_map('a', {'k': 'other'},
                                        namespace=NS))},
            'manifests[0] and manifests[2] both name ConfigMap %s/a' % NS)

    def test_an_object_of_another_resource(self):
        single = {'type': 'OS::Kubernetes::ConfigMap',
                  'properties': {'name': 'a', 'data': {'k': 'v'}}}
        for message in self.refused({'objs': objects(config_map('a')),
                                     'single': single},
                                    blamed=('objs', 'single')):
            self.assertIn('two resources of a stack cannot manage one '
                          'object', message)
            self.assertIn('ConfigMap %s/a' % NS, message)

    def test_objects_of_two_objects_resources(self):
        for message in self.refused({'objs': objects(web('w')),
                                     'more': objects(config_map('b'),
                                                     web('w'))},
                                    blamed=('objs', 'more')):
            self.assertIn('two resources of a stack cannot manage one '
                          'object', message)

    def test_different_objects_are_accepted(self):
        single = {'type': 'OS::Kubernetes::ConfigMap',
                  'properties': {'name': 'b', 'data': {'k': 'v'}}}
        tmpl = template({'objs': objects(config_map('a'),
                                         config_map('b', namespace='other')),
                         'single': single})
        self.assertNotIn('Error', self.template_validate(tmpl))
        self.parse(tmpl).validate()

    def test_an_empty_list_is_refused(self):
        self.assertRefused({'objs': objects()}, 'manifests')
