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

"""heat_k8s.enginefixes.leafpace: Heat's leaf pause is the operator's."""

from tests.unit import heat_harness  # noqa: F401 (first: sets up Heat)

# isort: split

import inspect
import re
import unittest

from heat.engine import stack as stack_mod
from oslo_config import cfg

from heat_k8s.enginefixes import leafpace
from heat_k8s.enginefixes import options


class RecordedClock(object):
    """A clock that records the sleeps asked of it and takes none."""

    def __init__(self):
        self.slept = []

    def sleep(self, seconds):
        self.slept.append(seconds)

    def monotonic(self):
        return 42.0


class PacedClockTest(unittest.TestCase):

    def test_heats_one_second_pause_becomes_the_interval(self):
        clock = RecordedClock()
        paced = leafpace.PacedClock(clock, interval=lambda: 0.05)
        paced.sleep(1)
        self.assertEqual([0.05], clock.slept)

    def test_other_sleeps_and_the_rest_of_time_are_heats(self):
        clock = RecordedClock()
        paced = leafpace.PacedClock(clock, interval=lambda: 0.05)
        paced.sleep(0)
        paced.sleep(2.5)
        self.assertEqual([0, 2.5], clock.slept)
        self.assertEqual(42.0, paced.monotonic())

    def test_the_interval_is_read_from_the_option_at_each_pause(self):
        clock = RecordedClock()
        paced = leafpace.PacedClock(clock)
        self.assertEqual(1.0, cfg.CONF[options.GROUP].leaf_trigger_interval)
        paced.sleep(1)
        cfg.CONF.set_override('leaf_trigger_interval', 0, options.GROUP)
        self.addCleanup(cfg.CONF.clear_override, 'leaf_trigger_interval',
                        options.GROUP)
        paced.sleep(1)
        self.assertEqual([1.0, 0], clock.slept)

    def test_apply_paces_heats_stack_module_once_and_restores(self):
        name = leafpace.paused_module()
        heats = getattr(stack_mod, name)
        self.addCleanup(setattr, stack_mod, name, heats)
        self.addCleanup(leafpace.restore)
        leafpace.apply()
        paced = getattr(stack_mod, name)
        leafpace.apply()
        self.assertIs(paced, getattr(stack_mod, name))
        self.assertIsInstance(paced, leafpace.PacedClock)
        leafpace.restore()
        self.assertIs(heats, getattr(stack_mod, name))


class HeatContractTest(unittest.TestCase):
    """What leafpace relies on in heat/engine/stack.py."""

    def test_the_leaf_pause_is_the_modules_only_one_second_sleep(self):
        source = inspect.getsource(stack_mod)
        pauses = re.findall(r'(?:time|eventlet)\.sleep\((\w+)\)', source)
        self.assertEqual(1, pauses.count(str(leafpace.HEAT_PAUSE)), (
            'Heat changed heat.engine.stack\'s sleep calls (%s); '
            'heat_k8s/enginefixes/leafpace.py paces the one-second one'
            % pauses))
        converge = inspect.getsource(
            stack_mod.Stack._converge_create_or_update)
        self.assertRegex(converge, r'check_resource\([^)]*\)\s+if scheduler'
                         r'\.ENABLE_SLEEP:\s+(time|eventlet)\.sleep\(1\)', (
                             'Heat no longer pauses 1 s after each leaf\'s '
                             'check_resource; review '
                             'heat_k8s/enginefixes/leafpace.py'))
        self.assertIsNone(leafpace.probe())
