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

"""The compute control plane as a region of the local cloud (issue 37,
step 3).

``templates/controlplane.yaml`` with one compute node and
``environments/existing-keystone.yaml``, on the real node: no Keystone is
deployed; Glance, Placement, Neutron and Nova check tokens with the local
cloud's Keystone and register there in a region of their own, as a
provider adding a compute region would. The stack is a project's that an
operator adds once the cloud is up and labels privileged. The local
cloud's catalog lists the five services in that region; its admin sees
Nova's services up and the compute host; a member of the local cloud, with
its own token, boots the guest built here on a network of its own, and
the server answers on port 80 with its address and metadata. Deleting the
stack removes the users, endpoints and region from the local cloud's
Keystone and leaves nothing in the cluster. The first two tests, a
compute node alone that fails for want of a node of its role or of KVM,
need no region. With the region, a member's nova-docker stacks that
cannot end fail with Nova's or Heat's reason: a flavor larger than the
node, an image that does not boot, a node cut off from its network. The
one that runs Keystone on a server of the region runs when asked for
(HEAT_K8S_TEST_COMPUTE=1): under QEMU's emulation it takes 21 minutes
(CI's budget: doc/source/testing.rst).
"""

import configparser
import contextlib
import json
import os
import time
import urllib.parse
import uuid

import pytest

from tests.e2e import compute
from tests.e2e import controlplane_clients as clients
from tests.e2e import docker_stacks as dh
from tests.e2e import projects
from tests.e2e import regions
from tests.e2e import servers
from tests.e2e import stacks
from tests.functional import cloud
from tools.lc.builds import agent_server

SERVICES = ('identity', 'image', 'placement', 'network', 'compute')
# The services the region runs, by their images' names.
RELEASED = tuple(name for name in compute.SERVICES if name != 'keystone')
UPLINK = '172.24.4.1/24'  # the compute node's, its provider network's
# The guest's user script, its findings served by its HTTP port: Keystone's
# version document (its address is compute_uplink_reach) and what the
# control plane's RabbitMQ pod answers an AMQP client (nothing: the
# compute pod reaches it, the servers behind the uplink must not). Not
# wget's -T: busybox 1.35's wget -q -T segfaults (seen in the guest).
PROBES = '''#!/bin/sh
for i in $(seq 30); do
    timeout 10 wget -q -O /www/keystone.json %(keystone)s/v3 && break
    sleep 2
done
printf 'AMQP\\000\\000\\011\\001' | timeout 10 nc %(rabbitmq)s 5672 \\
    > /www/rabbitmq.out 2>&1
test -s /www/keystone.json
'''
AMQP_HEADER = b'AMQP\x00\x00\x09\x01'
NOVA_DOCKER_ENVS = [os.path.join(dh.ENVIRONMENTS, n) for n in (
    'nova-docker.yaml', 'localcloud-images.yaml')]
# Under QEMU's emulation (this machine's /dev/kvm runs no guest of
# libvirt's) a server's first boot, its agent and Keystone's schema steps
# take minutes.
NOVA_DOCKER_TIMEOUT = 2400
KUBE_ENVS = compute.KUBE_ENVS + [
    os.path.join(dh.ENVIRONMENTS, 'existing-keystone.yaml')]


@pytest.fixture(scope='module')
def images(localcloud):
    stacks.ensure_images(localcloud, *[i for i in compute.IMAGES
                                       if i != 'keystone'])


@pytest.fixture(scope='module')
def operator_project(localcloud, tmp_path_factory):
    with projects.new_project(localcloud, 'e2e-cregion', str(
            tmp_path_factory.mktemp('cregion'))) as made:
        projects.admin_kubectl(localcloud, 'label', 'namespace',
                               made.namespace, compute.PRIVILEGED)
        yield made


# A compute node's libvirtd as templates/nova.yaml's nova_compute runs it
# (compute-node.sh, the nova-compute image), alone: its role is
# service_roles' nova_compute; KVM_DEVICE is where the script looks for
# /dev/kvm.
COMPUTE_NODE = """
heat_template_version: 2021-04-16
parameters:
  nova_compute_image: {type: string}
  nova_version: {type: string}
  name: {type: string}
  role: {type: string, default: ''}
  kvm_device: {type: string, default: /dev/kvm}
resources:
  host:
    type: OS::HeatK8s::ContainerHost
    properties: {name: {get_param: name}}
  nova_compute:
    type: OS::HeatK8s::PrivilegedService
    properties:
      name: {get_param: name}
      image:
        list_join: [':', [{get_param: nova_compute_image},
                          {get_param: nova_version}]]
      target: {get_attr: [host, target]}
      placement: {get_param: role}
      processes:
        - name: libvirtd
          command: [sh, /var/lib/kolla/config_files/compute-node.sh,
                    libvirtd]
      environment: {VIRT_TYPE: kvm, KVM_DEVICE: {get_param: kvm_device}}
      config_files:
        /var/lib/kolla/config_files/compute-node.sh:
          get_file: file://%s/templates/nova/compute-node.sh
""" % cloud.REPO


def _compute_node_fails(localcloud, project, workdir, **params):
    """COMPUTE_NODE's stack as `project`, which fails: (its reason, the
    seconds to it); deleted after, leaving nothing."""
    template = os.path.join(workdir, 'compute-node.yaml')
    with open(template, 'w') as f:
        f.write(COMPUTE_NODE)
    name = params['name']
    heat = stacks.Heat(localcloud, project.name,
                       clouds_file=project.env['OS_CLIENT_CONFIG_FILE'])
    try:
        started = time.monotonic()
        project.openstack('stack', 'create', *dh.create_args(
            template, params, compute.KUBE_ENVS), name)
        shown = heat.wait(name, timeout=dh.TIMEOUT)
        took = time.monotonic() - started
        assert shown.stack_status == 'CREATE_FAILED', shown.stack_status
        assert 'resources.nova_compute' in shown.stack_status_reason
        return shown.stack_status_reason, took
    finally:
        project.openstack('stack', 'delete', '-y', '--wait', name,
                          check=False)
        clients.assert_nothing_left(localcloud, name, name, env=project.env)


def test_a_compute_role_that_names_no_node_fails_in_kubernetes_words(
        localcloud, images, operator_project, tmp_path):
    """(Issue 37, bad input) The compute nodes' role (service_roles'
    nova_compute) names a role no node has: the compute node's resource
    fails with the scheduler's own reason within the grace of a pod no
    node takes, not at the stack's timeout."""
    reason, took = _compute_node_fails(
        localcloud, operator_project, str(tmp_path), role='nowhere',
        name='nowhere-' + uuid.uuid4().hex[:6])
    assert "didn't match Pod's node affinity/selector" in reason, reason
    print('\na compute role no node has: CREATE_FAILED after %.0fs: %s'
          % (took, reason))
    assert took < 300, took


def test_a_compute_node_without_kvm_says_so_in_heats_words(
        localcloud, images, operator_project, tmp_path):
    """(Issue 37, bad input) virt_type kvm on a node without /dev/kvm (a
    device path that does not exist stands for it): libvirtd's container
    exits with compute-node.sh's reason, which the stack's reason
    carries."""
    reason, took = _compute_node_fails(
        localcloud, operator_project, str(tmp_path),
        kvm_device='/dev/no-kvm', name='nokvm-' + uuid.uuid4().hex[:6])
    assert 'virt_type kvm, but this node has no /dev/no-kvm' in reason, (
        reason)
    print('\na compute node without KVM: CREATE_FAILED after %.0fs: %s'
          % (took, reason))
    assert took < 300, took


class Region(object):
    """The stack's names, its region, and the local admin there."""

    def __init__(self, localcloud, suffix):
        self.suffix = suffix
        self.name, self.prefix = 'cr-' + suffix, 'cr%s-' % suffix
        self.region = 'CR' + suffix.upper()
        self.host = self.prefix + 'nova-compute-0'
        self.admin = regions.admin_in(localcloud, self.region)
        self.users = {'%s-%s' % (self.region.lower(), service)
                      for service in ('glance', 'placement', 'neutron',
                                      'nova')}


@pytest.fixture(scope='module')
def deployed(localcloud, images, operator_project, tmp_path_factory):
    """The compute control plane in a region of the local cloud, shared
    by the tests that read it; deleted after them, leaving nothing in the
    local cloud's Keystone nor the cluster."""
    made = Region(localcloud, uuid.uuid4().hex[:6])
    project = operator_project
    before = regions.names(localcloud)
    heat = stacks.Heat(localcloud, project.name,
                       clouds_file=project.env['OS_CLIENT_CONFIG_FILE'])
    try:
        compute.create(localcloud, project, heat, made.name, {
            'admin_password': regions.admin_auth(localcloud)['password'],
            'prefix': made.prefix, 'region': made.region,
            'compute_count': 1, 'compute_virt_type': 'qemu',
            'compute_uplink': UPLINK,
            'compute_uplink_reach': _keystone_host(localcloud) + '/32'},
            KUBE_ENVS + [regions.region_env(
                localcloud, str(tmp_path_factory.mktemp('ck')),
                made.name)], 'compute region of the local cloud')
        yield made
    finally:
        project.openstack('stack', 'delete', '-y', '--wait', made.name,
                          check=False)
    assert regions.in_region(localcloud, made.region) == set()
    assert regions.names(localcloud) == before
    left = {u['Name'] for u in regions.admin(
        localcloud, 'user', 'list', '--domain', 'Default')}
    assert not made.users & left, made.users & left
    clients.assert_nothing_left(localcloud, made.name, made.prefix,
                                env=project.env)


def test_the_region_lists_the_services_and_the_compute_host(localcloud,
                                                           deployed):
    assert regions.in_region(localcloud, deployed.region) == {
        (kind, interface) for kind in SERVICES
        for interface in ('public', 'internal', 'admin')}
    left = {u['Name'] for u in regions.admin(
        localcloud, 'user', 'list', '--domain', 'Default')}
    assert deployed.users <= left, deployed.users - left
    # Every service runs the release's tag (its own images but Keystone).
    assert clients.running_tags(localcloud, deployed.prefix, RELEASED) == {
        service: tag for service, tag in clients.RELEASE_TAGS[
            compute.TO_RELEASE].items() if service in RELEASED}
    # The uplink made the compute node a gateway chassis.
    servers.services_up(deployed.admin, deployed.host,
                        agent='OVN Controller Gateway agent')
    servers.a_network_is_ovns(localcloud, deployed.admin, deployed.prefix,
                              deployed.suffix)


def test_a_compute_node_holds_nothing_to_administer_the_cloud(
        localcloud, deployed, operator_project):
    """(Issue 52) What a guest escape on the compute node would find:
    nova.conf without a database; the deployment's MariaDB, memcached and
    OVN northbound database refusing it (RabbitMQ and the southbound
    database, which it needs, answering); RabbitMQ letting Nova's user
    into Nova's vhost alone; Nova's service user, who holds
    Keystone's `service` role and no other, refused an admin's call."""
    pod = servers.ComputePod(localcloud, operator_project.namespace,
                             deployed.host)
    conf = configparser.ConfigParser(interpolation=None)
    conf.read_string(pod.run(servers.NOVA_COMPUTE, 'cat',
                             '/etc/nova/nova.conf').stdout)
    assert not {'database', 'api_database'} & set(conf.sections())
    assert 'mysql' not in pod.run(servers.NOVA_COMPUTE, 'cat',
                                  '/etc/nova/nova.conf').stdout
    for user in deployed.users:
        granted = regions.admin(localcloud, 'role', 'assignment', 'list',
                                '--user', user, '--user-domain', 'Default',
                                '--names')
        # Neutron's for Nova's external events (templates/neutron.yaml).
        needed = {'service', 'admin'} if user.endswith('-neutron') else {
            'service'}
        assert {a['Role'] for a in granted} == needed, (user, granted)
    # What it serves and no more: RPC and OVN's southbound database.
    reached = {service: _connects(pod, _pod_address(
        localcloud, operator_project.namespace, deployed.prefix + service),
        port) for service, port in (('rabbitmq', 5672), ('ovn-sb', 6642),
                                    ('mariadb', 3306), ('memcached', 11211),
                                    ('ovn-nb', 6641))}
    assert reached == {'rabbitmq': True, 'ovn-sb': True, 'mariadb': False,
                       'memcached': False, 'ovn-nb': False}, reached
    # RabbitMQ: Nova's own user, let into Nova's vhost and no other.
    assert _vhosts_opened(pod, ['nova', 'neutron', '/']) == [
        'user nova', 'nova'], conf['DEFAULT']['transport_url'].split('@')[1]
    nova = dict(clients.admin_env(localcloud, conf['neutron']['auth_url'],
                                  conf['neutron']['password']),
                OS_USERNAME=conf['neutron']['username'],
                OS_PROJECT_NAME='service')
    refused = cloud.run(['openstack', 'user', 'list'], env=nova,
                        check=False)
    assert refused.returncode != 0, refused.stdout
    assert 'You are not authorized to perform the requested action' in (
        refused.stderr), refused.stderr


@contextlib.contextmanager
def decoys(localcloud, suffix, count=3):
    """`count` other regions of the local cloud's Keystone listing the
    region's services (at an address where nothing answers), before it
    in the catalog as often as not: a client that names no region takes
    one of theirs."""
    made = []
    try:
        for number in range(count):
            region = 'DECOY%d%s' % (number, suffix.upper())
            regions.admin(localcloud, 'region', 'create', region)
            made.append(('region', region))
            # The services the region registered, as another region's.
            for kind in ('image', 'placement', 'network', 'compute'):
                service = regions.admin(localcloud, 'service', 'show', kind)
                for interface in ('public', 'internal'):
                    made.append(('endpoint', regions.admin(
                        localcloud, 'endpoint', 'create', '--region', region,
                        service['id'], interface, 'http://127.0.0.1:9')[
                            'id']))
        yield
    finally:
        for kind, ident in reversed(made):
            localcloud.run('openstack', kind, 'delete', ident,
                           os_cloud='admin', check=False)


@pytest.fixture(scope='module')
def external(deployed):
    """The provider network on the compute node's uplink (the admin's)."""
    admin = deployed.admin
    made = servers.listed(
        admin, 'network', 'create', '--external', '--provider-network-type',
        'flat', '--provider-physical-network', 'external',
        'external-' + deployed.suffix)
    try:
        clients.openstack(admin, 'subnet', 'create', '--network', made['id'],
                          '--subnet-range', UPLINK, '--gateway',
                          UPLINK.split('/')[0], '--no-dhcp',
                          'external-' + deployed.suffix)
        yield made
    finally:
        clients.openstack(admin, 'network', 'delete', made['id'])


def test_a_member_boots_a_server_with_its_own_token(localcloud, deployed,
                                                    operator_project,
                                                    external, tmp_path):
    """A member's server, on its own network with a router to the
    provider network, reaches the local cloud's Keystone (where the pods
    reach it, compute_uplink_reach) through the compute node's uplink, and
    not the control plane's RabbitMQ pod, which the compute pod reaches."""
    member = regions.in_own_region(operator_project, tmp_path,
                                   deployed.region)
    admin = deployed.admin
    rabbitmq = _pod_address(localcloud, operator_project.namespace,
                            deployed.prefix + 'rabbitmq')
    script = os.path.join(str(tmp_path), 'probes.sh')
    with open(script, 'w') as f:
        f.write(PROBES % {
            'keystone': localcloud.env['HEAT_K8S_PODS_KEYSTONE'],
            'rabbitmq': rabbitmq})
    pod = servers.ComputePod(localcloud, operator_project.namespace,
                             deployed.host)
    # The probe can fail: from the compute pod, RabbitMQ answers.
    assert b'RabbitMQ' in _amqp_answer(pod, rabbitmq)
    booted = None
    try:
        # (Issue 52) Other regions list the same services first, as often
        # as not: every client of the region names it.
        with decoys(localcloud, deployed.suffix):
            booted = servers.Booted(member, admin, str(tmp_path),
                                    deployed.suffix,
                                    external=external['id'],
                                    user_data=script)
        with booted.reached(pod) as get:
            booted.answers(get)
            assert get('user_data.rc').strip() == '0', get('user_data.out')
            answered = json.loads(get('keystone.json'))
            refused = get('rabbitmq.out')
        assert answered['version']['id'].startswith('v3'), answered
        assert 'RabbitMQ' not in refused, refused
        print('\na member\'s server in the region: ACTIVE after %.0fs, '
              'answering after %.0fs, Keystone reached through its router'
              % (booted.active, booted.answered))
        booted.delete_server(pod)
        lsps = servers.ovn(localcloud, deployed.prefix, 'ovn-nb',
                           'ovn-nbctl', servers.OVN_NORTHBOUND_PORT,
                           'lsp-list', 'neutron-' + booted.net['id'])
        assert booted.port['ID'] not in lsps, lsps
    finally:
        if booted is not None:
            booted.clean_up()


class NovaDockerSite(object):
    """What a nova-docker stack of a member takes in the region: the agent
    server image, a flavor that fits it, a network with a router to the
    uplink; and its stacks, created by the local cloud's Heat listed in
    the region."""

    def __init__(self, localcloud, deployed, project, member, workdir,
                 external):
        self.localcloud, self.project, self.member, self.workdir = (
            localcloud, project, member, workdir)
        self.admin, self.suffix = deployed.admin, deployed.suffix
        self.name = 'nd-' + self.suffix
        self.made = []  # (env, kind, id) to delete, last first
        # The bad-input cases fail before anything boots: the test guest
        # stands for the image; the agent server (a 1.8 GiB build, asked
        # for) is uploaded for the case that runs it (agent_server()).
        self.image, uploaded = servers.upload_guest(member, workdir,
                                                    self.suffix)
        self.made += [(member, 'image', i) for i in uploaded]
        self.disk_gib = '1'
        self.flavor = self.make_flavor(self.name, '1', '256', self.disk_gib)
        self.net = self.make(member, 'network', self.name)
        subnet = self.make(member, 'subnet', '--network', self.net['id'],
                           '--subnet-range', '10.99.0.0/24', self.name)
        self.router = self.make(member, 'router', '--external-gateway',
                                external['id'], self.name)
        clients.openstack(member, 'router', 'add', 'subnet',
                          self.router['id'], subnet['id'])
        self.made.append((member, 'router-subnet',
                          (self.router['id'], subnet['id'])))

    def agent_server(self):
        """The agent server image built here, uploaded, and a flavor that
        holds it: (image id, flavor)."""
        built = agent_server.ensure()
        image, uploaded = servers.upload_kernel_boot(
            self.member, self.name + '-agent', os.path.join(
                built, agent_server.KERNEL),
            os.path.join(built, agent_server.RAMDISK),
            os.path.join(built, agent_server.DISK),
            agent_server.DISK.rpartition('.')[2],  # disk.qcow2
            agent_server.COMMAND_LINE)
        self.made += [(self.member, 'image', i) for i in uploaded]
        return image, self.make_flavor(self.name + '-agent', '2', '2048', str(
            agent_server.disk_gib(built)))

    def make(self, env, kind, *args):
        made = servers.listed(env, kind, 'create', *args)
        self.made.append((env, kind, made['id']))
        return made

    def make_flavor(self, name, vcpus, ram, disk):
        self.make(self.admin, 'flavor', '--vcpus', vcpus, '--ram', ram,
                  '--disk', disk, name)
        return name

    def clean_up(self):
        for env, kind, made in reversed(self.made):
            if kind == 'router-subnet':
                clients.openstack(env, 'router', 'remove', 'subnet', *made)
            else:
                clients.openstack(env, kind, 'delete', made)

    def create(self, name, password, **settings):
        """`stack create` of identity.yaml on nova-docker, waited for:
        (the stack as shown, seconds to its end)."""
        path = os.path.join(self.workdir, name + '-settings.yaml')
        with open(path, 'w') as f:
            json.dump({'parameter_defaults': dict({  # JSON is YAML
                'ContainerHostImage': self.image,
                'ContainerHostFlavor': self.flavor,
                'ContainerHostNetwork': self.name,
                'ContainerHostDockerCommand': 'podman',
                'ContainerHostConfigTransport': 'POLL_SERVER_CFN',
                'ContainerHostSignalTransport': 'CFN_SIGNAL'},
                **settings)}, f)
        heat = stacks.Heat(self.localcloud, self.project,
                           clouds_file=self.member['OS_CLIENT_CONFIG_FILE'])
        started = time.monotonic()
        clients.openstack(self.member, 'stack', 'create', '--timeout', str(
            NOVA_DOCKER_TIMEOUT // 60), *dh.create_args(
                os.path.join(cloud.REPO, 'templates', 'identity.yaml'),
                {'admin_password': password}, NOVA_DOCKER_ENVS + [path]),
            name)
        shown = heat.wait(name, timeout=NOVA_DOCKER_TIMEOUT)
        return shown, time.monotonic() - started

    def delete(self, name):
        clients.openstack(self.member, 'stack', 'delete', '-y', '--wait',
                          name)
        assert servers.listed(self.member, 'server', 'list') == []


@pytest.fixture(scope='module')
def nova_docker(localcloud, deployed, operator_project, external,
                tmp_path_factory):
    workdir = str(tmp_path_factory.mktemp('nova-docker'))
    member = regions.in_own_region(operator_project, workdir,
                                   deployed.region)
    site = None
    try:
        site = NovaDockerSite(localcloud, deployed, operator_project.name,
                              member, workdir, external)
        # A stack's delete needs Heat in the region too: inside.
        with regions.heat_in(localcloud, deployed.region):
            yield site
    finally:
        if site is not None:
            site.clean_up()


def test_a_flavor_larger_than_the_node_fails_in_novas_words(nova_docker):
    """(Issue 37, bad input) Nova's scheduler finds no host for it: the
    stack fails with Nova's reason as soon as the server goes to ERROR,
    and its delete leaves no server."""
    site = nova_docker
    name = 'nd-big-' + site.suffix
    # Within a project's default quota (20 cores, 51200 MB), beyond this
    # two-core node with 24 GiB (Nova's allocation ratios: 4 per core,
    # 1.0 of the memory).
    flavor = site.make_flavor(name, '16', str(48 * 1024), site.disk_gib)
    try:
        shown, took = site.create(name, 'nd-Admin-' + uuid.uuid4().hex[:12],
                                  ContainerHostFlavor=flavor)
        assert shown.stack_status == 'CREATE_FAILED', shown.stack_status
        assert 'No valid host was found' in shown.stack_status_reason, (
            shown.stack_status_reason)
        print('\nnova-docker, a flavor of 16 vCPUs: CREATE_FAILED after '
              '%.0fs: %s' % (took, shown.stack_status_reason))
        assert took < 300, took
    finally:
        site.delete(name)


def test_a_server_that_does_not_boot_fails_at_the_boot_timeout(nova_docker):
    """(Issue 37, bad input) A disk of zeros: Nova calls the server ACTIVE
    and nothing boots, so nothing signals agent_started; the stack fails
    at ContainerHostBootTimeout (here 120 s), not its own timeout (40
    min), and its delete leaves no server."""
    site = nova_docker
    name = 'nd-noboot-' + site.suffix
    disk = os.path.join(site.workdir, 'zeros.raw')
    with open(disk, 'wb') as f:
        f.truncate(1024 * 1024)
    image = site.make(site.member, 'image', '--disk-format', 'raw',
                      '--container-format', 'bare', '--file', disk, name)
    try:
        shown, took = site.create(name, 'nd-Admin-' + uuid.uuid4().hex[:12],
                                  ContainerHostImage=image['id'],
                                  ContainerHostBootTimeout=120)
        assert shown.stack_status == 'CREATE_FAILED', shown.stack_status
        reason = shown.stack_status_reason
        assert 'agent_started' in reason, reason
        assert 'WaitConditionTimeout' in reason, reason
        print('\nnova-docker, a server that does not boot: CREATE_FAILED '
              'after %.0fs: %s' % (took, reason))
        assert 120 <= took < 400, took
    finally:
        site.delete(name)


@compute.asked_for
def test_the_local_clouds_heat_runs_keystone_on_a_server_of_the_region(
        localcloud, deployed, operator_project, nova_docker):
    """environments/nova-docker.yaml, run (issue 37, step 3): the local
    cloud's Heat, asked in the region, boots the agent server image built
    here (tools/lc/builds/agent_server.py) on the region's Nova, on a
    member's network with a router to the uplink; the server's boot
    script signals that its agent runs (agent_started), its agent polls
    Heat's CFN API through the uplink and runs MariaDB, memcached and
    Keystone under podman from templates/identity.yaml, the template that
    runs on Kubernetes and on the docker host; Keystone in the server
    issues a token, asked on that network."""
    site = nova_docker
    name = site.name
    password = 'nd-Admin-' + uuid.uuid4().hex[:12]
    pod = servers.ComputePod(localcloud, operator_project.namespace,
                             deployed.host)
    probe = None
    try:
        image, flavor = site.agent_server()
        shown, created = site.create(name, password,
                                     ContainerHostImage=image,
                                     ContainerHostFlavor=flavor)
        assert shown.stack_status == 'CREATE_COMPLETE', (
            shown.stack_status_reason)
        auth_url = clients.openstack(
            site.member, 'stack', 'output', 'show', name, 'auth_url',
            '-f', 'value', '-c', 'output_value').strip()
        probe = servers.listed(site.member, 'port', 'create', '--network',
                               site.net['id'], 'probe-' + name)
        pod.probe(probe)
        started = time.monotonic()
        assert pod.token(auth_url, 'admin', password) == ('admin', 'admin')
        print('\nnova-docker in the region: CREATE_COMPLETE after %.0fs, '
              'a token from the server\'s Keystone %.0fs later' % (
                  created, time.monotonic() - started))
    finally:
        if probe is not None:
            pod.unprobe()
            clients.openstack(site.member, 'port', 'delete', probe['id'])
        site.delete(name)


def test_a_node_cut_off_from_its_network_fails_in_novas_words(
        localcloud, deployed, operator_project, nova_docker):
    """(Issue 37, bad input: no network) Last: it cuts the compute node
    off. Its ovn-controller's connections to OVN's southbound database
    refused, as a firewall between them would: Neutron lists the node's
    agent dead after agent_down_time and refuses to bind the server's port
    there, and the stack fails with Nova's reason, the node's own (one
    node, so one attempt: nova.conf's max_attempts), within minutes of its
    create, not at its timeout; its delete leaves no server. Connected
    again, the agent is alive."""
    site = nova_docker
    name = 'nd-nonet-' + site.suffix
    pod = servers.ComputePod(localcloud, operator_project.namespace,
                             deployed.host)
    with pod.cut_off_from_ovn(deployed.admin) as dead:
        try:
            shown, took = site.create(
                name, 'nd-Admin-' + uuid.uuid4().hex[:12])
            assert shown.stack_status == 'CREATE_FAILED', shown.stack_status
            reason = shown.stack_status_reason
            assert 'Binding failed for port' in reason, reason
            print('\nnova-docker on a node cut off from OVN: its agent dead '
                  'after %.0fs, CREATE_FAILED %.0fs after the create: %s'
                  % (dead, took, reason))
            assert took < 300, took
        finally:
            site.delete(name)


def _keystone_host(localcloud):
    return urllib.parse.urlsplit(
        localcloud.env['HEAT_K8S_PODS_KEYSTONE']).hostname


def _pod_address(localcloud, namespace, name):
    """The address of the pod of the service `name`."""
    listed = json.loads(cloud.run([
        'kubectl', '-n', namespace, 'get', 'pods', '-o', 'json', '-l',
        'app.kubernetes.io/name=' + name], env=localcloud.env).stdout)
    [address] = [p['status']['podIP'] for p in listed['items']]
    return address


def _connects(pod, address, port):
    """Whether a TCP connection from `pod` to address:port opens (within
    5 s: a NetworkPolicy drops the refused ones)."""
    code = ('import socket, sys\n'
            'try:\n'
            '    socket.create_connection((sys.argv[1], int(sys.argv[2])), '
            'timeout=5)\n'
            'except OSError:\n'
            '    sys.exit(3)\n')
    result = pod.run(servers.NOVA_COMPUTE, 'python3', '-c', code, address,
                     str(port), check=False)
    assert result.returncode in (0, 3), result.stderr
    return result.returncode == 0


def _vhosts_opened(pod, vhosts):
    """The user of nova.conf's transport_url in `pod`, then which of
    `vhosts` RabbitMQ lets it open, with the password the node holds."""
    code = ('import configparser, sys, urllib.parse, kombu\n'
            'conf = configparser.ConfigParser(interpolation=None)\n'
            'conf.read("/etc/nova/nova.conf")\n'
            'url = urllib.parse.urlsplit(conf["DEFAULT"]["transport_url"])\n'
            'print("user", url.username)\n'
            'for vhost in sys.argv[1:]:\n'
            '    amqp = kombu.Connection(\n'
            '        hostname=url.hostname, port=url.port,\n'
            '        userid=url.username, password=url.password,\n'
            '        virtual_host=vhost, connect_timeout=5)\n'
            '    try:\n'
            '        amqp.connect()\n'
            '        print(vhost)\n'
            '    except Exception:\n'
            '        pass\n'
            '    finally:\n'
            '        amqp.release()\n')
    return pod.run(servers.NOVA_COMPUTE, 'python3', '-c', code,
                   *vhosts).stdout.splitlines()


def _amqp_answer(pod, address):
    """What RabbitMQ at `address` answers an AMQP client in `pod`."""
    code = ('import socket, sys; s = socket.create_connection((sys.argv[1], '
            '5672), timeout=5); s.sendall(%r); '
            'sys.stdout.write(s.recv(4096).hex())' % AMQP_HEADER)
    return bytes.fromhex(pod.run(servers.NOVA_COMPUTE, 'python3', '-c', code,
                                 address).stdout)
