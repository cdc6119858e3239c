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

import types

from heat.common import exception
from heat.tests import utils
from kubernetes.client import exceptions as k8s_exceptions
from oslo_config import cfg

from heat_k8s.client import clientplugin as client
from heat_k8s.client import kube
from tests.unit import loopback
from tests.unit import tokens
from tests.unit.plugincase import KubeconfigFile
from tests.unit.plugincase import PluginTestCase
from tests.unit.plugincase import TrusteeAuth


class ClientPluginTest(PluginTestCase):

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

    def test_magnum_cluster_endpoint_and_ca_from_a_stand_in(self):
        cluster = types.SimpleNamespace
        self._stand_in_magnum({
            'prod': cluster(uuid='u1', status='CREATE_COMPLETE',
                            api_address='https://10.2.0.7:6443'),
            'new': cluster(uuid='u2', status='CREATE_IN_PROGRESS',
                           api_address=None)})
        prod = self.plugin.kube('prod').api.configuration
        self.assertEqual('https://10.2.0.7:6443', prod.host)
        self.assertEqual('PEM of prod', prod.ca_cert_data)
        self.assertEqual('PEM of prod', loopback.ca_of(
            self.plugin.kube('prod').api))
        self.assertTrue(prod.verify_ssl)
        error = self.assertRaises(exception.Error, self.plugin.kube, 'new')
        self.assertIn('no API address yet (status CREATE_IN_PROGRESS)',
                      str(error))
        self.assertRaises(exception.EntityNotFound, self.plugin.kube,
                          'missing')

    def test_http_endpoints_refused_wherever_they_come_from(self):
        # Magnum's answer from a stand-in (_stand_in_magnum).
        self._stand_in_magnum({'plain': types.SimpleNamespace(
            uuid='u3', status='CREATE_COMPLETE',
            api_address='http://10.2.0.8:8080')})
        cfg.CONF.set_override('clusters', {'edge': 'http://10.1.0.5:8080'},
                              group='kubernetes')
        cfg.CONF.set_override('api_url', 'http://k8s.example:8080',
                              group='kubernetes')
        for cluster, url, source in (
                (None, 'http://k8s.example:8080', '[kubernetes] api_url'),
                ('edge', 'http://10.1.0.5:8080',
                 '[kubernetes] clusters (cluster edge)'),
                ('plain', 'http://10.2.0.8:8080',
                 'the api_address of Magnum cluster plain')):
            error = self.assertRaises(exception.Error, self.plugin.kube,
                                      cluster)
            self.assertEqual(
                'Kubernetes API %s from %s is not https: the caller\'s '
                'Keystone token would cross the network in clear. Use an '
                'https endpoint ([kubernetes] '
                'allow_insecure_http_for_testing accepts http, for testing '
                'only).' % (url, source), str(error))

    def test_http_catalog_endpoint_refused(self):
        cfg.CONF.clear_override('api_url', group='kubernetes')
        self.patchobject(self.ctx.keystone_session, 'get_endpoint',
                         return_value='http://k8s.internal:8080')
        error = self.assertRaises(exception.Error, self.plugin.client)
        self.assertIn('Kubernetes API http://k8s.internal:8080 from the '
                      'Keystone catalog (service type kubernetes) is not '
                      'https', str(error))

    def test_http_allowed_for_testing_with_a_warning_once(self):
        cfg.CONF.set_override('api_url', 'http://127.0.0.1:8080',
                              group='kubernetes')
        cfg.CONF.set_override('allow_insecure_http_for_testing', True,
                              group='kubernetes')
        self.assertEqual('http://127.0.0.1:8080',
                         self.plugin.client().api.configuration.host)
        utils.dummy_context().clients.client_plugin('kubernetes').client()
        self.assertEqual(1, self.LOG.output.count(
            'Kubernetes API http://127.0.0.1:8080 from [kubernetes] '
            'api_url is http: Keystone tokens cross the network in clear'))

    def test_not_even_testing_allows_another_scheme(self):
        cfg.CONF.set_override('clusters', {'edge': '10.1.0.5:6443'},
                              group='kubernetes')
        cfg.CONF.set_override('allow_insecure_http_for_testing', True,
                              group='kubernetes')
        self.assertRaises(exception.Error, self.plugin.kube, 'edge')

    def test_own_client_certificate_refused_beside_a_token(self):
        for option in ('cert_file', 'key_file'):
            cfg.CONF.set_override(option, '/etc/heat/k8s.pem',
                                  group='clients_kubernetes')
            error = self.assertRaises(exception.Error, self.plugin.client)
            self.assertEqual(
                '[clients_kubernetes] %s is set, but heat-k8s '
                "authenticates every Kubernetes request with the caller's "
                'Keystone token alone: the API server would authenticate '
                'a client certificate instead of the user. Remove the '
                'option.' % option, str(error))
            cfg.CONF.clear_override(option, group='clients_kubernetes')

    def test_fallback_client_certificate_not_presented(self):
        # [clients] serves Heat's other clients: ignored here, said once.
        cfg.CONF.set_override('cert_file', '/etc/heat/heat.pem',
                              group='clients')
        cfg.CONF.set_override('key_file', '/etc/heat/heat.key',
                              group='clients')
        conf = self.plugin.client().api.configuration
        self.assertIsNone(conf.cert_file)
        self.assertIsNone(conf.key_file)
        utils.dummy_context().clients.client_plugin('kubernetes').client()
        for option in ('cert_file', 'key_file'):
            self.assertEqual(1, self.LOG.output.count(
                '[clients] %s is not presented to the Kubernetes API: '
                "requests authenticate with the caller's Keystone token "
                'alone' % option))

    def test_empty_cluster_name_is_the_default_cluster(self):
        cfg.CONF.set_override('api_url', 'https://127.0.0.1:6443',
                              group='kubernetes')
        self.assertIs(self.plugin.kube(), self.plugin.kube(''))

    def test_kubeconfig_for_testing(self):
        cfg.CONF.set_override('kubeconfig',
                              self.useFixture(KubeconfigFile()).path,
                              group='kubernetes')
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


class OnTheWireTest(PluginTestCase):
    """The plugin's requests, received by a loopback TLS server that asks
    for a client certificate, as kube-apiserver does."""

    offline = False

    def test_a_token_goes_without_a_client_certificate(self):
        pki = self.useFixture(loopback.Pki())
        server = self.useFixture(loopback.LoopbackApi(pki))
        server.answer('GET', '/api/v1/namespaces/demo', 200, {})
        cfg.CONF.set_override('api_url', server.url, group='kubernetes')
        cfg.CONF.set_override('ca_file', pki.ca_file,
                              group='clients_kubernetes')
        # A certificate the server would accept, for Heat's other clients.
        cfg.CONF.set_override('cert_file', pki.client_cert, group='clients')
        cfg.CONF.set_override('key_file', pki.client_key, group='clients')
        self.plugin.client().get('v1', 'Namespace', 'demo')
        request, = server.requests
        self.assertEqual('Bearer abcd1234', request.headers['Authorization'])
        self.assertIsNone(request.peer)


class KeystoneMemoryTest(PluginTestCase):
    """One Keystone look-up for many resources: every check_resource comes
    with a new context, and the engine remembers across them."""

    def setUp(self):
        super().setUp()
        cfg.CONF.clear_override('api_url', group='kubernetes')
        self.looked_up = []

        def url_for(plugin, **kwargs):
            self.looked_up.append(plugin.context.project_id)
            return 'https://k8s-%s:6443' % plugin.context.project_id
        self.patchobject(client.KubernetesClientPlugin, 'url_for',
                         autospec=True, side_effect=url_for)
        self.issued = []

    def _host(self, ctx, cluster=None):
        plugin = ctx.clients.client_plugin('kubernetes')
        return plugin.kube(cluster).api.configuration.host

    def _trust_context(self, trust_id='trust-1', project='p1', lifetime=3600):
        ctx = utils.dummy_context(tenant_id=project, trust_id=trust_id,
                                  user_id='heat-trustee')
        ctx._auth_plugin = TrusteeAuth(self.issued, lifetime)
        return ctx

    def test_catalog_endpoint_looked_up_once_per_project(self):
        hosts = [self._host(utils.dummy_context(tenant_id=p))
                 for p in ('p1', 'p1', 'p2', 'p1')]
        self.assertEqual(['https://k8s-p1:6443', 'https://k8s-p1:6443',
                          'https://k8s-p2:6443', 'https://k8s-p1:6443'],
                         hosts)
        self.assertEqual(['p1', 'p2'], self.looked_up)

    def test_region_and_interface_are_part_of_the_answer(self):
        self._host(utils.dummy_context(tenant_id='p1'))
        cfg.CONF.set_override('region_name', 'RegionTwo', group='kubernetes')
        self._host(utils.dummy_context(tenant_id='p1'))
        cfg.CONF.set_override('endpoint_type', 'internal',
                              group='clients_kubernetes')
        self._host(utils.dummy_context(tenant_id='p1'))
        self._host(utils.dummy_context(tenant_id='p1'))
        self.assertEqual(['p1', 'p1', 'p1'], self.looked_up)

    def test_endpoint_looked_up_again_after_its_lifetime(self):
        cfg.CONF.set_override('endpoint_cache_seconds', 60,
                              group='kubernetes')
        self._host(utils.dummy_context(tenant_id='p1'))
        self.clock.now += 59
        self._host(utils.dummy_context(tenant_id='p1'))
        self.clock.now += 1
        self._host(utils.dummy_context(tenant_id='p1'))
        self.assertEqual(['p1', 'p1'], self.looked_up)

    def test_no_endpoint_memory_when_disabled(self):
        cfg.CONF.set_override('endpoint_cache_seconds', 0,
                              group='kubernetes')
        self._host(utils.dummy_context(tenant_id='p1'))
        self._host(utils.dummy_context(tenant_id='p1'))
        self.assertEqual(['p1', 'p1'], self.looked_up)

    def test_stand_in_magnum_cluster_remembered_per_cluster(self):
        cfg.CONF.set_override('allow_magnum_clusters', True,
                              group='kubernetes')
        fetched = []
        self.patchobject(client.KubernetesClientPlugin, '_magnum_endpoint',
                         autospec=True, side_effect=lambda plugin, name: (
                             fetched.append(name) or
                             ('https://%s:6443' % name, None, 'PEM')))
        for name in ('prod', 'prod', 'edge'):
            self._host(utils.dummy_context(tenant_id='p1'), name)
        self.assertEqual(['prod', 'edge'], fetched)

    def test_a_users_own_token_needs_no_keystone_request(self):
        # Unit tests cannot connect anywhere: the token is the context's.
        headers = self._headers(self.plugin.client())
        self.assertEqual('Bearer abcd1234', headers['authorization'])

    def test_trust_token_shared_by_contexts_of_the_same_trust(self):
        headers = [self._headers(self._trust_context().clients.client_plugin(
            'kubernetes').client())['authorization'] for _ in range(3)]
        self.assertEqual(['Bearer trust-token-1'] * 3, headers)
        self.assertEqual(['trust-token-1'], self.issued)

    def test_trust_token_per_trust_and_project(self):
        tokens = [client.BearerToken(ctx)() for ctx in (
            self._trust_context('trust-1', 'p1'),
            self._trust_context('trust-2', 'p1'),
            self._trust_context('trust-1', 'p2'),
            self._trust_context('trust-1', 'p1'))]
        self.assertEqual(['trust-token-1', 'trust-token-2',
                          'trust-token-3', 'trust-token-1'], tokens)

    def test_trust_token_renewed_before_it_expires(self):
        first = client.BearerToken(self._trust_context())
        self.assertEqual('trust-token-1', first())
        self.clock.now += 3600 - client.TOKEN_MARGIN - 1
        self.assertEqual('trust-token-1',
                         client.BearerToken(self._trust_context())())
        self.clock.now += 1
        self.assertEqual('trust-token-2',
                         client.BearerToken(self._trust_context())())

    def test_short_lived_trust_token_is_not_shared(self):
        # Less life than the margin: each context authenticates itself.
        for _ in range(2):
            client.BearerToken(self._trust_context(lifetime=60))()
        self.assertEqual(['trust-token-1', 'trust-token-2'], self.issued)

    def test_refused_trust_token_is_forgotten(self):
        ctx = self._trust_context()
        token = client.BearerToken(ctx)
        self.assertEqual('trust-token-1', token())
        token.refused()
        self.assertEqual('trust-token-2', token())
        self.assertEqual('trust-token-2',
                         client.BearerToken(self._trust_context())())


class SharedPoolTest(PluginTestCase):
    """One ApiClient (one connection pool) per endpoint and TLS settings,
    shared by every context; each request carries its caller's token."""

    def setUp(self):
        super().setUp()
        self.contexts = []

    def _kube(self, token, project='p1'):
        ctx = utils.dummy_context(tenant_id=project)
        ctx.auth_token = token
        ctx.reload_auth_plugin()
        self.contexts.append(ctx)  # a client refers to its context weakly
        return ctx.clients.client_plugin('kubernetes').client()

    def test_two_users_share_one_pool_each_with_own_token(self):
        alice, bob = self._kube('token-alice'), self._kube('token-bob', 'p2')
        self.assertIs(alice.api, bob.api)
        self.assertIs(alice.api.rest_client.pool_manager,
                      bob.api.rest_client.pool_manager)
        # Interleaved, as concurrent checks of two stacks would send them.
        sent = [kube_client.prepared('GET', '/api/v1/namespaces')[2][
            'authorization'] for kube_client in (alice, bob, alice, bob)]
        self.assertEqual(['Bearer token-alice', 'Bearer token-bob'] * 2,
                         sent)
        # Nothing of either token is left on the shared client.
        conf = alice.api.configuration
        self.assertEqual({}, conf.api_key)
        self.assertIsNone(conf.refresh_api_key_hook)
        self.assertNotIn('authorization',
                         {k.lower() for k in alice.api.default_headers})

    def test_other_tls_settings_get_another_pool(self):
        plain = self._kube('t')
        cfg.CONF.set_override('ca_file', '/etc/k8s/ca.pem',
                              group='clients_kubernetes')
        with_ca = self._kube('t')
        cfg.CONF.set_override('insecure', True, group='clients_kubernetes')
        insecure = self._kube('t')
        self.assertEqual(3, len({id(k.api) for k in (plain, with_ca,
                                                     insecure)}))
        self.assertIs(insecure.api, self._kube('u').api)

    def test_a_refused_token_is_reported_to_its_source(self):
        token = tokens.ExpiredToken()

        class Answer:
            status = 401

        class Api:
            configuration = types.SimpleNamespace(host=heat_harness.API_URL)

            def param_serialize(self, method, path, **kwargs):
                return method, path, kwargs['header_params'], None, None

            def call_api(self, *args, **kwargs):
                return Answer()

        kube.Kube(Api(), token=token)._send('GET', '/api/v1', None)
        self.assertEqual([True], token.refusals)
