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

import copy
import json
import unittest

from heat_k8s import kinds
from heat_k8s.kinds import immutable
from tests.unit.fixtures import load


def desired(name):
    """A desired manifest as Heat writes it: no status, no server fields."""
    obj = load(name)
    obj.pop('status', None)
    obj['metadata'] = {k: v for k, v in obj['metadata'].items()
                       if k in ('name', 'namespace', 'labels')}
    return obj


DELETE = object()


def changed(obj, path, value):
    """A copy of obj with the dotted path set to value (or DELETEd)."""
    new = copy.deepcopy(obj)
    *parents, last = path.split('.')
    node = new
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node[key]
    if value is DELETE:
        del node[last]
    else:
        node[last] = value
    return new


class TableTest(unittest.TestCase):

    def test_entries_are_paths(self):
        for kind in kinds.DECLARATIONS:
            for rule in kinds.immutable_rules(kind.name):
                self.assertIsInstance(rule, immutable.Rule, kind.name)
                self.assertIsInstance(rule.exceptions, tuple, kind.name)
                for exception in rule.exceptions:
                    self.assertTrue(exception.startswith(rule + '.'),
                                    exception)
        self.assertIn('spec.template', kinds.KINDS['Job'].immutable)
        self.assertIn('metadata.name', immutable.EVERY_KIND)

    def test_every_kind_gets_the_common_rules(self):
        self.assertEqual(immutable.EVERY_KIND,
                         kinds.immutable_rules('Database'))
        self.assertEqual(
            immutable.EVERY_KIND + kinds.KINDS['Deployment'].immutable,
            kinds.immutable_rules('Deployment'))
        self.assertEqual(('spec.selector',),
                         kinds.KINDS['Deployment'].immutable)


class ReplacementPathsTest(unittest.TestCase):

    def assert_paths(self, expected, kind, old, new):
        self.assertEqual(expected,
                         kinds.replacement_paths(kind, old, new))

    def test_identical_manifests(self):
        for name in ('job_running', 'statefulset_ready', 'pod_ready',
                     'pvc_bound_local', 'service_clusterip', 'secret'):
            obj = desired(name)
            self.assert_paths([], obj['kind'], obj, copy.deepcopy(obj))

    def test_name_namespace_and_kind_for_every_kind(self):
        cm = desired('configmap')
        self.assert_paths(['metadata.name'], 'ConfigMap', cm,
                         changed(cm, 'metadata.name', 'web-config-2'))
        self.assert_paths(['metadata.namespace'], 'ConfigMap', cm,
                         changed(cm, 'metadata.namespace', 'other'))
        self.assert_paths(['kind'], 'ConfigMap', cm,
                         changed(cm, 'kind', 'Secret'))
        self.assert_paths([], 'ConfigMap', cm,
                         changed(cm, 'metadata.labels', {'tier': 'web'}))

    def test_job(self):
        job = desired('job_running')
        image = 'spec.template.spec.containers.0.image'
        self.assert_paths(['spec.template'], 'Job', job,
                         changed(job, image, 'keystone:2026.3'))
        self.assert_paths(['spec.completions'], 'Job', job,
                         changed(job, 'spec.completions', 3))
        self.assert_paths(['spec.selector'], 'Job', job,
                         changed(job, 'spec.selector', DELETE))
        self.assert_paths([], 'Job', job, changed(job, 'spec.parallelism', 2))
        self.assert_paths([], 'Job', job,
                         changed(job, 'spec.activeDeadlineSeconds', 600))

    def test_missing_counts_as_a_change_only_against_a_value(self):
        job = desired('job_running')
        without = changed(job, 'spec.completions', DELETE)
        self.assert_paths(['spec.completions'], 'Job', without, job)
        self.assert_paths(['spec.completions'], 'Job', job, without)
        self.assert_paths([], 'Job', without, copy.deepcopy(without))
        # A null in a template is the same as leaving the field out.
        self.assert_paths([], 'Job', without,
                         changed(without, 'spec.completions', None))

    def test_deployment_template_rolls_but_selector_replaces(self):
        deployment = desired('deployment_ready')
        self.assert_paths([], 'Deployment', deployment, changed(
            deployment, 'spec.template.spec.containers.0.image', 'n:2'))
        self.assert_paths([], 'Deployment', deployment,
                         changed(deployment, 'spec.replicas', 5))
        self.assert_paths(['spec.selector'], 'Deployment', deployment,
                         changed(deployment, 'spec.selector.matchLabels',
                                 {'app': 'web', 'v': '2'}))

    def test_statefulset_names_the_immutable_fields_that_changed(self):
        sts = desired('statefulset_ready')
        # The recorded one has no claims (the real node has no provisioner).
        sts['spec']['volumeClaimTemplates'] = [{
            'metadata': {'name': 'data'}, 'spec': {
                'accessModes': ['ReadWriteOnce'],
                'resources': {'requests': {'storage': '1Gi'}}}}]
        storage = ('spec.volumeClaimTemplates.0.spec.resources.requests.'
                   'storage')
        self.assert_paths(['spec.volumeClaimTemplates'], 'StatefulSet', sts,
                         changed(sts, storage, '10Gi'))
        self.assert_paths(['spec.podManagementPolicy', 'spec.serviceName'],
                         'StatefulSet', sts,
                         changed(changed(sts, 'spec.serviceName', 'db-hl'),
                                 'spec.podManagementPolicy', 'Parallel'))
        for path, value in (('spec.replicas', 5),
                            ('spec.template.spec.containers.0.image', 'x'),
                            ('spec.updateStrategy', {'type': 'OnDelete'}),
                            ('spec.minReadySeconds', 10)):
            self.assert_paths([], 'StatefulSet', sts,
                             changed(sts, path, value))

    def test_service(self):
        svc = desired('service_clusterip')
        self.assert_paths(['spec.clusterIP'], 'Service', svc,
                         changed(svc, 'spec.clusterIP', '10.96.0.99'))
        self.assert_paths([], 'Service', svc,
                         changed(svc, 'spec.ports.0.port', 8000))
        self.assert_paths([], 'Service', svc,
                         changed(svc, 'spec.type', 'NodePort'))
        external = changed(svc, 'spec.type', 'ExternalName')
        self.assert_paths(['spec.type'], 'Service', svc, external)
        self.assert_paths(['spec.type'], 'Service', external,
                         changed(svc, 'spec.type', DELETE))

    def test_pvc_storage_can_grow_in_place(self):
        pvc = desired('pvc_bound_local')
        self.assert_paths([], 'PersistentVolumeClaim', pvc, changed(
            pvc, 'spec.resources.requests.storage', '5Gi'))
        self.assert_paths(['spec.storageClassName'], 'PersistentVolumeClaim',
                         pvc, changed(pvc, 'spec.storageClassName', 'fast'))
        self.assert_paths(['spec.accessModes'], 'PersistentVolumeClaim', pvc,
                         changed(pvc, 'spec.accessModes', ['ReadWriteMany']))
        self.assert_paths(['spec.resources'], 'PersistentVolumeClaim', pvc,
                         changed(pvc, 'spec.resources.limits',
                                 {'storage': '5Gi'}))

    def test_pod_images_and_a_few_fields_are_mutable(self):
        pod = desired('pod_ready')
        pod['spec']['initContainers'] = [{'name': 'init', 'image': 'a:1'}]
        for path, value in (('spec.containers.0.image', 'nginx:1.28'),
                            ('spec.initContainers.0.image', 'a:2'),
                            ('spec.activeDeadlineSeconds', 30),
                            ('spec.tolerations', [])):
            self.assert_paths([], 'Pod', pod, changed(pod, path, value))
        self.assert_paths(['spec.containers'], 'Pod', pod,
                         changed(pod, 'spec.containers.0.env',
                                 [{'name': 'A', 'value': '1'}]))
        self.assert_paths(['spec.restartPolicy'], 'Pod', pod,
                         changed(pod, 'spec.restartPolicy', 'Never'))

    def test_configmap_data_is_locked_only_when_old_is_immutable(self):
        cm = desired('configmap')
        edited = changed(cm, 'data.LOG_LEVEL', 'debug')
        self.assert_paths([], 'ConfigMap', cm, edited)
        locked = changed(cm, 'immutable', True)
        self.assert_paths([], 'ConfigMap', cm, locked)
        self.assert_paths(['data'], 'ConfigMap', locked,
                         changed(locked, 'data.LOG_LEVEL', 'debug'))
        self.assert_paths(['binaryData'], 'ConfigMap', locked,
                         changed(locked, 'binaryData', {}))
        self.assert_paths(['immutable'], 'ConfigMap', locked,
                         changed(locked, 'immutable', False))
        self.assert_paths(['immutable'], 'ConfigMap', locked, cm)

    def test_secret(self):
        secret = desired('secret')
        self.assert_paths(['type'], 'Secret', secret,
                         changed(secret, 'type', 'kubernetes.io/tls'))
        self.assert_paths([], 'Secret', secret,
                         changed(secret, 'data.password', 'bmV3'))
        locked = changed(secret, 'immutable', True)
        self.assert_paths(['stringData'], 'Secret', locked,
                         changed(locked, 'stringData', {'password': 'new'}))

    def test_bindings_and_storage_classes(self):
        binding = {'apiVersion': 'rbac.authorization.k8s.io/v1',
                   'kind': 'RoleBinding',
                   'metadata': {'name': 'ops', 'namespace': 'demo'},
                   'roleRef': {'apiGroup': 'rbac.authorization.k8s.io',
                               'kind': 'ClusterRole', 'name': 'member'},
                   'subjects': [{'kind': 'Group', 'name': 'ops'}]}
        self.assert_paths(['roleRef'], 'RoleBinding', binding,
                         changed(binding, 'roleRef.name', 'admin'))
        self.assert_paths([], 'RoleBinding', binding,
                         changed(binding, 'subjects', []))
        sc = load('storageclass_local_path')
        self.assert_paths(['parameters'], 'StorageClass', sc,
                         changed(sc, 'parameters', {'type': 'ssd'}))
        self.assert_paths([], 'StorageClass', sc,
                         changed(sc, 'allowVolumeExpansion', True))

    def test_paths_are_sorted_and_inputs_untouched(self):
        job = desired('job_running')
        new = changed(changed(job, 'spec.completions', 2), 'metadata.name',
                      'db-sync-2')
        new['spec']['template']['spec']['containers'][0]['image'] = 'x'
        before = json.dumps([job, new], sort_keys=True)
        self.assert_paths(['metadata.name', 'spec.completions',
                          'spec.template'], 'Job', job, new)
        self.assertEqual(before, json.dumps([job, new], sort_keys=True))


class IsImmutableErrorTest(unittest.TestCase):

    def test_api_statuses(self):
        self.assertTrue(immutable.is_immutable_error(
            load('status_job_template')))
        self.assertTrue(immutable.is_immutable_error(
            load('status_statefulset_spec')))
        self.assertFalse(immutable.is_immutable_error(
            load('status_required')))
        self.assertFalse(immutable.is_immutable_error(
            load('status_conflict')))

    def test_json_text_and_bytes(self):
        text = json.dumps(load('status_job_template'))
        self.assertTrue(immutable.is_immutable_error(text))
        self.assertTrue(immutable.is_immutable_error(text.encode()))
        self.assertFalse(immutable.is_immutable_error(
            json.dumps(load('status_conflict'))))
        self.assertFalse(immutable.is_immutable_error('[1, 2]'))

    def test_messages_of_each_kind(self):
        messages = [
            'Pod "web" is invalid: spec: Forbidden: pod updates may not '
            'change fields other than `spec.containers[*].image`,'
            '`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`',
            'PersistentVolumeClaim "data" is invalid: spec: Forbidden: spec '
            'is immutable after creation except resources.requests and '
            'volumeAttributesClassName for bound claims',
            'Service "web" is invalid: spec.clusterIPs[0]: Invalid value: '
            '[]string{"10.96.0.99"}: may not change once set',
            'ConfigMap "web-config" is invalid: data: Forbidden: field is '
            'immutable when `immutable` is set',
            'StorageClass.storage.k8s.io "fast" is invalid: parameters: '
            'Forbidden: updates to parameters are forbidden.',
            'RoleBinding.rbac.authorization.k8s.io "ops" is invalid: '
            'roleRef: Invalid value: rbac.RoleRef{APIGroup:"", Kind:"", '
            'Name:""}: cannot change roleRef',
        ]
        for message in messages:
            self.assertTrue(immutable.is_immutable_error(message), message)
            self.assertTrue(immutable.is_immutable_error(
                {'kind': 'Status', 'code': 422, 'message': message}))
            self.assertFalse(immutable.is_immutable_error(
                {'kind': 'Status', 'code': 500, 'message': message}))

    def test_other_errors(self):
        for body in ('', 'connection refused', None, 42,
                     {'code': 422, 'message': 'metadata.name: Invalid value: '
                                              '"Web": a lowercase RFC 1123'}):
            self.assertFalse(immutable.is_immutable_error(body), body)


if __name__ == '__main__':
    unittest.main()
