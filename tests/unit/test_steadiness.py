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

"""A crash is not ready: the waiter's hold and the steadiness rules,
replaying what the waiter judged on the real node.

tests/functional/test_steadiness.py recorded, each time the waiter looked,
the workload and its pods (fixtures/steady_<case>.json): a
Deployment whose container exits at once with code 3, one whose
container exits 0, a Pod whose readiness probe passes once, and a
Deployment that stays up. The looks replay in order on a fake clock; the
wall clock the pods' timestamps are read against starts at the look's
recorded time ('at'), else at the latest timestamp the first look holds,
which is no later than the look was.
"""

import copy
import datetime
import re

import pytest

from heat_k8s import kinds
from heat_k8s.kinds import readiness
from heat_k8s.kinds import steadiness
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import policy
from tests.unit.fixtures import load

HOLD = 5
MESSAGE = 'cannot open /etc/app/app.conf'


def looks(case):
    return load('steady_' + case)


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def latest_stamp(look):
    stamps = re.findall(r"'(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)'",
                        str(look))
    return datetime.datetime.fromisoformat(max(stamps))


class Replay:
    """Reads replay the recorded looks after the first (the object the
    apply returned), each no earlier than when it was recorded; pods are
    those of the look last read. It is the awaiter's Subject."""

    def __init__(self, case, hold=HOLD, limit=2, holds=True, seconds=600,
                 late=0, change=None):
        self.looks = looks(case)
        for look in self.looks:
            (change or (lambda look: None))(look)
        self.clock = Clock()
        self.current = self.looks.pop(0)
        self.holds = holds
        self.started = self.clock.now
        # late: seconds after its recorded time Heat first looks.
        first = (datetime.datetime.fromisoformat(self.current['at'])
                 if 'at' in self.current else latest_stamp(self.current))
        self.wall = first + datetime.timedelta(seconds=late)
        self.waiter = awaiter.Awaiter(
            self, policy.Settings(watch_seconds=0, ready_hold_seconds=hold,
                                  crash_restarts=limit),
            clock=self.clock, now=self.now)
        self.wait = awaiter.Wait.start(seconds, timeout=seconds,
                                       clock=self.clock)
        self.wait.live = self.current['object']

    def now(self):
        return self.wall + datetime.timedelta(
            seconds=self.clock.now - self.started)

    def read(self):
        self.current = self.looks.pop(0)
        self.clock.now = max(self.clock.now,
                             self.started + self.current['seconds'])
        return self.current['object']

    def judge(self, obj, explain):
        return kinds.evaluate(obj, {'pods': self.current['pods']})

    def pods(self, obj):
        return self.current['pods'] if self.holds else None

    def events(self, obj):
        return []

    def describe(self):
        return 'Deployment demo/web'

    def run(self):
        """The waiter's answers until the wait ends: [PollAgain...,
        READY] (Failed raises)."""
        answers = []
        while True:
            answer = self.waiter.ready(self.wait)
            answers.append(answer)
            if answer is awaiter.READY:
                return answers
            self.clock.now += answer.seconds


def test_the_rule_alone_reads_a_container_that_exits_at_once_ready():
    # The defect: the Deployment is available while its only container
    # runs for a moment.
    first = looks('exits_at_once')[0]
    assert kinds.evaluate(first['object']).state == readiness.READY
    assert Replay('exits_at_once', holds=False).run() == [awaiter.READY]


def test_a_container_that_exits_at_once_fails_with_its_exit_code():
    replay = Replay('exits_at_once')
    with pytest.raises(awaiter.Failed) as failed:
        replay.run()
    message = str(failed.value)
    assert message.startswith('Deployment demo/web failed: pod ')
    assert 'container app restarted 2 times, last exited with exit code 3: ' \
        + MESSAGE in message
    assert 'keeps exiting while Heat waits for it to stay up' in message


def test_exit_0_in_a_deployment_keeps_exiting():
    with pytest.raises(awaiter.Failed) as failed:
        Replay('exit_0').run()
    assert 'last exited with exit code 0' in str(failed.value)


def test_a_probe_that_passed_once_is_not_ready_at_the_timeout():
    # Ready at the first look; by the end of the hold the probe failed,
    # and the hold starts again only at the next ready look: none.
    with pytest.raises(awaiter.Failed) as failed:
        Replay('probe_once', seconds=30).run()
    message = str(failed.value)
    assert message.startswith('Deployment demo/web not ready after 30s '
                              '(timeout property): ')
    assert 'running but not ready (readiness probe exec sh -c test ! -e ' \
        '/tmp/probed && touch /tmp/probed not passing)' in message


def test_a_container_that_stays_up_is_ready_after_the_hold():
    replay = Replay('stays_up')
    assert replay.run() == [awaiter.PollAgain(HOLD), awaiter.READY]


def test_a_workload_up_for_the_hold_by_its_own_clock_needs_no_hold():
    # Heat first reads it ready HOLD + 1 s after its pod became Ready and
    # its container started (the stamps are whole seconds): done at once.
    assert Replay('stays_up', late=HOLD + 1).run() == [awaiter.READY]


def test_a_workload_up_for_part_of_the_hold_waits_for_the_rest():
    assert Replay('stays_up', late=3).run() == [awaiter.PollAgain(3),
                                                awaiter.READY]


def with_min_ready_seconds(seconds):
    """A hand-made change of the recorded looks: the Deployment asks its
    controller to count a pod available only after `seconds` Ready."""
    def change(look):
        look['object'] = copy.deepcopy(look['object'])
        look['object']['spec']['minReadySeconds'] = seconds
    return change


def test_min_ready_seconds_of_the_hold_stand_for_it():
    assert Replay('stays_up', change=with_min_ready_seconds(HOLD)).run() \
        == [awaiter.READY]
    # Shorter than the hold: what is left of it is held.
    assert Replay('stays_up', change=with_min_ready_seconds(2)).run() \
        == [awaiter.PollAgain(3), awaiter.READY]


def test_without_a_hold_the_first_steady_look_is_ready():
    assert Replay('stays_up', hold=0).run() == [awaiter.READY]


def test_restarts_are_counted_from_the_first_look():
    first, last = (look['pods'] for look in looks('exits_at_once'))
    counts = steadiness.restart_counts(first)
    assert list(counts.values()) == [0]
    # One restart since the first look: not ready yet, not failed.
    one = steadiness.judge(last, {k: 1 for k in counts}, counts, 2)
    assert one.state == readiness.PROGRESSING
    assert one.message.endswith('waiting for it to stay up')
    failed = steadiness.judge(last, counts, counts, 2)
    assert failed.state == readiness.FAILED
    # Nothing changed since the last look: steady.
    assert steadiness.judge(first, counts, counts, 2) is None
