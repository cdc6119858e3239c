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

"""templates/identity.yaml's stacks through the openstack CLI (create,
wait, outputs, failed events, validate) and kubectl on what they made:
tests/e2e/test_templates.py and the modules that create an identity
stack too (test_upgrade, test_rollback, test_export, test_bad_input).
"""

import json
import os
import subprocess

from tests.e2e import stacks
from tests.functional import cloud

REPO = cloud.REPO
IDENTITY = os.path.join(REPO, 'templates', 'identity.yaml')
ENVIRONMENTS = os.path.join(REPO, 'environments')
STACK_TIMEOUT = 600

# Kubernetes on the local cloud: the real node runs the images built here,
# and public services are NodePorts on 127.0.0.1.
KUBE_ENVS = ['kubernetes', 'localcloud-images', 'localcloud-kubernetes']


def env_file(name):
    return os.path.join(ENVIRONMENTS, name + '.yaml')


def env_args(*names):
    args = []
    for name in names:
        args += ['-e', name if os.path.isabs(name) else env_file(name)]
    return args


def create_args(envs, params=(), template=IDENTITY):
    """`stack create`'s template, environment and parameter arguments."""
    args = ['-t', template] + env_args(*envs)
    for param in params:
        args += ['--parameter', param]
    return args


def stack_create(localcloud, name, envs, params=(), template=IDENTITY):
    localcloud.run('openstack', 'stack', 'create', '--timeout',
                   str(STACK_TIMEOUT // 60),
                   *create_args(envs, params, template), name)
    return wait_stack(localcloud, name, 'CREATE')


def wait_stack(localcloud, name, action, timeout=STACK_TIMEOUT):
    """Poll until the stack's action is over; its `stack show`."""
    return stacks.settle(localcloud, name, action, timeout)


def stack_delete(localcloud, name):
    localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name)


def failures(localcloud, name):
    """The failed events of a stack and its nested stacks, for messages."""
    result = localcloud.run('openstack', 'stack', 'event', 'list', name,
                            '--nested-depth', '3', check=False)
    return '\n'.join(line for line in result.stdout.splitlines()
                     if 'FAILED' in line)


def outputs(localcloud, name):
    shown = localcloud.openstack('stack', 'output', 'show', '--all', name)
    return {key: value.get('output_value') for key, value in shown.items()}


def nested_stack(localcloud, stack, resource):
    return localcloud.openstack('stack', 'resource', 'show', stack,
                                resource)['physical_resource_id']


def validate(localcloud, *args):
    return localcloud.run('openstack', 'orchestration', 'template',
                          'validate', '-f', 'json', *args, check=False)


class Kube(object):
    """kubectl in the demo project's namespace, with the demo token."""

    def __init__(self, localcloud):
        self.localcloud = localcloud
        self.namespace = localcloud.projects['demo']
        self.token = localcloud.token('demo')['id']

    def get(self, kind, name=None, selector=None):
        args = ['-n', self.namespace, 'get', kind, '-o', 'json']
        if name:
            args.insert(4, name)
        if selector:
            args += ['-l', selector]
        result = self.localcloud.kubectl(self.token, *args, check=True)
        return json.loads(result.stdout)

    def items(self, kind, selector=None):
        return self.get(kind, selector=selector)['items']

    def named(self, kind, app):
        return [i for i in self.items(kind, 'app.kubernetes.io/name=' + app)]


def admin_kubectl(localcloud, *args, stdin=None):
    result = subprocess.run(['kubectl', *args], input=stdin,
                            env=localcloud.env, capture_output=True,
                            text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout
