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


"""The agent chain for real, without Heat: os-refresh-config (PyPI) runs
os-apply-config, our docker-cmd cleanup and our dispatcher, which runs our
`script` and `docker-cmd` hooks under podman and hands each result to the
notifier (here a recorder: signalling Heat is the e2e tests' part).
"""

import json
import os
import stat
import subprocess
import uuid

import pytest

from tests.functional import cloud
from tools.lc import docker_host
from tools.lc.builds import recipes


def podman(*args, check=True, env=None):
    return cloud.run(['podman'] + list(args), check=check, env=env).stdout


@pytest.fixture(scope='module')
def base_image():
    cloud.run([cloud.LOCALCLOUD, 'images', 'base'])
    return recipes.ref('base')


@pytest.fixture
def agent(tmp_path):
    """The agent installed under a temporary root; run() is one
    os-refresh-config pass over the given deployments."""
    argv, env = docker_host.configure(str(tmp_path), 'chain', {'heat': {
        'auth_url': 'http://127.0.0.1:9/v3', 'user_id': 'u',
        'password': 'p', 'project_id': 'p', 'stack_id': 's/1',
        'resource_name': 'server'}}, log=lambda msg: None)
    recorder = tmp_path / 'notify'
    recorder.write_text('#!/bin/sh\ncat > "$1.signalled"\n')
    recorder.chmod(0o755)
    metadata = tmp_path / 'metadata.json'
    env = dict(env, HEAT_CONFIG_NOTIFY=str(recorder),
               OS_CONFIG_FILES=str(metadata))

    def run(deployments):
        metadata.write_text(json.dumps({'deployments': deployments}))
        return subprocess.run(
            ['os-refresh-config', '--lockfile', str(tmp_path / 'lock')],
            env=env, capture_output=True, text=True, timeout=300)

    run.env = env
    prefix = 'chain-%s-' % uuid.uuid4().hex[:6]
    run.prefix = prefix
    yield run
    names = podman('ps', '-a', '--format', '{{.Names}}', env=env).split()
    for name in names:
        podman('rm', '-f', name, check=False, env=env)
    # The host's podman run root lives outside tmp_path (it must be short).
    docker_host.remove_run_roots(str(tmp_path))


def containers(env, prefix):
    out = podman('ps', '-a', '--filter', 'label=managed_by=docker-cmd',
                 '--format', '{{.Names}} {{.Status}}', env=env)
    return {line.split()[0]: line.split()[1] for line in out.splitlines()
            if line.startswith(prefix)}


def test_deploy_once_signal_and_clean_up(agent, base_image):
    p = agent.prefix
    files = {'id': 'files-' + p, 'group': 'script', 'name': p + '1-files',
             'inputs': [{'name': 'deploy_action', 'value': 'CREATE'}],
             'config': '#!/bin/sh\necho "written for $deploy_action"\n'}
    run = {'id': 'run-' + p, 'group': 'docker-cmd', 'name': p + '2-run',
           'inputs': [{'name': 'deploy_stack_id', 'value': 's/1'},
                      {'name': 'deploy_resource_name', 'value': 'run'}],
           'config': {
               p + 'api': {'start_order': 1, 'image': base_image,
                           'net': 'host', 'command': ['sleep', '600']},
               p + 'init': {'detach': False, 'image': base_image,
                            'net': 'host',
                            'command': ['sh', '-c', 'echo init $GREETING'],
                            'environment': ['GREETING=hello']},
               p + 'ready': {'start_order': 2, 'action': 'exec',
                             'command': [p + 'api', 'true']}}}
    result = agent([files, run])
    assert result.returncode == 0, result.stderr
    deployed = agent.env['HEAT_CONFIG_DEPLOYED']
    for d in (files, run):
        path = os.path.join(deployed, d['id'] + '.json')
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
        with open(path + '.signalled') as f:
            signalled = json.load(f)
        assert signalled['deploy_status_code'] == 0, signalled
    with open(os.path.join(deployed, files['id'] + '.json.signalled')) as f:
        assert json.load(f)['deploy_stdout'] == 'written for CREATE\n'
    with open(os.path.join(deployed, run['id'] + '.json.signalled')) as f:
        assert 'init hello' in json.load(f)['deploy_stdout']
    assert containers(agent.env, p) == {p + 'api': 'Up',
                                        p + 'init': 'Exited'}
    labels = json.loads(podman('inspect', p + 'api', env=agent.env))[0][
        'Config']['Labels']
    assert {k: labels[k] for k in ('deploy_stack_id', 'deploy_resource_name',
                                   'config_id', 'container_name',
                                   'managed_by')} == {
        'deploy_stack_id': 's/1', 'deploy_resource_name': 'run',
        'config_id': run['id'], 'container_name': p + 'api',
        'managed_by': 'docker-cmd'}

    # Run once: a second pass over the same deployments changes nothing.
    started = podman('inspect', '--format', '{{.Id}}', p + 'api',
                     env=agent.env)
    assert agent([files, run]).returncode == 0
    assert podman('inspect', '--format', '{{.Id}}', p + 'api',
                  env=agent.env) == started

    # Another server's containers (the machine's own store) are not this
    # agent's to clean up.
    assert p + 'api' not in podman('ps', '-a', '--format', '{{.Names}}')

    # The configuration is gone: so are its containers.
    result = agent([files])
    assert result.returncode == 0, result.stderr
    assert containers(agent.env, p) == {}


def test_failure_is_signalled_with_its_stderr(agent, base_image):
    p = agent.prefix
    failing = {'id': 'fail-' + p, 'group': 'docker-cmd', 'inputs': [],
               'config': {p + 'task': {
                   'detach': False, 'image': base_image, 'net': 'host',
                   'command': ['sh', '-c', 'echo cannot migrate >&2; '
                               'exit 4']},
                   p + 'never': {'start_order': 1, 'image': base_image}}}
    assert agent([failing]).returncode == 0
    with open(os.path.join(agent.env['HEAT_CONFIG_DEPLOYED'],
                           failing['id'] + '.json.signalled')) as f:
        signalled = json.load(f)
    assert signalled['deploy_status_code'] == 4
    assert signalled['failure_reason'] == (
        '%stask exited 4: cannot migrate' % p)
    # It stops at the failure: the next container never starts.
    assert containers(agent.env, p) == {p + 'task': 'Exited'}
