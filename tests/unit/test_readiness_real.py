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

"""The readiness rules on objects a real kubelet (1.36, containerd 1.6)
reported: fixtures/*.json, recorded by
tests/functional/test_real_node.py with HEAT_K8S_RECORD_FIXTURES=1."""

import pytest

from heat_k8s import kinds
from heat_k8s.kinds import diagnosis
from heat_k8s.kinds import readiness
from tests.unit.fixtures import load

READY, PROGRESSING, FAILED = (readiness.READY, readiness.PROGRESSING,
                              readiness.FAILED)


def test_a_running_pod_is_ready():
    assert kinds.evaluate(load('pod_ready')).state == READY


def test_a_crash_loop_as_the_kubelet_reports_it():
    pod = load('pod_crashloop')
    (status,) = pod['status']['containerStatuses']
    # Back-off, as 1.36 shows it: the last run terminated, not "waiting".
    assert 'terminated' in status['state']
    verdict = kinds.evaluate(pod)
    assert verdict == readiness.Verdict(PROGRESSING, (
        'pod crash container app: crash loop, restarted 2 times, terminated '
        'with exit code 2: cannot reach the database'))


def test_an_image_that_is_not_there():
    verdict = kinds.evaluate(load('pod_image_missing'))
    assert verdict == readiness.Verdict(PROGRESSING, (
        'pod noimage container app: ErrImageNeverPull: Container image '
        '"localhost/heat-k8s/not-built:1" is not present with pull policy '
        'of Never'), stuck=readiness.IMAGE_PULL)


def test_a_job_whose_pod_cannot_pull_its_image_is_stuck():
    job = load('job_failed')
    job['status'] = {'active': 1}
    verdict = kinds.evaluate(job, {'pods': [load('pod_image_missing')]})
    assert (verdict.state, verdict.stuck) == (PROGRESSING,
                                              readiness.IMAGE_PULL)
    # Without its pods (read only to explain) nothing says it is stuck.
    assert not kinds.evaluate(job).stuck


def test_a_failing_readiness_probe_is_named():
    verdict = kinds.evaluate(load('pod_probe_failing'))
    assert verdict == readiness.Verdict(PROGRESSING, (
        'pod unready container app: running but not ready (readiness probe '
        'exec sh -c echo not yet; exit 1 not passing)'))


def test_a_failed_job_with_its_pods_exit_code_and_message():
    verdict = kinds.evaluate(load('job_failed'),
                                 {'pods': [load('job_failed_pod')]})
    assert verdict.state == FAILED
    assert verdict.message.startswith('job migrate failed: pod migrate-')
    assert verdict.message.endswith(
        'container app: terminated with exit code 3: schema version 7 is '
        'newer than this code; BackoffLimitExceeded: Job has reached the '
        'specified backoff limit')


def test_a_stalled_rollout_fails():
    verdict = kinds.evaluate(load('deployment_deadline'))
    assert verdict.state == FAILED
    assert verdict.message.startswith(
        'deployment stalled rollout failed: ProgressDeadlineExceeded: '
        'ReplicaSet "stalled-')


def test_a_claim_bound_to_a_local_volume():
    verdict = kinds.evaluate(load('pvc_bound_local'))
    assert verdict.state == READY
    assert verdict.message.startswith('claim data is bound to volume local-')


@pytest.mark.parametrize('probe,text', [
    ({'httpGet': {'path': '/v3', 'port': 5000}}, 'httpGet /v3 on port 5000'),
    ({'httpGet': {'port': 'http'}}, 'httpGet / on port http'),
    ({'tcpSocket': {'port': 11211}}, 'tcpSocket on port 11211'),
    ({'exec': {'command': ['pg_isready', '-U', 'x']}}, 'exec pg_isready -U x'),
    ({'grpc': {'port': 9000}}, 'grpc on port 9000'),
    (None, None),
])
def test_probe_text(probe, text):
    assert diagnosis.probe_text(probe) == text


# Recorded by hand on the local cloud's real node: a StatefulSet and a
# Deployment of one privileged container applied with kubectl to the
# demo project's namespace (Pod Security baseline), then `kubectl get
# statefulset,deployment refused -o json` and the StatefulSet's events
# (`kubectl get events --field-selector involvedObject.kind=StatefulSet,
# involvedObject.name=refused -o json`) 20 s later.
REFUSED = ('pods "refused-0" is forbidden: violates PodSecurity '
           '"baseline:latest": privileged (container "one" must not set '
           'securityContext.privileged=true)')


def test_a_statefulset_whose_pods_are_refused_is_stuck():
    sts = load('statefulset_refused')
    events = load('events_statefulset_refused')
    verdict = kinds.evaluate(sts, {'pods': [], 'events': events})
    assert (verdict.state, verdict.stuck) == (PROGRESSING, readiness.PENDING)
    assert verdict.message.startswith('0/1 replicas ready')
    # The controller's words, clipped as every quoted text is.
    assert ('; FailedCreate: Create Pod refused-0 in StatefulSet refused '
            'failed error: ' + REFUSED)[:150] in verdict.message
    # Without its events (read only to explain) nothing says it is stuck.
    assert not kinds.evaluate(sts, {'pods': []}).stuck


def test_a_later_successful_create_is_progress():
    events = load('events_statefulset_refused')
    created = dict(events[0], reason='SuccessfulCreate', type='Normal',
                   lastTimestamp='2999-01-01T00:00:00Z')
    assert diagnosis.creation_refused(load('statefulset_refused'),
                                      events + [created]) == ''


def test_a_deployment_whose_pods_are_refused_is_stuck():
    verdict = kinds.evaluate(load('deployment_refused'), {'pods': []})
    assert (verdict.state, verdict.stuck) == (PROGRESSING, readiness.PENDING)
    refused = REFUSED.replace('refused-0', 'refused-6bb966fcdf-swjdb')
    # Said once: the condition is the rule's message already.
    assert verdict.message.count(refused) == 1, verdict.message


def test_a_statefulset_whose_pod_no_node_takes_is_stuck():
    # A compute role that names no node: the scheduler's words, from the
    # pod (pod_unschedulable: recorded with a node selector nothing has).
    sts = load('statefulset_refused')
    verdict = kinds.evaluate(sts, {'pods': [load('pod_unschedulable')],
                                   'events': []})
    assert (verdict.state, verdict.stuck) == (PROGRESSING, readiness.PENDING)
    assert 'Unschedulable' in verdict.message, verdict.message
