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

"""What Heat writes: manifests, names, ownership, replace-or-update."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy
import json

from heat.common import exception
from heat.engine import api
from heat.objects import event as event_object
from oslo_config import cfg

from heat_k8s.kinds import labels
from heat_k8s.kinds import naming
from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import keyring
from tests.unit.heat_harness import deployment
from tests.unit.heat_harness import template

SECRET_VALUE = 'hunter2-correct-horse'


class ManifestTest(heat_harness.KubernetesTestCase):

    def _resource(self, definition, name='web', stack_name='shop'):
        stack = self.parse(template({name: definition}),
                           stack_name=stack_name)
        rsrc = stack[name]
        rsrc.store()  # gives it the uuid its generated name comes from
        return rsrc

    def test_generated_name_is_dns_safe_and_per_resource(self):
        rsrc = self._resource(deployment(), name='Web_Front',
                              stack_name='My_Shop')
        name = rsrc.manifest(rsrc.properties)['metadata']['name']
        self.assertIsNone(naming.validate(name, 'label'))
        self.assertTrue(name.startswith('my-shop-web-front-'), name)
        # Another physical resource (a replacement) gets another name.
        other = self._resource(deployment(), name='Web_Front',
                               stack_name='My_Shop2')
        self.assertNotEqual(
            name, other.manifest(other.properties)['metadata']['name'])

    def test_fixed_name_and_namespace(self):
        rsrc = self._resource(deployment(name='web', namespace='shop'))
        meta = rsrc.manifest(rsrc.properties)['metadata']
        self.assertEqual(('web', 'shop'), (meta['name'], meta['namespace']))

    def test_default_namespace_is_the_project(self):
        rsrc = self._resource(deployment())
        self.assertEqual(heat_harness.PROJECT_ID,
                         rsrc.manifest(rsrc.properties)['metadata'][
                             'namespace'])

    def test_default_namespace_format(self):
        cfg.CONF.set_override('default_namespace',
                              'heat-%(stack_name)s', group='kubernetes')
        rsrc = self._resource(deployment(), stack_name='shop')
        self.assertEqual('heat-shop', rsrc.manifest(rsrc.properties)[
            'metadata']['namespace'])

    def test_namespace_has_no_namespace(self):
        rsrc = self._resource({'type': 'OS::Kubernetes::Namespace',
                               'properties': {'name': 'shop'}})
        manifest = rsrc.manifest(rsrc.properties)
        self.assertEqual({'apiVersion': 'v1', 'kind': 'Namespace'},
                         {k: manifest[k] for k in ('apiVersion', 'kind')})
        self.assertNotIn('namespace', manifest['metadata'])

    def test_ownership_labels_are_merged_and_cannot_be_forged(self):
        rsrc = self._resource(deployment(labels={
            'tier': 'front', labels.STACK_ID: 'someone-else',
            labels.MANAGED_BY: 'helm'}))
        manifest = rsrc.manifest(rsrc.properties)
        self.assertEqual('front', manifest['metadata']['labels']['tier'])
        self.assertTrue(labels.is_owned_by(manifest, rsrc.stack.id, 'web'))
        self.assertEqual(rsrc.uuid, manifest['metadata']['annotations'][
            labels.RESOURCE_UUID])

    def test_user_annotations_are_kept(self):
        rsrc = self._resource(deployment(annotations={'team': 'shop'}))
        annotations = rsrc.manifest(rsrc.properties)['metadata'][
            'annotations']
        self.assertEqual('shop', annotations['team'])

    def test_unowned_manifest_carries_no_ownership(self):
        rsrc = self._resource(deployment())
        manifest = rsrc.manifest(rsrc.properties, owned=False)
        self.assertEqual((None, None), labels.owner_of(manifest))
        self.assertNotIn('labels', manifest['metadata'])

    def test_spec_is_passed_through(self):
        rsrc = self._resource(deployment())
        manifest = rsrc.manifest(rsrc.properties)
        self.assertEqual(deployment()['properties']['spec'],
                         manifest['spec'])
        self.assertEqual('apps/v1', manifest['apiVersion'])

    def test_configmap_properties_map_to_api_fields(self):
        rsrc = self._resource({'type': 'OS::Kubernetes::ConfigMap',
                               'properties': {'data': {'a': '1'},
                                              'binary_data': {'b': 'AA=='},
                                              'immutable': True}})
        manifest = rsrc.manifest(rsrc.properties)
        self.assertEqual(({'a': '1'}, {'b': 'AA=='}, True),
                         (manifest['data'], manifest['binaryData'],
                          manifest['immutable']))

    def test_generic_manifest_keeps_its_fields_and_metadata(self):
        rsrc = self._resource({'type': 'OS::Kubernetes::Resource',
                               'properties': {'labels': {'a': '1'},
                                              'manifest': {
            'apiVersion': 'v1', 'kind': 'ServiceAccount',
            'metadata': {'name': 'robot', 'labels': {'b': '2'},
                         'finalizers': ['example.com/keep']},
            'automountServiceAccountToken': False}}}, name='sa')
        manifest = rsrc.manifest(rsrc.properties)
        self.assertEqual('robot', manifest['metadata']['name'])
        self.assertEqual(heat_harness.PROJECT_ID,
                         manifest['metadata']['namespace'])
        self.assertEqual(['example.com/keep'],
                         manifest['metadata']['finalizers'])
        self.assertEqual(('1', '2'), (manifest['metadata']['labels']['a'],
                                      manifest['metadata']['labels']['b']))
        self.assertTrue(labels.is_owned_by(manifest, rsrc.stack.id, 'sa'))
        self.assertFalse(manifest['automountServiceAccountToken'])

    def test_generic_manifest_cannot_forge_ownership(self):
        rsrc = self._resource({'type': 'OS::Kubernetes::Resource',
                               'properties': {'manifest': {
            'apiVersion': 'v1', 'kind': 'ServiceAccount',
            'metadata': {'name': 'w', 'namespace': 'shop',
                         'annotations': {labels.RESOURCE: 'other'},
                         'labels': {labels.STACK_ID: 'other'}}}}},
            name='w')
        manifest = rsrc.manifest(rsrc.properties)
        self.assertEqual((rsrc.stack.id, 'w'), labels.owner_of(manifest))
        self.assertEqual('shop', manifest['metadata']['namespace'])


class ReplaceOrUpdateTest(heat_harness.KubernetesTestCase):
    """needs_replace_with_prop_diff: decided before calling the API."""

    def _needs_replace(self, definition, change, data=None):
        stack = self.parse(template({'r': definition}))
        rsrc = stack['r']
        rsrc.store()
        for key, value in (data or {}).items():
            rsrc.data_set(key, value)
        after = copy.deepcopy(definition)
        change(after['properties'])
        after_stack = self.parse(template({'r': after}))
        after_props = after_stack['r'].properties
        return rsrc.needs_replace_with_prop_diff(
            {'spec'}, after_props, rsrc.properties)

    def _job(self):
        return {'type': 'OS::Kubernetes::Job', 'properties': {
            'name': 'dbsync', 'spec': {'backoffLimit': 2, 'template': {
                'spec': {'restartPolicy': 'Never', 'containers': [
                    {'name': 'c', 'image': 'db:1'}]}}}}}

    def test_job_template_change_replaces(self):
        def new_image(props):
            props['spec']['template']['spec']['containers'][0][
                'image'] = 'db:2'
        self.assertTrue(self._needs_replace(self._job(), new_image))

    def test_job_backoff_change_updates_in_place(self):
        def more_retries(props):
            props['spec']['backoffLimit'] = 5
        self.assertFalse(self._needs_replace(self._job(), more_retries))

    def test_deployment_replicas_update_in_place(self):
        def scale(props):
            props['spec']['replicas'] = 5
        self.assertFalse(self._needs_replace(deployment(), scale))

    def test_generic_manifest_rename_replaces(self):
        widget = {'type': 'OS::Kubernetes::Resource', 'properties': {
            'manifest': {'apiVersion': 'example.com/v1', 'kind': 'Widget',
                         'metadata': {'name': 'w1'}, 'spec': {'size': 1}}}}

        def rename(props):
            props['manifest']['metadata']['name'] = 'w2'

        def resize(props):
            props['manifest']['spec']['size'] = 2
        # As after create: the scope is known without API discovery.
        created = {'name': 'w1', 'namespace': 'shop'}
        self.assertTrue(self._needs_replace(widget, rename, created))
        self.assertFalse(self._needs_replace(widget, resize, created))

    def test_deployment_selector_change_replaces(self):
        def reselect(props):
            props['spec']['selector'] = {'matchLabels': {'app': 'web2'}}
            props['spec']['template']['metadata']['labels'] = {
                'app': 'web2'}
        self.assertTrue(self._needs_replace(deployment(), reselect))


class SecretHiddenTest(heat_harness.KubernetesTestCase):
    """Secret values stay out of Heat's database, events and messages."""

    def _secret(self, props):
        return self.stored_secret(props, SECRET_VALUE)

    def test_stored_properties_and_events_hold_no_value(self):
        rsrc = self._secret({'string_data': {'pw': {'get_param': 'pw'}},
                             'data': {'raw': 'aHVudGVyMg=='}})
        rsrc._update_stored_properties()
        rsrc._add_event('CREATE', 'IN_PROGRESS', 'testing')
        stored = json.dumps(rsrc._stored_properties_data)
        self.assertNotIn(SECRET_VALUE, stored)
        self.assertNotIn('aHVudGVyMg==', stored)
        self.assertIn('"pw": "<redacted:', stored)
        events = event_object.Event.get_all_by_stack(rsrc.context,
                                                     rsrc.stack.id)
        self.assertTrue(events)
        for event in events:
            self.assertNotIn(SECRET_VALUE, json.dumps(
                event.resource_properties))

    def test_stack_preview_shows_no_value(self):
        rsrc = self._secret({'string_data': {'pw': {'get_param': 'pw'}},
                             'data': {'raw': 'aHVudGVyMg=='}})
        shown = json.dumps(api.format_stack_preview(rsrc.stack),
                           default=str)
        self.assertNotIn(SECRET_VALUE, shown)
        self.assertNotIn('aHVudGVyMg==', shown)
        self.assertIn('<redacted:', shown)
        # The resource itself still writes the real value.
        self.assertEqual(SECRET_VALUE, rsrc.manifest(rsrc.properties)[
            'stringData']['pw'])

    def test_the_manifest_still_carries_the_value(self):
        rsrc = self._secret({'string_data': {'pw': {'get_param': 'pw'}}})
        self.assertEqual(SECRET_VALUE, rsrc.manifest(rsrc.properties)[
            'stringData']['pw'])

    def test_fingerprints_are_stable_keyed_per_project_and_distinct(self):
        def fingerprint(value, project=heat_harness.PROJECT_ID):
            return sensitive.fingerprint(value, project)
        first = fingerprint(SECRET_VALUE)
        self.assertEqual(first, fingerprint(SECRET_VALUE))
        self.assertEqual(first, fingerprint(first))
        self.assertNotEqual(first, fingerprint('other'))
        self.assertNotEqual(first, fingerprint(SECRET_VALUE, 'other-project'))
        self.assertNotIn(SECRET_VALUE, first)
        # Keyed from digest_key: Heat's own key changes nothing.
        cfg.CONF.set_override('auth_encryption_key',
                              heat_harness.AUTH_ENCRYPTION_KEY[::-1])
        self.assertEqual(first, fingerprint(SECRET_VALUE))
        cfg.CONF.set_override('digest_key', keyring.generate(),
                              group='heat_k8s')
        digest_keyed = fingerprint(SECRET_VALUE)
        self.assertNotEqual(first, digest_keyed)
        # Rotating sealing keys changes no digest.
        cfg.CONF.set_override('sealing_keys', [keyring.generate()],
                              group='heat_k8s')
        self.assertEqual(digest_keyed, fingerprint(SECRET_VALUE))
        # Unset, keyed from auth_encryption_key instead.
        cfg.CONF.clear_override('digest_key', group='heat_k8s')
        self.assertNotIn(fingerprint(SECRET_VALUE), (first, digest_keyed))

    def test_stored_fingerprints_are_never_written(self):
        rsrc = self._secret({'string_data': {'pw': {'get_param': 'pw'}}})
        rsrc._update_stored_properties()
        frozen = rsrc.frozen_definition().properties(
            rsrc.properties_schema, rsrc.context)
        error = self.assertRaises(exception.Error, rsrc.object.apply,
                                  rsrc.manifest(frozen))
        self.assertIn('does not store the values', str(error))

    def test_immutable_secret_is_replaced_only_when_data_changes(self):
        rsrc = self._secret({'immutable': True,
                             'string_data': {'pw': {'get_param': 'pw'}}})
        rsrc._update_stored_properties()
        stored = rsrc.frozen_definition().properties(
            rsrc.properties_schema, rsrc.context)
        self.assertFalse(rsrc.needs_replace_with_prop_diff(
            {'string_data'}, rsrc.properties, stored))
        changed = self.parse(template({'s': {
            'type': 'OS::Kubernetes::Secret', 'properties': {
                'immutable': True, 'string_data': {'pw': 'new'}}}}))['s']
        self.assertTrue(rsrc.needs_replace_with_prop_diff(
            {'string_data'}, changed.properties, stored))


class LiveStateTest(heat_harness.KubernetesTestCase):
    """Observe reality compares only the fields a template sets."""

    def test_live_state_is_projected_on_the_template(self):
        stack = self.parse(template({'web': deployment(labels={'a': '1'})}))
        rsrc = stack['web']
        live = {'metadata': {'labels': {'a': '2', 'added': 'by-others'}},
                'spec': copy.deepcopy(deployment()['properties']['spec'])}
        live['spec']['replicas'] = 7
        live['spec']['revisionHistoryLimit'] = 10  # an API default
        state = rsrc.parse_live_resource_data(rsrc.properties, live)
        self.assertEqual({'a': '2'}, state['labels'])
        self.assertEqual(7, state['spec']['replicas'])
        self.assertNotIn('revisionHistoryLimit', state['spec'])

    def test_secret_values_are_not_observed(self):
        stack = self.parse(template({'s': {
            'type': 'OS::Kubernetes::Secret',
            'properties': {'data': {'pw': 'aHVudGVyMg=='}}}}))
        rsrc = stack['s']
        state = rsrc.parse_live_resource_data(
            rsrc.properties, {'metadata': {}, 'data': {'pw': 'eA=='}})
        self.assertNotIn('data', state)
        self.assertNotIn('string_data', state)
