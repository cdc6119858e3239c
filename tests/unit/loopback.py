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

"""A Kubernetes API server stand-in on 127.0.0.1 (LoopbackApi), in a thread
of the test, answering what each test sets; a CA and certificates for it
(Pki). tests/unit/test_transport.py and the client plugin's tests use
them.
"""

import datetime
import importlib
import ipaddress
import json
import os
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

from heat_k8s.client import kube

# The module itself: once Heat imports eventlet.green.BaseHTTPServer, the
# http package's `server` attribute is eventlet's green copy, whose server
# would wait on a hub no thread runs.
http_server = importlib.import_module('http.server')


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


def ca_of(api):
    """The CA bundle (PEM text) an ApiClient's connections verify with."""
    kw = api.rest_client.pool_manager.connection_pool_kw
    if kw.get('ca_cert_data'):
        return kw['ca_cert_data']
    with open(kw['ca_certs']) as f:  # clients before 37 take a file only
        return f.read()
