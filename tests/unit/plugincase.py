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

"""The client plugin ``kubernetes`` under test: a TestCase holding one
(PluginTestCase), a kubeconfig file, and a stand-in for a trust-scoped
context's auth plugin. tests/unit/test_client.py and
tests/unit/test_client_exposure.py use them.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import datetime
import os
import types

import fixtures
from heat.engine.clients.os import magnum
from heat.tests import utils
from keystoneauth1 import access
from magnumclient import exceptions as magnum_exc
from oslo_config import cfg

from heat_k8s.client import memory
from tests.unit.clocks import Clock

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


class KubeconfigFile(fixtures.Fixture):
    """KUBECONFIG (hand-made: a token and no CA) in a temporary file."""

    def _setUp(self):
        self.path = os.path.join(
            self.useFixture(fixtures.TempDir()).path, 'kubeconfig.yaml')
        with open(self.path, 'w') as f:
            f.write(KUBECONFIG)


class PluginTestCase(heat_harness.KubernetesTestCase):

    def setUp(self):
        super().setUp()
        # What the engine remembers across contexts starts empty, on a
        # clock the tests move.
        self.clock = Clock()
        for name in ('_endpoints', '_trust_tokens'):
            self.useFixture(fixtures.MonkeyPatch(
                'heat_k8s.client.clientplugin.' + name,
                memory.Expiring(self.clock)))
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.client.clientplugin._api_clients', {}))
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.client.clientplugin._warned', set()))
        self.ctx = utils.dummy_context()
        self.plugin = self.ctx.clients.client_plugin('kubernetes')

    def _headers(self, kube_client):
        """The headers a request of this client would carry."""
        return kube_client.prepared('GET', '/api/v1/namespaces')[2]

    def _stand_in_magnum(self, clusters, pem=None):
        """Magnum cannot run here: a stand-in for python-magnumclient,
        with Magnum clusters allowed. Each cluster's CA is 'PEM of
        <name>', or pem."""
        cfg.CONF.set_override('allow_magnum_clusters', True,
                              group='kubernetes')
        certificates = {c.uuid: types.SimpleNamespace(
            pem=pem or 'PEM of ' + name) for name, c in clusters.items()}

        def get_cluster(ident):
            if ident not in clusters:
                raise magnum_exc.NotFound()
            return clusters[ident]
        fake = types.SimpleNamespace(
            clusters=types.SimpleNamespace(get=get_cluster),
            certificates=types.SimpleNamespace(get=certificates.__getitem__))
        self.patchobject(magnum.MagnumClientPlugin, '_create',
                         return_value=fake)


class TrusteeAuth:
    """Stands in for the [trustee] auth plugin of a trust-scoped context:
    each authentication is a new token, valid for `lifetime` seconds,
    carrying `roles` (hand-made, as Keystone lists a trust's roles)."""

    def __init__(self, issued, lifetime=3600, roles=()):
        self.issued, self.lifetime = issued, lifetime
        self.roles = roles
        self.auth_ref = None

    def get_access(self, session):
        if self.auth_ref is None:
            self.issued.append('trust-token-%d' % (len(self.issued) + 1))
            expires = (datetime.datetime.now(datetime.timezone.utc) +
                       datetime.timedelta(seconds=self.lifetime))
            self.auth_ref = access.create(
                body={'token': {'expires_at': expires.isoformat(),
                                'methods': ['password'],
                                'roles': [{'id': r, 'name': r}
                                          for r in self.roles]}},
                auth_token=self.issued[-1])
        return self.auth_ref

    def invalidate(self):
        self.auth_ref = None
