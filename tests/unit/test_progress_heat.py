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

"""Progress as status reason, through Heat's own resource actions.

A Deployment is created by Heat's create (and create_convergence, which
holds the engine lock) over a recorded cluster whose object gets ready
after a few reads; at each read the test looks at what Heat's database
says of the resource, as `openstack stack resource show` would.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy

from heat.common import exception
from heat.engine import scheduler
from heat.objects import event as event_object
from heat.objects import resource as resource_objects
from oslo_config import cfg

from tests.unit.heat_harness import deployment
from tests.unit.heat_harness import template
from tests.unit.recovery import FakeKube

UID = '0d6c1f3e-2b4a-4e8f-9a7c-5b3d1e9f7a20'
ENGINE = 'engine-progress'


class RecordedCluster(FakeKube):
    """Applies and reads of one Deployment whose status moves on at each
    read (None: deleted); it notes the resource's stored status reason
    at each read."""

    def __init__(self, statuses, row):
        super().__init__()
        self.statuses, self.row, self.seen = list(statuses), row, []

    def apply(self, manifest):
        self.obj = copy.deepcopy(manifest)
        self.obj['metadata'].update(uid=UID, generation=1)
        self.obj['status'] = self.statuses.pop(0)
        return copy.deepcopy(self.obj)

    def get(self, api_version, kind, name, namespace=None):
        self.seen.append(self.row().status_reason)
        if self.obj is None or not self.statuses:
            return None
        self.obj['status'] = self.statuses.pop(0)
        return copy.deepcopy(self.obj)


def status(ready, want=2):
    return {'observedGeneration': 1, 'replicas': want,
            'updatedReplicas': want, 'readyReplicas': ready,
            'availableReplicas': ready}


class ProgressTest(heat_harness.KubernetesTestCase):

    def setUp(self):
        super().setUp()
        cfg.CONF.set_override('progress_interval', 0, group='kubernetes')

    def _resource(self, statuses, convergence=False):
        stack = self.parse(template({'web': deployment()}))
        stack.convergence = convergence
        rsrc = stack['web']
        rsrc.store()
        cluster = RecordedCluster(statuses, lambda: resource_objects.Resource
                                  .get_obj(rsrc.context, rsrc.id))
        rsrc._kube = lambda props=None: cluster
        return rsrc, cluster

    def _events(self, rsrc):
        events = event_object.Event.get_all_by_stack(rsrc.context,
                                                     rsrc.stack.id)
        return [(e.resource_action, e.resource_status,
                 e.resource_status_reason) for e in events]

    def _shown(self, rsrc, ready):
        return '%s %s: %d/2 replicas ready' % (
            'Deployment', rsrc.data()['name'], ready)

    def test_the_reason_says_what_it_waits_on_and_adds_no_event(self):
        rsrc, cluster = self._resource([status(0), status(1), status(1),
                                        status(2)])
        scheduler.TaskRunner(rsrc.create)()
        # handle_create only applies: the apply says if the name is taken.
        self.assertEqual([self._shown(rsrc, 0), self._shown(rsrc, 1),
                          self._shown(rsrc, 1)], cluster.seen)
        self.assertEqual((rsrc.CREATE, rsrc.COMPLETE), rsrc.state)
        self.assertEqual([('CREATE', 'COMPLETE', 'state changed'),
                          ('CREATE', 'IN_PROGRESS', 'state changed')],
                         sorted(self._events(rsrc)))
        row = resource_objects.Resource.get_obj(rsrc.context, rsrc.id)
        self.assertEqual('state changed', row.status_reason)

    def test_the_engine_lock_and_atomic_key_stay_heats(self):
        rsrc, cluster = self._resource([status(0), status(1), status(2)],
                                       convergence=True)
        # create_convergence takes the lock, and releases it by comparing
        # the atomic key: a progress write that moved it would fail here.
        rsrc.create_convergence(rsrc.stack.t.id, set(), ENGINE, 60)
        self.assertEqual(self._shown(rsrc, 1), cluster.seen[-1])
        row = resource_objects.Resource.get_obj(rsrc.context, rsrc.id)
        self.assertEqual(('CREATE', 'COMPLETE', None),
                         (row.action, row.status, row.engine_id))

    def test_the_failure_message_replaces_the_progress(self):
        rsrc, cluster = self._resource([status(0), status(1)])
        error = self.assertRaises(exception.ResourceFailure,
                                  scheduler.TaskRunner(rsrc.create))
        self.assertEqual(self._shown(rsrc, 1), cluster.seen[-1])
        row = resource_objects.Resource.get_obj(rsrc.context, rsrc.id)
        self.assertEqual(str(error), row.status_reason)
        self.assertIn('was deleted while Heat waited for it',
                      row.status_reason)
        self.assertEqual(2, len(self._events(rsrc)))

    def test_an_interval_keeps_a_change_for_later(self):
        cfg.CONF.set_override('progress_interval', 3600, group='kubernetes')
        rsrc, cluster = self._resource([status(0), status(1), status(1),
                                        status(2)])
        scheduler.TaskRunner(rsrc.create)()
        self.assertEqual([self._shown(rsrc, 0)] * 3, cluster.seen)
