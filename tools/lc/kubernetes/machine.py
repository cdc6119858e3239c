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

"""A further real node as a machine of its own on this host.

node-0 runs in the host's network namespace (users reach its NodePorts on
loopback). node-1 and later each get what a machine has: a network
namespace (its own interfaces, routes, iptables and conntrack: its
kube-proxy's and NetworkPolicy controller's rules are its own), one link to
a host bridge (the machines' network, LINK_CIDR), a pod range of its own
routed through the host, and a cgroup that holds its containerd, kubelet,
kube-proxy and every container they start. Pulling that cgroup's power
(`power_cut`: freeze, SIGKILL every task, thaw) stops all of them at the
same instant, as a power cut would; the namespace goes too, so the
machine's addresses stop answering.

Why namespaces and not a container per node (kind's way): a node in a
container needs a node image holding containerd, runc and the kubelet, and
containerd nested in a container needs a volume for its snapshots;
here every node runs the binaries the host already has, the images import
into a containerd root of its own, and the kubelet and containerd share
the host's mount namespace, so a pod's volumes are mounted where its
containers look for them (the reason kind runs both in one container).
"""

import ipaddress
import os
import signal
import time

from tools.lc import procs

# The machines' network: the host's end of every link, then one address
# per node (node N at .10+N).
LINK_BRIDGE = 'hk8s-links'
LINK_CIDR = '10.86.0.0/24'
HOST_ADDRESS = '10.86.0.1'
# Every node's pods: node N has 10.85.N.0/24.
PODS_SUPERNET = '10.85.0.0/16'
CGROUP_MOUNTS = '/sys/fs/cgroup'
FREEZER = os.path.join(CGROUP_MOUNTS, 'freezer')


def netns(index):
    return 'hk8s-node-%d' % index


def address(index):
    """The node's address on the machines' network."""
    return str(ipaddress.ip_address(HOST_ADDRESS) + 9 + index)


def pod_cidr(index):
    return '10.85.%d.0/24' % index


def gateway(index):
    return '10.85.%d.1' % index


def cgroup(index):
    """The node's cgroup, the same path in every hierarchy (its kubelet's
    cgroupRoot: the pods' cgroups go below it)."""
    return '/hk8s-node-%d' % index


def host_routes(indexes):
    """(destination, via) of the host's route to each node's pods."""
    return [(pod_cidr(i), address(i)) for i in indexes if i > 0]


def node_routes():
    """(destination, via) of a node's routes: the other nodes' pods, the
    Service range (kube-proxy rewrites before the packet leaves) and
    nothing else: no default route, nothing leaves the machine."""
    return [(PODS_SUPERNET, HOST_ADDRESS)]


def hierarchies(mounts_file='/proc/mounts'):
    """The cgroup mount points of this host (v1 controllers and the
    unified hierarchy)."""
    points = []
    with open(mounts_file) as f:
        for line in f:
            fields = line.split()
            if fields[2] in ('cgroup', 'cgroup2') and \
                    fields[1].startswith(CGROUP_MOUNTS + '/'):
                points.append(fields[1])
    return points


# -- the machine's network ------------------------------------------------

def links_up():
    """The host's bridge of the machines' network (once, for every node)."""
    _ip('link', 'add', LINK_BRIDGE, 'type', 'bridge', ok_if='File exists')
    _ip('addr', 'add', HOST_ADDRESS + '/' + LINK_CIDR.split('/')[1], 'dev',
        LINK_BRIDGE, ok_if='already assigned')
    _ip('link', 'set', LINK_BRIDGE, 'up')
    # The nodes reach the host's loopback APIs through its DNAT rules.
    _write('/proc/sys/net/ipv4/conf/%s/route_localnet' % LINK_BRIDGE, '1')


def links_down():
    _ip('link', 'del', LINK_BRIDGE, check=False)


def plug(index):
    """The node's namespace and its link: powered on, as far as the
    network goes."""
    ns, veth = netns(index), 'hk8s-n%d' % index
    _ip('netns', 'add', ns, ok_if='File exists')
    _ip('link', 'del', veth, check=False)
    _ip('link', 'add', veth, 'type', 'veth', 'peer', 'name', 'eth0',
        'netns', ns)
    _ip('link', 'set', veth, 'master', LINK_BRIDGE, 'up')
    in_ns = ('ip', '-n', ns)
    _run(list(in_ns) + ['link', 'set', 'lo', 'up'])
    _run(list(in_ns) + ['addr', 'add', address(index) + '/' +
                        LINK_CIDR.split('/')[1], 'dev', 'eth0'])
    _run(list(in_ns) + ['link', 'set', 'eth0', 'up'])
    for dst, via in node_routes():
        _run(list(in_ns) + ['route', 'replace', dst, 'via', via])
    for dst, via in host_routes([index]):
        _ip('route', 'replace', dst, 'via', via, 'dev', LINK_BRIDGE)


def unplug(index, forget=False):
    """The node's namespace and link go; the host keeps its route to the
    node's pods (a machine powered off does not answer, its address is
    still where it was) unless `forget` (the node removed)."""
    for dst, _via in host_routes([index]) if forget else ():
        _ip('route', 'del', dst, check=False)
    _ip('link', 'del', 'hk8s-n%d' % index, check=False)
    _ip('netns', 'del', netns(index), check=False)


def exec_prefix(index):
    """What runs a command inside the node: its network namespace (the
    host's mount namespace: see the module's docstring)."""
    return ['nsenter', '--net=/run/netns/' + netns(index), '--']


def run_in(index, argv, check=True):
    return _run(exec_prefix(index) + list(argv), check=check)


# -- the machine's power --------------------------------------------------

def make_cgroup(index, mounts=None):
    """The node's cgroup in every hierarchy; cpuset's takes its parent's
    CPUs and memory nodes, without which no task may join it."""
    for top in mounts or hierarchies():
        path = top + cgroup(index)
        os.makedirs(path, exist_ok=True)
        for name in ('cpuset.cpus', 'cpuset.mems'):
            if os.path.exists(os.path.join(path, name)):
                with open(os.path.join(top, name)) as f:
                    parent = f.read().strip()
                with open(os.path.join(path, name)) as f:
                    if f.read().strip():
                        continue
                _write(os.path.join(path, name), parent)


def joiner(index, mounts=None):
    """A preexec function that moves the new process into the node's
    cgroup in every hierarchy, before it runs anything."""
    paths = [top + cgroup(index) for top in mounts or hierarchies()]

    def join():
        pid = str(os.getpid())
        for path in paths:
            with open(os.path.join(path, 'cgroup.procs'), 'w') as f:
                f.write(pid)
    return join


def tasks(index):
    """Every process in the node's cgroup and below (freezer's view)."""
    found = set()
    for root, _dirs, files in os.walk(FREEZER + cgroup(index)):
        if 'cgroup.procs' in files:
            with open(os.path.join(root, 'cgroup.procs')) as f:
                found.update(int(p) for p in f.read().split())
    return found


def power_cut(index, timeout=20):
    """Stop every process of the node at once: frozen first (none can fork
    or react), killed, thawed so that the kills land."""
    top = FREEZER + cgroup(index)
    if not os.path.isdir(top):
        return
    _write(os.path.join(top, 'freezer.state'), 'FROZEN')
    deadline = time.monotonic() + timeout
    while _read(os.path.join(top, 'freezer.state')) != 'FROZEN' and \
            time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in tasks(index):
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    _write(os.path.join(top, 'freezer.state'), 'THAWED')
    while tasks(index) and time.monotonic() < deadline:
        time.sleep(0.1)
    if tasks(index):
        raise RuntimeError('node-%d: processes %s outlived the power cut'
                           % (index, sorted(tasks(index))))


def remove_cgroup(index, mounts=None):
    """The node's cgroups, deepest first (they must be empty)."""
    for top in mounts or hierarchies():
        base = top + cgroup(index)
        for root, _dirs, _files in os.walk(base, topdown=False):
            try:
                os.rmdir(root)
            except OSError:
                pass


# -- helpers --------------------------------------------------------------

def _read(path):
    with open(path) as f:
        return f.read().strip()


def _write(path, value):
    with open(path, 'w') as f:
        f.write(value)


def _run(argv, check=True, ok_if=None):
    return procs.command(argv, check=check, ok_if=ok_if)


def _ip(*args, check=True, ok_if=None):
    return _run(['ip'] + list(args), check=check, ok_if=ok_if)
