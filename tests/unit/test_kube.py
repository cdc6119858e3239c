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

"""The pure parts of the REST layer: selectors, paths, error messages."""

import json
from unittest import mock

import testtools

from heat_k8s import kinds
from heat_k8s.client import kube
from heat_k8s.kinds import immutable
from tests.unit import fixtures

# As kube-apiserver 1.36 answered a change to a Job's pod template.
JOB_TEMPLATE_422 = {
    'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',
    'reason': 'Invalid', 'code': 422,
    'message': 'Job.batch "j1" is invalid: spec.template: Invalid value: '
               '{"labels":{"job-name":"j1"},"Spec":{"Volumes":null,'
               '"Containers":[{"Name":"c","Image":"busybox:2","Command":'
               'null,"Args":["a}b\\"]"]}]}}: field is immutable',
    'details': {'name': 'j1', 'group': 'batch', 'kind': 'Job', 'causes': [
        {'reason': 'FieldValueInvalid', 'field': 'spec.template',
         'message': 'Invalid value: {"labels":{"job-name":"j1"}}: field is '
                    'immutable'}]}}


class LabelSelectorTest(testtools.TestCase):

    def test_match_labels_and_expressions(self):
        self.assertEqual(
            'app=web,tier=front,env in (prod,stage),zone notin (a),'
            'canary,!legacy',
            kube.label_selector({
                'matchLabels': {'tier': 'front', 'app': 'web'},
                'matchExpressions': [
                    {'key': 'env', 'operator': 'In',
                     'values': ['prod', 'stage']},
                    {'key': 'zone', 'operator': 'NotIn', 'values': ['a']},
                    {'key': 'canary', 'operator': 'Exists'},
                    {'key': 'legacy', 'operator': 'DoesNotExist'}]}))

    def test_empty_selector_selects_nothing(self):
        # An empty selector matches every pod: never list a namespace.
        self.assertIsNone(kube.label_selector(None))
        self.assertIsNone(kube.label_selector({}))
        self.assertIsNone(kube.label_selector({'matchLabels': {}}))


class PathTest(testtools.TestCase):

    def test_core_and_group_paths(self):
        self.assertEqual('/api/v1/namespaces/ns/pods',
                         kinds.collection_path('v1', 'pods', 'ns'))
        self.assertEqual('/apis/apps/v1/namespaces/ns/deployments',
                         kinds.collection_path('apps/v1', 'deployments',
                                               'ns'))
        self.assertEqual('/apis/storage.k8s.io/v1/storageclasses',
                         kinds.collection_path('storage.k8s.io/v1',
                                               'storageclasses'))

    def test_builtin_needs_the_right_api_version(self):
        self.assertEqual('deployments',
                         kinds.builtin('apps/v1', 'Deployment').plural)
        self.assertIsNone(kinds.builtin('extensions/v1beta1',
                                        'Deployment'))
        self.assertIsNone(kinds.builtin('example.com/v1', 'Widget'))

    def test_every_declared_related_object_has_a_fetcher(self):
        related = set().union(*(kind.related for kind in kinds.DECLARATIONS))
        self.assertEqual({'pods', 'endpointslices', 'storageclass'}, related)
        self.assertEqual(related, set(kube.Kube.RELATED))

    def test_discovered_kinds_have_no_rules_of_their_own(self):
        doc = {'resources': [
            {'name': 'widgets', 'kind': 'Widget', 'namespaced': True},
            {'name': 'widgets/status', 'kind': 'Widget', 'namespaced': True},
            {'name': 'gadgets', 'kind': 'Gadget', 'namespaced': False}]}
        found = _Discovery(doc)._discover('example.com/v1')
        self.assertEqual(['Gadget', 'Widget'], sorted(found))
        widget = found['Widget']
        self.assertEqual(('Widget', 'example.com/v1', 'widgets', True),
                         (widget.name, widget.api_version, widget.plural,
                          widget.namespaced))
        self.assertFalse(found['Gadget'].namespaced)
        self.assertEqual((), widget.immutable)
        self.assertEqual(frozenset(), widget.related)
        self.assertIsNone(widget.suspend)


class _Discovery(kube.Kube):
    """A Kube whose every request answers one discovery document."""

    def __init__(self, doc):
        self.doc, self.endpoint = doc, 'https://kube.test'

    def request(self, method, path, query=None, body=None, **kwargs):
        return self.doc


class StatusMessageTest(testtools.TestCase):

    def test_message_names_the_field(self):
        message, status = kube.status_message(
            422, json.dumps(fixtures.load('status_required')))
        self.assertIn('spec.template.spec.containers[0].image: '
                      'Required value', message)
        self.assertIn('(HTTP 422 Invalid)', message)
        self.assertEqual('Invalid', status['reason'])

    def test_causes_missing_from_the_message_are_added(self):
        body = fixtures.load('status_required')
        body['message'] = 'Deployment.apps "web" is invalid'
        message, _ = kube.status_message(422, json.dumps(body))
        self.assertIn('; spec.template.spec.containers[0].image: Required '
                      'value', message)

    def test_object_dumps_are_clipped(self):
        message, status = kube.status_message(
            422, json.dumps(JOB_TEMPLATE_422))
        self.assertEqual('Job.batch "j1" is invalid: spec.template: Invalid '
                         'value: {...}: field is immutable (HTTP 422 '
                         'Invalid)', message)
        self.assertTrue(immutable.is_immutable_error(status))

    def test_go_syntax_dumps_are_clipped(self):
        message, _ = kube.status_message(
            422, json.dumps(fixtures.load('status_job_template')))
        self.assertIn('Invalid value: core.PodTemplateSpec{...}: field is '
                      'immutable', message)

    def test_short_values_are_kept(self):
        self.assertEqual('spec.replicas: Invalid value: -1: must be >= 0',
                         kube.clip_values('spec.replicas: Invalid value: '
                                          '-1: must be >= 0'))
        self.assertEqual('labels: Invalid value: {"a":"c"}: no match',
                         kube.clip_values('labels: Invalid value: '
                                          '{"a":"c"}: no match'))

    def test_secret_values_are_removed(self):
        body = {'kind': 'Status', 'code': 422, 'reason': 'Invalid',
                'message': 'Secret "s" is invalid: data[pw]: Invalid '
                           'value: "hunter2": bad'}
        message, status = kube.status_message(422, json.dumps(body),
                                              secrets=['hunter2'])
        self.assertNotIn('hunter2', message)
        self.assertNotIn('hunter2', json.dumps(status))

    def test_non_status_bodies(self):
        message, status = kube.status_message(503, 'upstream down')
        self.assertEqual('upstream down (HTTP 503)', message)
        self.assertEqual({}, status)
        message, _ = kube.status_message(500, '')
        self.assertEqual('Kubernetes API error (HTTP 500)', message)

    def test_api_error_text_is_the_message_only(self):
        error = kube.ApiError(404, 'Not Found', 'pods "x" not found')
        self.assertEqual('pods "x" not found', str(error))
        self.assertEqual(404, error.status)


class StorageClassForTest(testtools.TestCase):
    """A claim's binding mode, also for users who may not read classes."""

    PVC = {'metadata': {'name': 'data', 'namespace': 'ns', 'uid': 'u1'},
           'spec': {'storageClassName': 'local'}}

    def setUp(self):
        super().setUp()
        self.kube = kube.Kube(mock.Mock())

    def _forbidden(self):
        return kube.ApiError(403, 'Forbidden', 'storageclasses.storage.k8s.io'
                             ' "local" is forbidden')

    def test_readable_class(self):
        sc = {'metadata': {'name': 'local'},
              'volumeBindingMode': 'Immediate'}
        with mock.patch.object(self.kube, 'get', return_value=sc):
            self.assertIs(sc, self.kube.storageclass_for(self.PVC))

    def test_forbidden_class_reads_the_claims_events(self):
        event = {'reason': 'WaitForFirstConsumer',
                 'message': 'waiting for first consumer to be created '
                            'before binding'}
        with mock.patch.object(self.kube, 'get',
                               side_effect=self._forbidden()), \
                mock.patch.object(self.kube, 'list',
                                  return_value=[event]) as listed:
            sc = self.kube.storageclass_for(self.PVC)
        self.assertEqual('WaitForFirstConsumer', sc['volumeBindingMode'])
        listed.assert_called_once_with(
            'v1', 'Event', 'ns', field_selector='involvedObject.uid=u1')

    def test_forbidden_class_without_events_is_unknown(self):
        with mock.patch.object(self.kube, 'get',
                               side_effect=self._forbidden()), \
                mock.patch.object(self.kube, 'list', return_value=[]):
            self.assertIsNone(self.kube.storageclass_for(self.PVC))

    def test_other_errors_are_raised(self):
        error = kube.ApiError(500, 'Internal', 'etcd is down')
        with mock.patch.object(self.kube, 'get', side_effect=error):
            self.assertRaises(kube.ApiError, self.kube.storageclass_for,
                              self.PVC)
