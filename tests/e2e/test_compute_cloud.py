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

"""The control plane with its compute services on the real node.

``templates/controlplane.yaml`` with nothing switched off and one compute
node: MariaDB, memcached and RabbitMQ, Keystone, Glance, Placement, Neutron
on ML2/OVN (OVN's two databases and ovn-northd) and Nova (the cell setup,
the compute and metadata APIs, nova-conductor, nova-scheduler, and a
compute node: nova-compute with libvirtd and KVM, Open vSwitch on its
userspace datapath and ovn-controller, privileged containers of one pod),
from the images built here: the current release (2026.2), or one release
behind (``release=2026.1``: Nova 33.0.2, Neutron 28.0.2) when the upgrade
is asked for (HEAT_K8S_TEST_COMPUTE=1). The stack is a project's that an
operator adds once the cloud is up and whose namespace the operator labels
privileged (Pod Security admits the compute node's pod there only). Every
service runs the release the stack names. Through the stack's own Keystone,
as its admin asks it: the catalog names every service; Nova's conductor,
scheduler and compute report up, the compute host is a hypervisor of cell1
and an OVN chassis Neutron lists as its agent; a network, its subnet and a
port made through Neutron are OVN's logical switch and port in the
northbound database, and ovn-northd has made the switch a datapath in the
southbound one; deleting them removes them there too. A server of the guest
built here boots on a network of the stack's Neutron, answers on its port
80 with its DHCP address and its config drive's metadata, and goes with
`server delete`. Cut off from OVN's southbound database, the compute node
fails a server with Nova's reason: Neutron binds no port to a dead agent.
Last, when asked for, with a server running, ``release`` alone raises it to
2026.2: Heat's events show Keystone, Glance and Placement done before
Neutron and Nova start, Neutron's expand, API and contract, and Nova's API
database, cells, conductor, then its APIs and compute node, then the online
data migrations, in that order; every service runs the new release and
reports up, and the server, whose QEMU went with the compute node's old
pod, runs again on its disk (Nova's resume_guests_state_on_host_boot) and
answers as before. Then the stack deletes and leaves nothing behind.
"""

import json
import os
import time
import uuid

import pytest

from tests.e2e import controlplane_clients as clients
from tests.e2e import projects
from tests.e2e import servers
from tests.e2e import stacks
from tests.e2e import test_docker_host as dh
from tests.functional import cloud

ADMIN_PASSWORD = 'cc-Admin-' + uuid.uuid4().hex[:12]
# The release upgrade runs when asked for (three more images, seven more
# minutes: CI's budget, README); otherwise the shared control plane is
# created at the current release and only read.
UPGRADE = os.environ.get('HEAT_K8S_TEST_COMPUTE') == '1'
TO_RELEASE = '2026.2'
FROM_RELEASE = '2026.1' if UPGRADE else TO_RELEASE
SERVICES = ('keystone', 'glance', 'placement', 'neutron', 'nova')
# The compute control plane's images; for the upgrade, it starts a release
# behind (EARLIER_IMAGES) and is raised to them.
IMAGES = ('mariadb', 'memcached', 'rabbitmq', 'ovn') + SERVICES + (
    'nova-compute',)
EARLIER_IMAGES = tuple(
    name + '-' + FROM_RELEASE for name in SERVICES + ('nova-compute',)
) if UPGRADE else ()
KUBE_ENVS = [os.path.join(dh.ENVIRONMENTS, n) for n in (
    'kubernetes.yaml', 'localcloud-images.yaml',
    'localcloud-controlplane-images.yaml', 'localcloud-kubernetes.yaml')]
PRIVILEGED = 'pod-security.kubernetes.io/enforce=privileged'

# What runs when asked for: this module's upgrade, test_compute_region.py.
asked_for = pytest.mark.skipif(
    not UPGRADE, reason='the compute release upgrade and region run when '
    'asked for: HEAT_K8S_TEST_COMPUTE=1 (CI\'s budget: README)')


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
        started = time.monotonic()
        project.openstack('stack', 'create', '--timeout', str(
            dh.TIMEOUT // 60), *dh.create_args(dh.CONTROLPLANE, {
                'admin_password': ADMIN_PASSWORD, 'prefix': prefix,
                'compute_count': 1, 'release': FROM_RELEASE,
                # This machine's /dev/kvm is PVM's, which runs only kernels
                # built as its guests (doc/source/user/controlplane.rst).
                'compute_virt_type': 'qemu'}, KUBE_ENVS), name)
        shown = heat.wait(name, timeout=dh.TIMEOUT)
        assert shown.stack_status == 'CREATE_COMPLETE', (
            shown.stack_status_reason)
        print('\ncompute control plane with a compute node: '
              'CREATE_COMPLETE after %.0fs, the project\'s pods using %.0f '
              'MiB' % (time.monotonic() - started, clients.working_set_mib(
                  localcloud, project.namespace)))
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
    _a_network_is_ovns(localcloud, env, deployed.prefix, deployed.suffix)


def test_a_server_boots_answers_and_goes(localcloud, deployed,
                                         operator_project, tmp_path):
    """`openstack server create` of the guest built here on a network of
    the stack's Neutron: ACTIVE, its address by DHCP and its metadata from
    the config drive, served on its port 80 to a port of the same network
    on the compute node; `server delete` leaves no domain, port or
    logical switch port."""
    pod = servers.ComputePod(localcloud, operator_project.namespace,
                             deployed.host)
    booted = servers.Booted(deployed.env, deployed.env, str(tmp_path),
                            deployed.suffix)
    try:
        with booted.reached(pod) as get:
            booted.answers(get)
        print('\nserver ACTIVE after %.0fs, answering after %.0fs; the '
              'project\'s pods using %.0f MiB' % (
                  booted.active, booted.answered,
                  clients.working_set_mib(localcloud, pod.namespace)))
        booted.delete_server(pod)
        lsps = _ovn(localcloud, deployed.prefix, 'ovn-nb', 'ovn-nbctl',
                    6641, 'lsp-list', 'neutron-' + booted.net['id'])
        assert booted.port['ID'] not in lsps, lsps
    finally:
        booted.clean_up()


def test_a_node_cut_off_from_its_network_fails_a_server_in_novas_words(
        localcloud, deployed, operator_project, tmp_path):
    """(Issue 37, bad input: no network) The compute node's ovn-controller
    cut off from OVN's southbound database (its connections refused, as a
    firewall between them would): once Neutron lists the node's agent
    dead, `server create` ends in ERROR with the node's own reason, Nova's
    fault (one node, so one attempt: nova.conf's max_attempts). Heat
    reports the same words (test_compute_region.py's nova-docker case).
    Connected again, the agent is alive."""
    pod = servers.ComputePod(localcloud, operator_project.namespace,
                             deployed.host)
    env = deployed.env
    with pod.cut_off_from_ovn(env) as dead:
        booted = servers.Booted(env, env, str(tmp_path), deployed.suffix)
        try:
            server = booted.server
            assert server['status'] == 'ERROR', server
            fault = server['fault']['message']
            assert fault.startswith('Binding failed for port'), server
            print('\na node cut off from OVN: its agent dead after %.0fs, '
                  'the server in ERROR %.0fs after server create: %s' % (
                      dead, booted.active, fault))
        finally:
            booted.clean_up()


@asked_for
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


def _a_network_is_ovns(localcloud, env, prefix, suffix):
    """A network, subnet and port through Neutron; OVN's databases hold
    them, and lose them when Neutron deletes them."""
    net = json.loads(clients.openstack(
        env, 'network', 'create', 'net-' + suffix, '-f', 'json'))
    clients.openstack(env, 'subnet', 'create', '--network', net['id'],
                      '--subnet-range', '10.99.0.0/24', 'sub-' + suffix)
    port = json.loads(clients.openstack(
        env, 'port', 'create', '--network', net['id'], 'port-' + suffix,
        '-f', 'json'))
    assert port['fixed_ips'][0]['ip_address'].startswith('10.99.0.'), port
    switch = 'neutron-' + net['id']
    switches = _ovn(localcloud, prefix, 'ovn-nb', 'ovn-nbctl', 6641,
                    '--bare', '--columns=name', 'list', 'Logical_Switch')
    assert switch in switches.split(), switches
    ports = _ovn(localcloud, prefix, 'ovn-nb', 'ovn-nbctl', 6641,
                 'lsp-list', switch)
    assert port['id'] in ports, ports
    # ovn-northd made the switch a datapath of the southbound database.
    deadline = time.monotonic() + 60
    while switch not in _datapaths(localcloud, prefix):
        assert time.monotonic() < deadline, 'no datapath for ' + switch
        time.sleep(2)
    clients.openstack(env, 'port', 'delete', port['id'])
    clients.openstack(env, 'network', 'delete', net['id'])
    switches = _ovn(localcloud, prefix, 'ovn-nb', 'ovn-nbctl', 6641,
                    '--bare', '--columns=name', 'list', 'Logical_Switch')
    assert switch not in switches.split(), switches


def _datapaths(localcloud, prefix):
    return _ovn(localcloud, prefix, 'ovn-sb', 'ovn-sbctl', 6642, '--bare',
                '--columns=external_ids', 'list', 'Datapath_Binding')


def _ovn(localcloud, prefix, service, ctl, port, *args):
    """`ctl` run in the pod of `service`, against its own database."""
    pods = json.loads(cloud.run(
        ['kubectl', 'get', 'pods', '-A', '-l',
         'app.kubernetes.io/name=%s%s,app.kubernetes.io/component=service'
         % (prefix, service), '-o', 'json'], env=localcloud.env).stdout)
    [pod] = [p for p in pods['items']
             if not p['metadata'].get('deletionTimestamp')]
    return cloud.run(
        ['kubectl', '-n', pod['metadata']['namespace'], 'exec',
         pod['metadata']['name'], '--', ctl,
         '--db=tcp:127.0.0.1:%d' % port] + list(args),
        env=localcloud.env).stdout
