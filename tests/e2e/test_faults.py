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

"""A service of the cloud fails in the middle of a create, an update and a
delete of templates/slow.yaml (a ConfigMap, a Deployment held unready by
kwok until the test releases it, a ConfigMap after it).

The fault strikes while the Deployment waits for its pods (create), for
its rollout to a new image (update) or to be gone (delete: a finalizer
holds it); the test lets it go once the fault is over. Then: the
stack reaches a terminal state within SETTLE seconds (COMPLETE, or FAILED
with the reason printed), a retry (`stack update --existing`, or delete
again) completes, and Kubernetes holds exactly the objects Heat knows. The
time from the fault's start to the terminal state and the stack's reason
are printed for each.

A killed engine takes the work it held with it (Heat 27's convergence
hands none of it over); heat_k8s.enginefixes.strandfix marks such a stack
FAILED, naming the dead engine, and the test requires that. A RabbitMQ
restart can lose the engine's next internal message (a check_resource
cast in flight) with no lock held: the stack then stays IN_PROGRESS, and
only a user's retry ends it. The local cloud's durable queues keep the
casts a restart used to drop; what is left is a cast still in the socket
as the broker stops. That is Heat's (see doc/source/limitations.rst);
for that fault the test gives the stack STRANDED seconds, requires the
retry to recover it, and says when it had to.

CI runs each fault in one phase (FAULT_PHASES); HEAT_K8S_E2E_FAULTS=all
runs every fault in every phase (24 cases, some 15 minutes on kwok).
"""

import itertools
import json
import os
import signal
import time

from heatclient import exc
import pytest

from tests.e2e import conftest
from tests.e2e import stacks
from tests.functional import cloud

# It stops and kills the cloud's own services, on a kwok-only cloud
# of its own, so that the other modules go on meanwhile.
pytestmark = pytest.mark.own_cloud


@pytest.fixture(scope='module')
def localcloud():
    with conftest.own_kwok_cloud('faults') as own:
        yield own


# Long enough for the slowest fault (DOWN) and a retry after it.
SETTLE = 120
# How long k8s-keystone-auth stays down (the figure).
DOWN = 30
PHASES = ('create', 'update', 'delete')
HOLD = 'sim.heat-k8s.io/hold'
STUCK = 'stuck'


def _restart(localcloud, component):
    stacks.localcloud_cmd(localcloud, 'restart', component)


def _down(localcloud, component, seconds=DOWN):
    stacks.kill_group(localcloud, component)
    time.sleep(seconds)
    stacks.localcloud_cmd(localcloud, 'restart', component)


def _crash(localcloud, component):
    """The whole component (heat-engine: master and workers) SIGKILLed,
    then started: _down without the time down."""
    _down(localcloud, component, seconds=0)


def _crash_one_worker(localcloud, component):
    """One engine worker of two SIGKILLed; its master forks another."""
    master, *workers = stacks.group(localcloud, 'heat-engine')
    os.kill(workers[0], signal.SIGKILL)
    cloud.wait_until(lambda: len(stacks.group(localcloud, 'heat-engine'))
                     == len(workers) + 1 and workers[0] not in
                     stacks.group(localcloud, 'heat-engine'),
                     'a new engine worker', timeout=60, interval=0.5)


FAULTS = {'rabbitmq': _restart, 'mariadb': _restart, 'keystone': _restart,
          'k8s-keystone-auth': _down, 'etcd': _restart,
          'kube-apiserver': _restart, 'heat-engine': _crash,
          'heat-engine-worker': _crash_one_worker}
# Faults after which Heat may never end the operation on its own: a lost
# check_resource message. The stack is retried after STRANDED. With the
# local cloud's durable queues 0 of 9 RabbitMQ restarts (3 per phase)
# stranded a stack, against one in three with transient ones; a cast
# still in the socket when the broker stops has no publisher confirm.
MAY_STRAND = {'rabbitmq'}
STRANDED = 45
# Faults that kill engine workers: the stack completes when the dead one
# held none of its work, else strandfix ends it FAILED with this in its
# reason, within SETTLE.
KILL_ENGINE = {'heat-engine', 'heat-engine-worker'}
WENT_DOWN = 'went down during stack'
# The default campaign: every fault class once, every phase at least once.
FAULT_PHASES = (('rabbitmq', 'update'), ('mariadb', 'create'),
                ('keystone', 'delete'), ('k8s-keystone-auth', 'create'),
                ('etcd', 'update'), ('heat-engine', 'update'))
CASES = (list(itertools.product(FAULTS, PHASES))
         if os.environ.get('HEAT_K8S_E2E_FAULTS') == 'all' else FAULT_PHASES)


@pytest.fixture(scope='module')
def heat(localcloud):
    return stacks.Heat(localcloud)


def _shown(heat, stack_id):
    """The stack, or None while the cloud cannot say (the fault)."""
    try:
        return heat.stack(stack_id)
    except exc.HTTPNotFound:
        raise
    except Exception:
        return None


def _terminal(heat, stack_id, action, timeout=SETTLE):
    """The stack once `action` is over (None: deleted), or STUCK."""
    def done():
        try:
            stack = _shown(heat, stack_id)
        except exc.HTTPNotFound:
            return 'gone'
        if stack is None or stack.action != action or (
                stack.stack_status.endswith('IN_PROGRESS')):
            return None
        if stack.stack_status == 'DELETE_COMPLETE':
            return 'gone'
        return stack
    try:
        found = cloud.wait_until(done, 'stack %s to end %s' % (
            stack_id, action), timeout=timeout, interval=1)
    except AssertionError:
        return STUCK
    return None if found == 'gone' else found


def _in_progress_with_object(res):
    return res.resource_status.endswith('IN_PROGRESS') and (
        res.physical_resource_id)


def _complete(localcloud, heat, stack_id, app):
    stacks.release(localcloud, app)
    stack = heat.wait(stack_id, timeout=60)
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason


def _hold(localcloud, obj):
    """Keep `obj` from going away (a finalizer) until _let_go()."""
    _patch(localcloud, obj, 'merge', {'metadata': {'finalizers': [HOLD]}})


def _let_go(localcloud, obj):
    _patch(localcloud, obj, 'json', [{'op': 'remove',
                                      'path': '/metadata/finalizers'}])


def _patch(localcloud, obj, kind, patch):
    meta = obj['metadata']
    localcloud.run('kubectl', 'patch', obj['kind'].lower(), '-n',
                   meta['namespace'], meta['name'], '--type', kind, '-p',
                   json.dumps(patch))


@pytest.mark.parametrize('fault,phase', CASES)
def test_fault_in_the_middle(localcloud, heat, capsys, fault, phase):
    app = stacks.unique('e2e-fault')
    stack_id = stacks.create(localcloud, stacks.unique('fault'),
                             'slow.yaml', {'app': app})
    heat.wait_resource(stack_id, 'slow', _in_progress_with_object,
                       'the Deployment created')
    if phase == 'update':
        _complete(localcloud, heat, stack_id, app)
        localcloud.run('openstack', 'stack', 'update', '--existing',
                       '--parameter', 'image=registry.invalid/app:2',
                       stack_id)
        heat.wait_resource(stack_id, 'slow', lambda r: (
            r.resource_status == 'UPDATE_IN_PROGRESS'), 'the rollout')
    elif phase == 'delete':
        _complete(localcloud, heat, stack_id, app)
        deployment = stacks.deployment_of(localcloud, stack_id)
        _hold(localcloud, deployment)
        localcloud.run('openstack', 'stack', 'delete', '--yes', stack_id)
        heat.wait_resource(stack_id, 'slow', lambda r: (
            r.resource_status == 'DELETE_IN_PROGRESS'), 'the delete')

    started = time.monotonic()
    FAULTS[fault](localcloud, fault)
    if phase == 'delete':
        _let_go(localcloud, deployment)
    else:
        stacks.release(localcloud, app)
    stack = _terminal(heat, stack_id, phase.upper(), timeout=(
        STRANDED if fault in MAY_STRAND else SETTLE))
    took = time.monotonic() - started
    stuck = stack is STUCK
    if stuck:
        stack = heat.stack(stack_id)
        status = 'still %s' % stack.stack_status
    else:
        status = stack.stack_status if stack else 'gone'
    reason = stack.stack_status_reason if stack else ''

    # The retry a user makes of a failed (or stuck) stack.
    retried = ''
    if stack is not None and (stuck or stack.stack_status.endswith(
            'FAILED')):
        if phase == 'delete':
            localcloud.run('openstack', 'stack', 'delete', '--yes', stack_id)
            stack = _terminal(heat, stack_id, 'DELETE')
        else:
            stacks.release(localcloud, app)
            stack = stacks.update(localcloud, heat, stack_id, '--existing',
                                  timeout=SETTLE)
        retried = ', retried: %s' % (stack.stack_status if stack else 'gone')
    with capsys.disabled():
        print('\n%s mid-%s: %s after %.0f s (%s)%s' % (
            fault, phase, status, took, reason, retried))
    assert stack is not STUCK, 'the retry did not end either'

    if phase == 'delete':
        assert stack is None, stack.stack_status_reason
        assert stacks.stack_objects(localcloud, stack_id) == []
    else:
        assert stack.stack_status.endswith('_COMPLETE'), (
            stack.stack_status_reason)
        stacks.assert_matches_heat(heat, localcloud, stack_id)
        stacks.delete(localcloud, heat, stack_id)
        assert stacks.stack_objects(localcloud, stack_id) == []
    assert stacks.objects(localcloud, 'app=' + app,
                          kinds=stacks.DEPENDENTS) == []
    # Last, so that a stuck stack is still recovered and cleaned up.
    assert not stuck or fault in MAY_STRAND, (
        'no terminal state %ss after the fault: %s' % (SETTLE, status))
    if fault in KILL_ENGINE and status.endswith('FAILED'):
        assert WENT_DOWN in reason, (status, reason)
