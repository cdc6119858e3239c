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

"""Readiness against the real kubelet: containers that really run, crash,
lack their image, fail their probe or exit with a message.

Each test checks what heat_k8s.kinds.readiness says of the live object. With
HEAT_K8S_RECORD_FIXTURES=1 the objects are saved under tests/unit/fixtures/
(tests.functional.recording), where the readiness unit tests replay them.
"""

import os
import subprocess
import uuid

import kubernetes

from heat_k8s.kinds import readiness
from tests.functional import cloud
from tests.functional.recording import SLOW
from tests.functional.recording import claim
from tests.functional.recording import container
from tests.functional.recording import create
from tests.functional.recording import events_of
from tests.functional.recording import get
from tests.functional.recording import pod
from tests.functional.recording import pods_of
from tests.functional.recording import record
from tests.functional.recording import wait_for_pod
from tests.functional.recording import write_through_claim
from tools.lc.kubernetes import node_host


def test_a_pod_really_runs_on_the_real_node(api, namespace):
    create(api, namespace, pod('runs', container(
        'echo hello from $(hostname); exec sleep 3600')))
    live = wait_for_pod(api, namespace, 'runs',
                        lambda p: readiness.pod(p).state == readiness.READY,
                        'pod runs Ready')
    record('pod_ready', live)
    assert live['spec']['nodeName'] == 'node-0'
    assert live['status']['podIP'].startswith('10.85.0.')
    core = kubernetes.client.CoreV1Api(api.client)
    assert 'hello from runs' in core.read_namespaced_pod_log('runs',
                                                             namespace)


def test_a_pod_goes_after_run_netns_becomes_a_mount(api, namespace):
    """(Issue 55) `ip netns add`, as podman and other programs on an
    operator's host do, bind-mounts /run/netns on itself when it is no
    mount yet; pods made before could then no longer be deleted ("remove
    netns: unlinkat /var/run/netns/cni-...: device or resource busy").
    The node made it a mount before its first pod."""
    create(api, namespace, pod('before', container('exec sleep 3600')))
    wait_for_pod(api, namespace, 'before',
                 lambda p: readiness.pod(p).state == readiness.READY,
                 'pod before runs Ready')
    assert '/run/netns' in node_host.mount_points()
    other = 'heat-k8s-test-' + uuid.uuid4().hex[:8]
    subprocess.run(['ip', 'netns', 'add', other], check=True)
    try:
        core = kubernetes.client.CoreV1Api(api.client)
        core.delete_namespaced_pod('before', namespace)
        cloud.wait_until(lambda: not core.list_namespaced_pod(
            namespace, field_selector='metadata.name=before').items,
            'pod before deleted', timeout=60)
    finally:
        subprocess.run(['ip', 'netns', 'delete', other], check=True)


def progressing(api, namespace, name, until, what, fixture):
    """(pod, its verdict) once until(pod) holds, the pod recorded as
    fixture; the verdict is PROGRESSING."""
    live = wait_for_pod(api, namespace, name, until, what)
    record(fixture, live)
    verdict = readiness.pod(live)
    assert verdict.state == readiness.PROGRESSING
    return live, verdict


def test_crash_loop_names_exit_code_and_last_message(api, namespace):
    create(api, namespace, pod('crash', container(
        'echo "cannot reach the database" > /dev/termination-log; exit 2')))
    live, verdict = progressing(api, namespace, 'crash', crash_looping,
                                'a crash loop', 'pod_crashloop')
    assert ('container app: crash loop, restarted %d times, terminated with '
            'exit code 2: cannot reach the database' % restarts(live)
            in verdict.message), verdict.message
    explained = readiness.explain(verdict, events_of(api, namespace,
                                                     'crash'))
    assert 'BackOff: Back-off restarting failed container app' in explained


def restarts(p):
    return p['status']['containerStatuses'][0].get('restartCount') or 0


def crash_looping(p):
    """Restarted twice and not running: in back-off. (A 1.36 kubelet
    shows the last run as terminated, not waiting in CrashLoopBackOff.)"""
    statuses = p['status'].get('containerStatuses') or []
    return statuses and restarts(p) >= 2 and 'running' not in statuses[0][
        'state']


def test_an_image_that_is_not_there(api, namespace):
    create(api, namespace, pod('noimage', container(
        'true', image='localhost/heat-k8s/not-built:1')))

    def waiting(p):
        statuses = p['status'].get('containerStatuses') or []
        return any((s.get('state', {}).get('waiting') or {}).get('reason')
                   == 'ErrImageNeverPull' for s in statuses)
    _, verdict = progressing(api, namespace, 'noimage', waiting,
                             'ErrImageNeverPull', 'pod_image_missing')
    assert 'container app: ErrImageNeverPull' in verdict.message
    assert 'localhost/heat-k8s/not-built:1' in verdict.message


def test_a_readiness_probe_that_never_passes_is_named(api, namespace):
    create(api, namespace, pod('unready', container(
        'exec sleep 3600', readinessProbe={
            'exec': {'command': ['sh', '-c', 'echo not yet; exit 1']},
            'periodSeconds': 1})))

    def probe_failed(p):
        return any(e.get('reason') == 'Unhealthy'
                   for e in events_of(api, namespace, 'unready'))
    _, verdict = progressing(api, namespace, 'unready', probe_failed,
                             'a readiness probe failure event',
                             'pod_probe_failing')
    assert ('container app: running but not ready (readiness probe exec '
            'sh -c echo not yet; exit 1 not passing)' in verdict.message), (
        verdict.message)
    explained = readiness.explain(verdict, events_of(api, namespace,
                                                     'unready'))
    assert 'Unhealthy: Readiness probe failed: not yet' in explained


def test_a_failed_job_says_exit_code_and_termination_message(
        api, namespace):
    create(api, namespace, {
        'apiVersion': 'batch/v1', 'kind': 'Job',
        'metadata': {'name': 'migrate'},
        'spec': {'backoffLimit': 0, 'template': {
            'metadata': {'labels': {'job': 'migrate'}},
            'spec': {'restartPolicy': 'Never',
                     'terminationGracePeriodSeconds': 1,
                     'containers': [container(
                         'echo "schema version 7 is newer than this code" '
                         '> /dev/termination-log; exit 3')]}}}})

    def failed():
        job = get(api, 'Job', namespace, 'migrate', 'batch/v1')
        return readiness.job(job).state == readiness.FAILED and job
    job = cloud.wait_until(failed, 'job migrate Failed', timeout=SLOW,
                           interval=1)
    pods = pods_of(api, namespace, 'job=migrate')
    record('job_failed', job)
    record('job_failed_pod', pods[0])
    verdict = readiness.job(job, {'pods': pods})
    # The pod's own reason first, the Job's generic one last.
    assert verdict.message.startswith('job migrate failed: pod migrate-'), (
        verdict.message)
    assert verdict.message.endswith(
        'exit code 3: schema version 7 is newer than this code; '
        'BackoffLimitExceeded: Job has reached the specified backoff limit'
    ), verdict.message


def test_a_stalled_rollout_fails_with_progress_deadline(api, namespace):
    create(api, namespace, {
        'apiVersion': 'apps/v1', 'kind': 'Deployment',
        'metadata': {'name': 'stalled'},
        'spec': {'replicas': 1, 'progressDeadlineSeconds': 5,
                 'selector': {'matchLabels': {'app': 'stalled'}},
                 'template': {
                     'metadata': {'labels': {'app': 'stalled'}},
                     'spec': {'terminationGracePeriodSeconds': 1,
                              'containers': [container(
                                  'exec sleep 3600', readinessProbe={
                                      'exec': {'command': ['false']},
                                      'periodSeconds': 1})]}}}})

    def failed():
        d = get(api, 'Deployment', namespace, 'stalled', 'apps/v1')
        return readiness.deployment(d).state == readiness.FAILED and d
    deployment = cloud.wait_until(failed, 'ProgressDeadlineExceeded',
                                  timeout=SLOW, interval=1)
    record('deployment_deadline', deployment)
    verdict = readiness.deployment(deployment, {
        'pods': pods_of(api, namespace, 'app=stalled')})
    assert 'ProgressDeadlineExceeded' in verdict.message
    assert ('container app: running but not ready (readiness probe exec '
            'false not passing)' in verdict.message), verdict.message


def test_a_claim_bound_to_a_local_volume_is_used_by_a_pod(
        api, admin, namespace):
    path = '/tmp/heat-k8s-pv-' + uuid.uuid4().hex[:8]
    os.makedirs(path)
    storage_class = 'local-' + namespace
    create(api, None, {
        'apiVersion': 'storage.k8s.io/v1', 'kind': 'StorageClass',
        'metadata': {'name': storage_class},
        'provisioner': 'kubernetes.io/no-provisioner',
        'volumeBindingMode': 'Immediate'})
    create(api, None, {
        'apiVersion': 'v1', 'kind': 'PersistentVolume',
        'metadata': {'name': storage_class},
        'spec': {'capacity': {'storage': '1Gi'},
                 'accessModes': ['ReadWriteOnce'],
                 'persistentVolumeReclaimPolicy': 'Delete',
                 'storageClassName': storage_class,
                 'local': {'path': path},
                 'nodeAffinity': {'required': {'nodeSelectorTerms': [{
                     'matchExpressions': [{
                         'key': 'kubernetes.io/hostname',
                         'operator': 'In', 'values': ['node-0']}]}]}}}})
    try:
        create(api, namespace, claim('data', storage_class))

        def bound():
            live = get(api, 'PersistentVolumeClaim', namespace, 'data')
            return readiness.persistentvolumeclaim(live).state == \
                readiness.READY and live
        record('pvc_bound_local', cloud.wait_until(bound, 'claim bound',
                                                   timeout=SLOW))
        write_through_claim(api, namespace, 'data', path)
    finally:
        for kind, api_version, name in (
                ('PersistentVolume', 'v1', storage_class),
                ('StorageClass', 'storage.k8s.io/v1', storage_class)):
            api.resources.get(api_version=api_version, kind=kind).delete(
                name=name)


# -- kwok's simulated failures mirror the real kubelet ---------------------

def failure_shape(p):
    """What readiness reads of a failing pod, without names and times."""
    status = p['status']
    conditions = {c['type']: (c['status'], c.get('reason'))
                  for c in status.get('conditions') or ()
                  if c['type'] in ('Ready', 'ContainersReady')}
    (container,) = status['containerStatuses']
    state = {k: {f: v for f, v in s.items()
                 if f in ('reason', 'exitCode', 'message')}
             for k, s in container['state'].items()}
    last = {k: {f: v for f, v in s.items()
                if f in ('reason', 'exitCode', 'message')}
            for k, s in (container.get('lastState') or {}).items()}
    return {'phase': status['phase'], 'conditions': conditions,
            'ready': container['ready'], 'started': container.get('started'),
            'state': state, 'lastState': last}


def simulated(name, annotations, restart='Always'):
    from tests import simulated as sim
    obj = pod(name, container('true'), restart=restart)
    obj['metadata']['annotations'] = annotations
    obj['spec'] = sim.on_kwok(obj['spec'])
    return obj


def test_kwok_crash_loop_mirrors_the_real_kubelet(api, namespace):
    message = 'cannot reach the database\n'
    create(api, namespace, pod('real-crash', container(
        'printf "%s" "' + message.strip() + '\n" > /dev/termination-log; '
        'exit 2')))
    create(api, namespace, simulated('kwok-crash', {
        'sim.heat-k8s.io/waiting-reason': 'CrashLoopBackOff',
        'sim.heat-k8s.io/exit-code': '2',
        'sim.heat-k8s.io/message': message}))
    real = wait_for_pod(api, namespace, 'real-crash', crash_looping,
                        'a real crash loop')
    fake = wait_for_pod(api, namespace, 'kwok-crash', crash_looping,
                        'a simulated crash loop')
    assert failure_shape(fake) == failure_shape(real)
    for live in (real, fake):
        assert ('crash loop, restarted' in readiness.pod(live).message
                and 'terminated with exit code 2: cannot reach the database'
                in readiness.pod(live).message), live['metadata']['name']


def test_kwok_failed_job_pod_mirrors_the_real_kubelet(api, namespace):
    message = 'schema version 7 is newer than this code'
    create(api, namespace, pod('real-exit', container(
        'echo "%s" > /dev/termination-log; exit 3' % message),
        restart='Never'))
    create(api, namespace, simulated('kwok-exit', {
        'sim.heat-k8s.io/exit-code': '3',
        'sim.heat-k8s.io/message': message + '\n'}, restart='Never'))

    def failed(p):
        return p['status'].get('phase') == 'Failed'
    real = wait_for_pod(api, namespace, 'real-exit', failed, 'real exit 3')
    fake = wait_for_pod(api, namespace, 'kwok-exit', failed, 'kwok exit 3')
    assert failure_shape(fake) == failure_shape(real)
