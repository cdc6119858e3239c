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


"""The docker backend for real: this machine as the deployed server.

``templates/controlplane.yaml`` with
``environments/deployed-server-docker.yaml`` is created with HEAT_SIGNAL
deployments; ``tools/localcloud docker-host`` starts the heat-config agent
chain with the host's ``agent_config`` (os-collect-config polling Heat, our
dispatcher and hooks, podman), which runs MariaDB, memcached, then
Keystone, Glance and Placement (each its database steps, its schema steps,
its API, its registration in Keystone) as containers from the locally
built images; an image then goes up through Glance and comes back, and
Placement answers, through the stack's own Keystone (the same template and
parameters on the real Kubernetes node: test_controlplane_upgrade.py).
Update, delete and failures are checked on the host itself: podman's
containers (label ``managed_by=docker-cmd``) and the services' files under
DockerStateDir.
"""

import json
import os
import re
import subprocess
import tempfile
import time
import urllib.parse
import uuid

import pytest

from tests.e2e import controlplane_clients
from tests.e2e import leaks
from tests.e2e import probe
from tests.e2e import stacks
from tests.e2e.docker_stacks import CONTROLPLANE
from tests.e2e.docker_stacks import DOCKER_ENVS
from tests.e2e.docker_stacks import ENVIRONMENTS
from tests.e2e.docker_stacks import create
from tests.e2e.docker_stacks import create_args
from tests.e2e.docker_stacks import delete
from tests.e2e.docker_stacks import events
from tests.e2e.docker_stacks import outputs
from tests.e2e.docker_stacks import wait
from tests.functional import cloud
from tools.lc import docker_host
from tools.lc.kubernetes import node_host

REPO = cloud.REPO
IMAGES_ENV = os.path.join(ENVIRONMENTS, 'localcloud-images.yaml')
# The containers of the control plane on one host: the services and the
# run-to-completion steps (health checks are execs, not containers).
SERVICES = ('mariadb', 'memcached', 'keystone', 'glance', 'placement')
TASKS = ('keystone-db-create', 'keystone-db-check', 'keystone-db-expand',
         'keystone-db-contract', 'keystone-bootstrap', 'keystone-db-retire',
         'glance-db-create', 'glance-service-user', 'glance-db-expand',
         'glance-db-migrate', 'glance-db-contract', 'glance-catalog',
         'placement-db-create', 'placement-service-user',
         'placement-db-sync', 'placement-catalog')
STATE_DIR = '/var/lib/heat-k8s'
ADMIN_PASSWORD = 'dh-Admin-' + uuid.uuid4().hex[:12]
ONE_TASK = """\
heat_template_version: 2021-04-16
parameters:
  image: {type: string}
  name: {type: string}
resources:
  host:
    type: OS::HeatK8s::ContainerHost
    properties: {name: {get_param: name}}
  task:
    type: OS::HeatK8s::ContainerTask
    properties:
      name: {get_param: name}
      image: {get_param: image}
      target: {get_attr: [host, target]}
      config_files: {/etc/failing/reason: 'kept until the stack is gone'}
      command: [sh, -c, '%(script)s']
"""
FAILING_SCRIPT = 'echo "no such table: %s" >&2; exit 3'
# The server's transports as a Nova server behind a compute node's uplink
# has them: Heat's CFN API, at the address Heat gives servers.
CFN_TRANSPORTS = {'parameter_defaults': {
    'ContainerHostConfigTransport': 'POLL_SERVER_CFN',
    'ContainerHostSignalTransport': 'CFN_SIGNAL'}}


def podman(localcloud, stack, *args):
    """podman as it shows the stack's docker host (its own store)."""
    return cloud.run(['podman'] + list(args), env=docker_host.podman_env(
        localcloud.state_dir, stack)).stdout


def containers(localcloud, stack):
    """{name: id} of the docker-cmd containers on the stack's host."""
    out = podman(localcloud, stack, 'ps', '-a', '--filter',
                 'label=managed_by=docker-cmd', '--format',
                 '{{.Names}} {{.ID}}')
    return dict(line.split() for line in out.splitlines() if line.strip())


def leftovers(localcloud, stack, prefix):
    files = sorted(n for n in os.listdir(STATE_DIR)
                   if n.startswith(prefix)) if os.path.isdir(
                       STATE_DIR) else []
    volumes = podman(localcloud, stack, 'volume', 'ls', '--format',
                     '{{.Name}}').split()
    return {'containers': sorted(containers(localcloud, stack)),
            'files': files, 'volumes': volumes}


def start_agent(localcloud, name):
    cloud.localcloud(localcloud.state_dir, 'docker-host', name)


def stop_agent(localcloud, name):
    cloud.localcloud(localcloud.state_dir, 'docker-host', '--stop', name,
                     check=False)


@pytest.fixture(scope='module')
def images(localcloud):
    """The images the control plane runs, built or found in podman."""
    stacks.ensure_images(localcloud, *controlplane_clients.IMAGES)
    assert os.path.exists(IMAGES_ENV), IMAGES_ENV


@pytest.fixture(scope='module')
def controlplane(localcloud, images):
    suffix = uuid.uuid4().hex[:6]
    info = {'stack': 'dh-cp-' + suffix, 'prefix': 'dh%s-' % suffix}
    params = {'admin_password': ADMIN_PASSWORD, 'prefix': info['prefix']}
    info['params'] = params
    info['create_args'] = create_args(CONTROLPLANE, params)
    info['log_offsets'] = leaks.log_offsets(localcloud)
    started = time.monotonic()
    try:
        create(localcloud, info['stack'], CONTROLPLANE, params)
        start_agent(localcloud, info['stack'])
        info['created'] = wait(localcloud, info['stack'], 'CREATE')
        info['started'] = started
        info['create_seconds'] = time.monotonic() - started
        yield info
    finally:
        delete(localcloud, info['stack'])
        stop_agent(localcloud, info['stack'])


def token(localcloud, auth_url):
    """`openstack token issue` as the stack's Keystone admin (none of the
    local cloud's OS_* settings)."""
    return subprocess.run(
        ['openstack', 'token', 'issue', '-f', 'json'],
        env=controlplane_clients.admin_env(localcloud, auth_url,
                                           ADMIN_PASSWORD),
        capture_output=True, text=True, timeout=60)


def test_the_control_plane_answers_on_the_docker_host(localcloud,
                                                      controlplane,
                                                      tmp_path):
    status = controlplane['created']
    assert status['stack_status'] == 'CREATE_COMPLETE', (
        status['stack_status_reason'],
        [e for e in events(localcloud, controlplane['stack'])
         if 'FAILED' in e['resource_status']])
    out = outputs(localcloud, controlplane['stack'])
    assert out['auth_url'] == 'http://127.0.0.2:5000/v3'
    assert out['glance_public_endpoint'] == 'http://127.0.0.2:9292'
    assert out['placement_public_endpoint'] == 'http://127.0.0.2:8778'
    answered = controlplane_clients.answers(
        localcloud, out['auth_url'], ADMIN_PASSWORD, str(tmp_path),
        controlplane['prefix'] + 'img')
    assert answered['same_bytes'], answered
    assert (answered['placement'], answered['providers'],
            answered['placement_without_token']) == (200, [], 401), answered
    print('docker host: stack create to the first image saved back: %.0fs '
          '(CREATE_COMPLETE after %.0fs)' % (
              time.monotonic() - controlplane['started'],
              controlplane['create_seconds']))
    p, stack = controlplane['prefix'], controlplane['stack']
    running = containers(localcloud, stack)
    assert sorted(running) == sorted(p + n for n in SERVICES + TASKS)
    # Run-to-completion steps ran and stay until their configuration goes.
    for name in TASKS:
        state = podman(localcloud, stack, 'inspect', '--format',
                       '{{.State.Status}} {{.State.ExitCode}}',
                       p + name).split()
        # podman says exited or stopped, depending on when it looked.
        assert state[0] in ('exited', 'stopped') and state[1] == '0', (
            name, state)


def _process_tree(pid):
    """`pid` and every process under it (from each process's parent in
    /proc/<pid>/stat)."""
    children = {}
    for entry in os.listdir('/proc'):
        if not entry.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % entry) as f:
                # The name, in parentheses, may hold spaces.
                ppid = int(f.read().rsplit(')', 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(entry))
    pids, todo = set(), [pid]
    while todo:
        current = todo.pop()
        pids.add(current)
        todo.extend(children.get(current, ()))
    return pids


SOCKET_OWNER = re.compile(r'pid=(\d+)')


def listening(pids):
    """(protocol, local address) of every TCP or UDP socket the processes
    `pids` listen on (ss, host networking: the host's sockets)."""
    out = subprocess.run(['ss', '-H', '-l', '-n', '-p', '-t', '-u'],
                         capture_output=True, text=True, check=True).stdout
    found = set()
    for line in out.splitlines():
        fields = line.split()
        owners = {int(p) for p in SOCKET_OWNER.findall(line)}
        if owners & pids:
            found.add((fields[0], fields[4]))
    return found


def test_services_listen_only_on_the_address_the_template_names(
        localcloud, controlplane):
    """Host networking, nothing published: each service's processes
    listen on the host address the template names (127.0.0.2 here), on
    no other address."""
    p, stack = controlplane['prefix'], controlplane['stack']
    expected = {'mariadb': {'3306'}, 'memcached': {'11211'},
                'keystone': {'5000'}, 'glance': {'9292'},
                'placement': {'8778'}}
    for name, ports in expected.items():
        pid, mode, bindings = podman(
            localcloud, stack, 'inspect', '--format',
            '{{.State.Pid}} {{.HostConfig.NetworkMode}} '
            '{{len .HostConfig.PortBindings}}', p + name).split()
        assert (mode, bindings) == ('host', '0'), (name, mode, bindings)
        sockets = listening(_process_tree(int(pid)))
        assert sockets, name
        addresses = {address.rsplit(':', 1)[0] for _, address in sockets}
        assert addresses == {'127.0.0.2'}, (name, sockets)
        assert {address.rsplit(':', 1)[1]
                for _, address in sockets} == ports, (name, sockets)


def test_docker_no_secret_value_outside_its_files(localcloud, controlplane):
    """Every text a user or an operator reads, the agent's log included,
    searched for the stack's secret values: only the files the containers
    read hold them (and Heat's export the admin password, a top-level
    hidden parameter)."""
    p, stack = controlplane['prefix'], controlplane['stack']
    started = time.monotonic()
    collector = leaks.Collector(localcloud)
    try:
        places = (collector.heat(stack, controlplane['create_args']) +
                  collector.logs(controlplane['log_offsets'], [
                      docker_host.process_name(stack) + '.log']) +
                  collector.host(STATE_DIR, p) + collector.database())
    finally:
        collector.close()
    # What the host's root sees of the containers (their environment).
    names = sorted(containers(localcloud, stack))
    places.append(leaks.Place(leaks.PODMAN_INSPECT, stack, podman(
        localcloud, stack, 'inspect', *names)))
    print('docker: %d places read in %.1fs' % (
        len(places), time.monotonic() - started))
    needles = leaks.host_needles(STATE_DIR, p)
    needles[ADMIN_PASSWORD] = 'admin password'
    assert set(needles.values()) == leaks.CONTROLPLANE_NEEDLES
    problems = leaks.check(places, needles, leaks.HEAT_SOURCES | {
        'software config show', 'software deployment show',
        'software deployment metadata show', 'docker host agent log',
        leaks.PODMAN_INSPECT, leaks.HOST_SECRET_FILE})
    assert not problems, problems


def test_a_version_change_on_one_host_has_a_measured_gap(localcloud,
                                                        controlplane):
    """One container per service: the agent replaces Keystone's, so the
    API does not answer for a moment. Measured (and bounded), not hidden:
    30.0.0 -> 29.1.0, no migration between them."""
    p, stack = controlplane['prefix'], controlplane['stack']
    report, _ = _update_with_probe(localcloud, stack,
                                   keystone_version='29.1.0')
    image = podman(localcloud, stack, 'inspect', '--format',
                   '{{.ImageName}}', p + 'keystone').strip()
    assert image == 'localhost/heat-k8s/keystone:29.1.0'
    assert report['requests'] > 10, report
    assert report['longest_gap'] < 60, report
    result = token(localcloud, 'http://127.0.0.2:5000/v3')
    assert result.returncode == 0, result.stderr


def test_rotations_restart_exactly_their_readers(localcloud, controlplane):
    """fernet_rotation replaces Keystone's container alone;
    database_password_rotation (with an ini override of keystone.conf,
    which the same containers read) replaces it and runs again the tasks
    that read the password or keystone.conf. A token issued before both
    stays valid."""
    p, stack = controlplane['prefix'], controlplane['stack']
    # (keystone-ready is an exec in Keystone's container, not one.)
    updates = [({'fernet_rotation': 1}, ['keystone']),
               ({'database_password_rotation': 1, 'KeystoneIniOverrides':
                 {'DEFAULT': {'max_param_size': 99}}},
                ['keystone', 'keystone-bootstrap', 'keystone-db-check',
                 'keystone-db-contract', 'keystone-db-create',
                 'keystone-db-expand', 'keystone-db-retire'])]
    first_token = None
    for parameters, expected in updates:
        before = containers(localcloud, stack)
        report, token_probe = _update_with_probe(localcloud, stack,
                                                 **parameters)
        first_token = first_token or token_probe.first_token
        after = containers(localcloud, stack)
        assert set(after) == set(before)
        assert sorted(n[len(p):] for n in after
                      if n.startswith(p) and after[n] != before[n]
                      ) == expected, parameters
        assert report['longest_gap'] < 60, report
        assert token_probe.accepts(first_token)
    conf = podman(localcloud, stack, 'exec', p + 'keystone', 'cat',
                  '/etc/keystone/keystone.conf')
    assert 'max_param_size = 99' in conf


def _update_with_probe(localcloud, stack, **parameters):
    """Update `parameters` while a client issues and validates tokens: the
    probe's report, and the probe. They are parameter_defaults of an
    environment file: Keystone's own parameters are its template's
    (identity.yaml), not the control plane's."""
    token_probe = probe.TokenProbe('http://127.0.0.2:5000/v3',
                                   ADMIN_PASSWORD)
    token_probe.start()
    started = time.monotonic()
    with tempfile.NamedTemporaryFile('w', suffix='.yaml') as env:
        json.dump({'parameter_defaults': parameters}, env)
        env.flush()
        localcloud.run('openstack', 'stack', 'update', '--existing',
                       '-e', env.name, stack)
    shown = wait(localcloud, stack, 'UPDATE')
    seconds = time.monotonic() - started
    report = token_probe.stop()
    print('\ndocker host, %s: %s in %.0fs; probe: %s' % (
        parameters, shown['stack_status'], seconds, token_probe.describe()))
    assert shown['stack_status'] == 'UPDATE_COMPLETE', (
        shown['stack_status_reason'])
    return report, token_probe


@pytest.fixture(scope='module')
def failing_task(localcloud, images, tmp_path_factory):
    """Two one-task stacks that fail: a container exiting 3, an image
    that does not exist."""
    template = tmp_path_factory.mktemp('docker') / 'failing-task.yaml'
    marker = uuid.uuid4().hex[:8]
    template.write_text(ONE_TASK % {'script': FAILING_SCRIPT % marker})
    stacks = {}
    for case, image in (('exit', mariadb_image()),
                        ('image', 'localhost/heat-k8s/no-such-image:0')):
        name = 'dh-fail-%s-%s' % (case, marker)
        create(localcloud, name, str(template), {'image': image,
                                                 'name': name})
        start_agent(localcloud, name)
        stacks[case] = name
    try:
        yield {'marker': marker, 'stacks': stacks, 'shown': {
            case: wait(localcloud, name, 'CREATE')
            for case, name in stacks.items()}}
    finally:
        for name in stacks.values():
            delete(localcloud, name)
            stop_agent(localcloud, name)


def mariadb_image():
    with open(IMAGES_ENV) as f:
        return [line.split(':', 1)[1].strip() for line in f
                if line.strip().startswith('mariadb_image:')][0]


def failure_reasons(localcloud, name):
    return '\n'.join(e['resource_status_reason'] or ''
                     for e in events(localcloud, name)
                     if e['resource_status'] == 'CREATE_FAILED')


@pytest.mark.parametrize('case,expected', [
    ('exit', 'no such table: {marker}'),
    ('image', 'localhost/heat-k8s/no-such-image:0')])
def test_failure_says_why_and_delete_leaves_nothing(localcloud, failing_task,
                                                    case, expected):
    name = failing_task['stacks'][case]
    assert failing_task['shown'][case]['stack_status'] == 'CREATE_FAILED'
    reasons = failure_reasons(localcloud, name)
    assert expected.format(**failing_task) in reasons, reasons
    assert 'Deployment exited with non-zero status code' in reasons
    # The failed task's files are on the host until the stack goes.
    assert leftovers(localcloud, name, name)['files'] == [name]
    assert leftovers(localcloud, name, name)['containers'] == (
        [name] if case == 'exit' else [])
    delete(localcloud, name)
    gone = localcloud.run('openstack', 'stack', 'show', name, check=False)
    assert gone.returncode != 0, gone.stdout
    assert leftovers(localcloud, name, name) == {
        'containers': [], 'files': [], 'volumes': []}


def test_delete_leaves_nothing(localcloud, controlplane):
    p, stack = controlplane['prefix'], controlplane['stack']
    before = leftovers(localcloud, stack, p)
    everything = sorted(p + n for n in SERVICES + TASKS)
    assert (before['containers'], before['files']) == (everything,
                                                       everything), before
    delete(localcloud, stack)
    gone = localcloud.run('openstack', 'stack', 'show', stack, check=False)
    assert gone.returncode != 0, gone.stdout
    assert leftovers(localcloud, stack, p) == {
        'containers': [], 'files': [], 'volumes': []}


def test_a_host_that_reaches_heat_only_at_its_cfn_api_runs_a_task(
        localcloud, tmp_path):
    """POLL_SERVER_CFN and CFN_SIGNAL, as a Nova server behind a compute
    node's uplink reaches Heat (environments/nova-docker.yaml): the agent
    polls the CFN API at the URL Heat gives servers (the pods' gateway,
    heat_metadata_server_url), signs with the stack user's EC2 keys, holds
    no Keystone password, and its task's signal completes the stack. (Its
    image, MariaDB's, is of the default set `up` loads: no `images`.)"""
    marker = uuid.uuid4().hex[:8]
    name = 'dh-cfn-' + marker
    template = tmp_path / 'cfn-task.yaml'
    template.write_text(ONE_TASK % {'script': 'echo served-%s' % marker})
    transports = tmp_path / 'cfn.yaml'
    transports.write_text(json.dumps(CFN_TRANSPORTS))  # JSON is YAML
    create(localcloud, name, str(template), {'image': mariadb_image(),
                                             'name': name},
           DOCKER_ENVS + [str(transports)])
    try:
        start_agent(localcloud, name)
        shown = wait(localcloud, name, 'CREATE')
        assert shown['stack_status'] == 'CREATE_COMPLETE', failure_reasons(
            localcloud, name)
        with open(os.path.join(docker_host.host_dir(
                localcloud.state_dir, name), 'os-collect-config.conf')) as f:
            conf = f.read()
        assert 'collectors = cfn\n' in conf, conf
        assert '[heat]' not in conf and 'password' not in conf, conf
        [url] = re.findall(r'^metadata_url = (.*)$', conf, re.M)
        assert urllib.parse.urlparse(url).hostname == node_host.GATEWAY, url
        assert podman(localcloud, name, 'logs', name).strip() == (
            'served-' + marker)
    finally:
        delete(localcloud, name)
        stop_agent(localcloud, name)
