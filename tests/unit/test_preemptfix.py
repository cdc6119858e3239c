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

"""heat_k8s/enginefixes/preemptfix.py: a nested update is cancelled only by
a traversal that began after it, on Heat's own stored rows.

The race itself (a rollback pre-empting its own nested update) needs two
engines and real timing: tests/e2e/test_rollback.py runs it.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import datetime
import inspect

import fixtures
from heat.engine import check_resource
from heat.engine import resource
from heat.engine import stack as heat_stack
from heat.objects import resource as resource_objects

from heat_k8s.enginefixes import preemptfix

PREEMPTFIX = 'heat_k8s/enginefixes/preemptfix.py'
T0 = datetime.datetime(2026, 11, 24, 14, 57, 32)
LATER = T0 + datetime.timedelta(seconds=2)
EARLIER = T0 - datetime.timedelta(seconds=2)


class LockPredatesTest(heat_harness.KubernetesTestCase):

    def test_a_lock_older_than_the_traversal_is_preempted(self):
        self.assertTrue(preemptfix.lock_predates(EARLIER, 'engine-a', T0))

    def test_a_lock_taken_since_the_traversal_began_is_not(self):
        self.assertFalse(preemptfix.lock_predates(LATER, 'engine-a', T0))
        self.assertFalse(preemptfix.lock_predates(T0, 'engine-a', T0))

    def test_without_the_facts_heat_decides_as_before(self):
        for args in ((None, 'engine-a', T0), (LATER, None, T0),
                     (LATER, 'engine-a', None)):
            self.assertTrue(preemptfix.lock_predates(*args), args)


class GuardedPreemptTest(heat_harness.KubernetesTestCase):
    """The guard on a real StackResource row of a stored stack."""

    def setUp(self):
        super().setUp()
        self.addCleanup(preemptfix.restore)
        preemptfix.apply()
        stack = self.parse(heat_harness.template({'group': {
            'type': 'OS::Heat::ResourceGroup',
            'properties': {'count': 0,
                           'resource_def': {'type': 'OS::Heat::None'}}}}))
        self.group = stack['group']
        self.group.store()
        self.cancelled = []
        self.useFixture(fixtures.MonkeyPatch(
            'heat.engine.resources.stack_resource.StackResource.'
            '_handle_cancel', lambda rsrc: self.cancelled.append(rsrc.name)))

    def locked(self, locked_at, traversal_began):
        resource_objects.Resource.update_by_id(
            self.group.context, self.group.id,
            {'engine_id': 'engine-a', 'updated_at': locked_at})
        self.group.stack.updated_time = traversal_began
        self.group.handle_preempt()
        return self.cancelled

    def test_an_older_traversals_update_is_cancelled(self):
        self.assertEqual(['group'], self.locked(EARLIER, T0))

    def test_this_traversals_own_update_is_left_alone(self):
        self.assertEqual([], self.locked(LATER, T0))


class PreemptContractTest(heat_harness.KubernetesTestCase):
    """What preemptfix relies on in Heat's private code."""

    def test_a_blocked_check_preempts_the_lock_holder(self):
        source = inspect.getsource(
            check_resource.CheckResource._do_check_resource)
        self.assertIn('except exception.UpdateInProgress:', source)
        self.assertIn('rsrc.handle_preempt()', source, (
            'Heat changed CheckResource._do_check_resource, which %s '
            'guards: it no longer pre-empts there' % PREEMPTFIX))

    def test_a_traversal_records_when_it_began(self):
        source = inspect.getsource(heat_stack.Stack.converge_stack)
        self.assertIn('self.updated_time = oslo_timeutils.utcnow()', source,
                      'Heat changed Stack.converge_stack, which %s reads'
                      % PREEMPTFIX)

    def test_an_update_records_when_it_took_the_lock(self):
        # Resource.update sets updated_time, then takes the lock with
        # state_set(IN_PROGRESS), which stores it as the row's updated_at.
        source = inspect.getsource(resource.Resource.update)
        stamp = source.index('self.updated_time = oslo_timeutils.utcnow()')
        self.assertLess(stamp, source.index('_action_recorder'),
                        'Heat changed Resource.update, which %s reads'
                        % PREEMPTFIX)
        self.assertIn("'updated_at': self.updated_time",
                      inspect.getsource(resource.Resource._store_or_update)
                      if hasattr(resource.Resource, '_store_or_update')
                      else inspect.getsource(resource.Resource.store))
