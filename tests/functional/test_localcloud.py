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

"""tools/localcloud as a user drives it: up, status, env, restart, down;
the storage a claim gets without an operator's help."""

import os
import shutil
import subprocess
import tempfile

import pytest

from tests.functional import cloud
from tests.functional.recording import SLOW
from tests.functional.recording import create
from tests.functional.recording import get
from tests.functional.recording import record
from tests.functional.recording import resource
from tests.functional.recording import wait_for
from tests.functional.recording import write_through_claim
from tools.lc.kubernetes import storage


@pytest.fixture
def second_cloud():
    state_dir = tempfile.mkdtemp(prefix='heat-k8s-lifecycle-')
    yield state_dir
    cloud.localcloud(state_dir, 'down', check=False)
    shutil.rmtree(state_dir, ignore_errors=True)


def test_a_second_real_node_is_refused_in_one_line(cluster, second_cloud):
    # The session's cluster runs the machine's real node.
    result = cloud.localcloud(second_cloud, 'up', '--kubernetes-only',
                              check=False)
    assert result.returncode != 0
    assert result.stderr.strip().splitlines()[-1] == (
        'localcloud: the real node of the cloud in %s runs on this machine '
        '(one at a time); stop it (`localcloud --state-dir %s down`) or use '
        '`up --kwok-only`' % (cluster['state_dir'], cluster['state_dir']))


def test_lifecycle(cluster, second_cloud):
    state = second_cloud
    # kwok only: the session's cluster runs the machine's real node.
    cloud.localcloud(state, 'up', '--kubernetes-only', '--kwok-only')
    status = cloud.localcloud(state, 'status', check=False)
    assert status.returncode == 0, status.stdout
    assert '(ready)' in status.stdout
    started = cloud.pids(state)
    assert sorted(started) == ['etcd', 'kube-apiserver',
                               'kube-controller-manager', 'kube-scheduler',
                               'kwok']
    # Nothing secret is written outside the state directory's pki/.
    assert oct(os.stat(os.path.join(state, 'pki', 'tokens.csv'))
               .st_mode & 0o777) == '0o600'

    env = cloud.localcloud(state, 'env').stdout
    nodes = subprocess.run(['bash', '-c', env + '\nkubectl get nodes -o '
                            'name'], check=True, capture_output=True,
                           text=True).stdout.split()
    assert sorted(nodes) == ['node/compute-0', 'node/compute-1',
                             'node/controller-0']

    # A restarted apiserver comes back on the same port with its data.
    old_pid = started['kube-apiserver']
    cloud.localcloud(state, 'restart', 'kube-apiserver')
    assert cloud.pids(state)['kube-apiserver'] != old_pid
    assert not cloud.alive(old_pid)
    assert subprocess.run(['bash', '-c', env + '\nkubectl get node '
                           'controller-0 -o name'], capture_output=True,
                          text=True).stdout.strip() == 'node/controller-0'

    cloud.localcloud(state, 'down')
    for name, pid in cloud.pids(state).items() or started.items():
        assert not cloud.alive(pid), name
    for name, pid in started.items():
        assert not cloud.alive(pid), name
    # down is safe to run twice; status then says stopped.
    cloud.localcloud(state, 'down')
    status = cloud.localcloud(state, 'status', check=False)
    assert status.returncode == 1
    assert 'running' not in status.stdout
    # ... and it left the session's real node alone.
    assert subprocess.run(['ip', 'link', 'show', 'hk8s0'],
                          capture_output=True).returncode == 0
    session = cloud.localcloud(cluster['state_dir'], 'status', check=False)
    assert '%-24s running' % 'kubelet' in session.stdout


def test_a_claim_without_a_class_gets_a_volume_freed_with_it(
        api, namespace):
    # No PersistentVolume made by hand: the default StorageClass provisions.
    create(api, namespace, {
        'apiVersion': 'v1', 'kind': 'PersistentVolumeClaim',
        'metadata': {'name': 'data'},
        'spec': {'accessModes': ['ReadWriteOnce'],
                 'resources': {'requests': {'storage': '1Gi'}}}})
    bound = wait_for(api, 'PersistentVolumeClaim', namespace, 'data',
                     lambda c: c.get('status', {}).get('phase') == 'Bound',
                     'claim Bound')
    assert bound['spec']['storageClassName'] == 'standard'
    pv = get(api, 'PersistentVolume', None, bound['spec']['volumeName'])
    record('pv_hostpath_provisioned', pv)
    [path] = storage.provisioned_paths([pv])
    write_through_claim(api, namespace, 'data', path)

    resource(api, 'Pod').delete(name='writer', namespace=namespace)
    resource(api, 'PersistentVolumeClaim').delete(name='data',
                                                  namespace=namespace)

    def freed():
        names = [v.metadata.name for v in resource(
            api, 'PersistentVolume').get().items]
        return pv['metadata']['name'] not in names and not os.path.exists(
            path)
    cloud.wait_until(freed, 'the volume and its directory removed',
                     timeout=SLOW, interval=1)
