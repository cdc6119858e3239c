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

"""The local control plane is real: its controllers do the work."""

import kubernetes
from kubernetes.client import ApiException
import pytest

from tests import simulated
from tests.functional import cloud
from tests.functional import conftest

SIM = 'sim.heat-k8s.io/'


def pod_template(labels, annotations=None, restart='Always', **spec):
    return {'metadata': {'labels': labels,
                         'annotations': annotations or {}},
            'spec': simulated.on_kwok(dict({
                'restartPolicy': restart, 'containers': [
                    {'name': 'app', 'image': 'registry.invalid/app:1'}]},
                **spec))}


def deployment(name, replicas, **spec):
    labels = {'app': name}
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
            'metadata': {'name': name},
            'spec': {'replicas': replicas,
                     'selector': {'matchLabels': labels},
                     'template': pod_template(labels, **spec)}}


def job(name, backoff_limit=0, annotations=None):
    return {'apiVersion': 'batch/v1', 'kind': 'Job',
            'metadata': {'name': name},
            'spec': {'backoffLimit': backoff_limit,
                     'template': pod_template({'job': name}, annotations,
                                              restart='Never')}}


def condition(obj, kind):
    for cond in (obj.status.conditions or []):
        if cond.type == kind and cond.status == 'True':
            return cond
    return None


@pytest.fixture
def apps(admin):
    return kubernetes.client.AppsV1Api(admin)


@pytest.fixture
def batch(admin):
    return kubernetes.client.BatchV1Api(admin)


@pytest.fixture
def core(admin):
    return kubernetes.client.CoreV1Api(admin)


def test_nodes_have_roles(core):
    nodes = core.list_node().items
    kinds = sorted((n.metadata.labels.get('type'),
                    n.metadata.labels.get('role')) for n in nodes)
    assert kinds == [('kwok', 'compute'), ('kwok', 'compute'),
                     ('kwok', 'controller'), ('real', 'controller')]
    for node in nodes:
        assert condition(node, 'Ready'), node.metadata.name
        # Only pods that ask for a simulation land on a kwok node.
        taints = [(t.key, t.effect) for t in node.spec.taints or ()]
        expected = ([('kwok.x-k8s.io/node', 'NoSchedule')]
                    if node.metadata.labels['type'] == 'kwok' else [])
        assert taints == expected, node.metadata.name


def test_deployment_becomes_available(apps, namespace):
    apps.create_namespaced_deployment(namespace, deployment('web', 3))

    def available():
        d = apps.read_namespaced_deployment('web', namespace)
        return d.status.available_replicas == 3 and condition(
            d, 'Available') and d
    d = cloud.wait_until(available, 'deployment web available')
    assert d.status.ready_replicas == d.status.updated_replicas == 3
    # The deployment controller made a ReplicaSet, which made the pods.
    rs = apps.list_namespaced_replica_set(namespace).items
    assert len(rs) == 1
    assert rs[0].metadata.owner_references[0].uid == d.metadata.uid
    assert rs[0].status.ready_replicas == 3


def test_job_completes(batch, core, namespace):
    batch.create_namespaced_job(namespace, job('migrate'))
    j = cloud.wait_until(
        lambda: condition(batch.read_namespaced_job('migrate', namespace),
                          'Complete') and batch.read_namespaced_job(
                              'migrate', namespace), 'job migrate complete')
    assert j.status.succeeded == 1
    pods = core.list_namespaced_pod(namespace, label_selector='job=migrate')
    assert [p.status.phase for p in pods.items] == ['Succeeded']


def test_job_annotated_to_fail_ends_failed(batch, core, namespace):
    annotations = {SIM + 'exit-code': '3', SIM + 'message': 'db unreachable'}
    batch.create_namespaced_job(
        namespace, job('sync', backoff_limit=1, annotations=annotations))
    failed = cloud.wait_until(
        lambda: condition(batch.read_namespaced_job('sync', namespace),
                          'Failed'), 'job sync failed', timeout=90)
    assert failed.reason == 'BackoffLimitExceeded'
    assert batch.read_namespaced_job('sync', namespace).status.failed == 2
    pods = core.list_namespaced_pod(namespace, label_selector='job=sync')
    assert len(pods.items) == 2
    for pod in pods.items:
        assert pod.status.phase == 'Failed'
        term = pod.status.container_statuses[0].state.terminated
        assert (term.exit_code, term.message) == (3, 'db unreachable')


def test_crashloop_simulation(core, namespace):
    pod = pod_template({}, {SIM + 'waiting-reason': 'CrashLoopBackOff',
                            SIM + 'exit-code': '2',
                            SIM + 'message': 'config missing'})
    pod['metadata']['name'] = 'crashy'
    core.create_namespaced_pod(namespace, pod)

    def restarted():
        p = core.read_namespaced_pod('crashy', namespace)
        statuses = p.status.container_statuses or []
        return statuses and statuses[0].restart_count and statuses[0]
    status = cloud.wait_until(restarted, 'pod crashy restarted')
    # As a real 1.36 kubelet reports back-off (test_real_node compares).
    assert status.state.terminated.exit_code == 2
    assert status.ready is False
    assert status.last_state.terminated.exit_code == 2
    assert status.last_state.terminated.message == 'config missing'
    events = core.list_namespaced_event(
        namespace, field_selector='involvedObject.name=crashy,type=Warning')
    assert events.items, 'a Warning event about the pod'


def test_node_selector_places_on_compute_only(apps, core, namespace):
    apps.create_namespaced_deployment(namespace, deployment(
        'worker', 6, nodeSelector={'role': 'compute'}))
    cloud.wait_until(
        lambda: apps.read_namespaced_deployment(
            'worker', namespace).status.ready_replicas == 6,
        'deployment worker ready')
    pods = core.list_namespaced_pod(namespace, label_selector='app=worker')
    nodes = {p.spec.node_name for p in pods.items}
    assert nodes <= {'compute-0', 'compute-1'}, nodes
    assert len(pods.items) == 6


def test_selector_service_gets_ready_endpoints(admin, apps, core, namespace):
    apps.create_namespaced_deployment(namespace, deployment('api', 2))
    core.create_namespaced_service(namespace, {
        'metadata': {'name': 'api'},
        'spec': {'selector': {'app': 'api'},
                 'ports': [{'port': 80, 'targetPort': 8080}]}})
    discovery = kubernetes.client.DiscoveryV1Api(admin)

    def ready_addresses():
        slices = discovery.list_namespaced_endpoint_slice(
            namespace, label_selector='kubernetes.io/service-name=api')
        return sorted(a for s in slices.items for e in (s.endpoints or [])
                      if e.conditions.ready for a in e.addresses)
    addresses = cloud.wait_until(lambda: len(ready_addresses()) == 2
                                 and ready_addresses(), 'ready endpoints')
    pods = core.list_namespaced_pod(namespace, label_selector='app=api')
    assert addresses == sorted(p.status.pod_ip for p in pods.items)
    svc = core.read_namespaced_service('api', namespace)
    assert svc.spec.cluster_ip.startswith('10.0.0.')


def test_deleting_namespace_removes_its_objects(apps, core):
    name = 'doomed'
    core.create_namespace({'metadata': {'name': name}})
    core.create_namespaced_config_map(name, {'metadata': {'name': 'cfg'}})
    cloud.wait_until(lambda: core.list_namespaced_service_account(
        name, field_selector='metadata.name=default').items, 'default sa')
    apps.create_namespaced_deployment(name, deployment('web', 1))
    cloud.wait_until(lambda: core.list_namespaced_pod(name).items, 'pods')
    core.delete_namespace(name)

    def gone():
        try:
            core.read_namespace(name)
        except ApiException as exc:
            return exc.status == 404
        return False
    cloud.wait_until(gone, 'namespace %s deleted' % name, timeout=90)
    assert core.list_namespaced_config_map(name).items == []
    assert apps.list_namespaced_deployment(name).items == []
    assert core.list_namespaced_pod(name).items == []


def test_configmap_update_seen_by_second_client(cluster, core, namespace):
    core.create_namespaced_config_map(namespace, {
        'metadata': {'name': 'settings'}, 'data': {'debug': 'false'}})
    other = conftest.api_client(cluster)
    try:
        reader = kubernetes.client.CoreV1Api(other)
        before = reader.read_namespaced_config_map('settings', namespace)
        core.patch_namespaced_config_map('settings', namespace,
                                         {'data': {'debug': 'true'}})
        after = reader.read_namespaced_config_map('settings', namespace)
    finally:
        other.close()
    assert before.data == {'debug': 'false'}
    assert after.data == {'debug': 'true'}
    assert after.metadata.resource_version != before.metadata.resource_version
