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

"""Stacks and their objects, as a user and an operator see them.

Stacks are driven with the `openstack` CLI (what users type); their state
is polled with python-heatclient (one Keystone session per user instead of
one CLI process per poll, which matters on a small machine). Kubernetes
objects are listed with kubectl and the admin kubeconfig, by Heat's
ownership labels.
"""

import fcntl
import json
import os
import signal
import time
import uuid

from heatclient import client as heat_client
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3

from tests.functional import cloud

TEMPLATES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         'templates')
MANAGED_BY = 'app.kubernetes.io/managed-by'
STACK_ID = 'heat.openstack.org/stack-id'
RESOURCE = 'heat.openstack.org/resource-name'
# Every kind a stack of these tests writes, and what their controllers
# make from them (pods, replica sets): nothing may outlive a stack.
KINDS = ('configmaps,secrets,services,deployments.apps,jobs.batch,'
         'statefulsets.apps,daemonsets.apps,cronjobs.batch,pods,'
         'persistentvolumeclaims')
DEPENDENTS = 'pods,replicasets.apps,endpointslices.discovery.k8s.io'


def ensure_images(localcloud, *names):
    """Build, or find, the opt-in images `names` in podman and the real
    node; one module at a time (modules share them, and a build must not
    race a build)."""
    lock = os.path.join(localcloud.state_dir, 'images.lock')
    with open(lock, 'w') as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        cloud.localcloud(localcloud.state_dir, 'images', *names)


def unique(prefix):
    return '%s-%s' % (prefix, uuid.uuid4().hex[:8])


def template(name):
    return os.path.join(TEMPLATES, name)


class Heat(object):
    """python-heatclient as one of the clouds.yaml users."""

    def __init__(self, localcloud, os_cloud='demo', clouds_file=None):
        with open(clouds_file or localcloud.env['OS_CLIENT_CONFIG_FILE']) as f:
            conf = json.load(f)['clouds'][os_cloud]
        sess = ks_session.Session(auth=v3.Password(**conf['auth']),
                                  verify=conf.get('cacert', True))
        self.client = heat_client.Client(
            '1', session=sess, region_name=conf.get('region_name'),
            interface=conf.get('interface', 'public'))

    def stack(self, name_or_id):
        return self.client.stacks.get(name_or_id)

    def resources(self, stack_id):
        """{logical name: resource} of the stack's current resources."""
        return {r.resource_name: r
                for r in self.client.resources.list(stack_id)}

    def events(self, stack_id):
        """The stack's events, oldest first (as Heat stored them)."""
        return self.client.events.list(stack_id, sort_dir='asc')

    def wait(self, name_or_id, timeout, action=None):
        """The stack once it is no longer IN_PROGRESS (and, with action,
        once it is at that action)."""
        def done():
            stack = self.stack(name_or_id)
            if stack.stack_status.endswith('IN_PROGRESS') or (
                    action and stack.action != action):
                return None
            return stack
        return cloud.wait_until(done, 'stack %s to settle' % name_or_id,
                                timeout=timeout, interval=1)

    def wait_resource(self, stack_id, name, predicate, what, timeout=60):
        def check():
            res = self.resources(stack_id).get(name)
            return res if res is not None and predicate(res) else None
        return cloud.wait_until(check, what, timeout=timeout, interval=0.5)

    def wait_gone(self, stack_id, timeout):
        from heatclient import exc

        def gone():
            try:
                stack = self.stack(stack_id)
            except exc.HTTPNotFound:
                return 'gone'
            if stack.stack_status == 'DELETE_FAILED':
                raise AssertionError('delete failed: %s'
                                     % stack.stack_status_reason)
            return stack.stack_status == 'DELETE_COMPLETE' and 'deleted'
        return cloud.wait_until(gone, 'stack %s deleted' % stack_id,
                                timeout=timeout, interval=1)


def settle(localcloud, name, action, timeout):
    """`openstack stack show` of `name` once its `action` is over."""
    return settled(localcloud, name, timeout,
                   lambda status: status != action + '_IN_PROGRESS')


def settled(localcloud, name, timeout, done):
    """`openstack stack show` of `name` once `done(its status)`: polled
    through heatclient (an `openstack` process costs a second of CPU, and
    three modules polling at once took a core), then shown by the CLI,
    as a user sees it."""
    heat = Heat(localcloud)
    deadline = time.monotonic() + timeout
    while True:
        status = heat.stack(name).stack_status
        if done(status):
            return localcloud.openstack('stack', 'show', name)
        if time.monotonic() > deadline:
            raise AssertionError('%s still %s after %ss' % (
                name, status, timeout))
        time.sleep(2)


def create(localcloud, name, template_name, params=None, os_cloud='demo'):
    """`openstack stack create` (no --wait); the new stack's id."""
    args = ['stack', 'create', '-t', template(template_name)]
    for key, value in sorted((params or {}).items()):
        args += ['--parameter', '%s=%s' % (key, value)]
    return localcloud.openstack(*args, name, os_cloud=os_cloud)['id']


def openstack_wait(localcloud, *args, os_cloud='demo', check=True):
    """`openstack stack <action> --wait` polling every second (the
    default, 5 s, would dominate these tests' run time)."""
    return localcloud.run('openstack', 'stack', *args, '--wait', '--poll',
                          '1', os_cloud=os_cloud, check=check)


def update(localcloud, heat, stack, *args, timeout=120):
    """`openstack stack update` (its --wait polls every 5 s, fixed), then
    wait, polling every second, for the update to end."""
    localcloud.run('openstack', 'stack', 'update', *args, stack)
    return heat.wait(stack, timeout, action='UPDATE')


def delete(localcloud, heat, stack, os_cloud='demo', timeout=120):
    """`openstack stack delete` (its --wait polls every 5 s, fixed), then
    wait, polling every second, for the stack to be gone."""
    stack_id = heat.stack(stack).id
    localcloud.run('openstack', 'stack', 'delete', '--yes', stack_id,
                   os_cloud=os_cloud)
    heat.wait_gone(stack_id, timeout)


HOLD = 'sim.heat-k8s.io/waiting-reason'


def release(localcloud, app):
    """Let kwok start the pods labelled app=<app> (templates/slow.yaml
    holds them waiting with a sim.heat-k8s.io annotation)."""
    # The controllers may still be making them (say, after an API server
    # restart).
    pods = cloud.wait_until(
        lambda: objects(localcloud, 'app=' + app, kinds='pods'),
        'pods labelled app=%s to release' % app, timeout=60, interval=0.5)
    for pod in pods:
        meta = pod['metadata']
        result = localcloud.run('kubectl', 'annotate', 'pod', '-n',
                                meta['namespace'], meta['name'], HOLD + '-',
                                check=False)
        # A pod its ReplicaSet deleted since the listing has nothing to
        # release (a rollout, or a controller catching up after a fault).
        assert result.returncode == 0 or 'NotFound' in result.stderr, (
            result.stderr)


def deployment_of(localcloud, stack_id):
    found = [o for o in stack_objects(localcloud, stack_id)
             if o['kind'] == 'Deployment']
    assert len(found) == 1, [describe(o) for o in found]
    return found[0]


def kubectl(localcloud, *args):
    """kubectl with the admin kubeconfig; the parsed JSON answer."""
    out = localcloud.run('kubectl', *args, '-o', 'json')
    return json.loads(out.stdout)


def objects(localcloud, selector, kinds=KINDS):
    """Objects of these kinds in any namespace matching a label selector."""
    return kubectl(localcloud, 'get', kinds, '--all-namespaces',
                   '-l', selector)['items']


def stack_objects(localcloud, stack_id):
    return objects(localcloud, '%s=heat,%s=%s' % (MANAGED_BY, STACK_ID,
                                                  stack_id))


def describe(obj):
    meta = obj['metadata']
    return '%s %s/%s' % (obj['kind'], meta.get('namespace'), meta['name'])


def by_resource(objs):
    """{logical resource name: [uid, ...]} from the ownership labels."""
    out = {}
    for obj in objs:
        name = obj['metadata']['labels'][RESOURCE]
        out.setdefault(name, []).append(obj['metadata']['uid'])
    return out


def assert_matches_heat(heat, localcloud, stack_id):
    """The stack's labelled objects are exactly its resources' objects:
    nothing orphaned, nothing missing."""
    resources = heat.resources(stack_id)
    expected = {name: [r.physical_resource_id]
                for name, r in resources.items() if r.physical_resource_id}
    for name, r in resources.items():
        if r.resource_type == 'OS::Kubernetes::Objects':
            shown = heat.client.resources.get(stack_id, name).attributes
            expected[name] = [e['uid'] for e in shown['objects']]
            if not expected[name]:
                del expected[name]
    found = {name: sorted(uids) for name, uids in by_resource(
        stack_objects(localcloud, stack_id)).items()}
    expected = {name: sorted(uids) for name, uids in expected.items()}
    assert found == expected, (found, {
        n: (r.resource_status, r.physical_resource_id)
        for n, r in resources.items()})


def engine_log(localcloud):
    return os.path.join(localcloud.state_dir, 'logs', 'heat-engine.log')


def log_size(path):
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def log_since(path, offset):
    with open(path, errors='replace') as f:
        f.seek(offset)
        return f.read()


def kill_group(localcloud, component):
    """SIGKILL a component's whole process group (master and workers):
    a crash, not a shutdown. Returns the pids that were killed."""
    pid = cloud.pids(localcloud.state_dir)[component]
    members = group(localcloud, component)
    os.killpg(pid, signal.SIGKILL)
    cloud.wait_until(lambda: not any(cloud.alive(p) for p in members),
                     '%s processes to die' % component, timeout=30)
    return members


def group(localcloud, component):
    """The pids of a component's process group (its master first)."""
    pid = cloud.pids(localcloud.state_dir)[component]
    return sorted((p for p in _pids() if _pgid(p) == pid),
                  key=lambda p: p != pid)


def _pids():
    return [int(e) for e in os.listdir('/proc') if e.isdigit()]


def _pgid(pid):
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def localcloud_cmd(localcloud, *args):
    started = time.monotonic()
    cloud.localcloud(localcloud.state_dir, *args)
    return time.monotonic() - started


def pretty(value):
    return json.dumps(value, indent=1, default=str)

