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

"""What the engine remembers across contexts, on a replayed clock."""

import datetime

import testtools

from heat_k8s.client import memory
from tests.unit.clocks import Clock


class ExpiringTest(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.clock = Clock()
        self.memory = memory.Expiring(self.clock)

    def test_remembered_until_its_lifetime_ends(self):
        self.memory.put('k', 'v', 300)
        self.clock.now += 299.9
        self.assertEqual('v', self.memory.get('k'))
        self.clock.now += 0.1
        self.assertIsNone(self.memory.get('k'))

    def test_each_entry_has_its_own_lifetime(self):
        self.memory.put('short', 1, 10)
        self.memory.put('long', 2, 100)
        self.clock.now += 50
        self.assertIsNone(self.memory.get('short'))
        self.assertEqual(2, self.memory.get('long'))

    def test_a_lifetime_of_zero_remembers_nothing(self):
        self.memory.put('k', 'v', 0)
        self.memory.put('n', 'v', -5)
        self.assertIsNone(self.memory.get('k'))
        self.assertEqual(0, len(self.memory))

    def test_forget(self):
        self.memory.put('k', 'v', 300)
        self.memory.forget('k')
        self.memory.forget('never')
        self.assertIsNone(self.memory.get('k'))

    def test_expired_entries_do_not_pile_up(self):
        for i in range(50):
            self.memory.put(i, i, 10)
            self.clock.now += 1
        # Only the last ten are alive; a write drops the others.
        self.assertEqual(10, len(self.memory))
        self.assertIsNone(self.memory.get(39))
        self.assertEqual(49, self.memory.get(49))


class SecondsLeftTest(testtools.TestCase):

    NOW = datetime.datetime(2026, 11, 24, 12, 0, tzinfo=datetime.timezone.utc)

    def test_until_the_margin_before_expiry(self):
        expires = self.NOW + datetime.timedelta(hours=1)
        self.assertEqual(3600 - 120,
                         memory.seconds_left(expires, 120, now=self.NOW))

    def test_nothing_left_inside_the_margin_or_past_expiry(self):
        soon = self.NOW + datetime.timedelta(seconds=100)
        past = self.NOW - datetime.timedelta(seconds=1)
        self.assertEqual(0, memory.seconds_left(soon, 120, now=self.NOW))
        self.assertEqual(0, memory.seconds_left(past, 120, now=self.NOW))

    def test_unknown_expiry_is_not_remembered(self):
        self.assertEqual(0, memory.seconds_left(None, 120))
