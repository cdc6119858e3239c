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

"""The Kubernetes control plane on loopback: etcd, kube-apiserver,
kube-controller-manager, kube-scheduler and kwok with fake nodes."""

import json
import os
import ssl
import subprocess
import urllib.error
import urllib.request

from heat_k8s import manifests
from tools.lc import fetch
from tools.lc import paths
from tools.lc import procs
from tools.lc.kubernetes import pki
from tools.lc.kubernetes import storage

# The order components start in; `down` stops them in reverse.
COMPONENTS = ('etcd', 'kube-apiserver', 'kube-controller-manager',
              'kube-scheduler', 'kwok')
SERVICE_CIDR = '10.0.0.0/24'
POD_CIDR = '10.244.0.0/16'
KWOK_NODE_ANNOTATION = 'kwok.x-k8s.io/node'
# Fake nodes: name -> role label (role=controller x1, role=compute x2).
NODES = {'controller-0': 'controller', 'compute-0': 'compute',
         'compute-1': 'compute'}
# Static-token users: id -> (user name, groups). The admin token is the test
# harness's credential; the scheduler gets only its bootstrap RBAC role.
USERS = {
    'admin': ('admin', ('system:masters',)),
    'kube-controller-manager': ('kube-controller-manager',
                                ('system:masters',)),
    'kube-scheduler': ('system:kube-scheduler', ()),
    'kwok': ('kwok', ('system:masters',)),
    # The real node's agents: the Node authorizer and the bootstrap
    # system:node-proxier binding give them what they need.
    'kubelet': ('system:node:node-0', ('system:nodes',)),
    'kube-proxy': ('system:kube-proxy', ()),
    # The node's NetworkPolicy controller: its own ClusterRole
    # (tools.lc.kubernetes.netpol).
    'kube-network-policies': ('system:kube-network-policies', ()),
}
# Fake nodes are for scale and simulated failures: a pod lands on one only
# when it tolerates this taint (and the real node gets everything else).
KWOK_TAINT = {'key': KWOK_NODE_ANNOTATION, 'value': 'fake',
              'effect': 'NoSchedule'}
# Pod Security Admission: `baseline` everywhere (no privileged pods, host
# namespaces or hostPath in project namespaces) but kube-system and the
# namespaces an operator labels pod-security.kubernetes.io/enforce.
ADMISSION_CONFIG = {
    'apiVersion': 'apiserver.config.k8s.io/v1',
    'kind': 'AdmissionConfiguration',
    'plugins': [{'name': 'PodSecurity', 'configuration': {
        'apiVersion': 'pod-security.admission.config.k8s.io/v1',
        'kind': 'PodSecurityConfiguration',
        'defaults': {'enforce': 'baseline', 'enforce-version': 'latest',
                     'warn': 'baseline', 'warn-version': 'latest',
                     'audit': 'baseline', 'audit-version': 'latest'},
        'exemptions': {'usernames': [], 'runtimeClasses': [],
                       'namespaces': ['kube-system']}}}],
}
# What the install guide asks of an operator's cluster: project pods
# without NET_RAW (a manifest of heat_k8s.manifests, applied with kubectl
# as an operator would).
HARDENING = 'hardening'
# Extra authentication flags for the apiserver (the Keystone webhook).
WEBHOOK_FLAGS_FILE = 'apiserver-extra-flags.json'


class Cluster(object):
    """A cluster's files and ports in a state directory."""

    def __init__(self, state_dir, bins=None):
        self.state_dir = state_dir
        self.pki = os.path.join(state_dir, 'pki')
        self.cloud_file = os.path.join(state_dir, 'cloud.json')
        self.info = self._load()
        if bins:
            self.info['bins'] = bins

    def _load(self):
        try:
            with open(self.cloud_file) as f:
                return json.load(f)
        except (OSError, ValueError):
            return {}

    def save(self):
        os.makedirs(self.state_dir, exist_ok=True)
        with open(self.cloud_file, 'w') as f:
            json.dump(self.info, f, indent=2, sort_keys=True)

    def port(self, name):
        """A port kept across restarts, so clients' URLs stay valid."""
        ports = self.info.setdefault('ports', {})
        if name not in ports:
            os.makedirs(self.state_dir, exist_ok=True)
            ports[name] = procs.free_port(self.state_dir)
            self.save()
        return ports[name]

    def binary(self, name):
        for d in self.info['bins']:
            path = os.path.join(d, name)
            if os.access(path, os.X_OK):
                return path
        raise RuntimeError('%s not built; run tools/localcloud build' % name)

    @property
    def api_url(self):
        return 'https://127.0.0.1:%d' % self.port('kube-apiserver')

    @property
    def ca_file(self):
        return os.path.join(self.pki, 'ca.crt')

    @property
    def kubeconfig(self):
        return os.path.join(self.state_dir, 'kubeconfig')

    def token(self, user='admin'):
        return self.info['tokens'][user]

    # -- configuration files -------------------------------------------

    def write_kubeconfig(self, path, user, credential=None):
        """A kubeconfig of `user`: its static token, or `credential` (a
        kubeconfig user entry, e.g. a client certificate and key)."""
        config = {
            'apiVersion': 'v1', 'kind': 'Config',
            'clusters': [{'name': 'localcloud', 'cluster': {
                'server': self.api_url,
                'certificate-authority': self.ca_file}}],
            'users': [{'name': user, 'user': credential or {
                'token': self.token(user)}}],
            'contexts': [{'name': user + '@localcloud', 'context': {
                'cluster': 'localcloud', 'user': user}}],
            'current-context': user + '@localcloud',
        }
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:  # JSON is YAML: kubectl reads it
            json.dump(config, f, indent=2)
        return path

    def prepare(self):
        """Certificates, keys, tokens and kubeconfigs (idempotent)."""
        pki.ensure_ca(self.pki)
        pki.ensure_serving_cert(self.pki, 'kube-apiserver', [
            'IP:127.0.0.1', 'IP:10.0.0.1', 'DNS:localhost',
            'DNS:kubernetes', 'DNS:kubernetes.default',
            'DNS:kubernetes.default.svc',
            'DNS:kubernetes.default.svc.cluster.local'])
        pki.ensure_rsa_key(self.pki, 'service-account')
        tokens_file, tokens = pki.ensure_tokens(self.pki, USERS)
        self.info['tokens_file'] = tokens_file
        self.info['tokens'] = tokens
        pki.ensure_client_cert(self.pki, 'apiserver-kubelet-client',
                               'kube-apiserver-kubelet-client',
                               ('system:masters',))
        with open(os.path.join(self.pki, 'admission.json'), 'w') as f:
            json.dump(ADMISSION_CONFIG, f, indent=2)
        for user in USERS:
            self.write_kubeconfig(self.kubeconfig_of(user), user)
        self.write_kubeconfig(self.kubeconfig, 'admin')
        self.save()

    def kubeconfig_of(self, user):
        return os.path.join(self.pki, user + '.kubeconfig')

    # -- processes -----------------------------------------------------

    def argv(self, name):
        """The command line of one component."""
        sa_key = os.path.join(self.pki, 'service-account.key')
        sa_pub = os.path.join(self.pki, 'service-account.pub')
        if name == 'etcd':
            client, peer = self.port('etcd'), self.port('etcd-peer')
            return [self.binary('etcd'), '--name=localcloud',
                    '--data-dir=' + os.path.join(self.state_dir, 'etcd'),
                    '--listen-client-urls=http://127.0.0.1:%d' % client,
                    '--advertise-client-urls=http://127.0.0.1:%d' % client,
                    '--listen-peer-urls=http://127.0.0.1:%d' % peer,
                    '--initial-advertise-peer-urls=http://127.0.0.1:%d'
                    % peer,
                    '--initial-cluster=localcloud=http://127.0.0.1:%d'
                    % peer,
                    # A throwaway test store: durability is not needed.
                    '--unsafe-no-fsync', '--quota-backend-bytes=2147483648',
                    '--log-level=warn']
        if name == 'kube-apiserver':
            argv = [
                self.binary(name),
                '--etcd-servers=http://127.0.0.1:%d' % self.port('etcd'),
                '--bind-address=127.0.0.1', '--advertise-address=127.0.0.1',
                '--secure-port=%d' % self.port(name),
                '--tls-cert-file=' + os.path.join(self.pki, name + '.crt'),
                '--tls-private-key-file=' + os.path.join(self.pki,
                                                         name + '.key'),
                '--cert-dir=' + os.path.join(self.state_dir, 'apiserver'),
                '--service-cluster-ip-range=' + SERVICE_CIDR,
                '--service-account-issuer=https://kubernetes.default.svc',
                '--service-account-key-file=' + sa_pub,
                '--service-account-signing-key-file=' + sa_key,
                '--token-auth-file=' + self.info['tokens_file'],
                # Further real nodes' kubelets join with a certificate of
                # the cloud's CA (system:node:<name>), as kubeadm's do.
                '--client-ca-file=' + self.ca_file,
                '--authorization-mode=Node,RBAC',
                '--admission-control-config-file=' + os.path.join(
                    self.pki, 'admission.json'),
                # No Service of a project takes other addresses over
                # (CVE-2020-8554); the default plugins stay on.
                '--enable-admission-plugins=DenyServiceExternalIPs',
                # Pod Security Admission decides, per namespace (baseline
                # unless an operator labels it otherwise).
                '--allow-privileged=true',
                # The real node's kubelet: verified both ways.
                '--kubelet-client-certificate=' + os.path.join(
                    self.pki, 'apiserver-kubelet-client.crt'),
                '--kubelet-client-key=' + os.path.join(
                    self.pki, 'apiserver-kubelet-client.key'),
                '--kubelet-certificate-authority=' + self.ca_file,
                '--kubelet-preferred-address-types=InternalIP',
                '--profiling=false',
                '--endpoint-reconciler-type=none']
            return argv + self._extra_apiserver_flags()
        common = ['--kubeconfig=' + self.kubeconfig_of(name),
                  '--bind-address=127.0.0.1',
                  '--secure-port=%d' % self.port(name),
                  '--leader-elect=false', '--profiling=false']
        if name == 'kube-controller-manager':
            return [self.binary(name)] + common + [
                '--service-account-private-key-file=' + sa_key,
                '--root-ca-file=' + self.ca_file,
                '--cluster-cidr=' + POD_CIDR,
                '--service-cluster-ip-range=' + SERVICE_CIDR,
                '--controllers=*',
                # Claims of the default StorageClass get a directory of
                # this machine (one node: tools.lc.kubernetes.storage).
                '--enable-hostpath-provisioner=true']
        if name == 'kube-scheduler':
            return [self.binary(name)] + common
        if name == 'kwok':
            return [self.binary('kwok'),
                    '--kubeconfig=' + self.kubeconfig_of('kwok'),
                    '--config=' + paths.KWOK_STAGES,
                    '--manage-all-nodes=false',
                    '--manage-nodes-with-annotation-selector=%s=fake'
                    % KWOK_NODE_ANNOTATION,
                    '--node-lease-duration-seconds=40',
                    '--cidr=' + POD_CIDR.replace('0.0/16', '0.1/16'),
                    '--node-ip=127.0.0.1',
                    '--server-address=127.0.0.1:%d' % self.port('kwok')]
        raise KeyError(name)

    def _extra_apiserver_flags(self):
        path = os.path.join(self.state_dir, WEBHOOK_FLAGS_FILE)
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return json.load(f)

    def start(self, name):
        argv = self.argv(name)
        running = procs.read(self.state_dir, name)
        if running and running.get('argv') != argv:
            # Started with other flags (e.g. by `up --kubernetes-only`,
            # without the Keystone webhook): restart with these.
            procs.stop(self.state_dir, name)
        procs.start(self.state_dir, name, argv)

    def stop(self, name):
        procs.stop(self.state_dir, name)

    # -- API access for the launcher itself ----------------------------

    def _ssl(self):
        return ssl.create_default_context(cafile=self.ca_file)

    def request(self, method, path, body=None, content_type=None,
                token=None):
        """Call the API as the admin (or with another bearer token); a
        `bytes` body is sent as it is (a YAML manifest)."""
        if body is not None and not isinstance(body, bytes):
            body = json.dumps(body).encode()
        req = fetch.request(
            self.api_url + path, method=method, data=body,
            headers={'Authorization': 'Bearer ' + (token or self.token()),
                     'Content-Type': content_type or 'application/json',
                     'Accept': 'application/json'})
        with fetch.urlopen(req, context=self._ssl(),
                                    timeout=10) as resp:
            return json.loads(resp.read() or b'null')

    def readyz(self):
        try:
            req = fetch.request(
                self.api_url + '/readyz',
                headers={'Authorization': 'Bearer ' + self.token()})
            with fetch.urlopen(req, context=self._ssl(),
                                        timeout=5) as resp:
                return resp.status == 200
        except (urllib.error.URLError, OSError):
            return False

    def _etcd_healthy(self):
        url = 'http://127.0.0.1:%d/health' % self.port('etcd')
        with fetch.urlopen(url, timeout=2) as resp:
            return json.loads(resp.read()).get('health') == 'true'

    def apply_manifest(self, name):
        """kubectl apply --server-side of a manifest heat-k8s ships
        (`heat-k8s-configure manifests NAME`), as an operator applies it."""
        result = subprocess.run(
            [self.binary('kubectl'), '--kubeconfig=' + self.kubeconfig,
             'apply', '--server-side', '--field-manager=localcloud',
             '-f', '-'], input=manifests.text(name), capture_output=True,
            text=True, timeout=60)
        if result.returncode:
            raise RuntimeError('kubectl apply of the %s manifest: %s' % (
                name, result.stderr.strip()))

    def apply_nodes(self):
        for name, role in sorted(NODES.items()):
            node = {
                'apiVersion': 'v1', 'kind': 'Node',
                'metadata': {
                    'name': name,
                    'annotations': {KWOK_NODE_ANNOTATION: 'fake'},
                    'labels': {
                        'role': role, 'type': 'kwok',
                        'kubernetes.io/hostname': name,
                        'kubernetes.io/os': 'linux',
                        'kubernetes.io/arch': 'amd64',
                        'node-role.kubernetes.io/' + role: ''}},
                'spec': {'taints': [KWOK_TAINT]},
            }
            self.request('PATCH', '/api/v1/nodes/%s?fieldManager='
                         'localcloud&force=true' % name, node,
                         'application/apply-patch+yaml')

    def _nodes_ready(self):
        nodes = self.request('GET', '/api/v1/nodes')['items']
        ready = [n for n in nodes if any(
            c['type'] == 'Ready' and c['status'] == 'True'
            for c in n.get('status', {}).get('conditions', []))]
        return len(ready) >= len(NODES)

    def _default_serviceaccount(self):
        # Pods are refused until the serviceaccount controller made it.
        try:
            self.request('GET', '/api/v1/namespaces/default/'
                         'serviceaccounts/default')
            return True
        except urllib.error.HTTPError:
            return False

    def up(self, timeout=120):
        self.prepare()
        self.start('etcd')
        procs.wait_for(self._etcd_healthy, 'etcd health', timeout, 'etcd',
                       self.state_dir)
        self.start('kube-apiserver')
        procs.wait_for(self.readyz, 'kube-apiserver /readyz', timeout,
                       'kube-apiserver', self.state_dir)
        # Before any pod: the policies admission applies to every pod.
        self.apply_manifest(HARDENING)
        for name in COMPONENTS[2:]:
            self.start(name)
        self.apply_nodes()
        storage.apply(self)
        procs.wait_for(self._nodes_ready, 'kwok nodes Ready', timeout,
                       'kwok', self.state_dir)
        procs.wait_for(self._default_serviceaccount,
                       'the default service account', timeout,
                       'kube-controller-manager', self.state_dir)

    def restart_apiserver(self, timeout=120):
        self.stop('kube-apiserver')
        self.start('kube-apiserver')
        procs.wait_for(self.readyz, 'kube-apiserver /readyz', timeout,
                       'kube-apiserver', self.state_dir)

    def status(self):
        return {name: procs.running(self.state_dir, name)
                for name in COMPONENTS}

    def down(self):
        for name in reversed(COMPONENTS):
            self.stop(name)
