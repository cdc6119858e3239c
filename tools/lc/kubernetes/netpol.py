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

Projects are isolated by the cluster, not by the cloud's setup: the
controller enforces the BaselineAdminNetworkPolicy the product ships
(heat_k8s/manifests/project-isolation.yaml: project namespaces refused to
each other both ways), and our main gives every project namespace,
including those k8s-keystone-auth's syncer creates later, the NetworkPolicy
admitting its own pods and the shared namespaces' (a baseline has no "same
namespace" peer; a namespace's NetworkPolicy takes precedence over it:
heat_k8s/manifests/own-pods-policy.yaml is the same policy).
"""

import json
import os
import subprocess

from tools.lc import paths
from tools.lc.builds import go

NAME = 'kube-network-policies'
QUEUE_ID = 100
# The static-token user of the controller (controlplane.USERS) and what it
# reads; it records Events about policies.
USER = 'system:kube-network-policies'
RBAC = 'rbac.authorization.k8s.io'
LABELS = {'app.kubernetes.io/managed-by': 'localcloud'}
# The shipped isolation (heat_k8s.manifests), applied as an operator would.
ISOLATION = 'isolation'
# Namespaces an operator opens to every project (a shared ingress).
SHARED_LABEL = 'heat-k8s.io/shared'
# What every project namespace starts with (created by the controller).
OWN_PODS_POLICY = 'allow-same-namespace'
NPA_MODULE = 'sigs.k8s.io/network-policy-api'
NPA = '/apis/policy.networking.k8s.io/v1alpha1'
BASELINE = NPA + '/baselineadminnetworkpolicies/default'
BASELINE_CRD = 'baselineadminnetworkpolicies.policy.networking.k8s.io'
CRD = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/'
APPLY = '?fieldManager=localcloud&force=true'


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
    """The controller's RBAC: it watches policies, pods, namespaces and
    nodes (a baseline's peers may name nodes), and creates the project
    namespaces' default NetworkPolicy."""
    meta = {'name': USER, 'labels': dict(LABELS)}
    return [
        {'apiVersion': RBAC + '/v1', 'kind': 'ClusterRole',
         'metadata': dict(meta),
         'rules': [
             {'apiGroups': [''],
              'resources': ['pods', 'namespaces', 'nodes'],
              'verbs': ['list', 'watch']},
             {'apiGroups': ['networking.k8s.io'],
              'resources': ['networkpolicies'],
              'verbs': ['list', 'watch', 'create']},
             {'apiGroups': ['policy.networking.k8s.io'],
              'resources': ['baselineadminnetworkpolicies'],
              'verbs': ['list', 'watch']},
             {'apiGroups': ['', 'events.k8s.io'], 'resources': ['events'],
              'verbs': ['create', 'patch', 'update']}]},
        {'apiVersion': RBAC + '/v1', 'kind': 'ClusterRoleBinding',
         'metadata': dict(meta),
         'roleRef': {'apiGroup': RBAC, 'kind': 'ClusterRole', 'name': USER},
         'subjects': [{'apiGroup': RBAC, 'kind': 'User', 'name': USER}]},
    ]


def selector_string(selector):
    """A LabelSelector (as the API returns it) in the text form of
    `kubectl -l` and labels.Parse."""
    terms = ['%s=%s' % kv for kv in sorted(
        (selector.get('matchLabels') or {}).items())]
    for expr in selector.get('matchExpressions') or ():
        op = expr['operator']
        if op in ('In', 'NotIn'):
            terms.append('%s %s (%s)' % (expr['key'], op.lower(),
                                         ','.join(sorted(expr['values']))))
        elif op == 'Exists':
            terms.append(expr['key'])
        else:
            terms.append('!' + expr['key'])
    return ','.join(terms)


def argv(binary, kubeconfig, node_name):
    return [binary, '--kubeconfig=' + kubeconfig,
            '--hostname-override=' + node_name,
            '--nfqueue-id=%d' % QUEUE_ID]


def isolation_args(projects):
    """The controller's flags for the baseline whose subject (a
    LabelSelector) is `projects`: those namespaces get the default
    NetworkPolicy."""
    return ['--baseline-admin-network-policy',
            '--project-namespaces=' + selector_string(projects),
            '--shared-namespaces=%s=true' % SHARED_LABEL,
            '--own-pods-policy=' + OWN_PODS_POLICY]


def queue_bound(queue_id=QUEUE_ID,
                proc_file='/proc/net/netfilter/nfnetlink_queue', lines=None):
    """Whether a process reads the queue (the controller has synced its
    caches and opened it); `lines`, that file as read in another network
    namespace."""
    if lines is None:
        with open(proc_file) as f:
            lines = f.readlines()
    return any(line.split()[:1] == [str(queue_id)] for line in lines)


def _crd_file():
    """The BaselineAdminNetworkPolicy CRD of the network-policy-api the
    controller is built with, from the Go module cache (the build
    downloaded it; upstream's file is not copied into this repository)."""
    out = subprocess.run(
        ['go', 'mod', 'download', '-json', NPA_MODULE], check=True,
        capture_output=True, text=True,
        cwd=os.path.join(paths.GOMOD_DIR, NAME),
        env=dict(go._go_env(), GOFLAGS='')).stdout
    return os.path.join(json.loads(out)['Dir'], 'config', 'crd', 'standard',
                        'policy.networking.k8s.io_%s.yaml'
                        % BASELINE_CRD.split('.')[0])


def _apply_file(cluster, path, filename):
    with open(filename, 'rb') as f:
        cluster.request('PATCH', path + APPLY, f.read(),
                        'application/apply-patch+yaml')


def crd_established(crd):
    return any(c['type'] == 'Established' and c['status'] == 'True'
               for c in (crd.get('status') or {}).get('conditions') or ())


def apply(cluster, wait_for):
    """RBAC, the CRD and the shipped isolation policy; the policy's
    subject, as the API server stored it (the controller's argv)."""
    for obj in manifests():
        plural = obj['kind'].lower() + 's'
        cluster.request(
            'PATCH', '/apis/%s/v1/%s/%s' % (RBAC, plural,
                                            obj['metadata']['name'])
            + APPLY, obj, 'application/apply-patch+yaml')
    _apply_file(cluster, CRD + BASELINE_CRD, _crd_file())
    wait_for(lambda: crd_established(
        cluster.request('GET', CRD + BASELINE_CRD)), BASELINE_CRD)
    cluster.apply_manifest(ISOLATION)
    return cluster.request('GET', BASELINE)['spec']['subject']['namespaces']
