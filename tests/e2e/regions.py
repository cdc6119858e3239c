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

"""A region of the local cloud's Keystone, as the control plane's services
registered there see it: the local admin's view of it, and a member's
clouds.yaml naming it (environments/existing-keystone.yaml)."""

import contextlib
import json
import os

from tests.e2e import controlplane_clients as clients
from tests.e2e import stacks
from tests.e2e.docker_stacks import CONTROLPLANE
from tests.e2e.docker_stacks import create_args

# The control plane with Glance alone (and its MariaDB and memcached) on
# the real node, in a Keystone it does not deploy.
GLANCE_ENVS = [os.path.join(clients.ENVIRONMENTS, n) for n in (
    'kubernetes.yaml', 'localcloud-images.yaml',
    'localcloud-controlplane-images.yaml', 'localcloud-kubernetes.yaml',
    'disable-compute.yaml', 'disable-placement.yaml',
    'existing-keystone.yaml')]


def admin(localcloud, *args):
    """`openstack` as the local cloud's admin, its answer as JSON."""
    out = localcloud.run('openstack', *args, '-f', 'json',
                         os_cloud='admin').stdout
    return json.loads(out) if out.strip() else None


def admin_auth(localcloud):
    with open(localcloud.env['OS_CLIENT_CONFIG_FILE']) as f:
        return json.load(f)['clouds']['admin']['auth']  # JSON is YAML


def region_env(localcloud, tmp_path, name):
    """parameter_defaults naming the local cloud's Keystone."""
    path = os.path.join(str(tmp_path), name + '-keystone.yaml')
    endpoint = admin_auth(localcloud)['auth_url'][:-len('/v3')]
    with open(path, 'w') as f:
        json.dump({'parameter_defaults': {
            'ExistingKeystoneEndpoint': endpoint,
            'ExistingKeystoneInternalEndpoint':
                localcloud.env['HEAT_K8S_PODS_KEYSTONE'],
            # The local cloud serves on loopback, in clear: consent.
            'ExistingKeystonePublicHttp': True}}, f)
    return path


def create(localcloud, project, tmp_path, name, params, envs, timeout):
    """The control plane's stack `name` as `project`, in a Keystone it
    does not deploy (the local cloud's, as its admin): (Heat, the stack
    as it ended)."""
    project.openstack('stack', 'create', '--timeout', str(timeout // 60),
                      *create_args(CONTROLPLANE, dict(params, **{
                          'admin_password': admin_auth(localcloud)[
                              'password']}), envs + [
                          region_env(localcloud, tmp_path, name)]), name)
    heat = stacks.Heat(localcloud, project.name,
                       clouds_file=project.env['OS_CLIENT_CONFIG_FILE'])
    return heat, heat.wait(name, timeout=timeout)


def endpoints(localcloud, region):
    """The local cloud's endpoints in `region`, as its admin lists them:
    {id: (service type, interface, URL)}."""
    return {e['ID']: (e['Service Type'], e['Interface'], e['URL'])
            for e in admin(localcloud, 'endpoint', 'list', '--region',
                           region)}


def in_region(localcloud, region):
    """The local cloud's endpoints in `region`: {(service type,
    interface)}."""
    if region not in names(localcloud):  # the CLI refuses to look
        return set()
    return {(e['Service Type'], e['Interface'])
            for e in admin(localcloud, 'endpoint', 'list', '--region',
                           region)}


def admin_in(localcloud, region):
    """OS_* of the local cloud's admin, in `region`."""
    auth = admin_auth(localcloud)
    env = clients.admin_env(localcloud, auth['auth_url'], auth['password'])
    env['OS_REGION_NAME'] = region
    return env


def in_own_region(project, tmp_path, region):
    """The member's environment, its clouds.yaml naming `region`."""
    with open(project.env['OS_CLIENT_CONFIG_FILE']) as f:
        clouds = json.load(f)  # JSON is YAML
    clouds['clouds'][project.name]['region_name'] = region
    path = os.path.join(str(tmp_path), region + '-clouds.yaml')
    with open(path, 'w') as f:
        json.dump(clouds, f)
    os.chmod(path, 0o600)
    return dict(project.env, OS_CLIENT_CONFIG_FILE=path)


def names(localcloud):
    """The local cloud's regions."""
    return {r['Region'] for r in admin(localcloud, 'region', 'list')}


@contextlib.contextmanager
def heat_in(localcloud, region):
    """The local cloud's Heat listed in `region` too, as an operator lets
    one Heat serve a region (Heat takes a request's X-Region-Name, which
    `openstack --os-region-name` sends, as its clients' region); the
    endpoints go afterwards."""
    [public] = admin(localcloud, 'endpoint', 'list', '--service',
                     'orchestration', '--interface', 'public')
    made = [admin(localcloud, 'endpoint', 'create', '--region', region,
                  'orchestration', interface, public['URL'])['id']
            for interface in ('public', 'internal')]
    try:
        yield public['URL']
    finally:
        localcloud.run('openstack', 'endpoint', 'delete', *made,
                       os_cloud='admin')

