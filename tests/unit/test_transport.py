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

"""Requests on the wire, through the installed client library.

An HTTP server on 127.0.0.1, in a thread of the test, answers what each
test sets; the kubernetes client library in between is the real one, of
whichever generation the environment installs (py3-2025.1: 32, py3: 37).
"""

import json
import logging
import socket
import time

import fixtures
from kubernetes import client as k8s_client
import testtools

from heat_k8s.client import kube
from tests.unit import fixtures as objects
from tests.unit import tokens
from tests.unit.loopback import LoopbackApi
from tests.unit.loopback import Pki

SECRET = objects.load('secret')
SECRET_PATH = '/api/v1/namespaces/%s/secrets/db-credentials' % (
    SECRET['metadata']['namespace'])
# What must never reach a log: the fixture Secret's data, encoded and not.
SECRET_VALUES = ('czNjcjN0LVBhNTV3MHJk', 's3cr3t-Pa55w0rd')


class AllLogRecords(fixtures.Fixture):
    """Every record any logger makes, at any level: heat-engine's debug
    log and more (no logger's level, handler or propagation can hide
    one)."""

    def _setUp(self):
        self.records = []
        self.useFixture(fixtures.MonkeyPatch(
            'logging.Logger.isEnabledFor', lambda logger, level: True))
        self.useFixture(fixtures.MonkeyPatch(
            'logging.Logger.handle',
            lambda logger, record: self.records.append(record)))

    def text(self):
        formatter = logging.Formatter('%(name)s %(message)s')
        return '\n'.join(formatter.format(record) for record in self.records)


def status(code, reason, message):
    return {'kind': 'Status', 'apiVersion': 'v1', 'status': 'Failure',
            'code': code, 'reason': reason, 'message': message}


class TransportTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.server = self.useFixture(LoopbackApi())

    def test_each_caller_sends_its_own_token(self):
        self.server.answer('GET', '/api/v1/namespaces/demo', 200, {})
        shared = k8s_client.ApiClient(k8s_client.Configuration(
            host=self.server.url))
        for token in ('token-alice', 'token-bob', 'token-alice'):
            self.server.kube(token, api=shared).get('v1', 'Namespace',
                                                    'demo')
        self.assertEqual(['Bearer token-alice', 'Bearer token-bob',
                          'Bearer token-alice'],
                         [r.headers['Authorization']
                          for r in self.server.requests])
        self.assertEqual({}, shared.configuration.api_key)

    def test_apply_and_delete_bodies(self):
        manifest = objects.load('configmap')
        path = '/api/v1/namespaces/%s/configmaps/%s' % (
            manifest['metadata']['namespace'], manifest['metadata']['name'])
        self.server.answer('PATCH', path, 200, manifest)
        self.server.answer('DELETE', path, 200, {})
        client = self.server.kube()
        self.assertEqual(manifest, client.apply(manifest))
        self.assertTrue(client.delete('v1', 'ConfigMap',
                                      manifest['metadata']['name'],
                                      manifest['metadata']['namespace'],
                                      uid='u1'))
        applied, deleted = self.server.requests
        self.assertEqual('application/apply-patch+yaml',
                         applied.headers['Content-Type'])
        self.assertEqual(manifest, json.loads(applied.body))
        self.assertEqual({'fieldManager': 'heat', 'force': 'true',
                          'fieldValidation': 'Strict'}, applied.query)
        self.assertEqual('application/json', deleted.headers['Content-Type'])
        self.assertEqual({'apiVersion': 'v1', 'kind': 'DeleteOptions',
                          'propagationPolicy': 'Foreground',
                          'preconditions': {'uid': 'u1'}},
                         json.loads(deleted.body))

    def test_a_refusal_is_an_api_error_with_its_status(self):
        # Clients before 37 raise ApiException for these: an answer all
        # the same, not an unreachable API.
        path = '/api/v1/namespaces/demo/configmaps/c'
        self.server.answer('GET', path, 422, status(
            422, 'Invalid', 'ConfigMap "c" is invalid: data: Too long'))
        error = self.assertRaises(kube.ApiError, self.server.kube().get,
                                  'v1', 'ConfigMap', 'c', 'demo')
        self.assertEqual(422, error.status)
        self.assertEqual('ConfigMap "c" is invalid: data: Too long (HTTP '
                         '422 Invalid)', str(error))
        self.assertEqual('Invalid', error.status_body['reason'])
        self.server.answer('GET', path, 404, status(404, 'NotFound', 'no'))
        self.assertIsNone(self.server.kube().get('v1', 'ConfigMap', 'c',
                                                 'demo'))

    def test_a_refused_token_is_reported(self):
        token = tokens.ExpiredToken()

        self.server.answer('GET', '/api/v1/namespaces/demo', 401, status(
            401, 'Unauthorized', 'Unauthorized'))
        client = self.server.kube()
        client.token = token
        error = self.assertRaises(kube.ApiError, client.get, 'v1',
                                  'Namespace', 'demo')
        self.assertEqual((401, [True]), (error.status, token.refusals))

    def test_an_unreachable_api(self):
        with socket.socket() as free:
            free.bind(('127.0.0.1', 0))
            url = 'http://127.0.0.1:%d' % free.getsockname()[1]
        client = self.server.kube(api=k8s_client.ApiClient(
            k8s_client.Configuration(host=url)))
        error = self.assertRaises(kube.ApiError, client.get, 'v1',
                                  'Namespace', 'demo')
        self.assertEqual(0, error.status)
        self.assertIn('Kubernetes API %s unreachable' % url, str(error))

    def test_an_apply_closed_without_an_answer_goes_once_more(self):
        manifest = objects.load('configmap')
        path = '/api/v1/namespaces/%s/configmaps/%s' % (
            manifest['metadata']['namespace'], manifest['metadata']['name'])
        self.server.answer('PATCH', path, 200, manifest)
        self.server.closes[('PATCH', path)] = 1
        self.assertEqual(manifest, self.server.kube().apply(manifest))
        self.assertEqual(['PATCH', 'PATCH'],
                         [r.method for r in self.server.requests])
        # Twice closed: the API is unreachable, as any other failure says.
        self.server.closes[('PATCH', path)] = 2
        error = self.assertRaises(kube.ApiError, self.server.kube().apply,
                                  manifest)
        self.assertEqual(0, error.status)
        self.assertIn('unreachable', str(error))
        self.assertEqual(4, len(self.server.requests))

    def test_a_request_times_out(self):
        manifest = objects.load('configmap')
        self.server.answer('PATCH', '/api/v1/namespaces/%s/configmaps/%s' % (
            manifest['metadata']['namespace'], manifest['metadata']['name']),
            200, manifest, delay=3)
        started = time.monotonic()
        error = self.assertRaises(kube.ApiError,
                                  self.server.kube(timeout=0.5).apply,
                                  manifest)
        self.assertLess(time.monotonic() - started, 2.5)
        self.assertIn('unreachable', str(error))

    def test_a_watch_streams_its_events(self):
        pod = objects.load('pod_ready')
        path = '/api/v1/namespaces/%s/pods' % pod['metadata']['namespace']
        self.server.answer('GET', path, 200, b'\n'.join((
            json.dumps({'type': 'MODIFIED', 'object': pod}).encode(),
            b'{"type"',  # not JSON: skipped, by every client generation
            json.dumps({'type': 'DELETED', 'object': pod}).encode(), b'')))
        self.assertEqual([pod, None], list(self.server.kube().watch(pod, 5)))
        request, = self.server.requests
        self.assertEqual('true', request.query['watch'])

    def test_a_secrets_data_never_reaches_a_log(self):
        # Clients before 37 log every preloaded response body at DEBUG.
        secret = objects.load('secret')
        self.server.answer('GET', SECRET_PATH, 200, secret)
        self.server.answer('PATCH', SECRET_PATH, 422, status(
            422, 'Invalid', 'Secret "db-credentials" is invalid: data: '
            'Invalid value: "s3cr3t-Pa55w0rd": no'))
        client = self.server.kube()
        logs = self.useFixture(AllLogRecords())
        self.assertEqual(secret, client.get('v1', 'Secret', 'db-credentials',
                                            secret['metadata']['namespace']))
        error = self.assertRaises(kube.ApiError, client.apply, secret)
        self.assertNotIn(SECRET_VALUES[1], str(error))
        self.server.answer('GET', SECRET_PATH.rsplit('/', 1)[0], 200,
                           json.dumps({'type': 'MODIFIED', 'object': secret}
                                      ).encode() + b'\n')
        self.assertEqual([secret], list(client.watch(secret, 5)))
        text = logs.text()
        # The capture works: urllib3 told of its connection.
        self.assertIn('urllib3.connectionpool', text)
        for value in SECRET_VALUES:
            self.assertNotIn(value, text)


class ClientCertificateTest(testtools.TestCase):
    """What the TLS server records of a client certificate: the check of
    the plugin's requests in test_client would see one if sent."""

    def test_a_presented_certificate_is_recorded(self):
        pki = self.useFixture(Pki())
        server = self.useFixture(LoopbackApi(pki))
        server.answer('GET', '/api/v1/namespaces/demo', 200, {})
        conf = k8s_client.Configuration(host=server.url)
        conf.ssl_ca_cert = pki.ca_file
        conf.cert_file, conf.key_file = pki.client_cert, pki.client_key
        server.kube('t', api=k8s_client.ApiClient(conf)).get(
            'v1', 'Namespace', 'demo')
        request, = server.requests
        self.assertEqual(((('commonName', 'heat'),),),
                         request.peer['subject'])


