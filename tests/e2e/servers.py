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

"""A server on a deployed compute cloud, as its users boot and reach it.

The guest is tools/lc/builds/guest.py's: Debian's kernel and a busybox
initramfs that takes its address by DHCP, reads the config drive and
serves both on port 80. Glance gets the kernel and the initramfs as its
aki and ari images and a small raw disk that names them, as EC2-style
images are. The host reaches the server through the compute node: a
Neutron port on the server's network bound there as an OVS internal port
(what Neutron's metadata agent does for its own port), so that the request
crosses br-int and OVN's logical switch as a second server's would.
"""

import contextlib
import json
import os
import time

from tests.e2e import controlplane_clients as clients
from tests.functional import cloud
from tools.lc.builds import guest

# Containers of the compute node's pod (templates/nova.yaml).
SWITCH = 'ovs-vswitchd'
LIBVIRT = 'libvirtd'
NOVA_COMPUTE = 'nova-compute'
PROBE = 'probe0'
OVN_NORTHBOUND_PORT = 6641
OVN_SOUTHBOUND_PORT = 6642


def listed(env, *args):
    return json.loads(clients.openstack(env, *args, '-f', 'json'))


def upload_guest(env, workdir, suffix):
    """The guest's three Glance images: the bootable one's id."""
    built = guest.ensure(log=lambda *_: None)
    disk = os.path.join(workdir, 'guest-disk.raw')
    with open(disk, 'wb') as f:
        f.truncate(1024 * 1024)
    return upload_kernel_boot(
        env, 'guest-' + suffix, os.path.join(built, guest.KERNEL),
        os.path.join(built, guest.RAMDISK), disk, 'raw', guest.COMMAND_LINE)


def upload_kernel_boot(env, name, kernel, ramdisk, disk, disk_format,
                       command_line, *args):
    """An image Nova boots by its kernel: the kernel and ramdisk as aki and
    ari images, the disk naming them; (its id, the three ids)."""
    ids = {}
    for kind, path in (('aki', kernel), ('ari', ramdisk)):
        ids[kind] = listed(
            env, 'image', 'create', '--disk-format', kind,
            '--container-format', kind, '--file', path,
            '%s-%s' % (name, kind))['id']
    image = listed(
        env, 'image', 'create', '--disk-format', disk_format,
        '--container-format', 'bare', '--file', disk,
        '--property', 'kernel_id=' + ids['aki'],
        '--property', 'ramdisk_id=' + ids['ari'],
        '--property', 'os_command_line=' + command_line, *args, name)
    return image['id'], [image['id'], ids['aki'], ids['ari']]


class ComputePod(object):
    """kubectl exec in the compute node's pod."""

    def __init__(self, localcloud, namespace, name):
        self.localcloud = localcloud
        self.namespace = namespace
        self.name = name

    def run(self, container, *argv, check=True):
        return cloud.run(['kubectl', '-n', self.namespace, 'exec',
                          self.name, '-c', container, '--'] + list(argv),
                         env=self.localcloud.env, check=check, timeout=120)

    def domains(self):
        return self.run(LIBVIRT, 'virsh', '-c', 'qemu:///system', 'list',
                        '--all', '--name').stdout.split()

    def probe(self, port):
        """Bind Neutron's `port` here as PROBE, with its MAC and address."""
        ip = port['fixed_ips'][0]['ip_address']
        self.run(SWITCH, 'ovs-vsctl', '--may-exist', 'add-port', 'br-int',
                 PROBE, '--', 'set', 'Interface', PROBE, 'type=internal',
                 'external_ids:iface-id=' + port['id'],
                 'external_ids:attached-mac=' + port['mac_address'],
                 'external_ids:iface-status=active')
        script = ('ip link set %(dev)s address %(mac)s && '
                  'ip addr replace %(ip)s/24 dev %(dev)s && '
                  'ip link set %(dev)s up' % {
                      'dev': PROBE, 'mac': port['mac_address'], 'ip': ip})
        self.run(SWITCH, 'sh', '-c', script)

    def unprobe(self):
        self.run(SWITCH, 'ovs-vsctl', '--if-exists', 'del-port', 'br-int',
                 PROBE, check=False)

    @contextlib.contextmanager
    def cut_off(self, port):
        """Within the block the pod's connections to TCP `port` are
        refused, its open ones reset: a firewall between the node and
        that service."""
        rule = ('OUTPUT', '-p', 'tcp', '--dport', str(port), '-j', 'REJECT',
                '--reject-with', 'tcp-reset')
        self.run(SWITCH, 'iptables', '-I', *rule)
        try:
            yield
        finally:
            self.run(SWITCH, 'iptables', '-D', *rule)

    @contextlib.contextmanager
    def cut_off_from_ovn(self, env):
        """Its ovn-controller cut off from OVN's southbound database until
        Neutron, asked as `env`, lists the node's agent dead: yields the
        seconds that took. Connected again after, until the agent is
        alive."""
        with self.cut_off(OVN_SOUTHBOUND_PORT):
            yield agent_alive_after(env, self.name, False)
        agent_alive_after(env, self.name, True)

    def token(self, auth_url, username, password, timeout=300):
        """A project-scoped token of `username` from the Keystone at
        `auth_url` (…/v3), asked from the pod: (its user's name, its
        project's name). A server's Keystone under QEMU's emulation took
        more than 10 s to answer its first request: up to `timeout`."""
        code = (
            'import json, sys, urllib.request\n'
            'user = {"name": sys.argv[2], "domain": {"id": "default"}, '
            '"password": sys.stdin.read()}\n'
            'body = {"auth": {"identity": {"methods": ["password"], '
            '"password": {"user": user}}, "scope": {"project": {'
            '"name": sys.argv[2], "domain": {"id": "default"}}}}}\n'
            'req = urllib.request.Request(sys.argv[1] + "/auth/tokens", '
            'json.dumps(body).encode(), '
            '{"Content-Type": "application/json"})\n'
            'with urllib.request.urlopen(req, timeout=float(sys.argv[3])'
            ') as resp:\n'
            '    assert resp.headers["X-Subject-Token"]\n'
            '    token = json.load(resp)["token"]\n'
            'print(token["user"]["name"], token["project"]["name"])\n')
        # The password on standard input, not in an argument list.
        out = cloud.run(['kubectl', '-n', self.namespace, 'exec', '-i',
                         self.name, '-c', NOVA_COMPUTE, '--', 'python3',
                         '-c', code, auth_url, username, str(timeout)],
                        env=self.localcloud.env, input=password,
                        timeout=timeout + 60)
        return tuple(out.stdout.split())

    def get(self, url, timeout=240):
        """What `url` answers from the pod, waiting for it to answer."""
        code = ('import sys, urllib.request; '
                'print(urllib.request.urlopen(sys.argv[1], timeout=5)'
                '.read().decode())')
        deadline = time.monotonic() + timeout
        while True:
            out = self.run(NOVA_COMPUTE, 'python3', '-c', code, url,
                           check=False)
            if out.returncode == 0 or time.monotonic() > deadline:
                assert out.returncode == 0, (url, out.stderr)
                return out.stdout
            time.sleep(3)


class Booted(object):
    """A server of the guest on a network of its own, booted by `env`
    (a member, or the admin) with a flavor `admin` makes: ACTIVE, then
    answering with its address and metadata; its things go in
    clean_up(). With `external` (a provider network's id) its network
    has a router to it; `user_data` is a file given to the server."""

    def __init__(self, env, admin, workdir, suffix, external=None,
                 user_data=None):
        self.env, self.admin, self.suffix = env, admin, suffix
        self.flavor = 'tiny-' + suffix
        self.server = self.net = self.port = self.router = None
        self.subnet = None
        self.image, self.uploaded = upload_guest(env, workdir, suffix)
        clients.openstack(admin, 'flavor', 'create', '--vcpus', '1',
                          '--ram', '256', '--disk', '1', self.flavor)
        self.net = listed(env, 'network', 'create', 'srv-' + suffix)
        self.subnet = listed(env, 'subnet', 'create', '--network',
                             self.net['id'], '--subnet-range',
                             '10.98.0.0/24', 'srv-' + suffix)
        if external:
            self.router = listed(env, 'router', 'create', '--external-gateway',
                                 external, 'srv-' + suffix)
            clients.openstack(env, 'router', 'add', 'subnet',
                              self.router['id'], self.subnet['id'])
        started = time.monotonic()
        server = listed(env, 'server', 'create', '--flavor', self.flavor,
                        '--image', self.image, '--network', self.net['id'],
                        *(['--user-data', user_data] if user_data else []),
                        'srv-' + suffix)
        self.server = server
        while (server['status'] == 'BUILD'
               and time.monotonic() - started < 600):
            time.sleep(5)
            server = listed(env, 'server', 'show', server['id'])
        self.server, self.started = server, started
        self.active = time.monotonic() - started
        self.answered = None

    @contextlib.contextmanager
    def reached(self, pod):
        """A port of its network bound on the compute node (ComputePod
        .probe): yields get(path), what the server serves at path, waiting
        for it to be served."""
        # Nova's own words when it is not ACTIVE: the fault.
        assert self.server['status'] == 'ACTIVE', self.server.get(
            'fault', self.server)
        [self.port] = listed(self.env, 'port', 'list', '--server',
                             self.server['id'])
        address = self.port['Fixed IP Addresses'][0]['ip_address']
        probe = listed(self.env, 'port', 'create', '--network',
                       self.net['id'], 'probe-' + self.suffix)
        try:
            pod.probe(probe)
            yield lambda path: self._served(pod, address, path)
        finally:
            pod.unprobe()
            clients.openstack(self.env, 'port', 'delete', probe['id'])

    def _served(self, pod, address, path):
        try:
            return pod.get('http://%s/%s' % (address, path))
        except AssertionError as e:
            # Why it did not answer: its port's state (up in OVN?) and the
            # guest's serial console (its DHCP, its server), as Nova has
            # them.
            state = listed(self.env, 'port', 'show', self.port['ID'])
            raise AssertionError('%s\nits port: %s\nits console:\n%s' % (
                e, state['status'], self.console('--lines', '40'))) from e

    def console(self, *args):
        """Its console log, as its user reads it."""
        return clients.openstack(self.env, 'console', 'log', 'show', *args,
                                 self.server['id'])

    def answers(self, get):
        """It serves its DHCP address and its config drive's metadata."""
        address = self.port['Fixed IP Addresses'][0]['ip_address']
        answered = get('address')
        assert answered.strip() == address + '/24', answered
        metadata = json.loads(get('meta_data.json'))
        assert metadata['uuid'] == self.server['id'], metadata
        assert metadata['name'] == 'srv-' + self.suffix, metadata
        self.answered = time.monotonic() - self.started
        # What its init said (tools/images/guest/init), in its console log.
        console = self.console()
        assert 'heat-k8s-guest: serving on port 80' in console, console

    def delete_server(self, pod):
        """`server delete`: no domain, no port of Nova's, no instance
        files left on the compute node."""
        clients.openstack(self.env, 'server', 'delete', '--wait',
                          self.server['id'])
        self.server = None
        assert pod.domains() == []
        assert listed(self.env, 'port', 'list', '--network', self.net['id'],
                      '--device-owner', 'compute:nova') == []
        assert pod.run(NOVA_COMPUTE, 'ls', '/var/lib/nova/instances'
                       ).stdout.split() in ([], ['_base'],
                                            ['_base', 'locks'], ['locks'])

    def clean_up(self):
        if self.server is not None:
            clients.openstack(self.env, 'server', 'delete', '--wait',
                              self.server['id'])
        if self.router is not None:
            clients.openstack(self.env, 'router', 'remove', 'subnet',
                              self.router['id'], self.subnet['id'])
            clients.openstack(self.env, 'router', 'delete',
                              self.router['id'])
        if self.net is not None:
            clients.openstack(self.env, 'network', 'delete', self.net['id'])
        clients.openstack(self.admin, 'flavor', 'delete', self.flavor)
        for image_id in self.uploaded:
            clients.openstack(self.env, 'image', 'delete', image_id)


def agent_alive_after(env, host, alive, timeout=300):
    """Seconds until Neutron lists `host`'s one agent as `alive` (True or
    False)."""
    started = time.monotonic()
    while True:
        agents = listed(env, 'network', 'agent', 'list', '--host', host)
        if [a['Alive'] for a in agents] == [alive]:
            return time.monotonic() - started
        assert time.monotonic() - started < timeout, agents
        time.sleep(5)


def services_up(env, host, agent='OVN Controller agent'):
    """Nova's services report up, the compute host among them; it is
    cell1's hypervisor (nova-scheduler discovers hosts each minute) and
    Neutron lists its ovn-controller as an agent, alive (`agent`: a
    gateway chassis's is OVN's Controller Gateway agent)."""
    expected = {('nova-conductor', 'up'), ('nova-scheduler', 'up'),
                ('nova-compute', 'up')}
    deadline = time.monotonic() + 180
    while True:
        services = listed(env, 'compute', 'service', 'list')
        hypervisors = listed(env, 'hypervisor', 'list')
        agents = listed(env, 'network', 'agent', 'list', '--host',
                                host)
        states = {(s['Binary'], s['State']) for s in services}
        # libvirt's host name is the pod's FQDN (the StatefulSet's
        # service domain).
        names = [h['Hypervisor Hostname'].split('.')[0] for h in hypervisors]
        found = (states == expected and names == [host] and
                 [(a['Agent Type'], a['Alive']) for a in agents] == [
                     (agent, True)])
        if found or time.monotonic() > deadline:
            break
        time.sleep(5)
    assert states == expected, services
    assert {s['Host'] for s in services
            if s['Binary'] == 'nova-compute'} == {host}, services
    assert names == [host], hypervisors
    assert [h['State'] for h in hypervisors] == ['up'], hypervisors
    # The pod's address, not a guess.
    assert not hypervisors[0]['Host IP'].startswith('127.'), hypervisors
    assert [(a['Agent Type'], a['Alive']) for a in agents] == [
        (agent, True)], agents


def a_network_is_ovns(localcloud, env, prefix, suffix):
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
    switches = logical_switches(localcloud, prefix)
    assert switch in switches.split(), switches
    ports = ovn(localcloud, prefix, 'ovn-nb', 'ovn-nbctl',
                OVN_NORTHBOUND_PORT, 'lsp-list', switch)
    assert port['id'] in ports, ports
    # ovn-northd made the switch a datapath of the southbound database.
    deadline = time.monotonic() + 60
    while switch not in datapaths(localcloud, prefix):
        assert time.monotonic() < deadline, 'no datapath for ' + switch
        time.sleep(2)
    clients.openstack(env, 'port', 'delete', port['id'])
    clients.openstack(env, 'network', 'delete', net['id'])
    switches = logical_switches(localcloud, prefix)
    assert switch not in switches.split(), switches


def logical_switches(localcloud, prefix):
    return ovn(localcloud, prefix, 'ovn-nb', 'ovn-nbctl', OVN_NORTHBOUND_PORT,
               '--bare', '--columns=name', 'list', 'Logical_Switch')


def datapaths(localcloud, prefix):
    return ovn(localcloud, prefix, 'ovn-sb', 'ovn-sbctl',
               OVN_SOUTHBOUND_PORT, '--bare', '--columns=external_ids', 'list',
               'Datapath_Binding')


def ovn(localcloud, prefix, service, ctl, port, *args):
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
