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

"""A crash is not ready: workloads on the real node whose containers exit.

A container that exits at once, with no readiness probe, runs for a
moment: its pod is Ready and its Deployment available before the kubelet
sees it exit. Heat's engine (in-process, convergence) creates each
workload on the real kubelet and must not call it complete; it fails with
the exit code and the last lines the container wrote, or at its timeout
with the probe that stopped passing.

With HEAT_K8S_RECORD_FIXTURES=1 the objects the waiter judged (the
workload and its pods, each time it looked) are saved
(tests.functional.recording) as tests/unit/fixtures/steady_<case>.json, where
tests/unit/test_steadiness.py replays them.
"""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

import time
from unittest import mock

from oslo_config import cfg

from heat_k8s.kinds import steadiness
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import policy
from tests.functional import recording

BASE = recording.BASE
HOLD = 5
GRACE = 5  # [kubernetes] pending_grace, short: the pod will never run
NOWHERE = {'heat-k8s.test/role': 'none'}  # a role no node has
MESSAGE = 'cannot open /etc/app/app.conf'


def container(command, **extra):
    return dict({'name': 'app', 'image': BASE, 'imagePullPolicy': 'Never',
                 'command': ['sh', '-c', command],
                 'terminationMessagePolicy': 'FallbackToLogsOnError'},
                **extra)


def pod_spec(*containers):
    return {'terminationGracePeriodSeconds': 1,
            'containers': list(containers)}


def deployment(app, *containers):
    return {'type': 'OS::Kubernetes::Deployment', 'properties': {
        'timeout': 120, 'spec': {
            'replicas': 1, 'selector': {'matchLabels': {'app': app}},
            'template': {'metadata': {'labels': {'app': app}},
                         'spec': pod_spec(*containers)}}}}


def hot(resources):
    return {'heat_template_version': '2021-04-16', 'resources': resources}


class Recorder:
    """What the waiter judged: the workload when its rule was asked, and
    the pods steadiness read, with the seconds since the first look and
    the wall-clock time of each look (the pods' stamps are read against
    it)."""

    def __init__(self):
        self.looks, self.started = [], None
        self._steadiness = awaiter.Awaiter._steadiness
        self._judge = steadiness.judge

    def __enter__(self):
        recorder = self

        def watched_steadiness(waiter, wait, obj, verdict):
            recorder.started = recorder.started or time.monotonic()
            recorder.looks.append({
                'seconds': round(time.monotonic() - recorder.started, 1),
                'at': waiter.now().isoformat(),
                'object': obj, 'verdict': verdict.state})
            return recorder._steadiness(waiter, wait, obj, verdict)

        def watched_judge(pods, *args, **kwargs):
            recorder.looks[-1]['pods'] = pods
            return recorder._judge(pods, *args, **kwargs)
        self._patches = [
            mock.patch.object(awaiter.Awaiter, '_steadiness',
                              watched_steadiness),
            mock.patch.object(steadiness, 'judge', watched_judge)]
        for patch in self._patches:
            patch.start()
        return self

    def __exit__(self, *exc):
        for patch in self._patches:
            patch.stop()

    def save(self, case):
        recording.record('steady_' + case, self.looks)


class CrashIsNotReadyTest(heat_cluster.ClusterTestCase):

    def setUp(self):
        super().setUp()
        cfg.CONF.set_override('ready_hold_seconds', HOLD, group='kubernetes')

    def create_recorded(self, case, resources):
        with Recorder() as recorder:
            stack = self.create(hot(resources))
        recorder.save(case)
        return stack, recorder.looks

    def test_a_container_that_exits_at_once_fails_the_create(self):
        stack, looks = self.create_recorded('exits_at_once', {
            'web': deployment('web', container(
                'echo "%s" >&2; exit 3' % MESSAGE))})
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['web'].status_reason
        self.assertIn('exit code 3: %s' % MESSAGE, reason)
        self.assertIn('keeps exiting', reason)
        # The rule alone read it ready at some look: the hold caught it.
        self.assertIn('READY', [look['verdict'] for look in looks])

    def test_exit_0_in_a_deployment_is_not_ready(self):
        stack, _ = self.create_recorded('exit_0', {
            'web': deployment('done', container('echo done; exit 0'))})
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['web'].status_reason
        self.assertIn('exit code 0', reason)
        self.assertIn('keeps exiting', reason)

    def test_a_probe_that_passes_once_then_fails_is_not_ready(self):
        # A bare Pod: the probe passes once, then fails for good; the
        # container keeps running, so it is the timeout that ends it.
        probe = {'exec': {'command': [
            'sh', '-c', 'test ! -e /tmp/probed && touch /tmp/probed']},
            'periodSeconds': 2, 'failureThreshold': 1}
        stack, looks = self.create_recorded('probe_once', {
            'pod': {'type': 'OS::Kubernetes::Pod', 'properties': {
                'timeout': 30, 'spec': pod_spec(container(
                    'exec sleep 3600', readinessProbe=probe))}}})
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['pod'].status_reason
        self.assertIn('not ready after 30s', reason)
        self.assertIn('readiness probe exec', reason)

    def ready_looks(self, looks):
        return [look['seconds'] for look in looks
                if look['verdict'] == 'READY']

    def test_a_workload_already_up_completes_at_its_first_ready_look(self):
        web = deployment('up', container('exec sleep 3600'))
        stack = self.create(hot({'web': web}))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        # The Deployment changes, its pods (up for the hold) do not. The
        # pods' stamps are whole seconds, read as up to a second younger.
        time.sleep(1)
        web['properties']['labels'] = {'tier': 'web'}
        with Recorder() as recorder:
            started = time.monotonic()
            stack = self.update(stack, hot({'web': web}))
            took = time.monotonic() - started
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        seen = [(look['seconds'], look['verdict']) for look in recorder.looks]
        self.assertEqual([0], self.ready_looks(recorder.looks), seen)
        self.assertLess(took, HOLD, seen)

    def test_min_ready_seconds_stand_for_the_hold(self):
        web = deployment('min-ready', container('exec sleep 3600'))
        web['properties']['spec']['minReadySeconds'] = HOLD
        with Recorder() as recorder:
            stack = self.create(hot({'web': web}))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        self.assertEqual(1, len(self.ready_looks(recorder.looks)))

    def test_a_pod_no_node_takes_fails_after_the_grace(self):
        cfg.CONF.set_override('pending_grace', GRACE, group='kubernetes')
        spec = dict(pod_spec(container('exec sleep 3600')),
                    nodeSelector=NOWHERE)
        started = time.monotonic()
        stack = self.create(hot({'pod': {
            'type': 'OS::Kubernetes::Pod',
            'properties': {'timeout': 300, 'spec': spec}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['pod'].status_reason
        # Stuck since the first close look; failed at the first after it
        # that is GRACE later (a watch may have run in between).
        self.assertRegex(reason, r'no progress for \d+s')
        self.assertIn('not scheduled: Unschedulable: 0/', reason)
        self.assertIn('nodes are available', reason)
        # After the grace (once pods are looked at closely), not at 300 s.
        self.assertLess(time.monotonic() - started,
                        policy.LOOK_CLOSER_AFTER + GRACE + 30)

    def test_a_job_whose_pod_no_node_takes_is_pending_and_fails(self):
        cfg.CONF.set_override('pending_grace', GRACE, group='kubernetes')
        spec = dict(pod_spec(container('exit 0')), nodeSelector=NOWHERE,
                    restartPolicy='Never')
        stack = self.create(hot({'job': {
            'type': 'OS::Kubernetes::Job', 'properties': {
                'timeout': 300, 'spec': {'backoffLimit': 0, 'template': {
                    'spec': spec}}}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['job'].status_reason
        self.assertIn('is pending: 0/1 succeeded', reason)
        self.assertIn('nodes are available', reason)

    def test_a_container_that_stays_up_is_ready_after_the_hold(self):
        started = time.monotonic()
        stack, looks = self.create_recorded('stays_up', {
            'web': deployment('up', container('exec sleep 3600'))})
        self.assertState(stack, 'CREATE', 'COMPLETE')
        ready = [look['seconds'] for look in looks
                 if look['verdict'] == 'READY']
        # Its container had just started: the hold is what is left of it.
        self.assertGreaterEqual(ready[-1] - ready[0], HOLD - 2)
        self.assertLess(time.monotonic() - started, 60)
