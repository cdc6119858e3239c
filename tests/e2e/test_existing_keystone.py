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

"""The control plane's services in the local cloud's own Keystone.

``templates/controlplane.yaml`` on the real node with
``environments/existing-keystone.yaml``: no Keystone is deployed; Glance
(Placement and the compute services switched off) registers in the local
cloud's Keystone, in a region of its own, as a provider adding a region
would: its user (named after the region, marked as the stack's), its
catalog entry and the region, where Keystone itself is listed at the
address the pods reach it (bound to the host's loopback, it is served at
the node's bridge address: ``localcloud env``'s HEAT_K8S_PODS_KEYSTONE, as
an operator's clusters reach its Keystone). The stack is a project's that
an operator adds once the cloud is up. A token of the local cloud's
Keystone, the member's own, is what the stack's Glance takes: the member
uploads, reads back and lists an image in that region. Deleting the stack
removes the user, the endpoints and the region from the local cloud's
Keystone and leaves nothing in the cluster. A user of the same name that
the stack did not make is refused at create, in keystone-register's
words, and keeps its password.
"""

import json
import time
import uuid

import pytest

from tests.e2e import controlplane_clients as clients
from tests.e2e import docker_stacks as dh
from tests.e2e import projects
from tests.e2e import regions
from tests.e2e import stacks
from tests.functional import cloud

IMAGES = ('mariadb', 'memcached', 'glance')
KUBE_ENVS = regions.GLANCE_ENVS


@pytest.fixture(scope='module')
def images(localcloud):
    stacks.ensure_images(localcloud, *IMAGES)


@pytest.fixture(scope='module')
def operator_project(localcloud, tmp_path_factory):
    with projects.new_project(localcloud, 'e2e-region', str(
            tmp_path_factory.mktemp('region'))) as made:
        yield made


def create(localcloud, project, tmp_path, name, region, prefix):
    return regions.create(localcloud, project, str(tmp_path), name,
                          {'prefix': prefix, 'region': region}, KUBE_ENVS,
                          dh.TIMEOUT)


def names(tag):
    """A stack's name, its prefix, its region and Glance's user there."""
    suffix = uuid.uuid4().hex[:6]
    region = tag.upper() + suffix
    return ('%s-%s' % (tag, suffix), '%s%s-' % (tag, suffix), region,
            region.lower() + '-glance')


def test_glance_in_a_region_of_the_local_keystone(localcloud, images,
                                                  operator_project, tmp_path):
    project = operator_project
    name, prefix, region, user = names('rg')
    before = regions.names(localcloud)
    try:
        started = time.monotonic()
        _, shown = create(localcloud, project, tmp_path, name, region,
                          prefix)
        assert shown.stack_status == 'CREATE_COMPLETE', (
            shown.stack_status_reason)
        print('\nGlance on the local cloud\'s Keystone: CREATE_COMPLETE '
              'after %.0fs' % (time.monotonic() - started))
        # Registered there, marked as this stack's.
        made = regions.admin(localcloud, 'user', 'show', '--domain',
                             'Default', user)
        assert made['description'].startswith('heat-k8s stack '), made
        assert made['description'].endswith('(region %s)' % region), made
        # Glance's endpoints, and Keystone's where the pods reach it.
        assert regions.in_region(localcloud, region) == {
            (kind, interface) for kind in ('image', 'identity')
            for interface in ('public', 'internal', 'admin')}
        identity = {e['Interface']: e['URL'] for e in regions.admin(
            localcloud, 'endpoint', 'list', '--region', region, '--service',
            'identity')}
        assert identity['internal'] == (
            localcloud.env['HEAT_K8S_PODS_KEYSTONE'] + '/v3'), identity
        assert region in regions.names(localcloud)
        # No Keystone of its own: its services are these.
        deployments = json.loads(cloud.run(
            ['kubectl', '-n', project.namespace, 'get', 'deployments', '-o',
             'json'], env=localcloud.env).stdout)['items']
        assert {d['metadata']['labels']['app.kubernetes.io/name']
                for d in deployments} == {
                    prefix + s for s in ('mariadb', 'memcached', 'glance')}
        # The member's own token of the local cloud, in that region.
        member = regions.in_own_region(project, tmp_path, region)
        image_id, original = clients.upload(member, str(tmp_path),
                                            name + '-image')
        assert clients.saved_back(member, image_id, original)
        listed = json.loads(clients.openstack(member, 'image', 'list',
                                              '-f', 'json'))
        assert image_id in {i['ID'] for i in listed}
        clients.openstack(member, 'image', 'delete', image_id)
    finally:
        project.openstack('stack', 'delete', '-y', '--wait', name,
                          check=False)
    # Nothing of it is left in the local cloud's Keystone, nor the cluster.
    assert regions.in_region(localcloud, region) == set()
    assert regions.names(localcloud) == before
    assert not [u for u in regions.admin(localcloud, 'user', 'list',
                                         '--domain', 'Default')
                if u['Name'] == user]
    clients.assert_nothing_left(localcloud, name, prefix, env=project.env)


def test_a_user_it_did_not_make_is_refused(localcloud, images,
                                           operator_project, tmp_path):
    project = operator_project
    name, prefix, region, user = names('rgx')
    theirs = 'Theirs-' + uuid.uuid4().hex
    localcloud.run('openstack', 'user', 'create', '--domain', 'Default',
                   '--password', theirs, user, os_cloud='admin')
    try:
        _, shown = create(localcloud, project, tmp_path, name, region,
                          prefix)
        assert shown.stack_status == 'CREATE_FAILED'
        assert ('Keystone already has a user %s that this control plane '
                'did not make' % user) in shown.stack_status_reason, (
                    shown.stack_status_reason)
        project.openstack('stack', 'delete', '-y', '--wait', name)
        # Its password is still theirs, and the user still there.
        env = clients.admin_env(localcloud, regions.admin_auth(localcloud)[
            'auth_url'], theirs)
        env['OS_USERNAME'] = user
        del env['OS_PROJECT_NAME'], env['OS_PROJECT_DOMAIN_NAME']
        clients.openstack(env, 'token', 'issue', '-f', 'json')
        assert regions.in_region(localcloud, region) == set()
    finally:
        project.openstack('stack', 'delete', '-y', '--wait', name,
                          check=False)
        localcloud.run('openstack', 'user', 'delete', '--domain', 'Default',
                       user, os_cloud='admin', check=False)
    clients.assert_nothing_left(localcloud, name, prefix, env=project.env)

