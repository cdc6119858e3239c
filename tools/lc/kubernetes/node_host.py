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

"""What the real node changes on this host, and how it puts it back.

The pods' bridge and its blackhole routes, the node's iptables chains (no
forwarding off the bridge; the API server at the `kubernetes` Service
address), the kernel settings it changes (saved at `up`, restored at
`down`), and the clean-up of what containerd, the kubelet and kube-proxy
leave behind: shims, mounts, network namespaces, KUBE-* chains. Also what
the host must have for a node at all. /run/netns is made a mount of its
own before the first pod and stays one (as `ip netns` leaves it), so that
no other program on the host can cover the pods' namespaces later.
"""

import ipaddress
import json
import os
import shlex
import shutil
import subprocess

from tools.lc import procs
from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import machine
from tools.lc.kubernetes import netpol

# node-0's pods; node N's are machine.pod_cidr(N). The host is node-0's
# gateway, which pods of every node reach (host_url).
POD_CIDR = machine.pod_cidr(0)
GATEWAY = machine.gateway(0)
BRIDGE = 'hk8s0'
CHAIN = 'HEATK8S-NODE'
CNI_BIN_DIR = '/usr/lib/cni'
# Where containerd's CNI setup keeps the pods' network namespaces.
NETNS_DIR = '/run/netns'
# Kernel settings the node (or the kubelet, or kube-proxy) changes; their
# previous values are saved at `up` and restored at `down`.
SYSCTLS = {
    'net/ipv4/ip_forward': '1',
    'net/bridge/bridge-nf-call-iptables': '1',
    'net/ipv4/conf/all/route_localnet': None,  # kube-proxy: loopback ports
    'vm/overcommit_memory': None,              # the kubelet's defaults
    'kernel/panic': None,
    'kernel/panic_on_oops': None,
}
# What the host must have; a name -> (check, what to install).
REQUIREMENTS = (
    ('root', 'to run as root'),
    ('overlay', 'the overlay filesystem (modprobe overlay)'),
    ('br_netfilter', 'bridge netfilter (modprobe br_netfilter)'),
    ('cgroups', 'cgroup controllers cpu, cpuacct, cpuset, memory and pids'),
    ('iptables', 'the iptables command (Debian package iptables)'),
    ('ip', 'the ip command (Debian package iproute2)'),
    ('containerd', 'containerd, ctr and containerd-shim-runc-v2 (Debian '
     'package containerd)'),
    ('runc', '/usr/sbin/runc (Debian package runc)'),
    ('cni', 'the CNI plugins bridge, host-local, loopback and portmap in '
     '/usr/lib/cni (Debian package containernetworking-plugins)'),
)
_CGROUP_CONTROLLERS = ('cpu', 'cpuacct', 'cpuset', 'memory', 'pids')


def host_facts():
    """What this host has, as booleans keyed like REQUIREMENTS."""
    with open('/proc/filesystems') as f:
        filesystems = f.read().split()
    controllers = set()
    with open('/proc/mounts') as f:
        for line in f:
            fields = line.split()
            if fields[2] == 'cgroup':
                controllers.update(fields[3].split(','))
            elif fields[2] == 'cgroup2' and fields[1] == '/sys/fs/cgroup':
                try:
                    with open('/sys/fs/cgroup/cgroup.controllers') as c:
                        controllers.update(c.read().split())
                    controllers.add('cpuacct')  # part of cpu on v2
                except OSError:
                    pass
    return {
        'root': os.geteuid() == 0,
        'overlay': 'overlay' in filesystems,
        'br_netfilter': os.path.exists(
            '/proc/sys/net/bridge/bridge-nf-call-iptables'),
        'cgroups': controllers.issuperset(_CGROUP_CONTROLLERS),
        'iptables': bool(shutil.which('iptables', path=_SBIN_PATH)),
        'ip': bool(shutil.which('ip', path=_SBIN_PATH)),
        'containerd': all(shutil.which(b, path=_SBIN_PATH) for b in (
            'containerd', 'ctr', 'containerd-shim-runc-v2')),
        'runc': os.access('/usr/sbin/runc', os.X_OK),
        'cni': all(os.access(os.path.join(CNI_BIN_DIR, p), os.X_OK)
                   for p in ('bridge', 'host-local', 'loopback', 'portmap')),
    }


_SBIN_PATH = os.pathsep.join([os.environ.get('PATH', ''), '/usr/sbin',
                              '/sbin', '/usr/bin'])


def missing(facts):
    """The requirements `facts` lacks, as phrases for one error line."""
    return [what for key, what in REQUIREMENTS if not facts.get(key)]


def cni_config(ipam_dir, pod_cidr=POD_CIDR, gateway=GATEWAY):
    """The pods' network: a bridge with the gateway on the node, routes
    to every node's pods and the Service range only (no default route:
    nothing a pod sends can leave the machine), masquerading off."""
    return {
        'cniVersion': '1.0.0',
        'name': 'heat-k8s',
        'plugins': [
            {'type': 'bridge', 'bridge': BRIDGE, 'isGateway': True,
             'isDefaultGateway': False, 'ipMasq': False,
             'hairpinMode': True,
             'ipam': {'type': 'host-local',
                      'ranges': [[{'subnet': pod_cidr,
                                   'gateway': gateway}]],
                      'routes': [{'dst': machine.PODS_SUPERNET},
                                 {'dst': controlplane.SERVICE_CIDR}],
                      'dataDir': ipam_dir}},
            {'type': 'portmap', 'capabilities': {'portMappings': True}},
        ],
    }


def guard_rules(apiserver_port, host_ports=()):
    """iptables rules (table, chain hook, rule args) of the host's own
    chains (node-0): nothing is forwarded from the bridge or the machines'
    network (machine.LINK_BRIDGE) but to another node's pods; pods reach
    the API server (bound to 127.0.0.1) at the `kubernetes` Service
    address, as kube-proxy serves loopback NodePorts, and the other
    nodes' API forwarders reach it at the host's address on their
    network; each of host_ports (a public API of the cloud bound to
    127.0.0.1, as an operator's clusters reach its Keystone) answers at
    the same port of the bridge's address, to pods of every node and to
    this host (one URL for pods, the servers behind them and the host:
    Heat hands it to servers); and new connections of node-0's pods go
    to the NetworkPolicy controller's queue (tools.lc.kubernetes.netpol)."""
    links = machine.LINK_BRIDGE
    return [
        ('filter', 'FORWARD', ['-i', BRIDGE, '-o', links, '-d',
                               machine.PODS_SUPERNET, '-j', 'ACCEPT']),
        ('filter', 'FORWARD', ['-i', BRIDGE, '!', '-o', BRIDGE, '-j',
                               'DROP']),
        ('filter', 'FORWARD', ['-i', links, '-d', machine.PODS_SUPERNET,
                               '-j', 'ACCEPT']),
        ('filter', 'FORWARD', ['-i', links, '-j', 'DROP']),
        ('nat', 'PREROUTING', ['-i', BRIDGE, '-d', _api_service_ip(),
                               '-p', 'tcp', '--dport', '443', '-j', 'DNAT',
                               '--to-destination',
                               '127.0.0.1:%d' % apiserver_port]),
        ('nat', 'PREROUTING', ['-i', links, '-d', machine.HOST_ADDRESS,
                               '-p', 'tcp', '--dport', str(apiserver_port),
                               '-j', 'DNAT', '--to-destination',
                               '127.0.0.1:%d' % apiserver_port]),
    ] + [(table, hook, match + ['-d', GATEWAY, '-p', 'tcp', '--dport',
                                 str(port), '-j', 'DNAT', '--to-destination',
                                 '127.0.0.1:%d' % port])
         for port in host_ports
         for table, hook, match in (('nat', 'PREROUTING', ['-i', BRIDGE]),
                                    ('nat', 'PREROUTING', ['-i', links]),
                                    ('nat', 'OUTPUT', []))
         ] + netpol.queue_rules(POD_CIDR)


def machine_rules(index, apiserver_port):
    """The rules of node `index`'s own namespace (machine.py): its pods
    forward only to other nodes' pods; they reach the API server at the
    `kubernetes` Service address through the node's forwarder on its
    loopback (as kube-proxy's endpoint for that Service is 127.0.0.1);
    the host's connections (the API server's, NodePorts' from the host's
    loopback) pass as node-0's root processes do, from the node's
    gateway; its pods' new
    connections go to its own NetworkPolicy controller's queue."""
    return [
        ('filter', 'FORWARD', ['-i', BRIDGE, '-o', 'eth0', '-d',
                               machine.PODS_SUPERNET, '-j', 'ACCEPT']),

        ('filter', 'FORWARD', ['-i', BRIDGE, '!', '-o', BRIDGE, '-j',
                               'DROP']),
        ('nat', 'PREROUTING', ['-i', BRIDGE, '-d', _api_service_ip(),
                               '-p', 'tcp', '--dport', '443', '-j', 'DNAT',
                               '--to-destination',
                               '127.0.0.1:%d' % apiserver_port]),
        ('mangle', 'POSTROUTING', ['-s', machine.HOST_ADDRESS, '-j',
                                   'RETURN']),
        # The host's connections reach pods from the node's gateway, as
        # node-0's come from the host's: pods have no route to the
        # machines' network.
        ('nat', 'POSTROUTING', ['-s', machine.HOST_ADDRESS, '-o', BRIDGE,
                                '-j', 'SNAT', '--to-source',
                                machine.gateway(index)]),
    ] + netpol.queue_rules(machine.pod_cidr(index))


def host_url(port):
    """The URL pods reach host_ports' `port` at (guard_rules)."""
    return 'http://%s:%d' % (GATEWAY, port)


def _api_service_ip():
    net = ipaddress.ip_network(controlplane.SERVICE_CIDR)
    return str(net.network_address + 1)


def save_sysctls(saved_file):
    """Note the values of SYSCTLS in `saved_file`, unless a running `up`
    did."""
    if os.path.exists(saved_file):  # saved by the `up` still running
        return
    saved = {}
    for key in SYSCTLS:
        try:
            with open('/proc/sys/' + key) as f:
                saved[key] = f.read().strip()
        except OSError:
            pass
    with open(saved_file, 'w') as f:
        json.dump(saved, f)

def restore_sysctls(saved_file):
    """Put back the values `save_sysctls` noted."""
    try:
        with open(saved_file) as f:
            saved = json.load(f)
    except (OSError, ValueError):
        return
    for key, value in saved.items():
        _write_sysctl(key, value)
    os.unlink(saved_file)

_BLACKHOLES = (controlplane.SERVICE_CIDR, controlplane.POD_CIDR,
               machine.PODS_SUPERNET)


def network_up(apiserver_port, host_ports=()):
    """The pods' bridge, the blackhole routes, the sysctls and the node's
    own iptables chains (guard_rules)."""
    _ip('link', 'add', BRIDGE, 'type', 'bridge', ok_if='File exists')
    _ip('addr', 'add', GATEWAY + '/' + POD_CIDR.split('/')[1], 'dev',
        BRIDGE, ok_if='already assigned')
    _ip('link', 'set', BRIDGE, 'up')
    # Service, fake-pod and other nodes' pod addresses never take the
    # default route out (a node powered off or removed included).
    for cidr in _BLACKHOLES:
        _ip('route', 'replace', 'blackhole', cidr)
    for key, value in SYSCTLS.items():
        if value is not None:
            _write_sysctl(key, value)
    _write_sysctl('net/ipv4/conf/%s/route_localnet' % BRIDGE, '1')
    machine.links_up()
    _iptables_down()
    install_rules(guard_rules(apiserver_port, host_ports))


def install_rules(rules, prefix=()):
    """Append `rules` to the node's chains (made, and jumped to from their
    hooks, at their first rule); prefix runs iptables in a node's
    namespace."""
    for table, hook, rule in rules:
        chain = '%s-%s' % (CHAIN, hook)
        if _iptables(table, '-N', chain, check=False,
                     prefix=prefix):  # its first rule
            _iptables(table, '-I', hook, '-j', chain, prefix=prefix)
        _iptables(table, '-A', chain, *rule, prefix=prefix)


def machine_network_up(index, apiserver_port):
    """Node `index`'s namespace, link, kernel settings and rules."""
    machine.plug(index)
    prefix = machine.exec_prefix(index)
    for key in ('net.ipv4.ip_forward', 'net.ipv4.conf.all.route_localnet',
                'net.bridge.bridge-nf-call-iptables'):
        _run(prefix + ['sysctl', '-qw', key + '=1'], check=False)
    install_rules(machine_rules(index, apiserver_port), prefix)


def _iptables_down():
    for table, hook, _ in guard_rules(0, [0]):  # every chain, ports or not
        chain = '%s-%s' % (CHAIN, hook)
        while _iptables(table, '-D', hook, '-j', chain, check=False):
            pass
        _iptables(table, '-F', chain, check=False)
        _iptables(table, '-X', chain, check=False)

def network_down():
    _iptables_down()
    for cidr in _BLACKHOLES:
        _ip('route', 'del', 'blackhole', cidr, check=False)
    _ip('link', 'del', BRIDGE, check=False)
    machine.links_down()


def _write_sysctl(key, value):
    try:
        with open('/proc/sys/' + key, 'w') as f:
            f.write(value)
    except OSError:
        pass


def _run(argv, check=True, ok_if=None):
    return procs.command(argv, check=check, ok_if=ok_if).returncode == 0


def _ip(*args, check=True, ok_if=None):
    return _run(['ip'] + list(args), check=check, ok_if=ok_if)


def _iptables(table, *args, check=True, prefix=()):
    return _run(list(prefix) + ['iptables', '-w', '-t', table] + list(args),
                check=check, ok_if='already exists')


def remove_kube_chains():
    """The KUBE-* chains the kubelet and kube-proxy made (and the jumps to
    them), in every table, for IPv4 and IPv6."""
    for command in ('iptables', 'ip6tables'):
        for table in ('filter', 'nat', 'mangle'):
            result = subprocess.run([command, '-w', '-t', table, '-S'],
                                    capture_output=True, text=True)
            if result.returncode:
                continue
            chains = []
            for line in result.stdout.splitlines():
                words = shlex.split(line)
                if words[:1] == ['-N'] and words[1].startswith('KUBE-'):
                    chains.append(words[1])
                elif (words[:1] == ['-A'] and not words[1].startswith(
                        'KUBE-') and any(w.startswith('KUBE-')
                                         for w in words)):
                    _run([command, '-w', '-t', table, '-D'] + words[1:],
                         check=False)
            for flag in ('-F', '-X'):
                for chain in chains:
                    _run([command, '-w', '-t', table, flag, chain],
                         check=False)


def kill_shims(socket):
    """Shims of containers whose containerd is gone (a crash)."""
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            with open('/proc/%s/cmdline' % pid, 'rb') as f:
                argv = f.read().split(b'\0')
        except OSError:
            continue
        if argv and argv[0].endswith(b'containerd-shim-runc-v2') and \
                socket.encode() in b' '.join(argv):
            try:
                os.kill(int(pid), 9)
            except OSError:
                pass


def mount_points():
    """The mount points of this mount namespace, bind mounts included
    (os.path.ismount misses one within a filesystem)."""
    with open('/proc/mounts') as f:
        return [line.split()[1].encode().decode('unicode_escape')
                for line in f]


def unmount_under(top):
    """Unmount every mount below `top`, deepest first."""
    top = os.path.realpath(top)
    for point in sorted((p for p in mount_points()
                         if p == top or p.startswith(top + '/')),
                        key=len, reverse=True):
        subprocess.run(['umount', '-l', point], capture_output=True)


def delete_pod_netns():
    for name in os.listdir(NETNS_DIR) if os.path.isdir(NETNS_DIR) else ():
        if name.startswith('cni-'):
            subprocess.run(['umount', '-l', os.path.join(NETNS_DIR, name)],
                           capture_output=True)
            try:
                os.unlink(os.path.join(NETNS_DIR, name))
            except OSError:
                pass


def share_netns_dir():
    """Make the pods' namespace directory a shared mount of its own, as
    `ip netns add` (and podman) do at their first use when it is none:
    done later, their bind mount would cover the pods' namespaces, which
    containerd could then not remove (unlinkat: device or resource busy),
    and their deletes would hang. Once it is a mount, they leave it."""
    os.makedirs(NETNS_DIR, exist_ok=True)
    if NETNS_DIR not in mount_points():
        subprocess.run(['mount', '--rbind', NETNS_DIR, NETNS_DIR],
                       check=True, capture_output=True)
    subprocess.run(['mount', '--make-shared', NETNS_DIR], check=True,
                   capture_output=True)
