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

"""heat_k8s.enginefixes.strandfix: the rule (pure), and rounds of the reaper
on convergence stacks stored in Heat's own database.

Engine liveness is Heat's RPC call to the engine's listener; here an
`alive` function stands in for it, as no other engine runs in a unit test.
The e2e fault campaign (tests/e2e/test_faults.py) kills real engines.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import collections
import inspect

from heat.common import service_utils
from heat.engine import service
from heat.engine import stack as heat_stack
from heat.engine import template as heat_template
from heat.objects import resource as resource_objects
from heat.objects import stack as stack_object
from heat.tests import utils
from oslo_config import cfg
from oslo_service import threadgroup

from heat_k8s.enginefixes import options
from heat_k8s.enginefixes import strandfix

Row = collections.namedtuple('Row', 'id engine_id')
DEAD, LIVE, OWN = 'engine-dead', 'engine-live', 'engine-own'


def alive(engine_id):
    return engine_id == LIVE


class DeadLocksTest(heat_harness.KubernetesTestCase):

    def test_locks_of_dead_engines_only_are_returned_by_id(self):
        rows = [Row(3, DEAD), Row(1, None), Row(2, DEAD)]
        self.assertEqual([2, 3], [r.id for r in strandfix.dead_locks(
            rows, alive)])

    def test_a_live_engine_working_on_the_stack_means_not_stranded(self):
        self.assertEqual([], strandfix.dead_locks(
            [Row(1, DEAD), Row(2, LIVE)], alive))

    def test_no_lock_is_not_stranded(self):
        # A lost message leaves no lock: it looks like a slow queue.
        self.assertEqual([], strandfix.dead_locks([Row(1, None)], alive))


class SightingsTest(heat_harness.KubernetesTestCase):

    def test_a_stack_is_confirmed_by_the_next_round_only(self):
        seen = strandfix.Sightings()
        self.assertFalse(seen.confirmed('s', 't1', [1]))
        seen.next_round()
        self.assertTrue(seen.confirmed('s', 't1', [1]))

    def test_a_new_traversal_or_other_locks_start_again(self):
        seen = strandfix.Sightings()
        seen.confirmed('s', 't1', [1])
        seen.next_round()
        self.assertFalse(seen.confirmed('s', 't2', [1]))
        seen.next_round()
        self.assertFalse(seen.confirmed('s', 't2', [1, 2]))

    def test_a_round_that_did_not_see_the_stack_forgets_it(self):
        seen = strandfix.Sightings()
        seen.confirmed('s', 't1', [1])
        seen.next_round()
        seen.next_round()
        self.assertFalse(seen.confirmed('s', 't1', [1]))


class ReaperTest(heat_harness.KubernetesTestCase):
    """Rounds of the reaper over stacks in Heat's (test) database."""

    def setUp(self):
        super().setUp()
        self.reaper = strandfix.Reaper(
            OWN, alive=lambda cnxt, engine_id: alive(engine_id))

    def in_progress(self, locks, convergence=True):
        """A stored stack UPDATE_IN_PROGRESS whose resources a, b, c hold
        `locks` (engine ids); its id."""
        ctx = self.context()
        tmpl = heat_template.Template(heat_harness.template(
            {name: {'type': 'OS::Heat::None'} for name in 'abc'}))
        tmpl.store(ctx)
        stk = heat_stack.Stack(ctx, utils.random_name(), tmpl,
                               convergence=convergence,
                               current_traversal='traversal-1')
        stk.store()
        self.stacks.append(stk)
        for name, engine_id in zip('abc', locks):
            rsrc = stk[name]
            rsrc.action, rsrc.status = rsrc.UPDATE, rsrc.IN_PROGRESS
            rsrc.store()
            if engine_id:
                resource_objects.Resource.update_by_id(
                    ctx, rsrc.id, {'engine_id': engine_id})
        stk.state_set(stk.UPDATE, stk.IN_PROGRESS, 'Stack UPDATE started')
        return stk.id

    def status(self, stack_id):
        ctx = self.context()
        stack = stack_object.Stack.get_by_id(ctx, stack_id)
        rows = resource_objects.Resource.get_all_by_stack(ctx, stack_id)
        return (stack.action + '_' + stack.status, stack.status_reason,
                {name: (row.status, row.engine_id, row.status_reason)
                 for name, row in rows.items()})

    def test_a_stack_stranded_in_two_rounds_ends_failed(self):
        stack_id = self.in_progress([DEAD, None, None])
        self.reaper.reap()
        self.assertEqual('UPDATE_IN_PROGRESS', self.status(stack_id)[0])
        self.reaper.reap()
        status, reason, rows = self.status(stack_id)
        self.assertEqual('UPDATE_FAILED', status)
        self.assertEqual(
            'heat-engine engine-dead went down during stack UPDATE while it '
            'checked a; retry with "openstack stack update --existing", or '
            'delete the stack again', reason)
        self.assertEqual(
            ('FAILED', None, 'Worker went down during resource UPDATE'),
            rows['a'])
        self.assertEqual('IN_PROGRESS', rows['b'][0])

    def test_a_stack_a_live_engine_works_on_is_left_alone(self):
        stack_id = self.in_progress([DEAD, LIVE, None])
        for _ in range(3):
            self.reaper.reap()
        status, _, rows = self.status(stack_id)
        self.assertEqual('UPDATE_IN_PROGRESS', status)
        self.assertEqual(DEAD, rows['a'][1])

    def test_the_reapers_own_engine_is_alive(self):
        stack_id = self.in_progress([OWN, DEAD, None])
        for _ in range(3):
            self.reaper.reap()
        self.assertEqual('UPDATE_IN_PROGRESS', self.status(stack_id)[0])

    def test_of_two_workers_that_read_the_lock_only_one_steals_it(self):
        stack_id = self.in_progress([DEAD, None, None])
        ctx = self.context()
        row = resource_objects.Resource.get_all_by_stack(ctx, stack_id)['a']
        self.assertTrue(strandfix._steal(ctx, row))
        self.assertFalse(strandfix._steal(ctx, row))

    def test_a_stack_that_moved_on_is_not_marked(self):
        stack_id = self.in_progress([DEAD, None, None])
        self.reaper.reap()
        stack_object.Stack.update_by_id(self.context(), stack_id,
                                        {'current_traversal': 'traversal-2'})
        self.reaper.reap()
        self.assertEqual('UPDATE_IN_PROGRESS', self.status(stack_id)[0])
        self.reaper.reap()
        # Seen again under the new traversal: marked one round later.
        self.assertEqual('UPDATE_FAILED', self.status(stack_id)[0])

    def test_a_legacy_stack_is_left_to_heats_own_reset(self):
        stack_id = self.in_progress([DEAD, None, None], convergence=False)
        self.reaper.reap()
        self.reaper.reap()
        self.assertEqual('UPDATE_IN_PROGRESS', self.status(stack_id)[0])


class ApplyTest(heat_harness.KubernetesTestCase):

    def test_every_engine_gets_a_timer_of_the_configured_interval(self):
        class Engine(object):
            engine_id = OWN
            manage_thread_grp = threadgroup.ThreadGroup()

            def start(self):
                self.started = True

        engine = Engine()
        strandfix.checking_stranded(Engine.start)(engine)
        self.addCleanup(engine.manage_thread_grp.stop)
        self.assertTrue(engine.started)
        self.assertEqual(1, len(engine.manage_thread_grp.timers))

    def test_no_timer_when_switched_off(self):
        cfg.CONF.set_override('stranded_check_interval', 0,
                              group=options.GROUP)
        self.addCleanup(cfg.CONF.clear_override, 'stranded_check_interval',
                        group=options.GROUP)

        class Engine(object):
            manage_thread_grp = threadgroup.ThreadGroup()

        strandfix.checking_stranded(lambda engine: None)(Engine())
        self.assertEqual([], Engine.manage_thread_grp.timers)


class StrandContractTest(heat_harness.KubernetesTestCase):
    """What strandfix relies on in Heat's code."""

    def test_heats_own_reset_skips_convergence_stacks(self):
        source = inspect.getsource(service.EngineService.reset_stack_status)
        self.assertIn("'convergence': False", source, (
            'Heat now resets convergence stacks of dead engines itself: '
            'heat_k8s/enginefixes/strandfix.py may be retired'))

    def test_liveness_is_heats_listener_call(self):
        self.assertIn('is_alive', inspect.getsource(
            service_utils.engine_alive))
