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

"""heat_k8s.enginefixes.eventfix: events need no thread, and never fail."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import inspect
import unittest

from heat.engine import service
from heat.engine import stack as stack_mod

from heat_k8s.enginefixes import eventfix


class Event(object):
    def as_dict(self):
        return {'resource_name': 'web', 'resource_status': 'COMPLETE'}


class Sink(object):
    def __init__(self):
        self.consumed = []

    def consume(self, context, event):
        self.consumed.append((context, event))


class Environment(object):
    def __init__(self, sinks):
        self.sinks = sinks

    def get_event_sinks(self):
        return self.sinks


class Stack(object):
    name = 'a-stack'
    context = 'ctx'
    thread_group_mgr = 'the service\'s'

    def __init__(self, sinks):
        self.env = Environment(sinks)


class CancelledNestedStack(object):
    """As worker._stop_traversal loads a nested stack (hand-made): no
    thread group, and no definition to read an environment from."""
    name = 'a-nested-stack'
    thread_group_mgr = None

    @property
    def env(self):
        raise AttributeError("'NoneType' object has no attribute 'env'")


def threaded(outcome):
    """Heat's dispatch_event as far as eventfix sees it: records, or raises."""
    started = []

    def dispatch(stack, ev):
        if isinstance(outcome, Exception):
            raise outcome
        started.append(ev)
    return dispatch, started


class LeanDispatchTest(unittest.TestCase):

    def test_no_sinks_starts_no_thread(self):
        dispatch, started = threaded(None)
        eventfix.without_idle_threads(dispatch)(Stack([]), Event())
        self.assertEqual([], started)

    def test_sinks_are_sent_to_in_a_thread_as_before(self):
        dispatch, started = threaded(None)
        event = Event()
        eventfix.without_idle_threads(dispatch)(Stack([Sink()]), event)
        self.assertEqual([event], started)

    def test_a_full_thread_group_sends_in_the_callers_thread(self):
        dispatch, _ = threaded(RuntimeError(eventfix.FULL))
        sink = Sink()
        eventfix.without_idle_threads(dispatch)(Stack([sink]), Event())
        self.assertEqual([('ctx', Event().as_dict())], sink.consumed)

    def test_a_stack_without_a_thread_group_is_left_to_heat(self):
        # Deleting a stack while a nested one is created: the delete was
        # refused (Internal Error) when its event read the environment.
        dispatch, started = threaded(None)
        event = Event()
        eventfix.without_idle_threads(dispatch)(CancelledNestedStack(),
                                                event)
        self.assertEqual([event], started)

    def test_other_errors_pass_through(self):
        dispatch, _ = threaded(RuntimeError('something else'))
        self.assertRaises(RuntimeError, eventfix.without_idle_threads(
            dispatch), Stack([Sink()]), Event())

    def test_apply_wraps_heats_dispatch_once(self):
        self.addCleanup(eventfix.restore)
        eventfix.apply()
        lean = stack_mod.Stack.dispatch_event
        eventfix.apply()
        self.assertIs(lean, stack_mod.Stack.dispatch_event)


@unittest.skipUnless(heat_harness.fix_applies('eventfix'),
                     'eventfix is not for this Heat release')
class HeatContractTest(unittest.TestCase):
    """What eventfix relies on in Heat 27."""

    def test_dispatch_event_sends_to_the_sinks_in_a_group_thread(self):
        source = inspect.getsource(inspect.unwrap(
            stack_mod.Stack.dispatch_event))
        for needed in ('get_event_sinks()', 'thread_group_mgr.start',
                       'sink.consume(ctx, ev)', 'ev.as_dict()'):
            self.assertIn(needed, source, (
                'Heat changed Stack.dispatch_event (%s is gone); review '
                'heat_k8s/enginefixes/eventfix.py' % needed))

    def test_a_full_thread_group_raises_what_eventfix_catches(self):
        group = service.ThreadGroup()
        group.threads = [object()] * group.max_threads
        with self.assertRaises(RuntimeError) as caught:
            group.add_thread(print)
        self.assertIn(eventfix.FULL, str(caught.exception))
