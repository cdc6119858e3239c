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

"""The OpenStack side of the local cloud, through its real clients.

Keystone issues tokens; kube-apiserver accepts them through
k8s-keystone-auth and confines each project's users to the project's
namespace; Heat answers the `openstack` CLI, its engine runs two workers
connected to MariaDB and RabbitMQ.
"""

import json
import os
import time

import pytest

from tests.e2e import stacks
from tests.functional import cloud

TENANTS = ('demo', 'other')


def _children(pid):
    out = []
    for entry in os.listdir('/proc'):
        if entry.isdigit():
            try:
                with open('/proc/%s/stat' % entry) as f:
                    fields = f.read().rsplit(')', 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != 'Z':
                out.append(int(entry))
    return out


def _cmdline(pid):
    with open('/proc/%d/cmdline' % pid, 'rb') as f:
        return f.read().replace(b'\0', b' ').decode(errors='replace')


def _established_remote_ports(pid):
    """Remote ports of the established loopback TCP connections of `pid`."""
    inodes = set()
    fd_dir = '/proc/%d/fd' % pid
    for fd in os.listdir(fd_dir):
        try:
            link = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        if link.startswith('socket:['):
            inodes.add(link[len('socket:['):-1])
    ports = set()
    with open('/proc/%d/net/tcp' % pid) as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[3] == '01' and fields[9] in inodes:  # ESTABLISHED
                ports.add(int(fields[2].split(':')[1], 16))
    return ports


@pytest.fixture(scope='module')
def tokens(localcloud):
    return {t: localcloud.token(t) for t in TENANTS}


def test_status_shows_every_component_running(localcloud):
    result = cloud.localcloud(localcloud.state_dir, 'status', check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in ('etcd', 'kube-apiserver', 'mariadb', 'epmd', 'rabbitmq',
                 'keystone', 'k8s-keystone-auth', 'heat-api',
                 'heat-api-cfn', 'heat-engine', 'containerd', 'kubelet',
                 'kube-proxy'):
        assert '%-24s running' % name in result.stdout
    # The Kubernetes API, Keystone, Heat's API and its CFN API.
    assert result.stdout.count('(ready)') == 4


def test_up_again_keeps_the_running_cloud(localcloud):
    # `localcloud demo` on a running cloud runs `up` first: it must find
    # every component running (heat-engine registered long ago) and return.
    before = cloud.pids(localcloud.state_dir)
    result = cloud.localcloud(localcloud.state_dir, 'up', check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert 'local cloud ready' in result.stdout + result.stderr
    assert cloud.pids(localcloud.state_dir) == before
    assert all(cloud.alive(pid) for pid in before.values())


def test_secrets_are_private(localcloud):
    for name in ('secrets.json', 'clouds.yaml', 'keystone/keystone.conf',
                 'heat/heat.conf'):
        mode = os.stat(os.path.join(localcloud.state_dir, name)).st_mode
        assert mode & 0o077 == 0, name


def test_keystone_issues_project_tokens(localcloud, tokens):
    for tenant in TENANTS:
        assert tokens[tenant]['project_id'] == localcloud.projects[tenant]
        assert tokens[tenant]['id']
    assert tokens['demo']['user_id'] != tokens['other']['user_id']


def test_catalog_has_heat_and_kubernetes(localcloud):
    catalog = {s['Type']: s for s in localcloud.openstack('catalog',
                                                          'list')}
    assert {'identity', 'orchestration', 'kubernetes'} <= set(catalog)
    urls = {e['interface']: e['url']
            for e in catalog['kubernetes']['Endpoints']}
    assert urls == {'public': localcloud.api_url,
                    'internal': localcloud.api_url}
    heat = {e['interface']: e['url']
            for e in catalog['orchestration']['Endpoints']}
    # Keystone fills in the token's project for %(project_id)s.
    assert heat['public'].endswith('/v1/' + localcloud.projects['demo'])


def test_demo_token_works_in_the_demo_namespace(localcloud, tokens):
    token = tokens['demo']['id']
    ns = localcloud.projects['demo']
    whoami = json.loads(localcloud.kubectl(
        token, 'auth', 'whoami', '-o', 'json', check=True).stdout)
    assert whoami['status']['userInfo']['username'] == 'demo'
    assert ns in whoami['status']['userInfo']['groups']
    for verb, resource in (('create', 'deployments.apps'),
                           ('delete', 'jobs.batch'), ('patch', 'secrets'),
                           ('list', 'endpointslices.discovery.k8s.io')):
        can = localcloud.kubectl(token, 'auth', 'can-i', verb, resource,
                                 '-n', ns)
        assert can.stdout.strip() == 'yes', (verb, resource, can.stderr)
    created = localcloud.kubectl(token, '-n', ns, 'create', 'configmap',
                                 'e2e-keystone-probe',
                                 '--from-literal=k=v', check=True)
    assert 'created' in created.stdout
    localcloud.kubectl(token, '-n', ns, 'delete', 'configmap',
                       'e2e-keystone-probe', check=True)


@pytest.mark.parametrize('user,victim', [('demo', 'other'),
                                         ('other', 'demo')])
def test_token_is_forbidden_in_another_projects_namespace(
        localcloud, tokens, user, victim):
    token = tokens[user]['id']
    ns = localcloud.projects[victim]
    listed = localcloud.kubectl(token, '-n', ns, 'get', 'configmaps')
    assert listed.returncode != 0
    assert 'Forbidden' in listed.stderr
    assert 'User "%s" cannot list' % user in listed.stderr
    created = localcloud.kubectl(token, '-n', ns, 'create', 'configmap',
                                 'intruder', '--from-literal=k=v')
    assert created.returncode != 0
    assert 'forbidden' in created.stderr


def test_member_cannot_create_namespaces_or_touch_rbac(localcloud, tokens):
    token = tokens['demo']['id']
    ns = localcloud.projects['demo']
    for args in (('create', 'namespaces'), ('create', 'rolebindings',
                                            '-n', ns)):
        can = localcloud.kubectl(token, 'auth', 'can-i', *args)
        assert can.stdout.strip() == 'no', args


def test_a_bad_token_is_unauthorized(localcloud):
    result = localcloud.kubectl('gAAAAAB-not-a-keystone-token', 'get',
                                'namespaces')
    assert result.returncode != 0
    assert 'Unauthorized' in result.stderr or 'provide credentials' in (
        result.stderr)


def test_stack_list_as_demo(localcloud):
    stacks = localcloud.openstack('stack', 'list')
    assert isinstance(stacks, list)


def test_kubernetes_resource_types_are_loaded(localcloud):
    types = {t['Resource Type'] for t in localcloud.openstack(
        'orchestration', 'resource', 'type', 'list')}
    assert {'OS::Kubernetes::ConfigMap', 'OS::Kubernetes::Deployment',
            'OS::Kubernetes::Job', 'OS::Kubernetes::Service'} <= types


def _engine_workers(localcloud):
    master = cloud.pids(localcloud.state_dir)['heat-engine']
    return master, [p for p in _children(master)
                    if 'heat-engine' in _cmdline(p)]


def test_heat_engine_runs_two_workers(localcloud):
    master, workers = _engine_workers(localcloud)
    assert cloud.alive(master)
    assert len(workers) == 2, [_cmdline(p) for p in workers]
    services = localcloud.openstack('orchestration', 'service', 'list',
                                    os_cloud='admin')
    up = [s for s in services
          if s['Binary'] == 'heat-engine' and s['Status'] == 'up']
    assert len(up) >= 2


def test_engine_workers_reached_mariadb_and_rabbitmq(localcloud):
    ports = localcloud.info['ports']
    _, workers = _engine_workers(localcloud)
    for pid in workers:
        remote = _established_remote_ports(pid)
        assert ports['rabbitmq'] in remote, (pid, remote)
        assert ports['mariadb'] in remote, (pid, remote)


def test_nested_stacks_waiting_at_once_do_not_starve_their_children(
        localcloud):
    # In convergence a parent resource holds an executor thread until its
    # nested stack is complete: 49 parents waiting at once (1 group, 24
    # members, 24 inner stacks) starved the leaves of the former 8 threads
    # per worker (16 in all), and the stack sat until its timeout.
    heat = stacks.Heat(localcloud)
    name = stacks.unique('nested-wide')
    started = time.monotonic()
    created = localcloud.openstack(
        'stack', 'create', '--timeout', '4', '-t',
        stacks.template('nested-wide.yaml'), name)
    try:
        shown = heat.wait(created['id'], timeout=300)
        assert shown.stack_status == 'CREATE_COMPLETE', (
            shown.stack_status_reason)
        print('\n49 nested stacks waiting at once: CREATE_COMPLETE after '
              '%.0fs' % (time.monotonic() - started))
    finally:
        stacks.delete(localcloud, heat, created['id'], timeout=300)
