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

"""templates/controlplane.yaml's stacks on a docker host through the
openstack CLI: the environments that make one, create, wait, delete,
events and outputs (test_docker_host, test_compute_cloud,
test_compute_region, test_controlplane_upgrade, regions).
"""

import json
import os

from tests.e2e import stacks
from tests.functional import cloud

REPO = cloud.REPO
ENVIRONMENTS = os.path.join(REPO, 'environments')
CONTROLPLANE = os.path.join(REPO, 'templates', 'controlplane.yaml')
DOCKER_ENVS = [os.path.join(ENVIRONMENTS, name) for name in (
    'deployed-server-docker.yaml', 'localcloud-images.yaml',
    'localcloud-controlplane-images.yaml', 'localcloud-docker-host.yaml',
    # Keystone, Glance and Placement (Nova's: test_compute_cloud.py).
    'disable-compute.yaml')]
TIMEOUT = 900


def create_args(template, params, envs=DOCKER_ENVS):
    """`stack create`'s template, environment and parameter arguments."""
    args = ['-t', template]
    for env in envs:
        args += ['-e', env]
    for key, value in params.items():
        args += ['--parameter', '%s=%s' % (key, value)]
    return args


def create(localcloud, name, template, params, envs=DOCKER_ENVS):
    localcloud.run('openstack', 'stack', 'create', '--timeout',
                   str(TIMEOUT // 60), *create_args(template, params, envs),
                   name)


def wait(localcloud, name, action, timeout=TIMEOUT):
    return stacks.settle(localcloud, name, action, timeout)


def delete(localcloud, name):
    localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name,
                   check=False)


def events(localcloud, name):
    out = localcloud.run('openstack', 'stack', 'event', 'list', name,
                         '--nested-depth', '3', '-f', 'json').stdout
    return json.loads(out)


def outputs(localcloud, name):
    shown = localcloud.openstack('stack', 'output', 'show', '--all', name)
    return {k: v.get('output_value') for k, v in shown.items()}
