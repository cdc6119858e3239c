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

import datetime
import importlib
import ipaddress
import json
import logging
import os
import socket
import ssl
import threading
import time
import types
import urllib.parse

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
import fixtures
from kubernetes import client as k8s_client
import testtools

from heat_k8s.client import kube
from tests.unit import fixtures as objects
from tests.unit import tokens

# The module itself: once Heat imports eventlet.green.BaseHTTPServer, the
# http package's `server` attribute is eventlet's green copy, whose server
# would wait on a hub no thread runs.
http_server = importlib.import_module('http.server')
SECRET = objects.load('secret')
SECRET_PATH = '/api/v1/namespaces/%s/secrets/db-credentials' % (
    SECRET['metadata']['namespace'])
# What must never reach a log: the fixture Secret's data, encoded and not.
SECRET_VALUES = ('czNjcjN0LVBhNTV3MHJk', 's3cr3t-Pa55w0rd')


class _Handler(http_server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def _answer(self):
        server = self.server
        path, _, query = self.path.partition('?')
        body = self.rfile.read(int(self.headers.get('Content-Length') or 0))
        # The client certificate a TLS connection presented (None: none).
        peer = getattr(self.connection, 'getpeercert', lambda: None)()
        server.requests.append(types.SimpleNamespace(
            method=self.command, path=path, headers=self.headers,
            query=dict(urllib.parse.parse_qsl(query)), body=body, peer=peer))
        if server.closes.get((self.command, path)):
            # Read, then closed without an answer, as a server closes an
            # idle kept-alive connection.
            server.closes[(self.command, path)] -= 1
            self.close_connection = True
            return
        status, data, delay = server.answers[(self.command, path)]
        time.sleep(delay)
        try:
            self.send_response(status)
            self.send_header('Content-Type', 'application/json')
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except OSError:
            pass  # the client gave up waiting

    do_GET = do_PATCH = do_DELETE = _answer

    def log_message(self, *args):
        pass  # not a test's output


class Pki(fixtures.Fixture):
    """A CA, a server certificate for 127.0.0.1 and a client certificate,
    as PEM files in a temporary directory."""

    def _setUp(self):
        self.dir = self.useFixture(fixtures.TempDir()).path
        ca_key = ec.generate_private_key(ec.SECP256R1())
        ca = self._certificate('test CA', ca_key, ca_key, None, ca=True)
        self.ca_file = self._write('ca.pem', ca)
        self.server_cert, self.server_key = self._issue(
            'server', ca, ca_key, x509.SubjectAlternativeName(
                [x509.IPAddress(ipaddress.ip_address('127.0.0.1'))]))
        self.client_cert, self.client_key = self._issue('heat', ca, ca_key)

    def _issue(self, name, ca, ca_key, extension=None):
        key = ec.generate_private_key(ec.SECP256R1())
        cert = self._certificate(name, key, ca_key, ca, extension=extension)
        return (self._write(name + '.pem', cert),
                self._write(name + '.key', key))

    @staticmethod
    def _certificate(name, key, signer, issuer, ca=False, extension=None):
        now = datetime.datetime.now(datetime.timezone.utc)
        subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
        builder = (x509.CertificateBuilder()
                   .subject_name(subject)
                   .issuer_name(issuer.subject if issuer else subject)
                   .public_key(key.public_key())
                   .serial_number(x509.random_serial_number())
                   .not_valid_before(now - datetime.timedelta(minutes=1))
                   .not_valid_after(now + datetime.timedelta(hours=1))
                   .add_extension(x509.BasicConstraints(ca=ca,
                                                        path_length=None),
                                  critical=True))
        if extension is not None:
            builder = builder.add_extension(extension, critical=False)
        return builder.sign(signer, hashes.SHA256())

    def _write(self, name, obj):
        if isinstance(obj, x509.Certificate):
            data = obj.public_bytes(serialization.Encoding.PEM)
        else:
            data = obj.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption())
        path = os.path.join(self.dir, name)
        with open(path, 'wb') as f:
            f.write(data)
        return path


class LoopbackApi(fixtures.Fixture):
    """An API server stand-in on 127.0.0.1 answering by method and path;
    over TLS with a Pki, asking for (not requiring) a client certificate,
    as kube-apiserver does."""

    def __init__(self, pki=None):
        super().__init__()
        self.pki = pki

    def _setUp(self):
        for name in ('http_proxy', 'https_proxy', 'all_proxy'):
            # The client library would send a loopback request to a proxy.
            self.useFixture(fixtures.EnvironmentVariable(name))
            self.useFixture(fixtures.EnvironmentVariable(name.upper()))
        server = http_server.ThreadingHTTPServer(('127.0.0.1', 0), _Handler)
        server.daemon_threads = True
        server.answers, server.requests, server.closes = {}, [], {}
        scheme = 'http'
        if self.pki:
            tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            tls.load_cert_chain(self.pki.server_cert, self.pki.server_key)
            tls.load_verify_locations(self.pki.ca_file)
            tls.verify_mode = ssl.CERT_OPTIONAL
            server.socket = tls.wrap_socket(server.socket, server_side=True)
            scheme = 'https'
        # Shutdown waits for the next poll: at the default half second,
        # every test would.
        threading.Thread(target=server.serve_forever, args=(0.02,),
                         daemon=True).start()
        self.addCleanup(server.server_close)
        self.addCleanup(server.shutdown)
        self.requests = server.requests
        self.answers = server.answers
        self.closes = server.closes
        self.url = '%s://127.0.0.1:%d' % (scheme, server.server_port)

    def answer(self, method, path, status, doc, delay=0):
        data = doc if isinstance(doc, bytes) else json.dumps(doc).encode()
        self.answers[(method, path)] = (status, data, delay)

    def kube(self, token=None, timeout=30, api=None):
        api = api or k8s_client.ApiClient(k8s_client.Configuration(
            host=self.url))
        return kube.Kube(api, timeout=timeout,
                         token=token and (lambda: token))


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


def ca_of(api):
    """The CA bundle (PEM text) an ApiClient's connections verify with."""
    kw = api.rest_client.pool_manager.connection_pool_kw
    if kw.get('ca_cert_data'):
        return kw['ca_cert_data']
    with open(kw['ca_certs']) as f:  # clients before 37 take a file only
        return f.read()
