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

"""A second real node (issue 55, step 1): `localcloud node add` boots
node-1 as a machine of its own beside node-0 (tools.lc.kubernetes.machine).

Its pods reach node-0's, the cluster's DNS and the API server, and the host
reaches them directly and through a NodePort on loopback; its own
NetworkPolicy controller keeps projects apart; `kubectl drain` moves a
Deployment's pod off it; `node power-off` stops all of it at once (the
Node goes NotReady in the controller manager's own time, its pods stop
answering) and `power-on` brings its pods back.

node-1 is tainted for these tests alone (other modules' pods, which need
images it does not have, stay on node-0).
"""

import os
import subprocess
import time
import uuid

import kubernetes
import pytest

from tests.functional import cloud
from tests.functional.recording import SLOW
from tests.functional.recording import create
from tests.functional.recording import get
from tests.functional.recording import wait_for_pod
from tools.lc.builds import recipes
from tools.lc.kubernetes import machine

NODE = 'node-1'
TAINT = {'key': 'heat-k8s.io/test-node', 'value': NODE,
         'effect': 'NoSchedule'}
TOLERATION = dict(TAINT, operator='Equal')
MEMCACHED = recipes.ref('memcached')
BASE = recipes.ref('base')


@pytest.fixture(scope='module')
def node_1(cluster):
    state_dir = cluster['state_dir']
    cloud.localcloud(state_dir, 'node', 'add', '--taint',
                     '%(key)s=%(value)s:%(effect)s' % TAINT, '--images',
                     recipes.ref('pause'), BASE, MEMCACHED)
    try:
        yield state_dir
    finally:
        cloud.localcloud(state_dir, 'node', 'remove', NODE, check=False)


def _pod(name, node, image=MEMCACHED, command=None):
    container = {'name': 'app', 'image': image, 'imagePullPolicy': 'Never',
                 'securityContext': {'allowPrivilegeEscalation': False}}
    if command:
        container['command'] = command
    return {'apiVersion': 'v1', 'kind': 'Pod',
            'metadata': {'name': name, 'labels': {'app': name}},
            'spec': {'nodeName': node, 'tolerations': [TOLERATION],
                     'terminationGracePeriodSeconds': 1,
                     'containers': [container]}}


def _client(name, node):
    return _pod(name, node, image=BASE, command=['sleep', 'infinity'])


def _running(api, namespace, name):
    return wait_for_pod(api, namespace, name, lambda p: any(
        c['type'] == 'Ready' and c['status'] == 'True'
        for c in p.get('status', {}).get('conditions', [])),
        '%s Ready' % name)


def _kubectl(state_dir, *args, check=True, timeout=60):
    info = cloud.cloud_info(state_dir)
    kubectl = next(os.path.join(d, 'kubectl') for d in info['bins']
                   if os.path.exists(os.path.join(d, 'kubectl')))
    return cloud.run([kubectl, '--kubeconfig',
                      os.path.join(state_dir, 'kubeconfig')] + list(args),
                     check=check, timeout=timeout)


def _version_probe(host, port):
    """bash that asks memcached at host:port its version."""
    return ('exec 3<>/dev/tcp/%s/%d; echo version >&3; read -r l <&3; '
            'echo "$l"' % (host, port))


def _memcached_answers(state_dir, namespace, pod, host, port=11211):
    """Whether memcached at host:port answers `version` to `pod`."""
    out = _kubectl(state_dir, 'exec', '-n', namespace, pod, '--',
                   'timeout', '4', 'bash', '-c', _version_probe(host, port),
                   check=False)
    return out.stdout.startswith('VERSION')


def _host_reaches(host, port, timeout=4):
    try:
        out = subprocess.run(['bash', '-c', _version_probe(host, port)],
                             capture_output=True, text=True,
                             timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    return out.stdout.startswith('VERSION')


def _namespace(admin):
    core = kubernetes.client.CoreV1Api(admin)
    name = 'nodes-' + uuid.uuid4().hex[:8]
    core.create_namespace({'metadata': {'name': name}})
    cloud.wait_until(lambda: core.list_namespaced_service_account(
        name).items, 'default ServiceAccount of ' + name)
    return name


@pytest.fixture
def two_projects(admin):
    names = [_namespace(admin), _namespace(admin)]
    yield names
    for name in names:
        kubernetes.client.CoreV1Api(admin).delete_namespace(name)


def test_node_1_is_a_machine_of_its_own(api, two_projects, node_1):
    mine, other = two_projects
    node = get(api, 'Node', None, NODE)
    assert {'type': 'InternalIP', 'address': machine.address(1)} in \
        node['status']['addresses']
    assert TAINT in node['spec']['taints']
    for name, where in (('web1', NODE), ('web0', 'node-0')):
        create(api, mine, _pod(name, where))
    create(api, mine, _client('client1', NODE))
    create(api, other, _client('stranger1', NODE))
    create(api, other, _client('stranger0', 'node-0'))
    create(api, mine, {
        'apiVersion': 'v1', 'kind': 'Service',
        'metadata': {'name': 'web1'},
        'spec': {'type': 'NodePort', 'selector': {'app': 'web1'},
                 'ports': [{'port': 11211, 'targetPort': 11211}]}})
    web1 = _running(api, mine, 'web1')
    web0 = _running(api, mine, 'web0')
    for namespace, name in ((mine, 'client1'), (other, 'stranger1'),
                            (other, 'stranger0')):
        _running(api, namespace, name)
    ip1, ip0 = web1['status']['podIP'], web0['status']['podIP']
    assert ip1.startswith('10.85.1.') and ip0.startswith('10.85.0.')

    # Its kubelet and containerd run in its own network namespace.
    state_dir = node_1
    pid = cloud.pids(state_dir)['node-1-kubelet']
    assert os.readlink('/proc/%d/ns/net' % pid) != os.readlink(
        '/proc/self/ns/net')

    # Across nodes, by Service name (the DNS on node-0) and from the host.
    assert _memcached_answers(state_dir, mine, 'client1', ip0)
    # node-1's kube-proxy, too, programs the Service on its own sync.
    web1_name = 'web1.%s.svc.cluster.local' % mine
    cloud.wait_until(
        lambda: _memcached_answers(state_dir, mine, 'client1', web1_name),
        web1_name + ' from client1', timeout=30)
    assert _host_reaches(ip1, 11211)
    node_port = get(api, 'Service', mine, 'web1')['spec']['ports'][0][
        'nodePort']
    # node-0's kube-proxy programs the NodePort on its own sync, which a
    # loaded machine delays by seconds after the pod is Running.
    cloud.wait_until(lambda: _host_reaches('127.0.0.1', node_port),
                     'NodePort %d on the host' % node_port, timeout=30)
    # The API server, at the `kubernetes` Service's address.
    api_probe = _kubectl(state_dir, 'exec', '-n', mine, 'client1', '--',
                         'timeout', '4', 'bash', '-c',
                         'exec 3<>/dev/tcp/10.0.0.1/443', check=False)
    assert api_probe.returncode == 0, api_probe.stderr

    # Another project's pods are refused both ways: node-1's controller
    # decides for its pods, node-0's for its own.
    assert not _memcached_answers(state_dir, other, 'stranger1', ip0)
    assert not _memcached_answers(state_dir, other, 'stranger0', ip1)
    assert not _memcached_answers(state_dir, other, 'stranger1', ip1)


def test_drain_moves_a_deployment_off_node_1(api, namespace, node_1):
    state_dir = node_1
    labels = {'app': 'moved'}
    create(api, namespace, {
        'apiVersion': 'apps/v1', 'kind': 'Deployment',
        'metadata': {'name': 'moved'},
        'spec': {'replicas': 1, 'selector': {'matchLabels': labels},
                 'template': {'metadata': {'labels': labels}, 'spec': {
                     'tolerations': [TOLERATION],
                     'terminationGracePeriodSeconds': 1,
                     'nodeSelector': {'type': 'real'},
                     'affinity': {'nodeAffinity': {
                         'preferredDuringSchedulingIgnoredDuringExecution': [
                             {'weight': 100, 'preference': {
                                 'matchExpressions': [{
                                     'key': 'kubernetes.io/hostname',
                                     'operator': 'In',
                                     'values': [NODE]}]}}]}},
                     'containers': [{'name': 'app', 'image': MEMCACHED,
                                     'imagePullPolicy': 'Never'}]}}}})
    core = kubernetes.client.CoreV1Api(api.client)

    def ready_on():
        pods = core.list_namespaced_pod(namespace,
                                        label_selector='app=moved').items
        return [p.spec.node_name for p in pods
                if p.metadata.deletion_timestamp is None and any(
                    c.type == 'Ready' and c.status == 'True'
                    for c in p.status.conditions or ())]

    assert cloud.wait_until(ready_on, 'the pod Ready', SLOW) == [NODE]
    try:
        _kubectl(state_dir, 'drain', NODE, '--ignore-daemonsets',
                 '--pod-selector=app=moved', '--timeout=60s', timeout=90)
        assert cloud.wait_until(
            lambda: ready_on() == ['node-0'] and ready_on(),
            'the pod Ready on node-0', SLOW) == ['node-0']
        assert get(api, 'Node', None, NODE)['spec']['unschedulable']
    finally:
        _kubectl(state_dir, 'uncordon', NODE)
    assert not get(api, 'Node', None, NODE)['spec'].get('unschedulable')


def test_power_cut_and_boot(api, namespace, node_1):
    state_dir = node_1
    create(api, namespace, _pod('web1', NODE))
    ip1 = _running(api, namespace, 'web1')['status']['podIP']
    assert _host_reaches(ip1, 11211)
    before = {name: pid for name, pid in cloud.pids(state_dir).items()
              if name.startswith(NODE + '-')}
    assert set(before) == {'node-1-containerd', 'node-1-kubelet',
                           'node-1-kube-proxy',
                           'node-1-kube-network-policies',
                           'node-1-api-forward'}
    shims = _shims_of(state_dir)
    assert shims, 'no containerd shim runs for node-1'

    cut = time.monotonic()
    cloud.localcloud(state_dir, 'node', 'power-off', NODE)
    assert not [p for p in list(before.values()) + shims
                if cloud.alive(p)]
    assert not _host_reaches(ip1, 11211)

    def not_ready():
        conditions = get(api, 'Node', None, NODE)['status']['conditions']
        return any(c['type'] == 'Ready' and c['status'] != 'True'
                   for c in conditions)

    cloud.wait_until(not_ready, 'node-1 NotReady', timeout=120, interval=1)
    print('node-1 NotReady %.0f s after its power cut'
          % (time.monotonic() - cut))

    cloud.localcloud(state_dir, 'node', 'power-on', NODE)
    assert get(api, 'Node', None, NODE)['status']['conditions']
    live = _running(api, namespace, 'web1')
    assert _host_reaches(live['status']['podIP'], 11211)


def _shims_of(state_dir):
    socket = os.path.join(state_dir, NODE, 'containerd', 'containerd.sock')
    found = []
    for pid in filter(str.isdigit, os.listdir('/proc')):
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                argv = f.read()
        except OSError:
            continue
        if b'containerd-shim' in argv and socket.encode() in argv:
            found.append(int(pid))
    return found
