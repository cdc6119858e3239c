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

"""The REST layer without a server: selectors, paths, error messages, and
watches read from recorded streams."""

import base64
import io
import json
from unittest import mock
import urllib.parse

from kubernetes import client as k8s_client
import testtools
import urllib3

from heat_k8s import kinds
from heat_k8s.client import apierrors
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


class CreateOnlyTest(testtools.TestCase):

    def test_a_version_no_object_has_on_a_copy(self):
        manifest = {'apiVersion': 'v1', 'kind': 'ConfigMap',
                    'metadata': {'name': 'c', 'labels': {'a': 'b'}},
                    'data': {'k': 'v'}}
        before = json.dumps(manifest, sort_keys=True)
        created = kube.create_only(manifest)
        self.assertEqual(str(2 ** 63 - 1),
                         created['metadata']['resourceVersion'])
        self.assertEqual({'a': 'b'}, created['metadata']['labels'])
        self.assertEqual({'k': 'v'}, created['data'])
        self.assertEqual(before, json.dumps(manifest, sort_keys=True))


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
        self.assertEqual({'pods', 'endpointslices', 'storageclass', 'events'},
                         related)
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
        message, status = apierrors.status_message(
            422, json.dumps(fixtures.load('status_required')))
        self.assertIn('spec.template.spec.containers[0].image: '
                      'Required value', message)
        self.assertIn('(HTTP 422 Invalid)', message)
        self.assertEqual('Invalid', status['reason'])

    def test_causes_missing_from_the_message_are_added(self):
        body = fixtures.load('status_required')
        body['message'] = 'Deployment.apps "web" is invalid'
        message, _ = apierrors.status_message(422, json.dumps(body))
        self.assertIn('; spec.template.spec.containers[0].image: Required '
                      'value', message)

    def test_object_dumps_are_clipped(self):
        message, status = apierrors.status_message(
            422, json.dumps(JOB_TEMPLATE_422))
        self.assertEqual('Job.batch "j1" is invalid: spec.template: Invalid '
                         'value: {...}: field is immutable (HTTP 422 '
                         'Invalid)', message)
        self.assertTrue(immutable.is_immutable_error(status))

    def test_go_syntax_dumps_are_clipped(self):
        message, _ = apierrors.status_message(
            422, json.dumps(fixtures.load('status_job_template')))
        # A 1.36 API server dumps the template as JSON.
        self.assertIn('spec.template: Invalid value: {...}: field is '
                      'immutable', message)

    def test_short_values_are_kept(self):
        self.assertEqual('spec.replicas: Invalid value: -1: must be >= 0',
                         apierrors.clip_values('spec.replicas: Invalid value: '
                                            '-1: must be >= 0'))
        self.assertEqual('labels: Invalid value: {"a":"c"}: no match',
                         apierrors.clip_values('labels: Invalid value: '
                                            '{"a":"c"}: no match'))

    def test_secret_values_are_removed(self):
        body = {'kind': 'Status', 'code': 422, 'reason': 'Invalid',
                'message': 'Secret "s" is invalid: data[pw]: Invalid '
                           'value: "hunter2": bad'}
        message, status = apierrors.status_message(422, json.dumps(body),
                                                secrets=['hunter2'])
        self.assertNotIn('hunter2', message)
        self.assertNotIn('hunter2', json.dumps(status))

    def test_secret_values_are_removed_in_every_spelling(self):
        # An admission webhook may quote a value changed or in part.
        value = 'Kq2-zX9w-Lm4vP0t'
        for quoted in (value.upper(), value[2:12],
                       base64.urlsafe_b64encode(value.encode()).decode()):
            body = {'kind': 'Status', 'code': 400, 'reason': 'BadRequest',
                    'message': 'admission webhook "policy" denied the '
                               'request: token %s is weak' % quoted}
            message, status = apierrors.status_message(
                400, json.dumps(body), secrets=[base64.b64encode(
                    value.encode()).decode()])
            self.assertNotIn(quoted, message)
            self.assertIn('denied the request: token <redacted> is weak',
                          message)
            self.assertNotIn(quoted, json.dumps(status))

    def test_non_status_bodies(self):
        message, status = apierrors.status_message(503, 'upstream down')
        self.assertEqual('upstream down (HTTP 503)', message)
        self.assertEqual({}, status)
        message, _ = apierrors.status_message(500, '')
        self.assertEqual('Kubernetes API error (HTTP 500)', message)

    def test_a_refused_token_says_what_refuses_it(self):
        # kube-apiserver's answer when its token webhook is down.
        body = {'kind': 'Status', 'apiVersion': 'v1', 'metadata': {},
                'status': 'Failure', 'message': 'Unauthorized',
                'reason': 'Unauthorized', 'code': 401}
        message, _ = apierrors.status_message(401, json.dumps(body))
        self.assertEqual(
            'Unauthorized (HTTP 401 Unauthorized): the Kubernetes API did '
            "not accept the Keystone token: the cluster's Keystone webhook "
            '(k8s-keystone-auth) is down or cannot reach Keystone, or the '
            'token expired (heat.conf reauthentication_auth_method = trusts '
            'renews it)', message)

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


class ReadableEventsForTest(testtools.TestCase):
    """A claim's events explain it: unreadable ones explain nothing."""

    PVC = StorageClassForTest.PVC

    def setUp(self):
        super().setUp()
        self.kube = kube.Kube(mock.Mock())

    def test_events_a_user_may_not_list_are_none(self):
        forbidden = kube.ApiError(403, 'Forbidden', 'events is forbidden')
        with mock.patch.object(self.kube, 'list', side_effect=forbidden):
            self.assertEqual([], self.kube.readable_events_for(self.PVC))

    def test_other_errors_are_raised(self):
        error = kube.ApiError(503, 'Unavailable', 'etcd is down')
        with mock.patch.object(self.kube, 'list', side_effect=error):
            self.assertRaises(kube.ApiError, self.kube.readable_events_for,
                              self.PVC)


def watch_stream(*events, lines=()):
    """A watch response body: one JSON event a line, as the API sends."""
    text = ''.join(json.dumps(event) + '\n' for event in events)
    return (text + ''.join(line + '\n' for line in lines)).encode()


class Body(io.BytesIO):
    """A response body that, as http.client's, is closed once read."""

    def isclosed(self):
        return self.tell() == len(self.getvalue())


class DroppedConnection(io.RawIOBase):
    """A response body whose connection breaks after its first bytes."""

    def __init__(self, data):
        self.data = data

    def readable(self):
        return True

    def readinto(self, buffer):
        if not self.data:
            raise ConnectionResetError('connection reset by peer')
        size = len(self.data)
        buffer[:size], self.data = self.data, b''
        return size


class RecordedPool:
    """urllib3's pool manager answering recorded bodies, beneath the client
    library's own ApiClient (whichever generation is installed)."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.requests = []

    def request(self, method, url, fields=None, headers=None, body=None,
                timeout=None, preload_content=True, **kwargs):
        parts = urllib.parse.urlsplit(url)
        self.requests.append((method, parts.path, dict(urllib.parse.parse_qsl(
            parts.query)), timeout))
        status, answer = self.answers.pop(0)
        if isinstance(answer, Exception):
            raise answer
        if isinstance(answer, bytes):
            answer = Body(answer)
        return urllib3.HTTPResponse(body=answer, status=status,
                                    preload_content=preload_content)


def recorded(*answers):
    """(Kube, RecordedPool): a Kube whose requests the pool answers."""
    pool = RecordedPool(*answers)
    api = k8s_client.ApiClient(k8s_client.Configuration(
        host='https://k8s.test'))
    api.rest_client.pool_manager = pool
    return kube.Kube(api), pool


class WatchTest(testtools.TestCase):
    """Kube.watch on recorded streams (tests/functional/test_watch.py
    runs it against a real API server)."""

    def setUp(self):
        super().setUp()
        self.pod = fixtures.load('pod_probe_failing')
        self.ready = fixtures.load('pod_ready')

    def watch(self, *answers, seconds=5):
        client, pool = recorded(*answers)
        return list(client.watch(self.pod, seconds)), pool

    def test_the_watch_asks_for_its_object_from_its_version(self):
        _, api = self.watch((200, watch_stream()), seconds=4.5)
        (method, path, query, timeout), = api.requests
        self.assertEqual(('GET', '/api/v1/namespaces/%s/pods'
                          % self.pod['metadata']['namespace']),
                         (method, path))
        self.assertEqual({'watch': 'true', 'fieldSelector':
                          'metadata.name=unready', 'resourceVersion':
                          self.pod['metadata']['resourceVersion'],
                          'timeoutSeconds': '4'}, query)
        # The read timeout covers the whole watch.
        self.assertEqual((30, 34.5), (timeout.connect_timeout,
                                      timeout.read_timeout))

    def test_each_version_is_yielded_with_its_kind(self):
        del self.ready['kind'], self.ready['apiVersion']
        changes, _ = self.watch((200, watch_stream(
            {'type': 'MODIFIED', 'object': self.pod},
            {'type': 'BOOKMARK', 'object': {'metadata': {
                'resourceVersion': '1490'}}},
            {'type': 'MODIFIED', 'object': self.ready})))
        self.assertEqual([self.pod, dict(self.ready, kind='Pod',
                                         apiVersion='v1')], changes)

    def test_a_deletion_is_yielded_as_none_and_ends_the_watch(self):
        changes, _ = self.watch((200, watch_stream(
            {'type': 'MODIFIED', 'object': self.pod},
            {'type': 'DELETED', 'object': self.pod},
            {'type': 'ADDED', 'object': self.ready})))
        self.assertEqual([self.pod, None], changes)

    def test_an_expired_version_ends_the_watch_quietly(self):
        expired = {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',
                   'message': 'too old resource version: 1473 (1600)',
                   'reason': 'Expired', 'code': 410}
        changes, api = self.watch((200, watch_stream(
            {'type': 'MODIFIED', 'object': self.pod},
            {'type': 'ERROR', 'object': expired},
            {'type': 'MODIFIED', 'object': self.ready})))
        self.assertEqual([self.pod], changes)
        self.assertEqual(1, len(api.requests))  # not resumed

    def test_a_refused_watch_ends_quietly(self):
        refused = {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',
                   'message': 'resourceVersion: Invalid value: '
                              '"not-a-version": strconv.ParseUint: parsing',
                   'reason': 'BadRequest', 'code': 400}
        changes, _ = self.watch((400, json.dumps(refused).encode()))
        self.assertEqual([], changes)

    def test_a_dropped_connection_ends_the_watch_quietly(self):
        changes, _ = self.watch((200, DroppedConnection(watch_stream(
            {'type': 'MODIFIED', 'object': self.pod}))))
        self.assertEqual([], changes)

    def test_a_line_that_is_not_json_is_skipped(self):
        changes, _ = self.watch((200, watch_stream(
            {'type': 'MODIFIED', 'object': self.ready}, lines=['{"type"'])))
        self.assertEqual([self.ready], changes)

    def test_a_service_is_watched_through_its_endpointslices(self):
        service = fixtures.load('service_clusterip')
        endpoints = fixtures.load('endpointslice_web')
        client, api = recorded(
            (200, watch_stream({'type': 'ADDED', 'object': endpoints},
                               {'type': 'DELETED', 'object': endpoints})),
            (200, json.dumps(service).encode()),
            (404, b'{"kind": "Status", "code": 404}'))
        changes = list(client.watch_endpoints(service, 5))
        # Each change of a slice yields the Service read anew; a Service
        # gone ends the watch.
        self.assertEqual([service, None], changes)
        (_m, path, query, _t), read, gone = api.requests
        namespace = service['metadata']['namespace']
        self.assertEqual('/apis/discovery.k8s.io/v1/namespaces/%s/'
                         'endpointslices' % namespace, path)
        self.assertEqual({'watch': 'true',
                          'resourceVersion': service['metadata'][
                              'resourceVersion'],
                          'labelSelector': 'kubernetes.io/service-name=web',
                          'timeoutSeconds': '5'}, query)
        self.assertEqual(('GET', '/api/v1/namespaces/%s/services/web'
                          % namespace), read[:2])

    def test_what_decides_readiness_is_what_is_watched(self):
        client = kube.Kube(mock.Mock())
        self.assertEqual(client.watch_endpoints, client.watcher_for(
            kinds.declared('Service').watches))
        # A claim changes itself as it binds; its StorageClass never does.
        for kind in ('PersistentVolumeClaim', 'Deployment', 'Job'):
            self.assertEqual(client.watch, client.watcher_for(
                kinds.declared(kind).watches))
        # Whatever a kind may declare has its watch.
        for watched in kinds.Watched:
            self.assertTrue(callable(client.watcher_for(watched)))

    def test_an_unreachable_api_raises_as_a_read_does(self):
        error = self.assertRaises(kube.ApiError, self.watch, (
            0, urllib3.exceptions.NewConnectionError(None, 'refused')))
        self.assertEqual(0, error.status)
        self.assertIn('Kubernetes API https://k8s.test unreachable',
                      str(error))
