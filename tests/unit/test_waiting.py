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

"""The waiting state machine, driven by replaying recorded objects.

Each test hands an Awaiter a fake cluster: reads and watches that replay
objects a real kubelet reported and the API server returned (fixtures),
in order, on a fake clock that watches move forward as a real
watch would take time. The readiness rules judge them for real.
"""

import collections
import copy
import os
import subprocess
import sys

import pytest

from heat_k8s import kinds
from heat_k8s.client import apierrors
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import policy
from tests.unit.fixtures import load

READY = awaiter.READY
PollAgain = awaiter.PollAgain
WATCH_SECONDS = 5
POLL_INTERVAL_MAX = 20

# One watch: (seconds after it started, version or None=deleted) events,
# then it ends after the time asked, or after `runs` seconds: sooner when
# the apiserver restarted or refused the resourceVersion (Kube.watch then
# yields nothing more), later when the server ended it a moment late.
Watch = collections.namedtuple('Watch', 'events runs', defaults=((), None))


def version_of(name):
    return load(name)['metadata']['resourceVersion']


def unavailable():
    return apierrors.ApiError(503, 'Service Unavailable',
                           'etcdserver: leader changed (HTTP 503)')


class Clock:
    def __init__(self):
        self.now = 5000.0

    def __call__(self):
        return self.now


class Cluster:
    """Replays reads and watches; records what the awaiter asked."""

    def __init__(self, clock, reads=(), watches=(), events=()):
        self.clock = clock
        self.reads, self.watches = list(reads), list(watches)
        self.warnings = list(events)
        self.name = 'Pod demo/unready'
        self.read_count = 0
        self.watched = []   # (resourceVersion watched from, seconds)
        self.explained = []  # the explain flag of each judgement

    def read(self):
        self.read_count += 1
        item = self.reads.pop(0)
        if isinstance(item, Exception):
            raise item
        return copy.deepcopy(item)

    def watch(self, obj, seconds):
        self.watched.append((obj['metadata']['resourceVersion'], seconds))
        return self._replay(self.watches.pop(0), seconds)

    def _replay(self, watch, seconds):
        started = self.clock.now
        for after, version in watch.events:
            self.clock.now = started + after
            yield copy.deepcopy(version)
            if version is None:
                return
        self.clock.now = started + (seconds if watch.runs is None
                                    else watch.runs)

    def judge(self, obj, explain):
        self.explained.append(explain)
        return kinds.evaluate(obj)

    def events(self, obj):
        return self.warnings

    def pods(self, obj):
        return None

    def describe(self):
        return self.name

    def awaiter(self, watching=True, name='Pod demo/unready'):
        self.name = name
        return awaiter.Awaiter(self, policy.Settings(
            watch_seconds=WATCH_SECONDS if watching else 0,
            poll_interval_max=POLL_INTERVAL_MAX), name='unready',
            clock=self.clock)


def start(clock, seconds=600, timeout=None, live=None):
    wait = awaiter.Wait.start(seconds, timeout=timeout, clock=clock)
    wait.live = live
    return wait


def failure(call, *args):
    """The message of the Failed that call(*args) raises."""
    with pytest.raises(awaiter.Failed) as failed:
        call(*args)
    return str(failed.value)


def with_version(obj, version):
    obj['metadata']['resourceVersion'] = str(version)
    return obj


def marked_for_deletion(obj):
    obj['metadata']['deletionTimestamp'] = '2026-01-01T00:00:00Z'
    return obj


# --- ready -------------------------------------------------------------------

def test_an_object_ready_at_the_first_poll_needs_no_read_and_no_watch():
    clock = Clock()
    cluster = Cluster(clock)
    wait = start(clock, live=load('pod_ready'))
    assert cluster.awaiter().ready(wait) is READY
    assert (cluster.read_count, cluster.watched) == (0, [])


def test_a_wait_for_nothing_is_over_before_anything_is_read():
    clock = Clock()
    cluster = Cluster(clock)
    wait = awaiter.Wait.start(600, wait=False, clock=clock)
    assert cluster.awaiter().ready(wait) is READY
    assert cluster.read_count == 0


def test_an_object_ready_during_a_watch_is_ready_when_the_watch_sees_it():
    clock = Clock()
    cluster = Cluster(clock, watches=[
        Watch([(1.5, load('pod_probe_failing')), (3.0, load('pod_ready'))])])
    wait = start(clock, live=load('pod_probe_failing'))
    assert cluster.awaiter().ready(wait) is READY
    # Noticed 3 s in, not at the end of the 5 s watch.
    assert clock.now == 5003.0
    assert cluster.read_count == 0


def test_an_object_ready_between_watches_is_read_ready_at_the_next_poll():
    clock = Clock()
    cluster = Cluster(clock, reads=[load('pod_ready')], watches=[Watch()])
    wait = start(clock, live=load('pod_probe_failing'))
    waiting = cluster.awaiter()
    # The watch ended with nothing: poll again a second later...
    assert waiting.ready(wait) == PollAgain(1)
    assert cluster.watched == [(version_of('pod_probe_failing'),
                                WATCH_SECONDS)]
    # ... which reads the object, as the watch may have missed it.
    assert waiting.ready(wait) is READY
    assert cluster.read_count == 1


def test_the_next_watch_goes_on_from_the_last_version_a_watch_delivered():
    clock = Clock()
    later = with_version(load('pod_probe_failing'), 99999)
    cluster = Cluster(clock, watches=[Watch([(2, later)]),
                                      Watch([(1, load('pod_ready'))])])
    wait = start(clock, live=load('pod_probe_failing'))
    waiting = cluster.awaiter()
    assert waiting.ready(wait) == PollAgain(1)
    assert waiting.ready(wait) is READY
    assert [version for version, _ in cluster.watched] == [
        version_of('pod_probe_failing'), '99999']
    assert cluster.read_count == 0


# --- stuck: an image the node cannot pull ------------------------------------

def test_an_image_that_cannot_be_pulled_fails_after_the_grace():
    clock = Clock()
    cluster = Cluster(clock, reads=[load('pod_image_missing')] * 4)
    wait = start(clock)
    waiting = cluster.awaiter(watching=False)
    # Too early to look closer: its pods are not read, it just waits.
    assert isinstance(waiting.ready(wait), PollAgain)
    clock.now += policy.LOOK_CLOSER_AFTER
    assert isinstance(waiting.ready(wait), PollAgain)
    clock.now += 59
    assert isinstance(waiting.ready(wait), PollAgain)
    clock.now += 1
    assert failure(waiting.ready, wait) == (
        'Pod demo/unready failed: no progress for 60s: pod noimage container '
        'app: ErrImageNeverPull: Container image "localhost/heat-k8s/'
        'not-built:1" is not present with pull policy of Never')
    assert cluster.explained == [False, True, True, True]


def test_an_image_pulled_within_the_grace_starts_the_grace_again():
    clock = Clock()
    cluster = Cluster(clock, reads=[
        load('pod_image_missing'), load('pod_probe_failing'),
        load('pod_image_missing'), load('pod_image_missing')])
    wait = start(clock)
    waiting = cluster.awaiter(watching=False)
    clock.now += policy.LOOK_CLOSER_AFTER
    for _ in range(3):
        assert isinstance(waiting.ready(wait), PollAgain)
        clock.now += 40
    # Stuck since the third poll only: 40 s, not 120 s.
    assert isinstance(waiting.ready(wait), PollAgain)
    assert wait.stuck_since == clock.now - 40


# --- stuck: a pod no node can take ---------------------------------------

def test_a_pod_no_node_takes_fails_after_its_grace_in_the_schedulers_words():
    clock = Clock()
    cluster = Cluster(clock, reads=[load('pod_unschedulable')] * 4)
    wait = start(clock)
    waiting = cluster.awaiter(watching=False)
    grace = policy.Settings().pending_grace
    clock.now += policy.LOOK_CLOSER_AFTER
    assert isinstance(waiting.ready(wait), PollAgain)
    clock.now += grace - 1
    assert isinstance(waiting.ready(wait), PollAgain)
    clock.now += 1
    assert failure(waiting.ready, wait).startswith(
        'Pod demo/unready failed: no progress for %ds: pod unschedulable '
        'not scheduled: Unschedulable: 0/4 nodes are available: ' % grace)
    # Long before the timeout.
    assert wait.deadline - clock.now > 400


def test_each_stuck_wait_gets_its_own_grace():
    clock = Clock()
    cluster = Cluster(clock, reads=[load('pod_image_missing')] * 2)
    wait = start(clock)
    waiting = awaiter.Awaiter(cluster, policy.Settings(
        watch_seconds=0, image_pull_grace=30, pending_grace=300),
        clock=clock)
    clock.now += policy.LOOK_CLOSER_AFTER
    assert isinstance(waiting.ready(wait), PollAgain)
    clock.now += 30
    with pytest.raises(awaiter.Failed):
        waiting.ready(wait)


# --- failures and deletion ---------------------------------------------------

def test_a_failure_is_reported_at_once_with_its_warning_events():
    clock = Clock()
    warnings = [event for event in load('events_web')['items']
                if event['reason'] == 'FailedMount']
    cluster = Cluster(clock, events=warnings)
    wait = start(clock, live=load('job_failed'))
    assert failure(cluster.awaiter(name='Job demo/migrate').ready, wait) == (
        'Job demo/migrate failed: BackoffLimitExceeded: '
        'Job has reached the specified backoff limit. Warning events: '
        'FailedMount: MountVolume.SetUp failed for volume "config" : '
        'configmap "absent" not found (x3)')
    assert cluster.watched == []


def test_a_failure_seen_during_a_watch_ends_the_wait_at_once():
    clock = Clock()
    cluster = Cluster(clock, watches=[Watch([(2, load('pod_failed'))])])
    wait = start(clock, live=load('pod_unschedulable'))
    assert failure(cluster.awaiter(name='Pod demo/db-sync').ready,
                   wait).startswith(
        'Pod demo/db-sync failed; pod db-sync-failed container app: ')
    assert clock.now == 5002


def test_an_object_deleted_during_a_watch_fails_the_wait():
    clock = Clock()
    cluster = Cluster(clock, watches=[Watch([(2, None)])])
    wait = start(clock, live=load('pod_probe_failing'))
    assert failure(cluster.awaiter().ready, wait) == (
        'Pod demo/unready was deleted while Heat waited for it')


def test_an_object_no_longer_there_at_a_poll_fails_the_wait():
    clock = Clock()
    cluster = Cluster(clock, reads=[None])
    assert failure(cluster.awaiter().ready, start(clock)) == (
        'Pod demo/unready was deleted while Heat waited for it')


# --- API errors --------------------------------------------------------------

def test_an_unavailable_api_is_retried_at_the_next_poll():
    clock = Clock()
    cluster = Cluster(clock, reads=[unavailable(), load('pod_ready')])
    wait = start(clock)
    waiting = cluster.awaiter()
    clock.now += 12
    assert waiting.ready(wait) == PollAgain(3)
    clock.now += 3
    assert waiting.ready(wait) is READY


def test_an_api_unavailable_until_the_deadline_fails_with_its_error():
    clock = Clock()
    cluster = Cluster(clock, reads=[unavailable()] * 3)
    wait = start(clock, seconds=30, timeout=30)
    waiting = cluster.awaiter()
    assert waiting.ready(wait) == PollAgain(1)
    clock.now += 20
    assert waiting.ready(wait) == PollAgain(5)
    clock.now += 11
    with pytest.raises(apierrors.ApiError) as raised:
        waiting.ready(wait)
    assert raised.value.status == 503


def forbidden():
    return apierrors.ApiError(403, 'Forbidden', 'pods "unready" is forbidden: '
                           'User "demo" cannot get resource "pods" in API '
                           'group "" in the namespace "demo" (HTTP 403 '
                           'Forbidden)')


def test_an_error_that_is_not_transient_is_raised_at_once():
    clock = Clock()
    refused = apierrors.ApiError(401, 'Unauthorized', 'Unauthorized')
    cluster = Cluster(clock, reads=[refused])
    with pytest.raises(apierrors.ApiError) as raised:
        cluster.awaiter().ready(start(clock))
    assert raised.value is refused


def test_a_403_after_an_apiserver_restart_is_retried_while_rbac_warms_up():
    # Recorded on a restarted kube-apiserver: for its first seconds RBAC
    # denies the user that created the object being waited for.
    clock = Clock()
    cluster = Cluster(clock, reads=[unavailable(), forbidden(), forbidden(),
                                    load('pod_ready')])
    wait = start(clock)
    waiting = cluster.awaiter()
    for _ in range(3):
        assert isinstance(waiting.ready(wait), PollAgain)
        clock.now += policy.FORBIDDEN_GRACE / 3 - 1
    assert waiting.ready(wait) is READY
    assert wait.forbidden_since is None


def test_a_403_that_lasts_past_the_grace_stands():
    clock = Clock()
    denied = forbidden()
    cluster = Cluster(clock, reads=[forbidden(), forbidden(), denied])
    wait = start(clock)
    waiting = cluster.awaiter()
    assert waiting.ready(wait) == PollAgain(1)
    clock.now += policy.FORBIDDEN_GRACE - 1
    assert isinstance(waiting.ready(wait), PollAgain)
    clock.now += 1
    with pytest.raises(apierrors.ApiError) as raised:
        waiting.ready(wait)
    assert raised.value is denied


def test_a_403_is_not_retried_past_the_deadline():
    clock = Clock()
    denied = forbidden()
    cluster = Cluster(clock, reads=[denied])
    wait = start(clock, seconds=10, timeout=10)
    clock.now += 11
    with pytest.raises(apierrors.ApiError) as raised:
        cluster.awaiter().ready(wait)
    assert raised.value is denied


# --- the deadline ------------------------------------------------------------

def test_a_watch_that_runs_into_the_deadline_leaves_the_message_to_the_poll():
    clock = Clock()
    still = with_version(load('pod_probe_failing'), 1490)
    cluster = Cluster(clock, reads=[load('pod_probe_failing')],
                      watches=[Watch([(1, still)], runs=3.2)])
    wait = start(clock, seconds=3, timeout=3,
                 live=load('pod_probe_failing'))
    waiting = cluster.awaiter()
    # The watch is cut to the 3 s left, and ends past the deadline quietly.
    assert waiting.ready(wait) == PollAgain(1)
    assert cluster.watched == [(version_of('pod_probe_failing'), 3)]
    assert clock.now > wait.deadline
    clock.now += 1
    assert failure(waiting.ready, wait) == (
        'Pod demo/unready not ready after 3s (timeout property): pod '
        'unready container app: running but not ready (readiness probe '
        'exec sh -c echo not yet; exit 1 not passing)')
    # Past the deadline the object is read afresh, judged with what
    # explains it, and not watched again.
    assert cluster.read_count == 1
    assert cluster.explained == [False, False, True]
    assert len(cluster.watched) == 1


def test_the_stack_timeout_is_named_when_no_timeout_property_is_set():
    clock = Clock()
    cluster = Cluster(clock, reads=[load('pod_crashloop')])
    wait = start(clock, seconds=50)
    clock.now += 51
    assert failure(cluster.awaiter(watching=False).ready, wait).startswith(
        'Pod demo/unready not ready after the stack timeout: pod crash '
        'container app: crash loop, restarted 2 times')


def test_an_apiserver_restart_mid_watch_makes_the_next_poll_read_again():
    clock = Clock()
    cluster = Cluster(clock, reads=[load('pod_probe_failing'),
                                    load('pod_ready')],
                      watches=[Watch(runs=0.2), Watch(runs=0)])
    wait = start(clock, live=load('pod_probe_failing'))
    waiting = cluster.awaiter()
    # The stream broke off (or the watch was refused with 410 Gone)...
    assert waiting.ready(wait) == PollAgain(1)
    assert waiting.ready(wait) == PollAgain(1)
    # ... so each later poll reads the object instead of trusting a version.
    assert waiting.ready(wait) is READY
    assert cluster.read_count == 2


def test_polls_back_off_to_a_quarter_of_the_time_waited():
    clock = Clock()
    slow = load('pod_crashloop')
    cluster = Cluster(clock, reads=[slow] * 40)
    wait = start(clock, seconds=200, timeout=200)
    waiting = cluster.awaiter(watching=False)
    delays = []
    with pytest.raises(awaiter.Failed):
        while True:
            delay = waiting.ready(wait)
            delays.append(delay.seconds)
            clock.now += delay.seconds
    assert delays == [1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 3, 4, 5, 6, 8, 10,
                      12, 15, 19, 20, 20, 20, 20, 20, 4]
    # The last poll comes right after the deadline, not up to 20 s later.
    assert clock.now - wait.deadline <= 1


def test_no_watch_when_watching_is_switched_off():
    clock = Clock()
    cluster = Cluster(clock, reads=[load('pod_crashloop')])
    waiting = cluster.awaiter(watching=False, name='Pod demo/crash')
    assert waiting.ready(start(clock)) == PollAgain(1)
    assert cluster.watched == []


# --- gone --------------------------------------------------------------------

def test_an_object_already_gone_is_gone():
    clock = Clock()
    claim = load('pvc_bound_local')
    cluster = Cluster(clock, reads=[None])
    assert cluster.awaiter().gone(start(clock),
                                  claim['metadata']['uid']) is READY


def test_a_new_object_under_the_same_name_means_the_old_one_is_gone():
    clock = Clock()
    claim = load('pvc_bound_local')
    cluster = Cluster(clock, reads=[claim])
    assert cluster.awaiter().gone(start(clock), 'uid-of-the-old-one') is (
        READY)


def test_an_object_deleted_during_a_watch_is_gone_when_the_watch_says_so():
    clock = Clock()
    claim = marked_for_deletion(load('pvc_bound_local'))
    cluster = Cluster(clock, reads=[claim],
                      watches=[Watch([(0.5, claim), (2, None)])])
    assert cluster.awaiter().gone(start(clock),
                                  claim['metadata']['uid']) is READY
    assert clock.now == 5002


def test_an_object_still_there_after_a_watch_is_polled_again():
    clock = Clock()
    claim = marked_for_deletion(load('pvc_bound_local'))
    cluster = Cluster(clock, reads=[claim], watches=[Watch([(1, claim)])])
    assert cluster.awaiter().gone(start(clock),
                                  claim['metadata']['uid']) == PollAgain(1)


def test_an_object_still_there_at_the_deadline_names_its_finalizers():
    clock = Clock()
    claim = marked_for_deletion(load('pvc_bound_local'))
    cluster = Cluster(clock, reads=[claim, claim])
    wait = start(clock, seconds=60, timeout=60)
    waiting = cluster.awaiter(watching=False,
                              name='PersistentVolumeClaim demo/data')
    clock.now += 40
    assert waiting.gone(wait, claim['metadata']['uid']) == PollAgain(10)
    clock.now += 21
    assert failure(waiting.gone, wait, claim['metadata']['uid']) == (
        'PersistentVolumeClaim demo/data still exists after 60s (timeout '
        'property); finalizers holding it: kubernetes.io/pvc-protection')


def test_an_apiserver_restarting_during_a_delete_is_waited_out():
    # Recorded mid-delete with kube-apiserver restarted: refused
    # connections, a 403 while RBAC warms up, then the object is gone.
    clock = Clock()
    claim = marked_for_deletion(load('pvc_bound_local'))
    cluster = Cluster(clock, reads=[unavailable(), forbidden(), None])
    wait = start(clock, seconds=60, timeout=60)
    waiting = cluster.awaiter(watching=False)
    assert waiting.gone(wait, claim['metadata']['uid']) == PollAgain(1)
    clock.now += 1
    assert waiting.gone(wait, claim['metadata']['uid']) == PollAgain(1)
    assert wait.forbidden_since is not None
    clock.now += 1
    assert waiting.gone(wait, claim['metadata']['uid']) is READY
    assert wait.forbidden_since is None


def test_an_api_error_at_the_delete_deadline_is_raised():
    clock = Clock()
    claim = marked_for_deletion(load('pvc_bound_local'))
    down = unavailable()
    cluster = Cluster(clock, reads=[down])
    wait = start(clock, seconds=10, timeout=10)
    clock.now += 11
    with pytest.raises(apierrors.ApiError) as raised:
        cluster.awaiter(watching=False).gone(wait, claim['metadata']['uid'])
    assert raised.value is down


# --- the layer ------------------------------------------------------------

def test_the_waiting_layer_imports_no_heat_and_no_resources():
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    loaded = subprocess.run(
        [sys.executable, '-c', 'import sys, heat_k8s.waiting.awaiter; '
         'print(" ".join(sorted(sys.modules)))'],
        cwd=root, check=True, capture_output=True, text=True).stdout.split()
    assert [name for name in loaded if name == 'heat' or name.startswith((
        'heat.', 'heat_k8s.resources', 'heat_k8s.config'))] == []
