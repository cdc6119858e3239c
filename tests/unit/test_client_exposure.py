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

"""Where the caller's token may go: a Magnum cluster's address only when
the operator allows it, and only a member's token; TLS verification off
said at start and once per endpoint.

Magnum cannot run here: its answers come from a stand-in for
python-magnumclient (plugincase.PluginTestCase._stand_in_magnum). The
role lists are hand-made, as Keystone puts them in tokens (implied roles
included: an admin's token carries admin, member and reader).
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import importlib
import types

from heat.common import exception
from heat.tests import utils
from oslo_config import cfg
import testtools

from heat_k8s.client import clientplugin as client
from heat_k8s.client import exposure
from heat_k8s.enginefixes import startup
from tests.unit import loopback
from tests.unit import plugincase

MEMBER = ['member', 'reader']
ADMIN = ['admin', 'member', 'reader']
PROD = types.SimpleNamespace(uuid='u1', status='CREATE_COMPLETE',
                             api_address='https://10.2.0.7:6443')


class RulesTest(testtools.TestCase):
    """The pure rules of heat_k8s.client.exposure."""

    def test_roles_beyond_the_allowed_ones(self):
        self.assertEqual([], exposure.roles_beyond(MEMBER, MEMBER))
        self.assertEqual(['admin'], exposure.roles_beyond(ADMIN, MEMBER))
        self.assertEqual(['admin', 'service'], exposure.roles_beyond(
            ['service', 'Admin', 'member'], ['Member', 'reader']))

    def test_a_token_refused_for_its_roles_or_for_none_known(self):
        self.assertIsNone(exposure.token_refusal(MEMBER, MEMBER))
        self.assertIsNone(exposure.token_refusal(['reader'], MEMBER))
        self.assertEqual('it carries the role admin',
                         exposure.token_refusal(ADMIN, MEMBER))
        self.assertEqual('it carries the roles admin, service',
                         exposure.token_refusal(ADMIN + ['service'], MEMBER))
        self.assertEqual('its roles are unknown',
                         exposure.token_refusal([], MEMBER))
        self.assertEqual('it carries the role member',
                         exposure.token_refusal(MEMBER, ['reader']))

    def test_insecure_read_as_heat_reads_client_options(self):
        # (own group's value, [clients] value) -> what turned TLS off
        for own, fallback, source in (
                (None, False, None),
                (None, True, exposure.FALLBACK),
                (True, False, exposure.OWN),
                (True, True, exposure.OWN),
                (False, True, None),
                (False, False, None)):
            self.assertEqual(source, exposure.insecure_source(own, fallback),
                             (own, fallback))

    def test_each_tls_warning_names_its_cause_and_what_to_set(self):
        for source, cause in (
                (exposure.OWN, '[clients_kubernetes] insecure = true'),
                (exposure.FALLBACK, '[clients] insecure = true'),
                (exposure.KUBECONFIG, 'insecure-skip-tls-verify')):
            text = exposure.tls_off_warning(source, 'https://k8s:6443')
            self.assertIn('TLS verification of Kubernetes API '
                          'https://k8s:6443 is off (' + cause, text)
            self.assertIn('To verify it, ', text)
        self.assertIn('set [clients_kubernetes] insecure = false',
                      exposure.tls_off_warning(exposure.FALLBACK))


class MagnumSwitchTest(plugincase.PluginTestCase):
    """[kubernetes] allow_magnum_clusters: off by default."""

    def test_off_by_default_a_magnum_cluster_is_refused(self):
        self._stand_in_magnum({'prod': PROD})
        cfg.CONF.clear_override('allow_magnum_clusters', group='kubernetes')
        magnum = self.patchobject(client.KubernetesClientPlugin,
                                  '_magnum_endpoint')
        error = self.assertRaises(exception.Error, self.plugin.kube, 'prod')
        self.assertEqual(
            "cluster 'prod' is not one of [kubernetes] clusters, and Magnum "
            'clusters are off: the Keystone token acting on the stack would '
            'go to the API address a Magnum cluster reports, which whoever '
            'controls that cluster chooses. Name a cluster of [kubernetes] '
            'clusters, or none for the default one ([kubernetes] '
            'allow_magnum_clusters lets templates name Magnum clusters).',
            str(error))
        magnum.assert_not_called()  # not even Magnum's API is asked

    def test_operator_named_clusters_need_no_switch(self):
        cfg.CONF.set_override('clusters', {'edge': 'https://10.1.0.5:6443'},
                              group='kubernetes')
        self.assertIsNone(client.cluster_refusal('edge'))
        self.assertIsNone(client.cluster_refusal(''))
        self.assertIsNone(client.cluster_refusal(None))
        self.assertIsNotNone(client.cluster_refusal('prod'))
        cfg.CONF.set_override('allow_magnum_clusters', True,
                              group='kubernetes')
        self.assertIsNone(client.cluster_refusal('prod'))


class MemberTokenTest(plugincase.PluginTestCase):
    """With Magnum clusters allowed (from a stand-in), only a token whose
    roles are all in [kubernetes] magnum_token_roles goes to a cluster's
    api_address."""

    def setUp(self):
        super().setUp()
        self._stand_in_magnum({'prod': PROD})
        cfg.CONF.set_override('clusters', {'edge': 'https://10.1.0.5:6443'},
                              group='kubernetes')

    def _kube(self, roles, cluster='prod'):
        self.ctx = utils.dummy_context(roles=roles)
        return self.ctx.clients.client_plugin('kubernetes').kube(cluster)

    def test_a_members_token_goes_to_the_magnum_cluster(self):
        headers = self._headers(self._kube(MEMBER))
        self.assertEqual('Bearer abcd1234', headers['authorization'])

    def test_an_admins_token_is_refused_before_it_is_sent(self):
        error = self.assertRaises(exception.Error, self._headers,
                                  self._kube(ADMIN))
        self.assertEqual(
            'The Keystone token acting on this stack is not sent to '
            'Kubernetes API https://10.2.0.7:6443 (the api_address of '
            'Magnum cluster prod): it carries the role admin. That address '
            'is chosen by whoever controls the cluster, who could use the '
            'token for every OpenStack service of the project, so only a '
            'token whose roles are all in [kubernetes] magnum_token_roles '
            '(member, reader) goes there. Act on the stack as a member of '
            'its project without other roles.', str(error))
        self.assertNotIn('abcd1234', str(error))

    def test_a_token_of_unknown_roles_is_refused(self):
        error = self.assertRaises(exception.Error, self._headers,
                                  self._kube([]))
        self.assertIn('its roles are unknown', str(error))

    def test_the_operator_chooses_the_roles(self):
        cfg.CONF.set_override('magnum_token_roles',
                              ['member', 'reader', 'load-balancer_member'],
                              group='kubernetes')
        self._headers(self._kube(MEMBER + ['load-balancer_member']))
        cfg.CONF.set_override('magnum_token_roles', ['reader'],
                              group='kubernetes')
        self.assertRaises(exception.Error, self._headers, self._kube(MEMBER))

    def test_the_operators_own_endpoints_take_any_token(self):
        # The catalog's, api_url's and [kubernetes] clusters' servers are
        # the operator's: an admin acts there as with Heat's other clients.
        for cluster in (None, 'edge'):
            headers = self._headers(self._kube(ADMIN, cluster))
            self.assertEqual('Bearer abcd1234', headers['authorization'])

    def test_a_trust_token_goes_with_the_trusts_roles(self):
        issued = []

        def trust_context(roles, trust_id):
            ctx = utils.dummy_context(trust_id=trust_id,
                                      user_id='heat-trustee')
            ctx._auth_plugin = plugincase.TrusteeAuth(issued, roles=roles)
            return ctx
        member = trust_context(MEMBER, 'trust-member')
        kube = member.clients.client_plugin('kubernetes').kube('prod')
        self.assertEqual('Bearer trust-token-1',
                         self._headers(kube)['authorization'])
        # Shared across contexts of the trust: its roles are remembered.
        other = trust_context(MEMBER, 'trust-member')
        self._headers(other.clients.client_plugin('kubernetes').kube('prod'))
        self.assertEqual(['trust-token-1'], issued)
        admin = trust_context(ADMIN, 'trust-admin')
        error = self.assertRaises(
            exception.Error, self._headers,
            admin.clients.client_plugin('kubernetes').kube('prod'))
        self.assertIn('it carries the role admin', str(error))
        self.assertNotIn('trust-token-2', str(error))


class OnTheWireTest(plugincase.PluginTestCase):
    """A Magnum cluster's api_address as a loopback TLS server (Magnum's
    answer from a stand-in): what reaches it."""

    offline = False

    def test_an_admins_token_never_reaches_the_cluster(self):
        pki = self.useFixture(loopback.Pki())
        server = self.useFixture(loopback.LoopbackApi(pki))
        server.answer('GET', '/api/v1/namespaces/demo', 200, {})
        with open(pki.ca_file) as f:
            self._stand_in_magnum({'prod': types.SimpleNamespace(
                uuid='u1', status='CREATE_COMPLETE',
                api_address=server.url)}, pem=f.read())
        for roles in (ADMIN, MEMBER):
            ctx = utils.dummy_context(roles=roles)
            kube = ctx.clients.client_plugin('kubernetes').kube('prod')
            try:
                kube.get('v1', 'Namespace', 'demo')
            except exception.Error:
                self.assertEqual(ADMIN, roles)
        request, = server.requests
        self.assertEqual('Bearer abcd1234', request.headers['Authorization'])


class TlsWarningTest(plugincase.PluginTestCase):
    """TLS verification off is said once per endpoint, naming the option
    that turned it off, and at heat-engine's start."""

    def _clients(self, *clusters):
        for cluster in clusters:
            utils.dummy_context().clients.client_plugin('kubernetes').kube(
                cluster)

    def test_inherited_from_clients_said_once_per_endpoint(self):
        cfg.CONF.set_override('insecure', True, group='clients')
        cfg.CONF.set_override('clusters', {'edge': 'https://10.1.0.5:6443'},
                              group='kubernetes')
        self._clients(None, None, 'edge', 'edge')
        for endpoint in (heat_harness.API_URL, 'https://10.1.0.5:6443'):
            self.assertEqual(1, self.LOG.output.count(
                'TLS verification of Kubernetes API %s is off ([clients] '
                'insecure = true, which the Kubernetes client inherits '
                'while [clients_kubernetes] insecure is unset)' % endpoint))
        self.assertIn('set [clients_kubernetes] insecure = false (it '
                      'overrides [clients] for Kubernetes alone)',
                      self.LOG.output)

    def test_own_option_named(self):
        cfg.CONF.set_override('insecure', True, group='clients_kubernetes')
        self.assertFalse(self.plugin.client().api.configuration.verify_ssl)
        self.assertIn('TLS verification of Kubernetes API %s is off '
                      '([clients_kubernetes] insecure = true)' %
                      heat_harness.API_URL, self.LOG.output)

    def test_nothing_said_while_verification_is_on(self):
        # [clients_kubernetes] insecure = false overrides [clients].
        cfg.CONF.set_override('insecure', True, group='clients')
        cfg.CONF.set_override('insecure', False, group='clients_kubernetes')
        self.assertTrue(self.plugin.client().api.configuration.verify_ssl)
        client.warn_at_start()
        self.assertNotIn('TLS verification', self.LOG.output)

    def test_said_at_start_only_when_off(self):
        client.warn_at_start()
        self.assertNotIn('TLS verification', self.LOG.output)
        cfg.CONF.set_override('insecure', True, group='clients_kubernetes')
        client.warn_at_start()
        self.assertIn('TLS verification of the Kubernetes APIs heat-engine '
                      'reaches is off ([clients_kubernetes] insecure = true)',
                      self.LOG.output)

    def test_said_when_heat_engine_loads_the_plugin(self):
        cfg.CONF.set_override('insecure', True, group='clients')
        # Importing the shim applies the engine fixes too: give Heat's
        # code back.
        self.addCleanup(startup.restore_all)
        shim = importlib.import_module('heat_k8s.plugin.heat_k8s_plugin')
        importlib.reload(shim)  # as heat-engine's plugin loader runs it
        self.assertIn('TLS verification of the Kubernetes APIs heat-engine '
                      'reaches is off ([clients] insecure = true',
                      self.LOG.output)

    def test_a_kubeconfig_skipping_verification(self):
        path = self.useFixture(plugincase.KubeconfigFile()).path
        cfg.CONF.set_override('kubeconfig', path, group='kubernetes')
        self.plugin.client()
        self.assertIn('TLS verification of Kubernetes API '
                      'https://127.0.0.1:6443 is off (insecure-skip-tls-'
                      'verify in [kubernetes] kubeconfig)', self.LOG.output)
