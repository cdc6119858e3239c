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

"""A clustered ContainerService (`members`, issue 55's step 2) on three
real nodes: the session cloud's node-0 and two more that this module adds
(`localcloud node add`), tainted so that only its pods, which tolerate
the taint through KubernetesTolerations, go there.

Three members land on three nodes and answer each other by their own
names; four on three nodes fail after the pending grace in the
scheduler's words; three RabbitMQ members form one cluster (the control
plane's with environments/ha.yaml), reaching each other on the ports only
members reach; a docker host refuses more than one member (a preview,
and the create, before the service).
"""

import json
import os

import pytest

from tests.e2e import stacks
from tests.e2e.identity import KUBE_ENVS
from tests.e2e.identity import Kube
from tests.e2e.identity import admin_kubectl
from tests.e2e.identity import create_args
from tests.e2e.identity import failures
from tests.e2e.identity import outputs
from tests.e2e.identity import stack_delete
from tests.e2e.identity import wait_stack
from tests.functional import cloud
from tools.lc.builds import recipes

TEMPLATES = os.path.join(cloud.REPO, 'tests', 'e2e', 'templates')
TEMPLATE = os.path.join(TEMPLATES, 'members.yaml')
CONTROLPLANE_IMAGES = os.path.join(cloud.REPO, 'environments',
                                   'localcloud-controlplane-images.yaml')
TAINT = {'key': 'heat-k8s.io/test-node', 'value': 'members',
         'effect': 'NoSchedule'}


@pytest.fixture(scope='module')
def three_nodes(localcloud):
    state_dir = localcloud.state_dir
    stacks.ensure_images(localcloud, 'rabbitmq')
    added = []
    try:
        for _ in range(2):
            added.append(cloud.localcloud(
                state_dir, 'node', 'add', '--taint',
                '%(key)s=%(value)s:%(effect)s' % TAINT, '--images',
                recipes.ref('pause'), recipes.ref('memcached'),
                recipes.ref('rabbitmq')).stdout.strip())
        yield added
    finally:
        for name in added:
            cloud.localcloud(state_dir, 'node', 'remove', name, check=False)


# The stacks, all created at once: the ones that succeed are complete
# while the one that cannot waits out the pending grace.
STACKS = {'members-three': ('members.yaml', ['members=3']),
          'members-four': ('members.yaml', ['members=4']),
          'members-rabbitmq': ('rabbitmq-cluster.yaml', [])}


@pytest.fixture(scope='module')
def created(localcloud, three_nodes, tmp_path_factory):
    """Every stack of STACKS, being created; deleted at the end."""
    tolerating = tmp_path_factory.mktemp('members') / 'tolerations.yaml'
    tolerating.write_text(json.dumps({'parameter_defaults': {
        'KubernetesTolerations': [dict(TAINT, operator='Equal')]}}))
    envs = KUBE_ENVS + [CONTROLPLANE_IMAGES, str(tolerating)]
    try:
        for name, (template, params) in STACKS.items():
            localcloud.run('openstack', 'stack', 'create', '--timeout', '10',
                           *create_args(envs, ['name=' + name] + params,
                                        os.path.join(TEMPLATES, template)),
                           name)
        yield three_nodes
    finally:
        for name in STACKS:
            stack_delete(localcloud, name)


def _complete(localcloud, name):
    shown = wait_stack(localcloud, name, 'CREATE')
    assert shown['stack_status'] == 'CREATE_COMPLETE', failures(
        localcloud, name)


def test_members_spread_answer_by_name_and_too_many_fail(localcloud,
                                                         created):
    _complete(localcloud, 'members-three')
    kube = Kube(localcloud)
    pods = kube.named('pods', 'members-three')
    nodes = {p['spec']['nodeName'] for p in pods}
    assert nodes == {'node-0', *created}, nodes
    names = outputs(localcloud, 'members-three')['members']
    domain = 'members-three-members.%s.svc' % kube.namespace
    assert names == ['members-three-%d.%s' % (i, domain) for i in range(3)]
    # Each member reaches every member by its name, across nodes.
    for name in names:
        probe = admin_kubectl(
            localcloud, 'exec', '-n', kube.namespace, 'members-three-0',
            '--', 'timeout', '5', 'bash', '-c',
            'exec 3<>/dev/tcp/%s/11211; echo version >&3; '
            'read -r l <&3; echo "$l"' % name)
        assert probe.startswith('VERSION'), (name, probe)
    env = admin_kubectl(localcloud, 'exec', '-n', kube.namespace,
                        'members-three-1', '--', 'sh', '-c',
                        'echo "$MEMBER $MEMBERS"').split()
    assert env == [names[1], ','.join(names)]
    budget = kube.get('poddisruptionbudgets')['items']
    assert [b['status'].get('disruptionsAllowed') for b in budget
            if b['metadata']['labels'].get(
                'app.kubernetes.io/name') == 'members-three'] == [1]

    four = wait_stack(localcloud, 'members-four', 'CREATE')
    assert four['stack_status'] == 'CREATE_FAILED'
    assert "didn't match pod anti-affinity rules" in four[
        'stack_status_reason'], four['stack_status_reason']


def test_three_rabbitmq_members_are_one_cluster(localcloud, created):
    _complete(localcloud, 'members-rabbitmq')
    kube = Kube(localcloud)
    pods = kube.named('pods', 'members-rabbitmq')
    assert {p['spec']['nodeName'] for p in pods} == {'node-0', *created}
    names = outputs(localcloud, 'members-rabbitmq')['members']
    status = json.loads(admin_kubectl(
        localcloud, 'exec', '-n', kube.namespace, 'members-rabbitmq-2',
        '--', 'sh', '-c', 'rabbitmqctl --longnames -n "rabbit@$MEMBER" '
        'cluster_status --formatter json'))
    nodes = sorted('rabbit@' + name for name in names)
    assert sorted(status['disk_nodes']) == nodes, status
    assert sorted(status['running_nodes']) == nodes, status


def test_a_docker_host_refuses_more_than_one_member(localcloud):
    # `template validate` checks no nested template's parameters (Heat 24
    # to 27); a preview does, as the create does before the service.
    result = localcloud.run(
        'openstack', 'stack', 'create', '--dry-run', *create_args(
            ['deployed-server-docker'], ['name=m', 'members=3'],
            TEMPLATE), 'members-docker', check=False)
    assert result.returncode != 0
    assert 'A docker host is one machine' in result.stderr, result.stderr
