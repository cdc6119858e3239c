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

"""Progress as status reason while Heat waits for the real cluster."""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

import fixtures
from heat.objects import event as event_object
from heat.objects import resource as resource_objects
from heat.objects import stack as stack_object
from oslo_config import cfg

from heat_k8s.client import kube
from tests.functional import specs

SIM = specs.SIM


class ProgressTest(heat_cluster.ClusterTestCase):

    def test_a_waiting_deployment_names_its_pods_then_fails_as_before(self):
        cfg.CONF.set_override('progress_interval', 1, group='kubernetes')
        spec = specs.deployment_spec('slow', replicas=1, annotations={
            SIM + 'waiting-reason': 'ContainerCreating'})
        stack_name, ctx = self.getUniqueString('progress'), self.context()
        seen = []
        read = kube.Kube.get

        def get(client, *args, **kwargs):
            # What `openstack stack resource show` says at each read.
            stack_id = stack_object.Stack.get_by_name(ctx, stack_name).id
            seen.append(resource_objects.Resource.get_all_by_stack(
                ctx, stack_id)['web'].status_reason)
            return read(client, *args, **kwargs)

        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.client.kube.Kube.get', get))
        stack = self.create(specs.hot({'web': {
            'type': 'OS::Kubernetes::Deployment',
            'properties': {'timeout': 20, 'spec': spec}}}), name=stack_name)
        self.assertState(stack, 'CREATE', 'FAILED')
        name = stack['web'].data()['name']
        shown = [text for text in seen
                 if text.startswith('Deployment %s: ' % name)]
        self.assertIn('Deployment %s: 0/1 replicas ready' % name, shown)
        self.assertTrue(any(
            '0/1 replicas ready; pod %s-' % name in text and
            text.endswith(' in ContainerCreating') for text in shown), seen)
        reason = stack['web'].status_reason
        self.assertIn('not ready after 20s (timeout property)', reason)
        self.assertIn('ContainerCreating', reason)
        events = event_object.Event.get_all_by_stack(stack.context,
                                                     stack.id)
        self.assertEqual(
            [('CREATE', 'FAILED'), ('CREATE', 'IN_PROGRESS')],
            sorted((e.resource_action, e.resource_status) for e in events
                   if e.resource_name == 'web'))
