# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Heat's own harness driving OS::Kubernetes::* against the real cluster.

Stacks are created, updated, checked and deleted through heat-engine's RPC
API by an engine running in the test process, on Heat's convergence path
as in production (heat_harness.EngineTestCase: check_resource messages to
its worker over oslo.messaging's in-process transport, sync points in
sqlite); the plugin reaches the session's kube-apiserver with the admin
kubeconfig ([kubernetes] kubeconfig, a development-only option). Keystone
brokering is tested end to end in tests/e2e.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import os
import uuid

from heat.engine import scheduler
from heat.objects import event as event_object
import kubernetes
from oslo_config import cfg
import pytest

from tests.functional import conftest


@pytest.mark.usefixtures('cluster_for_unittest')
class ClusterTestCase(heat_harness.EngineTestCase):
    """Stacks in a namespace of their own on the session's cluster."""

    offline = False

    def setUp(self):
        super().setUp()
        scheduler.ENABLE_SLEEP = True  # real readiness polling
        cfg.CONF.set_override('api_url', None, group='kubernetes')
        cfg.CONF.set_override('kubeconfig', os.path.join(
            self.cluster['state_dir'], 'kubeconfig'), group='kubernetes')
        self.api = conftest.api_client(self.cluster)
        self.addCleanup(self.api.close)
        self.core = kubernetes.client.CoreV1Api(self.api)
        self.apps = kubernetes.client.AppsV1Api(self.api)
        self.batch = kubernetes.client.BatchV1Api(self.api)
        self.ns = 'ft-' + uuid.uuid4().hex[:10]
        self.core.create_namespace({'metadata': {'name': self.ns}})
        self.addCleanup(self._delete_namespace)
        conftest.wait_for_default_serviceaccount(self.core, self.ns)
        cfg.CONF.set_override('default_namespace', self.ns,
                              group='kubernetes')

    def _delete_namespace(self):
        try:
            self.core.delete_namespace(self.ns)
        except kubernetes.client.ApiException as exc:
            if exc.status != 404:
                raise

    def assertState(self, stack, action, status):
        self.assertEqual((action, status), stack.state, stack.status_reason)

    def events(self, stack):
        return event_object.Event.get_all_by_stack(stack.context, stack.id)
