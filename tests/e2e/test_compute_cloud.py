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

"""The control plane with its compute services on the real node, its
own Keystone, raised a release with a server running.

Run when asked for (HEAT_K8S_TEST_COMPUTE=1: three more images and ten
more minutes, CI's budget: doc/source/testing.rst). CI runs the compute
services as test_compute_region.py's region of the local cloud: one
compute control plane, shared by the tests that read it.

``templates/controlplane.yaml`` with nothing switched off and one compute
node: MariaDB, memcached and RabbitMQ, Keystone, Glance, Placement, Neutron
on ML2/OVN (OVN's two databases and ovn-northd) and Nova (the cell setup,
the compute and metadata APIs, nova-conductor, nova-scheduler, and a
compute node: nova-compute with libvirtd, Open vSwitch on its userspace
datapath and ovn-controller, privileged containers of one pod), from the
images built here, one release behind (``release=2026.1``: Nova 33.0.2,
Neutron 28.0.2). The stack is a project's that an operator adds once the
cloud is up and whose namespace the operator labels privileged (Pod
Security admits the compute node's pod there only). Every service runs
the release the stack names. Through the stack's own Keystone, as its
admin asks it: the catalog names every service; Nova's conductor,
scheduler and compute report up, the compute host is a hypervisor of cell1
and an OVN chassis Neutron lists as its agent; a network, its subnet and a
port made through Neutron are OVN's logical switch and port. Then, with a
server of the guest built here running and answering, ``release`` alone
raises the stack to 2026.2: Heat's events show Keystone, Glance and
Placement done before Neutron and Nova start, Neutron's expand, API and
contract, and Nova's API database, cells, conductor, then its APIs and
compute node, then the online data migrations, in that order; every
service runs the new release and reports up, and the server, whose QEMU
went with the compute node's old pod, runs again on its disk (Nova's
resume_guests_state_on_host_boot) and answers as before. Then the stack
deletes and leaves nothing behind.
"""

import json
import time
import uuid

import pytest

from tests.e2e import compute
from tests.e2e import controlplane_clients as clients
from tests.e2e import docker_stacks as dh
from tests.e2e import projects
from tests.e2e import servers
from tests.e2e import stacks
from tests.e2e.compute import FROM_RELEASE
from tests.e2e.compute import IMAGES
from tests.e2e.compute import KUBE_ENVS
from tests.e2e.compute import PRIVILEGED
from tests.e2e.compute import SERVICES
from tests.e2e.compute import TO_RELEASE
from tests.e2e.compute import asked_for

ADMIN_PASSWORD = 'cc-Admin-' + uuid.uuid4().hex[:12]
# The images this module's stack starts from (a release behind).
EARLIER_IMAGES = tuple(
    name + '-' + FROM_RELEASE for name in SERVICES + ('nova-compute',))

pytestmark = asked_for


@pytest.fixture(scope='module')
def images(localcloud):
    stacks.ensure_images(localcloud, *IMAGES + EARLIER_IMAGES)


@pytest.fixture(scope='module')
def operator_project(localcloud, tmp_path_factory):
    """A project added after the cloud is up, its namespace labelled
    privileged by the operator (a member cannot label it)."""
    with projects.new_project(localcloud, 'e2e-compute', str(
            tmp_path_factory.mktemp('compute'))) as made:
        projects.admin_kubectl(localcloud, 'label', 'namespace',
                               made.namespace, PRIVILEGED)
        yield made


class Deployed(object):
    """The stack's names, outputs and its Keystone admin's OS_*."""

    def __init__(self, name, prefix, suffix, outputs, env, heat):
        self.name = name
        self.heat = heat
        self.prefix = prefix
        self.suffix = suffix
        self.outputs = outputs
        self.env = env
        self.host = prefix + 'nova-compute-0'


@pytest.fixture(scope='module')
def deployed(localcloud, images, operator_project):
    """The compute control plane with one compute node, shared by the
    tests that read it; deleted after them, leaving nothing."""
    suffix = uuid.uuid4().hex[:6]
    name, prefix = 'cc-' + suffix, 'cc%s-' % suffix
    project = operator_project
    heat = stacks.Heat(localcloud, project.name,
                       clouds_file=project.env['OS_CLIENT_CONFIG_FILE'])
    try:
        compute.create(localcloud, project, heat, name, {
            'admin_password': ADMIN_PASSWORD, 'prefix': prefix,
            'compute_count': 1, 'release': FROM_RELEASE,
            # This machine's /dev/kvm is PVM's, which runs only kernels
            # built as its guests (doc/source/user/controlplane.rst).
            'compute_virt_type': 'qemu'}, KUBE_ENVS,
            'compute control plane with a compute node')
        outputs = {o['output_key']: o['output_value']
                   for o in heat.stack(name).outputs}
        yield Deployed(name, prefix, suffix, outputs, clients.admin_env(
            localcloud, outputs['auth_url'], ADMIN_PASSWORD), heat)
    finally:
        project.openstack('stack', 'delete', '-y', '--wait', name,
                          check=False)
    clients.assert_nothing_left(localcloud, name, prefix, env=project.env)


def test_a_compute_node_joins_nova_and_neutron(localcloud, deployed):
    outputs, env = deployed.outputs, deployed.env
    assert outputs['compute_hosts'] == [deployed.host], outputs
    assert clients.running_tags(localcloud, deployed.prefix, SERVICES) == (
        clients.RELEASE_TAGS[FROM_RELEASE])
    catalog = {entry['Type'] for entry in json.loads(clients.openstack(
        env, 'catalog', 'list', '-f', 'json'))}
    assert {'identity', 'image', 'placement', 'network',
            'compute'} <= catalog, catalog
    assert outputs['nova_public_endpoint'].startswith('http://127.0.0.1:')
    servers.services_up(env, deployed.host)
    servers.a_network_is_ovns(localcloud, env, deployed.prefix,
                              deployed.suffix)


def test_raised_a_release_with_a_server_running(localcloud, deployed,
                                                operator_project, tmp_path):
    """Last: it changes the shared stack. `release` alone, raised by one
    while a server runs; the order from Heat's events, the new release
    running and up, and the server back on its disk, answering."""
    project = operator_project
    pod = servers.ComputePod(localcloud, project.namespace, deployed.host)
    booted = servers.Booted(deployed.env, deployed.env, str(tmp_path),
                            deployed.suffix)
    try:
        with booted.reached(pod) as get:
            booted.answers(get)
        before = {e['id'] for e in _events(project, deployed.name)}
        started = time.monotonic()
        project.openstack('stack', 'update', '--existing', '--timeout', str(
            dh.TIMEOUT // 60), '--parameter', 'release=' + TO_RELEASE,
            deployed.name)
        shown = deployed.heat.wait(deployed.name, timeout=dh.TIMEOUT,
                                   action='UPDATE')
        updated = time.monotonic() - started
        assert shown.stack_status == 'UPDATE_COMPLETE', (
            shown.stack_status_reason)
        _in_upgrade_order([e for e in _events(project, deployed.name)
                           if e['id'] not in before], deployed.name)
        assert clients.running_tags(localcloud, deployed.prefix, SERVICES) == (
            clients.RELEASE_TAGS[TO_RELEASE])
        servers.services_up(deployed.env, deployed.host)
        server = servers.listed(deployed.env, 'server', 'show',
                                booted.server['id'])
        # Nova's power state 1: running (the client's JSON gives the code).
        assert (server['status'], server['OS-EXT-STS:power_state']) == (
            'ACTIVE', 1), server
        booted.started = started
        with booted.reached(pod) as get:
            booted.answers(get)
        print('\nrelease %s -> %s with a server running: UPDATE_COMPLETE '
              'after %.0fs, the server answering again %.0fs after the '
              'update began' % (FROM_RELEASE, TO_RELEASE, updated,
                                booted.answered))
        booted.delete_server(pod)
    finally:
        booted.clean_up()


def _events(project, name):
    return json.loads(project.openstack(
        'stack', 'event', 'list', name, '--nested-depth', '3', '-f',
        'json').stdout)


def _in_upgrade_order(events, stack):
    """Each step's UPDATE began after the one it follows had completed:
    the services in OpenStack's order, Neutron's and Nova's steps in
    their upgrade guides' (resources of the nested stacks: 'nested')."""
    when = clients.update_times(events, stack)
    nova_services = ('nova_api', 'nova_scheduler', 'nova_metadata',
                     'nova_compute')
    steps = [
        # Nova and Neutron after Keystone, Glance and Placement.
        (['keystone'], ['glance', 'placement']),
        (['glance', 'placement'], ['neutron']),
        (['glance', 'placement', 'neutron'], ['nova']),
        # Neutron: expand, the API, contract.
        (['neutron_db_expand'], ['neutron'], 'nested'),
        (['neutron'], ['neutron_db_contract'], 'nested'),
        # Nova: the API database, the cells, the conductor, then the
        # APIs, scheduler and compute node, then the data migrations.
        (['nova_api_db_sync'], ['nova_cells'], 'nested'),
        (['nova_cells'], ['nova_conductor'], 'nested'),
        (['nova_conductor'], nova_services, 'nested'),
        (nova_services, ['nova_online_data_migrations'], 'nested'),
    ]
    for step in steps:
        earlier, later, nested = step[0], step[1], step[2:]
        for before in earlier:
            for after in later:
                assert when[(before, 'COMPLETE') + nested] <= when[
                    (after, 'IN_PROGRESS') + nested], (before, after, when)
