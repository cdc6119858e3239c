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

"""Drift: `stack check` names what changed outside Heat, and an update
with the same template (`stack update --existing`) puts it back."""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

import base64

from tests import simulated

APPLY = 'application/apply-patch+yaml'
SECRET = 'Sup3r-s3cret-passw0rd'
EDITED = 'edited-passw0rd-value'


def template(resources):
    return {'heat_template_version': '2021-04-16', 'resources': resources}


APP = template({
    'web': {'type': 'OS::Kubernetes::Deployment', 'properties': {'spec': {
        'replicas': 2, 'selector': {'matchLabels': {'app': 'web'}},
        'template': {'metadata': {'labels': {'app': 'web'}},
                     'spec': simulated.on_kwok({'containers': [{
                         'name': 'app', 'image': 'registry.invalid/app:1'}]})},
    }}},
    'settings': {'type': 'OS::Kubernetes::ConfigMap',
                 'properties': {'data': {'a': '1', 'b': '2'}}},
    'extra': {'type': 'OS::Kubernetes::ConfigMap',
              'properties': {'data': {'c': '3'}}},
})
CREDS = template({'creds': {'type': 'OS::Kubernetes::Secret',
                            'properties': {'string_data': {
                                'password': SECRET}}}})


class DriftTest(heat_cluster.ClusterTestCase):

    def name(self, stack, resource):
        return stack[resource].data()['name']

    def test_check_names_drift_and_update_converges_it(self):
        stack = self.create(APP)
        self.assertState(stack, 'CREATE', 'COMPLETE')
        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'COMPLETE')
        web, settings = self.name(stack, 'web'), self.name(stack, 'settings')
        uids = {r: stack[r].resource_id for r in ('web', 'settings')}

        # kubectl apply --server-side --force-conflicts --field-manager=ops
        self.apps.patch_namespaced_deployment(
            web, self.ns, {'apiVersion': 'apps/v1', 'kind': 'Deployment',
                           'metadata': {'name': web},
                           'spec': {'replicas': 4}},
            field_manager='ops', force=True, _content_type=APPLY)
        # kubectl edit, kubectl annotate, kubectl delete
        self.core.patch_namespaced_config_map(
            settings, self.ns, {'data': {'a': 'changed'}},
            field_manager='kubectl-edit')
        self.apps.patch_namespaced_deployment(
            web, self.ns, {'metadata': {'annotations': {'owner': 'ops'}}},
            field_manager='kubectl-annotate')
        self.core.delete_namespaced_config_map(self.name(stack, 'extra'),
                                               self.ns)

        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'FAILED')
        reason = stack['web'].status_reason
        self.assertIn('spec.replicas 2 \u2192 4 (manager ops)', reason)
        self.assertNotIn('owner', reason)
        self.assertLessEqual(len(reason), 255)
        self.assertIn('data.a 1 \u2192 changed (manager kubectl-edit)',
                      stack['settings'].status_reason)
        self.assertNotIn('data.b', stack['settings'].status_reason)
        self.assertIn('does not exist', stack['extra'].status_reason)

        # `stack update --existing` without changes: the stored template.
        stack = self.update(stack, existing=True)
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        live = self.apps.read_namespaced_deployment(web, self.ns)
        self.assertEqual(2, live.spec.replicas)
        self.assertEqual('ops', live.metadata.annotations['owner'])
        self.assertEqual(uids['web'], live.metadata.uid)  # not replaced
        config = self.core.read_namespaced_config_map(settings, self.ns)
        self.assertEqual({'a': '1', 'b': '2'}, config.data)
        self.assertEqual(uids['settings'], config.metadata.uid)
        self.assertEqual({'c': '3'}, self.core.read_namespaced_config_map(
            self.name(stack, 'extra'), self.ns).data)

        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'COMPLETE')

    def test_secret_drift_names_the_key_never_the_value(self):
        stack = self.create(CREDS)
        self.assertState(stack, 'CREATE', 'COMPLETE')
        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'COMPLETE')
        name, uid = self.name(stack, 'creds'), stack['creds'].resource_id
        self.core.patch_namespaced_secret(
            name, self.ns, {'data': {'password': base64.b64encode(
                EDITED.encode()).decode()}}, field_manager='kubectl-edit')

        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'FAILED')
        reason = stack['creds'].status_reason
        self.assertIn('data.password changed (manager kubectl-edit)', reason)
        for value in (SECRET, EDITED):
            self.assertNotIn(value, reason)
            self.assertNotIn(base64.b64encode(value.encode()).decode(),
                             reason)

        stack = self.update(stack, existing=True)
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        live = self.core.read_namespaced_secret(name, self.ns)
        self.assertEqual(SECRET, base64.b64decode(
            live.data['password']).decode())
        self.assertEqual(uid, live.metadata.uid)  # not replaced
        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'COMPLETE')
