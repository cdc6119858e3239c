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


def listed(env, *args):
    return json.loads(clients.openstack(env, *args, '-f', 'json'))


def upload_guest(env, workdir, suffix):
    """The guest's three Glance images: the bootable one's id."""
    built = guest.ensure(log=lambda *_: None)
    ids = {}
    for kind, name in (('aki', guest.KERNEL), ('ari', guest.RAMDISK)):
        ids[kind] = listed(
            env, 'image', 'create', '--disk-format', kind,
            '--container-format', kind, '--file', os.path.join(built, name),
            'guest-%s-%s' % (kind, suffix))['id']
    disk = os.path.join(workdir, 'guest-disk.raw')
    with open(disk, 'wb') as f:
        f.truncate(1024 * 1024)
    image = listed(
        env, 'image', 'create', '--disk-format', 'raw',
        '--container-format', 'bare', '--file', disk,
        '--property', 'kernel_id=' + ids['aki'],
        '--property', 'ramdisk_id=' + ids['ari'],
        '--property', 'os_command_line=' + guest.COMMAND_LINE,
        'guest-' + suffix)
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
