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

"""heat_k8s.kinds.drift over objects recorded from a real API server.

The fixtures drift_*.json were applied as DEPLOYMENT, CONFIGMAP and
SECRET below with field manager 'heat', then changed outside Heat:
`kubectl apply --server-side --force-conflicts --field-manager=ops` of
replicas 5, a merge patch by kubectl-edit replacing the containers (image
app:9, ports and resources gone), label tier removed, `kubectl annotate`;
ConfigMap data.a edited and annotated; Secret data.password edited.
drift_deployment_clean is DEPLOYMENT applied and left alone;
drift_deployment_scaled is it after `kubectl scale --replicas=4` (manager
kubectl, through the scale subresource).
"""

import base64
import copy

import testtools

from heat_k8s.kinds import drift
from tests.unit import fixtures

DEPLOYMENT = {
    'apiVersion': 'apps/v1', 'kind': 'Deployment',
    'metadata': {'name': 'web', 'namespace': 'drift-rec',
                 'labels': {'app.kubernetes.io/managed-by': 'heat',
                            'tier': 'front'},
                 'annotations': {'heat.openstack.org/resource-uuid':
                                 '0f1e2d3c-aaaa-bbbb-cccc-111122223333'}},
    'spec': {'replicas': 3, 'selector': {'matchLabels': {'app': 'web'}},
             'template': {'metadata': {'labels': {'app': 'web'}},
                          'spec': {'containers': [{
                              'name': 'app',
                              'image': 'registry.invalid/app:1',
                              'ports': [{'containerPort': 5000}],
                              'resources': {'requests': {'cpu': '0.5'}}}]}}}}
CONFIGMAP = {'apiVersion': 'v1', 'kind': 'ConfigMap',
             'metadata': {'name': 'settings', 'namespace': 'drift-rec',
                          'labels': {'app.kubernetes.io/managed-by': 'heat'}},
             'data': {'a': '1', 'b': '2'}}
PASSWORD = 'Sup3r-s3cret'
SECRET = {'apiVersion': 'v1', 'kind': 'Secret',
          'metadata': {'name': 'creds', 'namespace': 'drift-rec'},
          'type': 'Opaque', 'stringData': {'password': PASSWORD},
          'data': {'token': 'dG9rZW4x'}}
CONTAINER = 'spec.template.spec.containers[name=app]'


def real(name):
    return fixtures.load('drift_' + name)


def named(manifest, name):
    manifest = copy.deepcopy(manifest)
    manifest['metadata']['name'] = name
    return manifest


class FindingsTest(testtools.TestCase):

    def drifted(self, applied, live):
        return {f.path: f for f in drift.findings(applied, live, 'heat')}

    def test_untouched_object_has_no_drift(self):
        # cpu '0.5' is stored as '500m', defaults are added: Heat still
        # owns its fields, so nothing drifted.
        live = real('deployment_clean')
        self.assertEqual('500m', live['spec']['template']['spec'][
            'containers'][0]['resources']['requests']['cpu'])
        self.assertEqual({}, self.drifted(named(DEPLOYMENT, 'clean'), live))

    def test_empty_fields_the_server_left_out_are_not_drift(self):
        # Seen with a pod template's `annotations: {}` in
        # OS::Kubernetes::Objects: the stored object has no annotations.
        applied = named(DEPLOYMENT, 'clean')
        applied['spec']['template']['metadata']['annotations'] = {}
        applied['spec']['template']['spec']['volumes'] = []
        self.assertEqual({}, self.drifted(applied,
                                          real('deployment_clean')))

    def test_changed_removed_and_taken_fields(self):
        found = self.drifted(DEPLOYMENT, real('deployment_web'))
        self.assertEqual(
            ['metadata.labels.tier', 'spec.replicas', CONTAINER + '.image',
             CONTAINER + '.ports', CONTAINER + '.resources.requests.cpu'],
            list(found))
        replicas = found['spec.replicas']
        self.assertEqual((3, 5, ('ops',)), (replicas.applied, replicas.live,
                                            replicas.managers))
        self.assertEqual(('kubectl-edit',),
                         found[CONTAINER + '.image'].managers)
        self.assertIs(drift.MISSING, found['metadata.labels.tier'].live)

    def test_scaled_through_the_scale_subresource(self):
        found = self.drifted(named(DEPLOYMENT, 'clean'),
                             real('deployment_scaled'))
        self.assertEqual(['spec.replicas'], list(found))
        self.assertEqual((3, 4, ('kubectl',)), (
            found['spec.replicas'].applied, found['spec.replicas'].live,
            found['spec.replicas'].managers))

    def test_fields_heat_never_set_are_not_drift(self):
        applied = copy.deepcopy(DEPLOYMENT)
        del applied['spec']['replicas']   # e.g. an autoscaler owns them
        found = self.drifted(applied, real('deployment_web'))
        self.assertNotIn('spec.replicas', found)
        self.assertNotIn('metadata.annotations.owner', found)

    def test_configmap_value_edited(self):
        found = self.drifted(CONFIGMAP, real('cm_settings'))
        self.assertEqual(['data.a'], list(found))
        self.assertEqual(('1', 'changed', ('kubectl-edit',)),
                         (found['data.a'].applied, found['data.a'].live,
                          found['data.a'].managers))

    def test_secret_string_data_compares_with_stored_data(self):
        found = self.drifted(SECRET, real('secret_creds'))
        self.assertEqual(['data.password'], list(found))
        self.assertTrue(found['data.password'].sensitive)
        self.assertEqual(('kubectl-edit',), found['data.password'].managers)

    def test_secret_string_data_unchanged_is_no_drift(self):
        live = real('secret_creds')
        live['data']['password'] = base64.b64encode(
            PASSWORD.encode()).decode()
        self.assertEqual({}, self.drifted(SECRET, live))

    def test_ownership_taken_with_the_same_value_is_drift(self):
        live = real('deployment_web')
        live['spec']['replicas'] = 3
        found = self.drifted(DEPLOYMENT, live)
        self.assertEqual(('ops',), found['spec.replicas'].managers)

    def test_identity_fields_never_drift(self):
        self.assertEqual({}, self.drifted(named(DEPLOYMENT, 'other'),
                                          real('deployment_clean')))


class ForeignTest(testtools.TestCase):

    def test_metadata_added_by_others(self):
        self.assertEqual(['metadata.annotations.owner'], drift.foreign(
            DEPLOYMENT, real('deployment_web'), 'heat'))
        self.assertEqual(['metadata.annotations.note'], drift.foreign(
            CONFIGMAP, real('cm_settings'), 'heat'))

    def test_metadata_heat_sets_is_not_foreign(self):
        applied = copy.deepcopy(CONFIGMAP)
        applied['metadata']['annotations'] = {'note': 'x'}
        self.assertEqual([], drift.foreign(applied, real('cm_settings'),
                                           'heat'))


class MessageTest(testtools.TestCase):

    def test_names_paths_values_and_managers(self):
        found = drift.findings(DEPLOYMENT, real('deployment_web'), 'heat')
        text = drift.message('Deployment drift-rec/web', found)
        self.assertTrue(text.startswith(
            'Deployment drift-rec/web drifted from the template: '
            'metadata.labels.tier removed; spec.replicas 3 \u2192 5 '
            '(manager ops)'), text)
        self.assertLessEqual(len(text), drift.REASON_MAX)
        self.assertIn('more', text)

    def test_and_n_more_within_the_limit(self):
        found = drift.findings(DEPLOYMENT, real('deployment_web'), 'heat')
        text = drift.message('Deployment drift-rec/web', found, limit=120)
        self.assertLessEqual(len(text), 120)
        self.assertTrue(text.endswith('; and 4 more'), text)

    def test_secret_values_never_shown(self):
        live = real('secret_creds')
        found = drift.findings(SECRET, live, 'heat')
        text = drift.message('Secret drift-rec/creds', found)
        self.assertEqual('Secret drift-rec/creds drifted from the template: '
                         'data.password changed (manager kubectl-edit)', text)
        for value in (PASSWORD, 'other', live['data']['password'],
                      base64.b64encode(PASSWORD.encode()).decode()):
            self.assertNotIn(value, text)

    def test_long_values_are_cut(self):
        applied = copy.deepcopy(CONFIGMAP)
        applied['data']['a'] = 'x' * 100
        text = drift.message('ConfigMap n', drift.findings(
            applied, real('cm_settings'), 'heat'))
        self.assertIn('data.a %s... \u2192 changed' % ('x' * 27), text)
