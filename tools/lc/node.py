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

One real node can run on a machine at a time (it owns a bridge, iptables
chains and sysctls): a lock file names the state directory that owns it.
`down` stops the node's containers, unmounts their volumes, removes the
bridge and the iptables rules, and puts back the sysctls it changed.
"""

import ipaddress
import json
import os
import shlex
import shutil
import subprocess
import time

from lc import build
from lc import debs
from lc import dns
from lc import images
from lc import kubernetes
from lc import paths
from lc import pki
from lc import procs

NAME = 'node-0'
# The example and the service templates place pods by `role`; kwok nodes
# (type=kwok) carry a NoSchedule taint, so only this node gets them.
LABELS = {'role': 'controller', 'type': 'real'}
POD_CIDR = '10.85.0.0/24'
GATEWAY = '10.85.0.1'
BRIDGE = 'hk8s0'
CLUSTER_DOMAIN = 'cluster.local'
DNS_IP = '10.0.0.10'
# The order components start in; `down` stops them in reverse.
COMPONENTS = ('containerd', 'kubelet', 'kube-proxy')
CHAIN = 'HEATK8S-NODE'
LOCK_FILE = '/run/heat-k8s-node.lock'
CNI_BIN_DIR = '/usr/lib/cni'
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


def cni_config(ipam_dir):
    """The pods' network: a bridge with the gateway on the host, routes
    to the pod and Service ranges only (no default route: nothing a pod
    sends can leave the machine), masquerading off."""
    return {
        'cniVersion': '1.0.0',
        'name': 'heat-k8s',
        'plugins': [
            {'type': 'bridge', 'bridge': BRIDGE, 'isGateway': True,
             'isDefaultGateway': False, 'ipMasq': False,
             'hairpinMode': True,
             'ipam': {'type': 'host-local',
                      'ranges': [[{'subnet': POD_CIDR,
                                   'gateway': GATEWAY}]],
                      'routes': [{'dst': POD_CIDR},
                                 {'dst': kubernetes.SERVICE_CIDR}],
                      'dataDir': ipam_dir}},
            {'type': 'portmap', 'capabilities': {'portMappings': True}},
        ],
    }


def containerd_config(root, state, socket, cni_conf_dir, sandbox_image):
    """containerd 1.6's configuration (version 2) as TOML text."""
    cri = 'plugins."io.containerd.grpc.v1.cri"'
    return '\n'.join([
        'version = 2',
        'root = %s' % _toml(root),
        'state = %s' % _toml(state),
        '[grpc]',
        '  address = %s' % _toml(socket),
        '[ttrpc]',
        '  address = %s' % _toml(socket + '.ttrpc'),
        '[%s]' % cri,
        '  sandbox_image = %s' % _toml(sandbox_image),
        # runc cannot write the -998 containerd asks for: the bounding
        # set here lacks CAP_SYS_RESOURCE.
        '  restrict_oom_score_adj = true',
        '  disable_apparmor = true',
        '[%s.containerd]' % cri,
        '  snapshotter = "overlayfs"',
        '  default_runtime_name = "runc"',
        '[%s.containerd.runtimes.runc]' % cri,
        '  runtime_type = "io.containerd.runc.v2"',
        '[%s.containerd.runtimes.runc.options]' % cri,
        '  SystemdCgroup = false',
        '  BinaryName = "/usr/sbin/runc"',
        '[%s.cni]' % cri,
        '  bin_dir = %s' % _toml(CNI_BIN_DIR),
        '  conf_dir = %s' % _toml(cni_conf_dir),
        '',
    ])


def _toml(value):
    return json.dumps(value)  # a TOML basic string is a JSON string


def kubelet_config(port, healthz_port, runtime_socket, ca_file, tls_cert,
                   tls_key, pod_logs_dir):
    return {
        'apiVersion': 'kubelet.config.k8s.io/v1beta1',
        'kind': 'KubeletConfiguration',
        'address': '127.0.0.1', 'port': port, 'readOnlyPort': 0,
        'healthzBindAddress': '127.0.0.1', 'healthzPort': healthz_port,
        'tlsCertFile': tls_cert, 'tlsPrivateKeyFile': tls_key,
        'authentication': {'anonymous': {'enabled': False},
                           'webhook': {'enabled': True},
                           'x509': {'clientCAFile': ca_file}},
        'authorization': {'mode': 'Webhook'},
        'containerRuntimeEndpoint': 'unix://' + runtime_socket,
        'cgroupDriver': 'cgroupfs',
        # This host mounts cgroup v1 controllers (KEP-5573 makes 1.35+
        # kubelets refuse that unless told).
        'failCgroupV1': False,
        # The hard limit of open files here is 20000.
        'maxOpenFiles': 20000,
        'clusterDomain': CLUSTER_DOMAIN, 'clusterDNS': [DNS_IP],
        'podLogsDir': pod_logs_dir,
        # Images are built here and cannot be pulled again: never
        # garbage-collect them.
        'imageGCHighThresholdPercent': 100,
        'imageGCLowThresholdPercent': 99,
        'evictionHard': {'memory.available': '100Mi',
                         'nodefs.available': '2%',
                         'imagefs.available': '2%'},
        'serializeImagePulls': False,
        'registerNode': True,
    }


def kube_proxy_config(kubeconfig, healthz_port, metrics_port):
    return {
        'apiVersion': 'kubeproxy.config.k8s.io/v1alpha1',
        'kind': 'KubeProxyConfiguration',
        'clientConnection': {'kubeconfig': kubeconfig},
        'hostnameOverride': NAME,
        'bindAddress': '127.0.0.1',
        'healthzBindAddress': '127.0.0.1:%d' % healthz_port,
        'metricsBindAddress': '127.0.0.1:%d' % metrics_port,
        'mode': 'iptables',
        'clusterCIDR': POD_CIDR,
        # NodePorts answer on loopback only.
        'nodePortAddresses': ['127.0.0.0/8'],
        # Keep the kernel's conntrack table size and timeouts.
        'conntrack': {'maxPerCore': 0, 'min': 0,
                      'tcpEstablishedTimeout': '0s',
                      'tcpCloseWaitTimeout': '0s'},
    }


def guard_rules(apiserver_port):
    """iptables rules (table, chain hook, rule args) of the node's own
    chains: nothing is forwarded from the bridge to another interface,
    and pods reach the API server (bound to 127.0.0.1) at the
    `kubernetes` Service address, as kube-proxy serves loopback
    NodePorts."""
    return [
        ('filter', 'FORWARD', ['-i', BRIDGE, '!', '-o', BRIDGE, '-j',
                               'DROP']),
        ('nat', 'PREROUTING', ['-i', BRIDGE, '-d', _api_service_ip(),
                               '-p', 'tcp', '--dport', '443', '-j', 'DNAT',
                               '--to-destination',
                               '127.0.0.1:%d' % apiserver_port]),
    ]


def _api_service_ip():
    net = ipaddress.ip_network(kubernetes.SERVICE_CIDR)
    return str(net.network_address + 1)


class Node(object):
    """The node's files, processes and host changes in a state directory."""

    def __init__(self, cluster, log=print):
        self.cluster = cluster
        self.state_dir = cluster.state_dir
        self.dir = os.path.join(self.state_dir, 'node')
        self.log = log

    # -- paths ------------------------------------------------------------

    @property
    def socket(self):
        return os.path.join(self.dir, 'containerd', 'containerd.sock')

    @property
    def containerd_root(self):
        # Machine-wide (one node at a time): imported images survive a new
        # state directory, so a new cloud starts without importing again.
        return os.path.join(paths.cache_dir(), 'node', 'containerd')

    def _file(self, *parts):
        return os.path.join(self.dir, *parts)

    # -- host -------------------------------------------------------------

    def check_host(self):
        """Stop, in one line, before anything starts, when the host lacks
        what the node needs or another cloud's node runs here."""
        self._check_lock()
        debs.ensure(PACKAGES, log=self.log)
        lacking = missing(host_facts())
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

    def _save_sysctls(self):
        saved_file = self._file('sysctls.json')
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

    def _restore_sysctls(self):
        saved_file = self._file('sysctls.json')
        try:
            with open(saved_file) as f:
                saved = json.load(f)
        except (OSError, ValueError):
            return
        for key, value in saved.items():
            _write_sysctl(key, value)
        os.unlink(saved_file)

    def _network_up(self):
        _ip('link', 'add', BRIDGE, 'type', 'bridge', ok_if='File exists')
        _ip('addr', 'add', GATEWAY + '/' + POD_CIDR.split('/')[1], 'dev',
            BRIDGE, ok_if='already assigned')
        _ip('link', 'set', BRIDGE, 'up')
        # Service and fake-pod addresses never take the default route out.
        for cidr in (kubernetes.SERVICE_CIDR, kubernetes.POD_CIDR):
            _ip('route', 'replace', 'blackhole', cidr)
        for key, value in SYSCTLS.items():
            if value is not None:
                _write_sysctl(key, value)
        _write_sysctl('net/ipv4/conf/%s/route_localnet' % BRIDGE, '1')
        self._iptables_down()
        for table, hook, rule in guard_rules(
                self.cluster.port('kube-apiserver')):
            chain = '%s-%s' % (CHAIN, hook)
            _iptables(table, '-N', chain)
            _iptables(table, '-A', chain, *rule)
            _iptables(table, '-I', hook, '-j', chain)

    def _iptables_down(self):
        for table, hook, _ in guard_rules(0):
            chain = '%s-%s' % (CHAIN, hook)
            while _iptables(table, '-D', hook, '-j', chain, check=False):
                pass
            _iptables(table, '-F', chain, check=False)
            _iptables(table, '-X', chain, check=False)

    def _network_down(self):
        self._iptables_down()
        for cidr in (kubernetes.SERVICE_CIDR, kubernetes.POD_CIDR):
            _ip('route', 'del', 'blackhole', cidr, check=False)
        _ip('link', 'del', BRIDGE, check=False)

    # -- configuration ----------------------------------------------------

    def prepare(self):
        c = self.cluster
        for d in ('containerd', 'cni/net.d', 'kubelet', 'pod-logs'):
            os.makedirs(self._file(d), exist_ok=True)
        os.makedirs(self.containerd_root, exist_ok=True)
        pki.ensure_serving_cert(c.pki, 'kubelet', [
            'IP:127.0.0.1', 'DNS:' + NAME, 'DNS:localhost'])
        _write_if_changed(self._file('containerd', 'config.toml'),
                          containerd_config(
                              self.containerd_root,
                              self._file('containerd', 'state'),
                              self.socket, self._file('cni', 'net.d'),
                              images.ref('pause')))
        _write_if_changed(self._file('cni', 'net.d', '10-heat-k8s.conflist'),
                          _json(cni_config(self._file('cni', 'ipam'))))
        _write_if_changed(self._file('kubelet.json'), _json(kubelet_config(
            c.port('kubelet'), c.port('kubelet-healthz'), self.socket,
            c.ca_file, os.path.join(c.pki, 'kubelet.crt'),
            os.path.join(c.pki, 'kubelet.key'), self._file('pod-logs'))))
        _write_if_changed(self._file('kube-proxy.json'), _json(
            kube_proxy_config(c.kubeconfig_of('kube-proxy'),
                              c.port('kube-proxy-healthz'),
                              c.port('kube-proxy-metrics'))))

    def argv(self, name):
        c = self.cluster
        if name == 'containerd':
            return ['/usr/bin/containerd', '--config',
                    self._file('containerd', 'config.toml')]
        if name == 'kubelet':
            return [c.binary('kubelet'), '--config=' + self._file(
                'kubelet.json'),
                '--kubeconfig=' + c.kubeconfig_of('kubelet'),
                '--root-dir=' + self._file('kubelet'),
                '--cert-dir=' + self._file('kubelet', 'pki'),
                '--hostname-override=' + NAME,
                # A kubelet refuses a loopback node IP; as with a cloud
                # provider, `register()` sets the node's address instead.
                '--cloud-provider=external',
                '--node-labels=' + ','.join(
                    '%s=%s' % kv for kv in sorted(LABELS.items()))]
        if name == 'kube-proxy':
            return [c.binary('kube-proxy'),
                    '--config=' + self._file('kube-proxy.json')]
        raise KeyError(name)

    # -- lifecycle --------------------------------------------------------

    def up(self, timeout=120):
        if all(self.status().values()):
            self.load_images()  # a second `up`: only images rebuilt since
            return
        self.check_host()
        self._lock()
        self.prepare()
        self._save_sysctls()
        self._network_up()
        t0 = time.monotonic()
        fresh = not procs.running(self.state_dir, 'containerd')
        procs.start(self.state_dir, 'containerd', self.argv('containerd'))
        procs.wait_for(lambda: self._ctr('version', check=False),
                       'containerd', timeout, 'containerd', self.state_dir)
        # A fresh containerd may find pods of a cloud that was not stopped;
        # a running one's pods are this cloud's and stay.
        if fresh:
            self._remove_containers()
        self.load_images()
        self.log('%-36s %5.1fs' % ('node images loaded', time.monotonic()
                                   - t0))
        self.register()
        procs.start(self.state_dir, 'kubelet', self.argv('kubelet'))
        procs.wait_for(self._ready, 'node %s Ready' % NAME, timeout,
                       'kubelet', self.state_dir)
        procs.start(self.state_dir, 'kube-proxy', self.argv('kube-proxy'))
        procs.wait_for(self._proxy_healthy, 'kube-proxy healthz', timeout,
                       'kube-proxy', self.state_dir)
        dns.deploy(self.cluster, log=self.log, timeout=timeout)
        self.log('%-36s %5.1fs' % ('node %s ready' % NAME,
                                   time.monotonic() - t0))

    def register(self):
        """Create the Node with its address (127.0.0.1: the kubelet and
        NodePorts listen on loopback) before the kubelet registers, which
        then keeps the address (it would reject a loopback one)."""
        self.cluster.request(
            'PATCH', '/api/v1/nodes/%s?fieldManager=localcloud&force=true'
            % NAME, {'apiVersion': 'v1', 'kind': 'Node',
                     'metadata': {'name': NAME, 'labels': dict(
                         LABELS, **{'kubernetes.io/hostname': NAME})}},
            'application/apply-patch+yaml')
        self.cluster.request(
            'PATCH', '/api/v1/nodes/%s/status' % NAME,
            {'status': {'addresses': [
                {'type': 'InternalIP', 'address': '127.0.0.1'},
                {'type': 'Hostname', 'address': NAME}]}},
            'application/merge-patch+json')

    def load_images(self):
        """Import the images built here into containerd: those it lacks or
        has from another recipe (the archive's name carries its hash)."""
        loaded_file = os.path.join(self.containerd_root, 'loaded.json')
        try:
            with open(loaded_file) as f:
                loaded = json.load(f)
        except (OSError, ValueError):
            loaded = {}
        have = set(self._ctr('images', 'ls', '-q').split())
        for ref, archive in image_archives(self.log):
            if ref in have and loaded.get(ref) == archive:
                continue
            self.log('importing %s into the node' % ref)
            self._ctr('images', 'import', archive)
            loaded[ref] = archive
            with open(loaded_file, 'w') as f:
                json.dump(loaded, f, indent=2)

    def _ready(self):
        node = self.cluster.request('GET', '/api/v1/nodes/' + NAME)
        return any(cond['type'] == 'Ready' and cond['status'] == 'True'
                   for cond in node.get('status', {}).get('conditions', []))

    def _proxy_healthy(self):
        import urllib.request
        url = 'http://127.0.0.1:%d/healthz' % self.cluster.port(
            'kube-proxy-healthz')
        with urllib.request.urlopen(url, timeout=2) as resp:
            return resp.status == 200

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
        return {name: procs.running(self.state_dir, name)
                for name in COMPONENTS}

    def running(self):
        return any(self.status().values())

    def down(self):
        owner = _lock_owner()
        if owner and owner != self.state_dir:
            return  # the node on this machine belongs to another cloud
        for name in ('kube-proxy', 'kubelet'):
            procs.stop(self.state_dir, name)
        if procs.running(self.state_dir, 'containerd'):
            self._remove_containers()
        procs.stop(self.state_dir, 'containerd')
        _kill_shims(self.socket)
        _unmount_under(self.dir)
        _unmount_under(self.containerd_root)
        _delete_pod_netns()
        if os.path.exists(self._file('kube-proxy.json')) and \
                self.cluster.info.get('bins'):
            # kube-proxy removes its own iptables chains.
            subprocess.run([self.cluster.binary('kube-proxy'), '--cleanup',
                            '--config=' + self._file('kube-proxy.json')],
                           capture_output=True)
        self._network_down()
        _remove_kube_chains()
        self._restore_sysctls()
        shutil.rmtree(self._file('cni', 'ipam'), ignore_errors=True)
        self._unlock()


def image_archives(log=print):
    """(reference, docker-archive path) of every image the node runs."""
    versions = build.read_versions()
    pairs = [images.ensure(i, versions, log, load=False)
             for i in images.IMAGES]
    return pairs + [(dns.image_ref(), dns.image_archive(log=log))]


def _json(obj):
    return json.dumps(obj, indent=2, sort_keys=True) + '\n'


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


def _write_sysctl(key, value):
    try:
        with open('/proc/sys/' + key, 'w') as f:
            f.write(value)
    except OSError:
        pass


def _run(argv, check=True, ok_if=None):
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode and check and not (
            ok_if and ok_if in result.stderr):
        raise RuntimeError('%s failed: %s' % (' '.join(argv),
                                               result.stderr.strip()))
    return result.returncode == 0


def _ip(*args, check=True, ok_if=None):
    return _run(['ip'] + list(args), check=check, ok_if=ok_if)


def _iptables(table, *args, check=True):
    return _run(['iptables', '-w', '-t', table] + list(args), check=check,
                ok_if='already exists')


def _remove_kube_chains():
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


def _kill_shims(socket):
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


def _unmount_under(top):
    """Unmount every mount below `top`, deepest first."""
    top = os.path.realpath(top)
    with open('/proc/mounts') as f:
        points = [line.split()[1].encode().decode('unicode_escape')
                  for line in f]
    for point in sorted((p for p in points
                         if p == top or p.startswith(top + '/')),
                        key=len, reverse=True):
        subprocess.run(['umount', '-l', point], capture_output=True)


def _delete_pod_netns():
    netns_dir = '/var/run/netns'
    for name in os.listdir(netns_dir) if os.path.isdir(netns_dir) else ():
        if name.startswith('cni-'):
            subprocess.run(['umount', '-l', os.path.join(netns_dir, name)],
                           capture_output=True)
            try:
                os.unlink(os.path.join(netns_dir, name))
            except OSError:
                pass
