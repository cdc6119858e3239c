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

"""A real worker node on this machine, beside the kwok nodes.

containerd (Debian's, with runc) runs the pods; a CNI bridge the node
creates gives them addresses that never leave the machine (no default
route in pods, nothing forwarded off the bridge, masquerading off);
kubelet and kube-proxy come from the pinned Kubernetes module. kube-proxy
serves NodePorts on 127.0.0.0/8 only, so users reach Services on loopback.

One cloud's real nodes can run on a machine at a time (node-0 owns a
bridge, iptables chains and sysctls): a lock file names the state
directory that owns them. node-0 runs in the host's network namespace;
node-1 and later (`localcloud node add`) each as a machine of its own
(tools.lc.kubernetes.machine), which `localcloud node power-off` stops at
once and `power-on` boots again. `down` stops the nodes' containers,
unmounts their volumes, removes the bridges and the iptables rules, and
puts back the sysctls it changed.
"""

import calendar
import json
import os
import shutil
import subprocess
import time

from tools.lc import fetch
from tools.lc import paths
from tools.lc import procs
from tools.lc.builds import debs
from tools.lc.builds import go
from tools.lc.builds import images
from tools.lc.builds import recipes
from tools.lc.kubernetes import dns
from tools.lc.kubernetes import machine
from tools.lc.kubernetes import netpol
from tools.lc.kubernetes import node_config as config
from tools.lc.kubernetes import node_host
from tools.lc.kubernetes import pki

# The order components start in; `down` stops them in reverse.
COMPONENTS = ('containerd', netpol.NAME, 'kubelet', 'kube-proxy')
# A further node's forwarder of the API server's port on its own loopback
# (kube-proxy's endpoint of the `kubernetes` Service is 127.0.0.1; as
# kubespray's per-node nginx proxy).
API_FORWARD = 'api-forward'
# cloud.json's list of the further nodes' indexes.
FURTHER = 'further_nodes'
LOCK_FILE = '/run/heat-k8s-node.lock'
# cloud.json's names of the cloud's ports (Cluster.port) whose APIs, bound
# to 127.0.0.1, pods reach at the bridge's address (node_host.host_url).
PODS_REACH = 'pods_reach'
# Debian packages the node and the images need: {package: a file it
# installs}; `up` installs those missing (as MariaDB and RabbitMQ).
PACKAGES = {
    'containerd': '/usr/bin/containerd',
    'runc': '/usr/sbin/runc',
    'containernetworking-plugins': '/usr/lib/cni/bridge',
    'iptables': '/usr/sbin/iptables',
    'iproute2': '/bin/ip',
    # tools/localcloud images: Debian root filesystems, image import and
    # save, the pause program.
    'mmdebstrap': '/usr/bin/mmdebstrap',
    'podman': '/usr/bin/podman',
    'gcc': '/usr/bin/gcc',
    # A further node's API forwarder.
    'socat': '/usr/bin/socat',
}


class Node(object):
    """The node's files, processes and host changes in a state directory."""

    def __init__(self, cluster, log=print, index=0, taints=()):
        self.cluster = cluster
        # Taints the Node has from its registration on (`key=value:Effect`).
        self.taints = list(taints)
        self.state_dir = cluster.state_dir
        self.index = index
        self.name = config.name(index)
        self.dir = os.path.join(self.state_dir,
                                'node' if index == 0 else self.name)
        self.log = log

    @property
    def components(self):
        return COMPONENTS + ((API_FORWARD,) if self.index else ())

    def proc(self, component):
        """The pid file's name of one of its components."""
        return component if self.index == 0 else '%s-%s' % (self.name,
                                                           component)

    # -- paths ------------------------------------------------------------

    @property
    def socket(self):
        return os.path.join(self.dir, 'containerd', 'containerd.sock')

    @property
    def containerd_root(self):
        # Machine-wide (one cloud's nodes at a time): imported images
        # survive a new state directory, so a new cloud starts without
        # importing again.
        return os.path.join(paths.cache_dir(),
                            'node' if self.index == 0 else self.name,
                            'containerd')

    def _file(self, *parts):
        return os.path.join(self.dir, *parts)

    # -- host -------------------------------------------------------------

    def check_host(self):
        """Stop, in one line, before anything starts, when the host lacks
        what the node needs or another cloud's node runs here."""
        self._check_lock()
        debs.ensure(PACKAGES, log=self.log)
        lacking = node_host.missing(node_host.host_facts())
        if lacking:
            raise SystemExit(
                'localcloud: the real node needs %s; `up --kwok-only` starts '
                'the cloud without it' % '; '.join(lacking))

    def _lock(self):
        self._check_lock()
        with open(LOCK_FILE, 'w') as f:
            f.write(self.state_dir)

    def _check_lock(self):
        owner = _lock_owner()
        if owner and owner != self.state_dir and os.path.isdir(owner) and \
                any(procs.running(owner, c) for c in COMPONENTS):
            raise SystemExit(
                'localcloud: the real node of the cloud in %s runs on this '
                'machine (one at a time); stop it (`localcloud --state-dir '
                '%s down`) or use `up --kwok-only`' % (owner, owner))

    def _unlock(self):
        if _lock_owner() == self.state_dir:
            os.unlink(LOCK_FILE)

    # -- configuration ----------------------------------------------------

    def prepare(self):
        c = self.cluster
        for d in ('containerd', 'cni/net.d', 'kubelet', 'pod-logs'):
            os.makedirs(self._file(d), exist_ok=True)
        os.makedirs(self.containerd_root, exist_ok=True)
        further = self.index > 0
        cert = 'kubelet' if not further else 'kubelet-' + self.name
        pki.ensure_serving_cert(c.pki, cert, [
            'IP:' + self.address, 'DNS:' + self.name, 'DNS:localhost'])
        _write_if_changed(self._file('containerd', 'config.toml'),
                          config.containerd_config(
                              self.containerd_root,
                              self._file('containerd', 'state'),
                              self.socket, self._file('cni', 'net.d'),
                              recipes.ref('pause'), own_netns_dir=further))
        _write_if_changed(
            self._file('cni', 'net.d', '10-heat-k8s.conflist'),
            config.json_text(node_host.cni_config(
                self._file('cni', 'ipam'), machine.pod_cidr(self.index),
                machine.gateway(self.index))))
        _write_if_changed(self._file('kubelet.json'), config.json_text(
            config.kubelet_config(
                c.port('kubelet'), c.port('kubelet-healthz'), self.socket,
                c.ca_file, os.path.join(c.pki, cert + '.crt'),
                os.path.join(c.pki, cert + '.key'), self._file('pod-logs'),
                address=self.address,
                cgroup_root=machine.cgroup(self.index) if further
                else None)))
        _write_if_changed(self._file('kube-proxy.json'), config.json_text(
            config.kube_proxy_config(c.kubeconfig_of('kube-proxy'),
                                     c.port('kube-proxy-healthz'),
                                     c.port('kube-proxy-metrics'),
                                     node=self.name)))
        if further:
            # Its kubelet's credential: a client certificate of the
            # cloud's CA naming the node (the Node authorizer's subject).
            key, crt = pki.ensure_client_cert(
                c.pki, 'kubelet-client-' + self.name,
                'system:node:' + self.name, ('system:nodes',))
            c.write_kubeconfig(self._file('kubelet.kubeconfig'), self.name,
                               {'client-certificate': crt,
                                'client-key': key})

    @property
    def address(self):
        """Where the API server reaches its kubelet."""
        return '127.0.0.1' if self.index == 0 else machine.address(
            self.index)

    def _kubelet_kubeconfig(self):
        return (self.cluster.kubeconfig_of('kubelet') if self.index == 0
                else self._file('kubelet.kubeconfig'))

    def argv(self, name):
        c = self.cluster
        if name == 'containerd':
            return ['/usr/bin/containerd', '--config',
                    self._file('containerd', 'config.toml')]
        if name == 'kubelet':
            return [c.binary('kubelet'), '--config=' + self._file(
                'kubelet.json'),
                '--kubeconfig=' + self._kubelet_kubeconfig(),
                '--root-dir=' + self._file('kubelet'),
                '--cert-dir=' + self._file('kubelet', 'pki'),
                '--hostname-override=' + self.name,
                # A kubelet refuses a loopback node IP; as with a cloud
                # provider, `register()` sets the node's address instead.
                '--cloud-provider=external',
                '--node-labels=' + ','.join(
                    '%s=%s' % kv for kv in sorted(config.LABELS.items()))]
        if name == 'kube-proxy':
            return [c.binary('kube-proxy'),
                    '--config=' + self._file('kube-proxy.json')]
        if name == netpol.NAME:
            return netpol.argv(c.binary(netpol.NAME),
                               c.kubeconfig_of(netpol.NAME), self.name)
        if name == API_FORWARD:
            port = c.port('kube-apiserver')
            return ['/usr/bin/socat',
                    'TCP-LISTEN:%d,bind=127.0.0.1,reuseaddr,fork' % port,
                    'TCP:%s:%d' % (machine.HOST_ADDRESS, port)]
        raise KeyError(name)

    def _start(self, component, argv):
        """Start a component: node-0's on the host, a further node's in
        its namespace and cgroup."""
        if self.index == 0:
            return procs.start(self.state_dir, component, argv)
        return procs.start(self.state_dir, self.proc(component), argv,
                           prefix=machine.exec_prefix(self.index),
                           preexec_fn=machine.joiner(self.index))

    # -- lifecycle --------------------------------------------------------

    def up(self, timeout=120):
        if all(self.status().values()):
            self.load_images()  # a second `up`: only images rebuilt since
            return
        self.check_host()
        self._lock()
        self.prepare()
        node_host.save_sysctls(self._file('sysctls.json'))
        node_host.network_up(self.cluster.port('kube-apiserver'), [
            self.cluster.port(name)
            for name in self.cluster.info.get(PODS_REACH, ())])
        t0 = time.monotonic()
        fresh = not procs.running(self.state_dir, 'containerd')
        if fresh:
            # A stopped cloud's pods' namespaces go, then the directory is
            # made a mount before any pod's (node_host.share_netns_dir).
            node_host.delete_pod_netns()
            node_host.share_netns_dir()
        self._start_containerd(timeout)
        # A fresh containerd may find pods of a cloud that was not stopped;
        # a running one's pods are this cloud's and stay.
        if fresh:
            self._remove_containers()
        self._start_agents(timeout, t0)
        dns.deploy(self.cluster, log=self.log, timeout=timeout)
        self.log('%-36s %5.1fs' % ('node %s ready' % self.name,
                                   time.monotonic() - t0))

    def boot(self, images=None, timeout=120):
        """Start a further node (`index` > 0) as a machine booting: its
        namespace and link, an empty run state (a reboot empties /run),
        its components in its cgroup; its images (all, or the references
        in `images`) imported into its own containerd."""
        assert self.index > 0
        node_host.share_netns_dir()
        self.prepare()
        t0 = time.monotonic()
        machine.unplug(self.index)
        machine.make_cgroup(self.index)
        node_host.machine_network_up(self.index,
                                     self.cluster.port('kube-apiserver'))
        node_host.unmount_under(self._file('containerd', 'state'))
        shutil.rmtree(self._file('containerd', 'state'), ignore_errors=True)
        shutil.rmtree(self._file('cni', 'ipam'), ignore_errors=True)
        self._start(API_FORWARD, self.argv(API_FORWARD))
        self._start_containerd(timeout)
        self._start_agents(timeout, t0, images)
        self.log('%-36s %5.1fs' % ('node %s ready' % self.name,
                                   time.monotonic() - t0))

    def _start_containerd(self, timeout):
        self._start('containerd', self.argv('containerd'))
        procs.wait_for(lambda: self._ctr('version', check=False),
                       'containerd', timeout, self.proc('containerd'),
                       self.state_dir)

    def _start_agents(self, timeout, t0, images=None):
        """The NetworkPolicy controller, the images, the kubelet and
        kube-proxy, each once the one before it is ready."""
        # Before any pod runs: the node's rules send pods' new connections
        # to its queue, and drop them while nothing reads it.
        projects = netpol.apply(self.cluster, lambda check, what: (
            procs.wait_for(check, what, timeout)))
        self._start(netpol.NAME, self.argv(netpol.NAME)
                    + netpol.isolation_args(projects))
        procs.wait_for(self._queue_bound, 'NetworkPolicy controller',
                       timeout, self.proc(netpol.NAME), self.state_dir)
        self.load_images(images)
        self.log('%-36s %5.1fs' % ('%s images loaded' % self.name,
                                   time.monotonic() - t0))
        self.register()
        booted = time.time()
        self._start('kubelet', self.argv('kubelet'))
        # A further node's Ready may be the one it left at its power cut.
        procs.wait_for(lambda: self._ready() and (
            self.index == 0 or self._renewed_since(booted)),
            'node %s Ready' % self.name, timeout, self.proc('kubelet'),
            self.state_dir)
        self._start('kube-proxy', self.argv('kube-proxy'))
        procs.wait_for(self._proxy_healthy, 'kube-proxy healthz', timeout,
                       self.proc('kube-proxy'), self.state_dir)

    def power_off(self, forget=False):
        """Every process of the node stops at the same instant and its
        addresses stop answering, as when its power is cut; its disk (the
        containerd root, the kubelet's directory) stays. `forget`: the
        host's route to its pods goes too (the node removed)."""
        assert self.index > 0
        machine.power_cut(self.index)
        for component in self.components:
            procs.stop(self.state_dir, self.proc(component))
        node_host.unmount_under(self.dir)
        machine.unplug(self.index, forget=forget)
        machine.remove_cgroup(self.index)

    def register(self):
        """Create the Node with its address (127.0.0.1: the kubelet and
        NodePorts listen on loopback) before the kubelet registers, which
        then keeps the address (it would reject a loopback one)."""
        self.cluster.request(
            'PATCH', '/api/v1/nodes/%s?fieldManager=localcloud&force=true'
            % self.name, {'apiVersion': 'v1', 'kind': 'Node',
                          'metadata': {'name': self.name, 'labels': dict(
                              config.LABELS,
                              **{'kubernetes.io/hostname': self.name})},
                          'spec': {'taints': [
                              config.taint(t) for t in self.taints]}},
            'application/apply-patch+yaml')
        self.cluster.request(
            'PATCH', '/api/v1/nodes/%s/status' % self.name,
            {'status': {'addresses': [
                {'type': 'InternalIP', 'address': self.address},
                {'type': 'Hostname', 'address': self.name}]}},
            'application/merge-patch+json')

    def load_images(self, only=None):
        """Import the images built here into containerd: those it lacks or
        has from another recipe (the archive's name carries its hash);
        with `only`, those references alone."""
        loaded_file = os.path.join(self.containerd_root, 'loaded.json')
        try:
            with open(loaded_file) as f:
                loaded = json.load(f)
        except (OSError, ValueError):
            loaded = {}
        have = set(self._ctr('images', 'ls', '-q').split())
        for ref, archive in image_archives(self.log):
            if only is not None and ref not in only:
                continue
            if ref in have and loaded.get(ref) == archive:
                continue
            self.log('importing %s into %s' % (ref, self.name))
            self._ctr('images', 'import', archive)
            loaded[ref] = archive
            with open(loaded_file, 'w') as f:
                json.dump(loaded, f, indent=2)

    def _ready(self):
        node = self.cluster.request('GET', '/api/v1/nodes/' + self.name)
        return any(cond['type'] == 'Ready' and cond['status'] == 'True'
                   for cond in node.get('status', {}).get('conditions', []))

    def _renewed_since(self, started):
        """Whether this kubelet has renewed the node's Lease (a Ready
        condition may be the one it left before a power cut)."""
        lease = self.cluster.request(
            'GET', '/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/'
            'leases/' + self.name)
        renewed = (lease.get('spec') or {}).get('renewTime')
        return bool(renewed) and calendar.timegm(time.strptime(
            renewed.split('.')[0].rstrip('Z'), '%Y-%m-%dT%H:%M:%S')) >= int(
                started)

    def _proxy_healthy(self):
        url = 'http://127.0.0.1:%d/healthz' % self.cluster.port(
            'kube-proxy-healthz')
        if self.index:  # on the node's own loopback
            return machine.run_in(self.index, [
                'python3', '-c', 'import sys, urllib.request; '
                'urllib.request.urlopen(sys.argv[1], timeout=2)', url],
                check=False).returncode == 0
        with fetch.urlopen(url, timeout=2) as resp:
            return resp.status == 200

    def _queue_bound(self):
        if self.index == 0:
            return netpol.queue_bound()
        out = machine.run_in(self.index, [
            'cat', '/proc/net/netfilter/nfnetlink_queue'], check=False)
        return netpol.queue_bound(lines=out.stdout.splitlines())

    def _ctr(self, *args, check=True):
        result = subprocess.run(
            ['ctr', '--address', self.socket, '--namespace', 'k8s.io'] +
            list(args), capture_output=True, text=True)
        if check and result.returncode:
            raise RuntimeError('ctr %s failed: %s' % (
                ' '.join(args[:2]), result.stderr.strip()))
        return result.stdout if result.returncode == 0 else ''

    def _remove_containers(self):
        for task in self._ctr('tasks', 'ls', '-q', check=False).split():
            self._ctr('tasks', 'kill', '-s', 'SIGKILL', task, check=False)
        deadline = time.monotonic() + 20
        while self._ctr('tasks', 'ls', '-q', check=False).split() and \
                time.monotonic() < deadline:
            time.sleep(0.2)
        for task in self._ctr('tasks', 'ls', '-q', check=False).split():
            self._ctr('tasks', 'delete', '-f', task, check=False)
        for container in self._ctr('containers', 'ls', '-q',
                                   check=False).split():
            self._ctr('containers', 'delete', container, check=False)

    def status(self):
        return {name: procs.running(self.state_dir, self.proc(name))
                for name in self.components}

    def running(self):
        return any(self.status().values())

    def down(self):
        owner = _lock_owner()
        if owner and owner != self.state_dir:
            return  # the node on this machine belongs to another cloud
        if self.index:
            self.power_off(forget=True)
            return
        for name in ('kube-proxy', 'kubelet', netpol.NAME):
            procs.stop(self.state_dir, name)
        if procs.running(self.state_dir, 'containerd'):
            self._remove_containers()
        procs.stop(self.state_dir, 'containerd')
        node_host.kill_shims(self.socket)
        node_host.unmount_under(self.dir)
        node_host.unmount_under(self.containerd_root)
        node_host.delete_pod_netns()
        if os.path.exists(self._file('kube-proxy.json')) and \
                self.cluster.info.get('bins'):
            # kube-proxy removes its own iptables chains.
            subprocess.run([self.cluster.binary('kube-proxy'), '--cleanup',
                            '--config=' + self._file('kube-proxy.json')],
                           capture_output=True)
        node_host.network_down()
        node_host.remove_kube_chains()
        node_host.restore_sysctls(self._file('sysctls.json'))
        shutil.rmtree(self._file('cni', 'ipam'), ignore_errors=True)
        self._unlock()


def image_archives(log=print):
    """(reference, docker-archive path) of every image the node runs: the
    default set, built when missing, and the opt-in images built so far
    (`tools/localcloud images glance placement`)."""
    versions = go.read_versions()
    pairs = [images.ensure(i, versions, log, load=False)
             for i in recipes.IMAGES]
    pairs += [(recipes.ref(i.name, versions), images.archive_path(i, versions))
              for i in recipes.OPTIONAL_IMAGES
              if os.path.exists(images.archive_path(i, versions))]
    return pairs + [(dns.image_ref(), dns.image_archive(log=log))]


def _write_if_changed(path, text):
    """Write `text` unless the file holds it: kube-proxy exits when its
    configuration file is written, even with the same content."""
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path, 'w') as f:
        f.write(text)


def _lock_owner():
    try:
        with open(LOCK_FILE) as f:
            return f.read().strip() or None
    except OSError:
        return None
