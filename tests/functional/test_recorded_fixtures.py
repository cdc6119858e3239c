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

"""The unit tests' fixtures, made on the real node and read back.

Each test brings about a state for real (a rollout stuck on an image that
cannot be pulled, a pod no node selects, a namespace held terminating by a
finalizer, an update the API server rejects, ...), checks what
heat_k8s.kinds.readiness says of it, and with HEAT_K8S_RECORD_FIXTURES=1
saves what the API server returned (tests.functional.recording).
"""

import json
import uuid

import kubernetes
import pytest

from heat_k8s import kinds
from heat_k8s.kinds import readiness
from tests.functional import cloud
from tests.functional import recording
from tests.functional.recording import SLOW
from tests.functional.recording import claim
from tests.functional.recording import container
from tests.functional.recording import create
from tests.functional.recording import get
from tests.functional.recording import pod
from tests.functional.recording import pods_of
from tests.functional.recording import record
from tests.functional.recording import resource
from tests.functional.recording import wait_for
from tests.functional.recording import wait_for_pod

READY, PROGRESSING, FAILED = (readiness.READY, readiness.PROGRESSING,
                              readiness.FAILED)
NO_IMAGE = '127.0.0.1:9/heat-k8s/web:does-not-exist'  # nothing listens
SLEEP = 'exec sleep 3600'


def rejected(call, *args, **kwargs):
    """The Status body of the API server's refusal."""
    with pytest.raises(kubernetes.dynamic.exceptions.DynamicApiError) as e:
        call(*args, **kwargs)
    return json.loads(e.value.body)


def workload(kind, name, labels, *containers, **spec):
    api_version = 'batch/v1' if kind == 'Job' else 'apps/v1'
    template = {'metadata': {'labels': labels},
                'spec': {'terminationGracePeriodSeconds': 1,
                         'containers': list(containers)}}
    if kind == 'Job':
        template['spec']['restartPolicy'] = 'Never'
    else:
        spec['selector'] = {'matchLabels': labels}
    return {'apiVersion': api_version, 'kind': kind,
            'metadata': {'name': name},
            'spec': dict(spec, template=template)}


def ready(obj, related=None):
    return kinds.evaluate(obj, related).state == READY


def test_configuration_objects(api, namespace):
    create(api, namespace, {
        'apiVersion': 'v1', 'kind': 'ConfigMap',
        'metadata': {'name': 'web-config'},
        'data': {'LOG_LEVEL': 'info', 'nginx.conf': (
            "server {\n  listen 8080;\n"
            "  location / { return 200 'ok'; }\n}\n")},
        'binaryData': {'favicon.ico': 'AAABAAEAEBAAAAEAIAA='}})
    create(api, namespace, {
        'apiVersion': 'v1', 'kind': 'Secret', 'type': 'Opaque',
        'metadata': {'name': 'db-credentials'},
        'stringData': {'username': 'keystone',
                       'password': 's3cr3t-Pa55w0rd'}})
    backup = workload('Job', 'backup', {'job': 'backup'},
                      container('echo backed up'))['spec']
    backup['template']['spec']['restartPolicy'] = 'OnFailure'
    create(api, namespace, {
        'apiVersion': 'batch/v1', 'kind': 'CronJob',
        'metadata': {'name': 'backup'},
        'spec': {'schedule': '0 3 * * *', 'concurrencyPolicy': 'Forbid',
                 'jobTemplate': {'spec': backup}}})
    for name, kind, api_version, obj_name in (
            ('configmap', 'ConfigMap', 'v1', 'web-config'),
            ('secret', 'Secret', 'v1', 'db-credentials'),
            ('cronjob', 'CronJob', 'batch/v1', 'backup'),
            ('namespace_active', 'Namespace', 'v1', namespace)):
        obj = get(api, kind, namespace if kind != 'Namespace' else None,
                  obj_name, api_version)
        assert ready(obj), name
        record(name, obj)


def test_a_deployment_its_service_and_a_rollout_that_cannot_pull(
        api, namespace):
    labels = {'app': 'web', 'tier': 'frontend'}
    create(api, namespace, workload('Deployment', 'web', labels,
                                    container(SLEEP), replicas=3))
    create(api, namespace, {
        'apiVersion': 'v1', 'kind': 'Service',
        'metadata': {'name': 'web'},
        'spec': {'selector': labels, 'ports': [
            {'name': 'http', 'port': 80, 'targetPort': 8080}]}})
    create(api, namespace, {
        'apiVersion': 'v1', 'kind': 'Service',
        'metadata': {'name': 'web-public'},
        'spec': {'type': 'LoadBalancer', 'selector': labels, 'ports': [
            {'name': 'http', 'port': 80, 'targetPort': 8080}]}})
    deployment = wait_for(api, 'Deployment', namespace, 'web', ready,
                          'deployment web ready', 'apps/v1')
    record('deployment_ready', deployment)
    (replicaset,) = [r.to_dict() for r in resource(
        api, 'ReplicaSet', 'apps/v1').get(
            namespace=namespace, label_selector='app=web').items]
    assert ready(replicaset)
    record('replicaset_ready', replicaset)

    def slices():
        found = [s.to_dict() for s in resource(
            api, 'EndpointSlice', 'discovery.k8s.io/v1').get(
                namespace=namespace,
                label_selector='kubernetes.io/service-name=web').items]
        return sum(1 for s in found for e in s.get('endpoints') or ()
                   if e['conditions'].get('ready')) == 3 and found
    (endpoint_slice,) = cloud.wait_until(slices, '3 ready endpoints',
                                         timeout=SLOW, interval=1)
    service = get(api, 'Service', namespace, 'web')
    assert ready(service, {'endpointslices': [endpoint_slice]})
    record('service_clusterip', service)
    record('endpointslice_web', endpoint_slice)
    public = get(api, 'Service', namespace, 'web-public')
    assert readiness.service(public, {'endpointslices': []}).state == \
        PROGRESSING
    record('service_loadbalancer', public)

    # An update from a stale read is refused; so is one without an image.
    deployments = resource(api, 'Deployment', 'apps/v1')
    deployments.patch(name='web', namespace=namespace, body={
        'metadata': {'annotations': {'touched': 'yes'}}},
        content_type='application/merge-patch+json')
    record('status_conflict', rejected(
        deployments.replace, body=deployment, namespace=namespace))
    no_image = workload('Deployment', 'web', labels, container(SLEEP),
                        replicas=3)
    del no_image['spec']['template']['spec']['containers'][0]['image']
    record('status_required', rejected(
        deployments.create, body=no_image, namespace=namespace))

    # The rollout surges one pod whose image cannot be pulled.
    deployments.patch(name='web', namespace=namespace, body={
        'spec': {'template': {'spec': {'containers': [
            {'name': 'app', 'image': NO_IMAGE,
             'imagePullPolicy': 'IfNotPresent'}]}}}})

    def pull_backing_off():
        pods = pods_of(api, namespace, 'app=web')
        return [p for p in pods for s in p['status'].get(
            'containerStatuses') or ()
            if (s['state'].get('waiting') or {}).get('reason') ==
            'ImagePullBackOff']
    (stuck,) = cloud.wait_until(pull_backing_off, 'ImagePullBackOff',
                                timeout=SLOW, interval=1)
    rolling = get(api, 'Deployment', namespace, 'web', 'apps/v1')
    assert rolling['status']['updatedReplicas'] == 1, rolling['status']
    assert readiness.deployment(rolling).state == PROGRESSING
    record('deployment_rolling', rolling)
    assert readiness.pod(stuck).state == PROGRESSING
    record('pod_imagepull', stuck)


def test_pods_that_cannot_start(api, namespace):
    create(api, namespace, {'apiVersion': 'v1', 'kind': 'ConfigMap',
                            'metadata': {'name': 'web-config'},
                            'data': {'LOG_LEVEL': 'info'}})
    create(api, namespace, pod('config-error', container(SLEEP, env=[{
        'name': 'DB_HOST', 'valueFrom': {'configMapKeyRef': {
            'name': 'web-config', 'key': 'db_host'}}}])))
    create(api, namespace, pod('unschedulable', container(SLEEP),
                               nodeSelector={'heat-k8s.test/none': 'x'}))
    create(api, namespace, pod('no-volume', container(SLEEP, volumeMounts=[
        {'name': 'config', 'mountPath': '/etc/app'}]), volumes=[
        {'name': 'config', 'configMap': {'name': 'absent'}}]))
    create(api, namespace, pod('crash', container('echo boom; exit 1')))

    def waiting_for(reason):
        def check(p):
            return any((s['state'].get('waiting') or {}).get('reason')
                       == reason for s in p['status'].get(
                           'containerStatuses') or ())
        return check
    config_error = wait_for_pod(
        api, namespace, 'config-error',
        waiting_for('CreateContainerConfigError'),
        'CreateContainerConfigError')
    assert readiness.pod(config_error).state == PROGRESSING
    record('pod_config_error', config_error)
    unschedulable = wait_for_pod(
        api, namespace, 'unschedulable',
        lambda p: p['status'].get('conditions'), 'PodScheduled False')
    assert readiness.pod(unschedulable).state == PROGRESSING
    record('pod_unschedulable', unschedulable)

    def warnings():
        events = resource(api, 'Event').get(namespace=namespace).to_dict()
        reasons = {e['reason'] for e in events['items']
                   if e['type'] == 'Warning'}
        return {'FailedScheduling', 'FailedMount', 'BackOff',
                'Failed'} <= reasons and events
    record('events_web', cloud.wait_until(
        warnings, 'warning events of each pod', timeout=SLOW, interval=2))


def test_pods_and_jobs_that_run_to_completion(api, namespace):
    message = "Can't locate revision identified by 'ae1027a6acf'"
    create(api, namespace, pod('db-sync-ok', container(
        'echo synced'), restart='Never'))
    create(api, namespace, pod('db-sync-failed', container(
        'echo "%s" >&2; exit 2' % message,
        terminationMessagePolicy='FallbackToLogsOnError'), restart='Never'))
    create(api, namespace, workload('Job', 'db-sync', {'job': 'db-sync'},
                                    container('echo synced'),
                                    backoffLimit=2))
    create(api, namespace, workload('Job', 'db-retry', {'job': 'db-retry'},
                                    container('exit 1'), backoffLimit=2))

    def phase(want):
        return lambda p: p['status'].get('phase') == want
    succeeded = wait_for_pod(api, namespace, 'db-sync-ok',
                             phase('Succeeded'), 'pod Succeeded')
    assert ready(succeeded)
    record('pod_succeeded', succeeded)
    failed = wait_for_pod(api, namespace, 'db-sync-failed',
                          phase('Failed'), 'pod Failed')
    assert readiness.pod(failed).state == FAILED
    record('pod_failed', failed)
    complete = wait_for(api, 'Job', namespace, 'db-sync', ready,
                        'job Complete', 'batch/v1')
    record('job_complete', complete)
    running = wait_for(api, 'Job', namespace, 'db-retry',
                       lambda j: j['status'].get('failed') and
                       j['status'].get('active'),
                       'job retrying', 'batch/v1')
    assert readiness.job(running).state == PROGRESSING
    record('job_running', running)

    # A Job's pod template cannot change.
    changed = workload('Job', 'db-sync', {'job': 'db-sync'},
                       container('echo again'))['spec']['template']
    record('status_job_template', rejected(
        resource(api, 'Job', 'batch/v1').patch, name='db-sync',
        namespace=namespace, body={'spec': {'template': changed}},
        content_type='application/merge-patch+json'))


def test_a_daemonset_and_a_statefulset(api, namespace):
    create(api, namespace, workload('DaemonSet', 'node-exporter',
                                    {'app': 'node-exporter'},
                                    container(SLEEP)))
    create(api, namespace, workload('StatefulSet', 'db', {'app': 'db'},
                                    container(SLEEP), replicas=3,
                                    serviceName='db'))
    record('daemonset_ready', wait_for(
        api, 'DaemonSet', namespace, 'node-exporter', ready,
        'daemonset ready', 'apps/v1'))
    record('statefulset_ready', wait_for(
        api, 'StatefulSet', namespace, 'db', ready, 'statefulset ready',
        'apps/v1'))
    # Only some fields of a StatefulSet's spec may change.
    record('status_statefulset_spec', rejected(
        resource(api, 'StatefulSet', 'apps/v1').patch, name='db',
        namespace=namespace, body={'spec': {'serviceName': 'db2'}},
        content_type='application/merge-patch+json'))


def test_a_claim_that_binds_on_first_consumer(api, namespace):
    storage_class = 'local-path-' + namespace
    create(api, None, {
        'apiVersion': 'storage.k8s.io/v1', 'kind': 'StorageClass',
        'metadata': {'name': storage_class},
        'provisioner': 'rancher.io/local-path', 'reclaimPolicy': 'Delete',
        'volumeBindingMode': 'WaitForFirstConsumer'})
    classes = resource(api, 'StorageClass', 'storage.k8s.io/v1')
    try:
        create(api, namespace, claim('data', storage_class))
        pending = wait_for(api, 'PersistentVolumeClaim', namespace, 'data',
                           lambda c: c.get('status', {}).get('phase'),
                           'claim Pending')
        sc = classes.get(name=storage_class).to_dict()
        assert ready(pending, {'storageclass': sc})
        record('pvc_pending', pending)
        record('storageclass_local_path', sc)
    finally:
        classes.delete(name=storage_class)


def test_waits_that_nothing_will_end(api, namespace):
    """A claim with no class and no volume, a claim naming a class that
    does not exist (a default class, where the cloud has one, serves
    neither), and a Job whose pod no node selects: each with the words
    of the controller that cannot go on."""
    create(api, namespace, claim('no-class', ''))
    create(api, namespace, claim('no-such-class', 'absent-' + namespace))
    nowhere = workload('Job', 'db-sync', {'job': 'db-sync'},
                       container(SLEEP), backoffLimit=0)
    nowhere['spec']['template']['spec']['nodeSelector'] = {
        'heat-k8s.test/role': 'none'}  # a role no node has
    create(api, namespace, nowhere)
    job = cloud.wait_until(lambda: (lambda j: j['status'].get('active') and j)(
        get(api, 'Job', namespace, 'db-sync', 'batch/v1')),
        'job active', timeout=SLOW, interval=1)
    pods = cloud.wait_until(lambda: (lambda pods: pods and all(
        p['status'].get('conditions') for p in pods) and pods)(
        pods_of(api, namespace, 'job=db-sync')), 'its pod unscheduled',
        timeout=SLOW, interval=1)
    related = {'pods': pods}
    assert kinds.evaluate(job, related).stuck == readiness.PENDING
    assert 'is pending' in kinds.evaluate(job, related).message
    record('job_pending', job)
    record('job_pending_pods', pods)
    for name, reason in (('no-class', 'FailedBinding'),
                         ('no-such-class', 'ProvisioningFailed')):
        events = cloud.wait_until(lambda: (lambda es: any(
            e['reason'] == reason for e in es) and es)(
            recording.events_of(api, namespace, name)),
            'claim %s: %s' % (name, reason), timeout=SLOW, interval=1)
        pending = get(api, 'PersistentVolumeClaim', namespace, name)
        verdict = kinds.evaluate(pending, {'events': events})
        assert (verdict.state, verdict.stuck) == (PROGRESSING,
                                                  readiness.PENDING)
        record('pvc_' + name.replace('-', '_'), pending)
        record('events_pvc_' + name.replace('-', '_'), events)


def test_a_namespace_held_terminating_by_a_finalizer(api):
    namespace = 'test-held-' + uuid.uuid4().hex[:8]
    create(api, None, {'apiVersion': 'v1', 'kind': 'Namespace',
                       'metadata': {'name': namespace}})
    configmaps = resource(api, 'ConfigMap')
    configmaps.create(namespace=namespace, body={
        'metadata': {'name': 'held', 'finalizers': ['heat-k8s.test/hold']}})
    namespaces = resource(api, 'Namespace')
    try:
        namespaces.delete(name=namespace)

        def remaining(ns):
            return any(c['type'] == 'NamespaceFinalizersRemaining' and
                       c['status'] == 'True'
                       for c in ns['status'].get('conditions') or ())
        terminating = wait_for(api, 'Namespace', None, namespace,
                               remaining, 'a finalizer remaining')
        assert readiness.namespace(terminating).state == FAILED
        record('namespace_terminating', terminating)
    finally:
        configmaps.patch(name='held', namespace=namespace,
                         body={'metadata': {'finalizers': None}},
                         content_type='application/merge-patch+json')
