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

"""NetworkPolicy on the real node: sigs.k8s.io/kube-network-policies.

The controller (built from its Go module, tools/gomod/kube-network-policies)
decides every new connection to or from a pod of the node in userspace:
the kernel hands it the connection's first packet through a netfilter
queue, and it answers accept or drop from the NetworkPolicies, pods and
namespaces it watches. Packets of established connections never leave
the kernel.

Upstream hands packets to the queue with an nftables rule (`queue`
expression) that this machine's kernel lacks (CONFIG_NFT_QUEUE is unset;
the iptables NFQUEUE target, CONFIG_NETFILTER_XT_TARGET_NFQUEUE, is built
in). Its controller ignores that its own table fails to load, so the node
installs the same hook with iptables (`queue_rules`), in the mangle
table's POSTROUTING, before SNAT as upstream's chain: established and
related packets and the host's root processes (the kubelet's probes) pass;
every other packet from or to the pod network goes to the queue. Upstream
queues only pods some policy selects; this queues every pod, which the
controller accepts when no policy selects it. Without a reader on the
queue (the controller stopped) the kernel drops the packets: the node
fails closed, as upstream does without `--fail-open`.
"""

NAME = 'kube-network-policies'
QUEUE_ID = 100
# The static-token user of the controller (controlplane.USERS) and what it
# reads; it records Events about policies.
USER = 'system:kube-network-policies'
RBAC = 'rbac.authorization.k8s.io'
LABELS = {'app.kubernetes.io/managed-by': 'localcloud'}


def queue_rules(pod_cidr, queue_id=QUEUE_ID):
    """The node's hook to the controller, as (table, hook, rule args),
    in order: what passes, then what goes to the queue."""
    queue = ['-j', 'NFQUEUE', '--queue-num', str(queue_id)]
    return [
        ('mangle', 'POSTROUTING', ['-m', 'conntrack', '--ctstate',
                                   'ESTABLISHED,RELATED', '-j', 'RETURN']),
        ('mangle', 'POSTROUTING', ['-m', 'owner', '--uid-owner', '0',
                                   '-j', 'RETURN']),
        ('mangle', 'POSTROUTING', ['-s', pod_cidr] + queue),
        ('mangle', 'POSTROUTING', ['-d', pod_cidr] + queue),
    ]


def manifests():
    """The controller's RBAC: it watches policies, pods and namespaces."""
    meta = {'name': USER, 'labels': dict(LABELS)}
    return [
        {'apiVersion': RBAC + '/v1', 'kind': 'ClusterRole',
         'metadata': dict(meta),
         'rules': [
             {'apiGroups': [''], 'resources': ['pods', 'namespaces'],
              'verbs': ['list', 'watch']},
             {'apiGroups': ['networking.k8s.io'],
              'resources': ['networkpolicies'],
              'verbs': ['list', 'watch']},
             {'apiGroups': ['', 'events.k8s.io'], 'resources': ['events'],
              'verbs': ['create', 'patch', 'update']}]},
        {'apiVersion': RBAC + '/v1', 'kind': 'ClusterRoleBinding',
         'metadata': dict(meta),
         'roleRef': {'apiGroup': RBAC, 'kind': 'ClusterRole', 'name': USER},
         'subjects': [{'apiGroup': RBAC, 'kind': 'User', 'name': USER}]},
    ]


def argv(binary, kubeconfig, node_name):
    return [binary, '--kubeconfig=' + kubeconfig,
            '--hostname-override=' + node_name,
            '--nfqueue-id=%d' % QUEUE_ID]


def queue_bound(queue_id=QUEUE_ID,
                proc_file='/proc/net/netfilter/nfnetlink_queue'):
    """Whether a process reads the queue (the controller has synced its
    caches and opened it)."""
    with open(proc_file) as f:
        return any(line.split()[:1] == [str(queue_id)] for line in f)


def apply(cluster):
    for obj in manifests():
        plural = obj['kind'].lower() + 's'
        cluster.request(
            'PATCH', '/apis/%s/v1/%s/%s?fieldManager=localcloud&force=true'
            % (RBAC, plural, obj['metadata']['name']), obj,
            'application/apply-patch+yaml')


# -- project namespaces -------------------------------------------------

DEFAULT_DENY = 'deny-from-other-namespaces'


def project_namespace(project_id):
    """A project's namespace as the cloud creates it, before
    k8s-keystone-auth's syncer would (it keeps an existing one), and its
    NetworkPolicy: every pod of the namespace admits traffic from pods of
    the same namespace only. Other namespaces' pods, and addresses outside
    the cluster, are refused unless another policy of the namespace
    admits them (policies add up); the node's root processes (the
    kubelet's probes) and NodePorts reached from the host pass, as the
    node's queue rules skip them."""
    return [
        {'apiVersion': 'v1', 'kind': 'Namespace',
         'metadata': {'name': project_id, 'labels': dict(LABELS)}},
        {'apiVersion': 'networking.k8s.io/v1', 'kind': 'NetworkPolicy',
         'metadata': {'name': DEFAULT_DENY, 'namespace': project_id,
                      'labels': dict(LABELS)},
         'spec': {'podSelector': {}, 'policyTypes': ['Ingress'],
                  'ingress': [{'from': [{'podSelector': {}}]}]}},
    ]


def ensure_project_namespace(cluster, project_id):
    for obj in project_namespace(project_id):
        if obj['kind'] == 'Namespace':
            path = '/api/v1/namespaces/' + project_id
        else:
            path = ('/apis/networking.k8s.io/v1/namespaces/%s/'
                    'networkpolicies/%s' % (project_id, DEFAULT_DENY))
        cluster.request('PATCH', path + '?fieldManager=localcloud&force=true',
                        obj, 'application/apply-patch+yaml')
