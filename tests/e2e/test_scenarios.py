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

"""What a user does with `openstack stack ...`, and what goes wrong.

Every stack is created as the `demo` user (or `other`) through the
`openstack` CLI; heat-api and the heat-engine workers reach the Kubernetes
API with the user's (trust-scoped) Keystone token. Objects are checked with
the admin kubeconfig, by Heat's ownership labels.

Failures are real: heat-engine is killed with SIGKILL in the middle of a
create, kube-apiserver is killed and started again while a resource waits.
"""

import datetime

import pytest

from tests.e2e import conftest
from tests.e2e import stacks
from tests.functional import cloud

# It kills heat-engine and kube-apiserver, on a kwok-only cloud
# of its own, so that the other modules go on meanwhile.
pytestmark = pytest.mark.own_cloud


@pytest.fixture(scope='module')
def localcloud():
    with conftest.own_kwok_cloud('scenarios') as own:
        yield own


SECRET = 'e2e-Sup3r-s3cret'
CREATE_TIMEOUT = 120


@pytest.fixture(scope='module')
def heat(localcloud):
    return stacks.Heat(localcloud)


def _time(text):
    return datetime.datetime.fromisoformat(text.replace('Z', '+00:00'))


def _condition(obj, kind):
    for cond in (obj.get('status') or {}).get('conditions') or []:
        if cond['type'] == kind:
            return cond
    raise AssertionError('%s has no %s condition: %s' % (
        stacks.describe(obj), kind, obj.get('status')))


def _event_index(events, resource, status):
    for index, event in enumerate(events):
        if (event.resource_name == resource and
                event.resource_status == status):
            return index
    raise AssertionError('no %s event for %s in:\n%s' % (
        status, resource, '\n'.join(
            '%s %s %s' % (e.resource_name, e.resource_status,
                          e.resource_status_reason) for e in events)))


def _in_progress_with_object(res):
    return (res.resource_status == 'CREATE_IN_PROGRESS'
            and res.physical_resource_id)


def test_application_stack_in_order_in_the_project_namespace(
        localcloud, heat):
    app = stacks.unique('e2e-app')
    name = stacks.unique('app')
    demo_ns = localcloud.projects['demo']
    stacks.openstack_wait(localcloud, 'create',
                          '-t', stacks.template('app.yaml'),
                          '--parameter', 'app=' + app,
                          '--parameter', 'db_password=' + SECRET, name)
    stack = heat.stack(name)
    assert stack.stack_status == 'CREATE_COMPLETE', (
        stack.stack_status_reason)
    resources = heat.resources(stack.id)

    # Heat's order: config and secret, then the Job; the Deployment once
    # the Job completed; the Service once the Deployment was ready.
    events = heat.events(stack.id)
    start = {r: _event_index(events, r, 'CREATE_IN_PROGRESS')
             for r in resources}
    done = {r: _event_index(events, r, 'CREATE_COMPLETE') for r in resources}
    assert max(done['config'], done['secret']) < start['db_sync']
    assert done['db_sync'] < start['api']
    assert done['api'] < start['service']

    # The objects: in the demo project's namespace, with Heat's labels,
    # one per resource (its uid is the physical resource id).
    objs = stacks.stack_objects(localcloud, stack.id)
    by_kind = {o['kind']: o for o in objs}
    assert sorted(by_kind) == ['ConfigMap', 'Deployment', 'Job', 'Secret',
                               'Service'], [stacks.describe(o) for o in objs]
    kinds = {'config': 'ConfigMap', 'secret': 'Secret', 'db_sync': 'Job',
             'api': 'Deployment', 'service': 'Service'}
    for resource, kind in kinds.items():
        meta = by_kind[kind]['metadata']
        assert meta['namespace'] == demo_ns
        assert meta['labels'][stacks.MANAGED_BY] == 'heat'
        assert meta['labels'][stacks.STACK_ID] == stack.id
        assert meta['labels'][stacks.RESOURCE] == resource
        assert meta['uid'] == resources[resource].physical_resource_id
    # The same order, as Kubernetes recorded it (second resolution).
    job, api, svc = by_kind['Job'], by_kind['Deployment'], by_kind['Service']
    assert _condition(job, 'Complete')['status'] == 'True'
    assert _time(job['status']['completionTime']) <= _time(
        api['metadata']['creationTimestamp'])
    assert _time(_condition(api, 'Available')['lastTransitionTime']) <= (
        _time(svc['metadata']['creationTimestamp']))
    assert api['status']['readyReplicas'] == 2

    # Outputs resolve (the CLI, then the same through heatclient).
    endpoint = localcloud.openstack('stack', 'output', 'show', name,
                                    'endpoint')['output_value']
    assert endpoint == '%s:80' % svc['spec']['clusterIP']
    outputs = {o['output_key']: o['output_value']
               for o in heat.stack(stack.id).outputs}
    assert outputs == {'endpoint': endpoint, 'namespace': demo_ns,
                       'db_sync_succeeded': 1, 'api_ready_replicas': 2}
    # The Secret's value went to Kubernetes only.
    shown = localcloud.run('openstack', 'stack', 'resource', 'show', name,
                           'secret', '-f', 'json').stdout
    assert SECRET not in shown

    # Delete: nothing of the stack is left, not even the pods.
    stacks.delete(localcloud, heat, name)
    assert stacks.stack_objects(localcloud, stack.id) == []
    assert stacks.objects(localcloud, 'app=' + app,
                          kinds=stacks.DEPENDENTS) == []


def test_other_project_cannot_create_in_the_demo_namespace(localcloud):
    other = stacks.Heat(localcloud, 'other')
    demo_ns = localcloud.projects['demo']
    name = stacks.unique('intruder')
    result = stacks.openstack_wait(
        localcloud, 'create', '-t', stacks.template('intruder.yaml'),
        '--parameter', 'namespace=' + demo_ns, name,
        os_cloud='other', check=False)
    assert result.returncode != 0
    stack = other.stack(name)
    assert stack.stack_status == 'CREATE_FAILED'
    reason = stack.stack_status_reason
    # Kubernetes' own denial: who, what, where.
    assert 'resources.intruder' in reason, reason
    assert 'forbidden' in reason, reason
    assert 'User "other"' in reason, reason
    assert 'resource "deployments"' in reason, reason
    assert 'namespace "%s"' % demo_ns in reason, reason
    resource = other.resources(stack.id)['intruder']
    assert resource.resource_status == 'CREATE_FAILED'
    assert stacks.stack_objects(localcloud, stack.id) == []
    # The failed stack deletes cleanly.
    stacks.delete(localcloud, other, name, os_cloud='other')


def test_engine_killed_during_create(localcloud, heat):
    """SIGKILL every heat-engine process while a Deployment is waiting.

    Heat 27 with convergence does not reset the stack at engine start
    (reset_stack_status covers legacy stacks only): stack and resource
    stay CREATE_IN_PROGRESS, with no engine working on them, until the
    user acts. A stack update recovers: Heat steals the dead engine's lock
    and marks the resource CREATE_FAILED "Worker went down during resource
    CREATE"; its object turned out ready, so the plugin keeps it
    (needs_replace_failed) and Heat marks it CREATE_COMPLETE rather than
    replacing it. A stack delete of the other interrupted stack cancels
    the create (CREATE_FAILED "Stack CREATE cancelled"), gives up stopping
    the dead workers (some 15 s) and deletes everything.
    """
    apps = {'keep': stacks.unique('e2e-keep'),
            'drop': stacks.unique('e2e-drop')}
    ids = {key: stacks.create(localcloud, stacks.unique('crash-' + key),
                              'slow.yaml', {'app': app})
           for key, app in apps.items()}
    for stack_id in ids.values():
        heat.wait_resource(stack_id, 'slow', _in_progress_with_object,
                           'the Deployment of %s created' % stack_id)
    slow_uid = heat.resources(ids['keep'])['slow'].physical_resource_id

    stacks.kill_group(localcloud, 'heat-engine')
    stacks.localcloud_cmd(localcloud, 'restart', 'heat-engine')

    # The Deployment becomes available with no engine watching it; the
    # stacks stay where the dead engine left them.
    stacks.release(localcloud, apps['keep'])
    cloud.wait_until(
        lambda: stacks.deployment_of(localcloud, ids['keep'])[
            'status'].get('availableReplicas') == 1,
        'the Deployment to become available', timeout=60, interval=1)
    for stack_id in ids.values():
        stack = heat.stack(stack_id)
        assert stack.stack_status == 'CREATE_IN_PROGRESS', (
            stack.stack_status_reason)
        states = {n: r.resource_status
                  for n, r in heat.resources(stack_id).items()}
        assert states == {'before': 'CREATE_COMPLETE',
                          'slow': 'CREATE_IN_PROGRESS',
                          'after': 'INIT_COMPLETE'}, states

    # `stack update` with the same template recovers the stack.
    stack = stacks.update(localcloud, heat, ids['keep'], '--existing')
    assert stack.stack_status == 'UPDATE_COMPLETE', stack.stack_status_reason
    slow_events = [(e.resource_status, e.resource_status_reason)
                   for e in heat.events(ids['keep'])
                   if e.resource_name == 'slow']
    # Heat marks the resource failed, then, since the plugin reports its
    # object ready, complete without replacing it.
    failed = slow_events.index(
        ('CREATE_FAILED', 'Worker went down during resource CREATE'))
    assert slow_events[failed + 1] == (
        'CREATE_COMPLETE', 'Update status to COMPLETE for FAILED resource '
        'neither update nor replace.'), slow_events
    resources = heat.resources(ids['keep'])
    assert {n: r.resource_status for n, r in resources.items()} == {
        'before': 'CREATE_COMPLETE', 'slow': 'CREATE_COMPLETE',
        'after': 'CREATE_COMPLETE'}
    assert resources['slow'].physical_resource_id == slow_uid
    stacks.assert_matches_heat(heat, localcloud, ids['keep'])

    # `stack delete` of the other interrupted stack (its Deployment still
    # held unready) removes everything; so does deleting the recovered one.
    for key in ('drop', 'keep'):
        stacks.delete(localcloud, heat, ids[key])
        assert stacks.stack_objects(localcloud, ids[key]) == []
        assert stacks.objects(localcloud, 'app=' + apps[key],
                              kinds=stacks.DEPENDENTS) == []


def test_apiserver_restarted_while_a_deployment_waits(localcloud, heat):
    app = stacks.unique('e2e-apiserver')
    log = stacks.engine_log(localcloud)
    offset = stacks.log_size(log)
    stack_id = stacks.create(localcloud, stacks.unique('apiserver'),
                             'slow.yaml', {'app': app})
    slow = heat.wait_resource(stack_id, 'slow', _in_progress_with_object,
                              'the Deployment created')
    object_name = stacks.deployment_of(localcloud, stack_id)['metadata'][
        'name']
    cloud.wait_until(lambda: stacks.objects(localcloud, 'app=' + app,
                                            kinds='pods'),
                     'the pod, held waiting', timeout=30, interval=0.5)

    # The API server goes away; the waiting resource meets it down...
    stacks.kill_group(localcloud, 'kube-apiserver')
    cloud.wait_until(
        lambda: any(object_name in line and 'will retry' in line
                    for line in stacks.log_since(log, offset).splitlines()),
        'heat-engine to meet the API server down', timeout=60, interval=1)
    # ...and comes back, and the pods start.
    stacks.localcloud_cmd(localcloud, 'restart', 'kube-apiserver')
    stacks.release(localcloud, app)

    stack = heat.wait(stack_id, timeout=CREATE_TIMEOUT)
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    resources = heat.resources(stack_id)
    # The same object, waited for across the outage, not recreated.
    assert resources['slow'].physical_resource_id == (
        slow.physical_resource_id)
    assert resources['after'].resource_status == 'CREATE_COMPLETE'
    stacks.assert_matches_heat(heat, localcloud, stack_id)
    stacks.delete(localcloud, heat, stack_id)
    assert stacks.stack_objects(localcloud, stack_id) == []
