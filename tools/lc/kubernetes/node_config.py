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

"""The real node's configuration files, as pure functions of their inputs.

containerd's TOML, the kubelet's and kube-proxy's configuration objects,
and the node's name, labels and DNS settings they carry.
"""

import json

from tools.lc.kubernetes import machine
from tools.lc.kubernetes import node_host

NAME = 'node-0'
# The example and the service templates place pods by `role`; kwok nodes
# (type=kwok) carry a NoSchedule taint, so only this node gets them.
LABELS = {'role': 'controller', 'type': 'real'}
CLUSTER_DOMAIN = 'cluster.local'
DNS_IP = '10.0.0.10'


def name(index):
    return 'node-%d' % index


def taint(text):
    """A Node taint from `key=value:Effect` (kubectl taint's form)."""
    key_value, _, effect = text.rpartition(':')
    key, _, value = key_value.partition('=')
    if not key or effect not in ('NoSchedule', 'PreferNoSchedule',
                                 'NoExecute'):
        raise ValueError('a taint is key=value:Effect, not %r' % text)
    return dict({'key': key, 'effect': effect}, **(
        {'value': value} if value else {}))


def containerd_config(root, state, socket, cni_conf_dir, sandbox_image,
                      own_netns_dir=False):
    """containerd 1.6's configuration (version 2) as TOML text;
    own_netns_dir keeps the pods' network namespaces under its state
    directory (a further node's: /run/netns is the host's)."""
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
        '  netns_mounts_under_state_dir = %s' % _toml(own_netns_dir),
        '[%s.containerd]' % cri,
        '  snapshotter = "overlayfs"',
        '  default_runtime_name = "runc"',
        '[%s.containerd.runtimes.runc]' % cri,
        '  runtime_type = "io.containerd.runc.v2"',
        '[%s.containerd.runtimes.runc.options]' % cri,
        '  SystemdCgroup = false',
        '  BinaryName = "/usr/sbin/runc"',
        '[%s.cni]' % cri,
        '  bin_dir = %s' % _toml(node_host.CNI_BIN_DIR),
        '  conf_dir = %s' % _toml(cni_conf_dir),
        '',
    ])


def _toml(value):
    return json.dumps(value)  # a TOML basic string is a JSON string


def kubelet_config(port, healthz_port, runtime_socket, ca_file, tls_cert,
                   tls_key, pod_logs_dir, address='127.0.0.1',
                   cgroup_root=None):
    """address: where the API server reaches it (node-0: loopback; a
    further node: its address on the machines' network); cgroup_root:
    the node's own cgroup, which its pods' go below."""
    extra = {'cgroupRoot': cgroup_root} if cgroup_root else {}
    return dict(extra, **{
        'apiVersion': 'kubelet.config.k8s.io/v1beta1',
        'kind': 'KubeletConfiguration',
        'address': address, 'port': port, 'readOnlyPort': 0,
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
    })


def kube_proxy_config(kubeconfig, healthz_port, metrics_port, node=NAME):
    return {
        'apiVersion': 'kubeproxy.config.k8s.io/v1alpha1',
        'kind': 'KubeProxyConfiguration',
        'clientConnection': {'kubeconfig': kubeconfig},
        'hostnameOverride': node,
        'bindAddress': '127.0.0.1',
        'healthzBindAddress': '127.0.0.1:%d' % healthz_port,
        'metricsBindAddress': '127.0.0.1:%d' % metrics_port,
        'mode': 'iptables',
        # Every node's pods: from elsewhere, a Service's traffic is
        # masqueraded.
        'clusterCIDR': machine.PODS_SUPERNET,
        # NodePorts answer on loopback only.
        'nodePortAddresses': ['127.0.0.0/8'],
        # Keep the kernel's conntrack table size and timeouts.
        'conntrack': {'maxPerCore': 0, 'min': 0,
                      'tcpEstablishedTimeout': '0s',
                      'tcpCloseWaitTimeout': '0s'},
    }


def json_text(obj):
    return json.dumps(obj, indent=2, sort_keys=True) + '\n'
