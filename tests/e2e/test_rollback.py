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

"""No stuck state: a rollback of several failing nested stacks completes.

tests/e2e/templates/rollback.yaml has two nested stacks whose rollouts
fail two seconds apart. Without heat_k8s/enginefixes/preemptfix.py, Heat 27
ended such a rollback ROLLBACK_FAILED ("Stack UPDATE cancelled") in two of
four tries on the local cloud: the rollback pre-empted, and so cancelled,
its own update of the second nested stack. The race is a matter of
timing, so it is run three times; each must end ROLLBACK_COMPLETE with
the objects back as they were. And the same stack deleted while its nested
stacks are still being created goes, leaving nothing.
"""


import pytest

from tests.e2e import identity as tt
from tests.e2e import stacks

ROUNDS = 3
NO_NODE = 'selector={"heat-k8s.io/no-such-node": "true"}'


@pytest.fixture
def stack(localcloud):
    name = stacks.unique('e2e-rollback')
    localcloud.run('openstack', 'stack', 'create', '--wait', '-t',
                   stacks.template('rollback.yaml'), name)
    try:
        yield name
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name,
                       check=False)


def test_failing_nested_stacks_roll_back_completely(localcloud, stack):
    kube = tt.Kube(localcloud)
    before = {d['metadata']['name']: d['spec']['template']['spec'].get(
        'nodeSelector') for d in kube.items('deployment')
        if d['metadata']['name'].startswith(stack)}
    assert before == {stack + '-first': None, stack + '-second': None}
    for round_ in range(ROUNDS):
        localcloud.run('openstack', 'stack', 'update', '--existing',
                       '--rollback', 'enabled', '--parameter', NO_NODE,
                       stack)
        shown = _settled(localcloud, stack)
        assert shown['stack_status'] == 'ROLLBACK_COMPLETE', (
            round_, shown['stack_status_reason'],
            tt.failures(localcloud, stack))
        after = {d['metadata']['name']: d['spec']['template']['spec'].get(
            'nodeSelector') for d in kube.items('deployment')
            if d['metadata']['name'].startswith(stack)}
        assert after == before, round_


def _settled(localcloud, name, timeout=300):
    """`stack show` once the update and its rollback are over."""
    return stacks.settled(localcloud, name, timeout, lambda status: status in (
        'UPDATE_COMPLETE', 'ROLLBACK_COMPLETE', 'ROLLBACK_FAILED'))


def test_a_stack_deleted_while_its_nested_stacks_create_goes(localcloud):
    # The delete cancels the nested stacks' creates, which Heat loads
    # without an environment: eventfix read it, and Heat 25-27 answered
    # the delete with "Internal Error" (AttributeError), the stack kept.
    name = stacks.unique('e2e-cancel')
    heat = stacks.Heat(localcloud)
    localcloud.run('openstack', 'stack', 'create', '-t',
                   stacks.template('rollback.yaml'), '--parameter', NO_NODE,
                   name)
    try:
        stack_id = heat.stack(name).id
        heat.wait_resource(stack_id, 'first', lambda r: (
            r.resource_status == 'CREATE_IN_PROGRESS'
            and r.physical_resource_id), 'the nested stack being created')
        result = localcloud.run('openstack', 'stack', 'delete', '-y',
                                '--wait', name, check=False)
        assert result.returncode == 0, result.stderr
        heat.wait_gone(stack_id, timeout=120)
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name,
                       check=False)
    kube = tt.Kube(localcloud)
    assert [d['metadata']['name'] for d in kube.items('deployment')
            if d['metadata']['name'].startswith(name)] == []
