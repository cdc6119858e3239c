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

"""heat_k8s.enginefixes.threadfix, on Heat 27's own ThreadGroup: a finished
thread (and the stack it was given) leaves its group."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import gc
import threading
import unittest
import weakref

from heat.engine import service

from heat_k8s.enginefixes import threadfix

# Its own ThreadGroup, which these tests subclass, is Heat 25's and later.
heat_harness.skip_unless_fix_applies('threadfix')


class Stack(object):
    """Stands for the loaded stack a stack thread is given."""

    def converge(self, release):
        release.wait(10)


def heats_add_thread():
    """Heat's add_thread as Heat 27 ships it, whatever apply() did."""
    current = service.ThreadGroup.add_thread
    return getattr(current, '__wrapped__', current)


def run_one_thread(group_class):
    """Start one stack thread in a group of `group_class`, let it end;
    the group, its thread count while the thread ran, and a weak reference
    to the stack the thread was given."""
    group = group_class()
    stack, release = Stack(), threading.Event()
    thread = group.add_thread(stack.converge, release)
    alive = len(group.threads)
    release.set()
    thread.join(10)
    gone = weakref.ref(stack)
    del stack, thread
    gc.collect()
    return group, alive, gone


class Unpatched(service.ThreadGroup):
    add_thread = heats_add_thread()


class Patched(service.ThreadGroup):
    add_thread = threadfix.leaving_when_done(heats_add_thread())


class ThreadFixTest(unittest.TestCase):

    def test_heat_27_keeps_a_finished_thread_and_its_stack(self):
        # The contract the fix relies on: if Heat fixes this, the fix can go.
        group, alive, gone = run_one_thread(Unpatched)
        self.assertEqual(1, alive)
        self.assertEqual(1, len(group.threads))
        self.assertIsNotNone(gone(), 'Heat now lets the stack go; review '
                             'heat_k8s/enginefixes/threadfix.py')

    def test_a_finished_thread_leaves_the_group_and_frees_its_stack(self):
        group, alive, gone = run_one_thread(Patched)
        self.assertEqual(1, alive)
        self.assertEqual([], group.threads)
        self.assertIsNone(gone())

    def test_a_thread_over_before_the_link_leaves_too(self):
        group = Patched()
        thread = group.add_thread(lambda: None)
        thread.join(10)
        thread.link(group.thread_done)  # a second, late link is harmless
        self.assertEqual([], group.threads)

    def test_finished_threads_no_longer_fill_the_group(self):
        group = Patched()
        for _ in range(group.max_threads + 5):
            group.add_thread(lambda: None).join(10)
        self.assertEqual([], group.threads)

    def test_apply_wraps_heats_add_thread_once(self):
        self.addCleanup(threadfix.restore)
        threadfix.apply()
        patched = service.ThreadGroup.add_thread
        threadfix.apply()
        self.assertIs(patched, service.ThreadGroup.add_thread)
        self.assertIs(heats_add_thread(), patched.__wrapped__)
