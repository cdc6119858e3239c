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

"""The Keystone-brokered client: endpoint, TLS and a fresh token per call.

No request is sent: the tests stop at the headers the client would send.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import os
import tempfile
import types

from heat.common import exception
from heat.engine.clients.os import magnum
from heat.tests import utils
from kubernetes.client import exceptions as k8s_exceptions
from magnumclient import exceptions as magnum_exc
from oslo_config import cfg

from heat_k8s.client import kube
from heat_k8s.client import plugin as client

KUBECONFIG = """
apiVersion: v1
kind: Config
clusters:
- name: local
  cluster: {server: 'https://127.0.0.1:6443', insecure-skip-tls-verify: true}
users:
- name: admin
  user: {token: admin-token}
contexts:
- name: local
  context: {cluster: local, user: admin}
current-context: local
"""


class ClientPluginTest(heat_harness.KubernetesTestCase):

    def setUp(self):
        super().setUp()
        self.ctx = utils.dummy_context()
        self.plugin = self.ctx.clients.client_plugin('kubernetes')

    def _headers(self, kube_client):
        """The headers a request of this client would carry."""
        _m, _u, headers, _b, _p = kube_client.api.param_serialize(
            'GET', '/api/v1/namespaces', header_params={},
            auth_settings=['BearerToken'])
        return headers

    def test_registered_under_heat_clients(self):
        self.assertIsInstance(self.plugin, client.KubernetesClientPlugin)

    def test_every_request_gets_a_fresh_keystone_token(self):
        tokens = iter(['token-1', 'token-2'])
        self.patchobject(self.ctx.keystone_session, 'get_token',
                         side_effect=lambda *a, **k: next(tokens))
        kube_client = self.plugin.client()
        self.assertEqual('Bearer token-1',
                         self._headers(kube_client)['authorization'])
        self.assertEqual('Bearer token-2',
                         self._headers(kube_client)['authorization'])

    def test_api_url_and_tls_settings(self):
        cfg.CONF.set_override('ca_file', '/etc/k8s/ca.pem',
                              group='clients_kubernetes')
        conf = self.plugin.client().api.configuration
        self.assertEqual(heat_harness.API_URL, conf.host)
        self.assertEqual('/etc/k8s/ca.pem', conf.ssl_ca_cert)
        self.assertTrue(conf.verify_ssl)
        self.assertFalse(conf.debug)

    def test_insecure_falls_back_to_the_clients_group(self):
        cfg.CONF.set_override('insecure', True, group='clients')
        self.assertFalse(self.plugin.client().api.configuration.verify_ssl)

    def test_catalog_endpoint(self):
        cfg.CONF.clear_override('api_url', group='kubernetes')
        cfg.CONF.set_override('endpoint_type', 'internal',
                              group='clients_kubernetes')
        cfg.CONF.set_override('region_name', 'RegionTwo',
                              group='kubernetes')
        get_endpoint = self.patchobject(
            self.ctx.keystone_session, 'get_endpoint',
            return_value='https://k8s.internal:6443/')
        conf = self.plugin.client().api.configuration
        self.assertEqual('https://k8s.internal:6443', conf.host)
        get_endpoint.assert_called_once_with(
            service_type='kubernetes', interface='internal',
            region_name='RegionTwo')
        self.assertTrue(client.KubernetesClientPlugin.uses_catalog())
        self.assertEqual(['kubernetes'], self.plugin.service_types)

    def test_operator_named_cluster(self):
        cfg.CONF.set_override('clusters', {'edge': 'https://10.1.0.5:6443'},
                              group='kubernetes')
        cfg.CONF.set_override('cluster_ca_files', {'edge': '/etc/edge.pem'},
                              group='kubernetes')
        edge = self.plugin.kube('edge')
        self.assertEqual('https://10.1.0.5:6443',
                         edge.api.configuration.host)
        self.assertEqual('/etc/edge.pem', edge.api.configuration.ssl_ca_cert)
        self.assertIs(edge, self.plugin.kube('edge'))
        self.assertIsNot(edge, self.plugin.kube())

    def _stand_in_magnum(self, clusters):
        """Magnum cannot run here: a stand-in for python-magnumclient."""
        certificates = {c.uuid: types.SimpleNamespace(pem='PEM of ' + name)
                        for name, c in clusters.items()}

        def get_cluster(ident):
            if ident not in clusters:
                raise magnum_exc.NotFound()
            return clusters[ident]
        fake = types.SimpleNamespace(
            clusters=types.SimpleNamespace(get=get_cluster),
            certificates=types.SimpleNamespace(get=certificates.__getitem__))
        self.patchobject(magnum.MagnumClientPlugin, '_create',
                         return_value=fake)

    def test_magnum_cluster_endpoint_and_ca(self):
        cluster = types.SimpleNamespace
        self._stand_in_magnum({
            'prod': cluster(uuid='u1', status='CREATE_COMPLETE',
                            api_address='https://10.2.0.7:6443'),
            'new': cluster(uuid='u2', status='CREATE_IN_PROGRESS',
                           api_address=None)})
        prod = self.plugin.kube('prod').api.configuration
        self.assertEqual('https://10.2.0.7:6443', prod.host)
        self.assertEqual('PEM of prod', prod.ca_cert_data)
        self.assertTrue(prod.verify_ssl)
        error = self.assertRaises(exception.Error, self.plugin.kube, 'new')
        self.assertIn('no API address yet (status CREATE_IN_PROGRESS)',
                      str(error))
        self.assertRaises(exception.EntityNotFound, self.plugin.kube,
                          'missing')

    def test_empty_cluster_name_is_the_default_cluster(self):
        cfg.CONF.set_override('api_url', 'https://127.0.0.1:6443',
                              group='kubernetes')
        self.assertIs(self.plugin.kube(), self.plugin.kube(''))

    def test_kubeconfig_for_testing(self):
        with tempfile.NamedTemporaryFile('w', suffix='.yaml',
                                         delete=False) as f:
            f.write(KUBECONFIG)
        self.addCleanup(os.unlink, f.name)
        cfg.CONF.set_override('kubeconfig', f.name, group='kubernetes')
        kube_client = self.plugin.client()
        self.assertEqual('https://127.0.0.1:6443',
                         kube_client.api.configuration.host)
        self.assertEqual('Bearer admin-token',
                         self._headers(kube_client)['authorization'])

    def test_error_classification(self):
        def error(status):
            return kube.ApiError(status, 'x', 'message')
        self.assertTrue(self.plugin.is_not_found(error(404)))
        self.assertTrue(self.plugin.is_conflict(error(409)))
        self.assertTrue(self.plugin.is_over_limit(error(429)))
        self.assertFalse(self.plugin.is_not_found(error(409)))
        self.assertTrue(self.plugin.is_not_found(
            k8s_exceptions.ApiException(status=404)))
        self.assertFalse(self.plugin.is_not_found(ValueError(404)))
        self.assertTrue(self.plugin.is_client_exception(
            k8s_exceptions.ApiException(status=500)))
