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
the operator allows it, and only a member's token.

Magnum cannot run here: its answers come from a stand-in for
python-magnumclient (test_client.PluginTestCase._stand_in_magnum). The
role lists are hand-made, as Keystone puts them in tokens (implied roles
included: an admin's token carries admin, member and reader).
"""

from tests.unit import heat_harness  # noqa: F401  first: sets up Heat

# isort: split

import types

from heat.common import exception
from heat.tests import utils
from oslo_config import cfg
import testtools

from heat_k8s.client import clientplugin as client
from heat_k8s.client import exposure
from tests.unit import test_client
from tests.unit import test_transport

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


class MagnumSwitchTest(test_client.PluginTestCase):
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


class MemberTokenTest(test_client.PluginTestCase):
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
            ctx._auth_plugin = RolesTrusteeAuth(issued, roles)
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


class RolesTrusteeAuth(test_client.TrusteeAuth):
    """test_client.TrusteeAuth whose tokens carry these roles (hand-made,
    as Keystone lists a trust's roles in its token)."""

    def __init__(self, issued, roles):
        super().__init__(issued)
        self.roles = roles

    def get_access(self, session):
        access = super().get_access(session)
        access._data['token']['roles'] = [{'id': r, 'name': r}
                                          for r in self.roles]
        return access


class OnTheWireTest(test_client.PluginTestCase):
    """A Magnum cluster's api_address as a loopback TLS server (Magnum's
    answer from a stand-in): what reaches it."""

    offline = False

    def test_an_admins_token_never_reaches_the_cluster(self):
        pki = self.useFixture(test_transport.Pki())
        server = self.useFixture(test_transport.LoopbackApi(pki))
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
