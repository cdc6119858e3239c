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

"""The local cloud's NetworkPolicy: the node's hook to the controller, the
controller's rights and the project namespaces' default deny."""


from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import netpol
from tools.lc.kubernetes import node_host
from tools.lc.openstack import keystone_auth


def _postrouting():
    return [rule for table, hook, rule in node_host.guard_rules(6443)
            if (table, hook) == ('mangle', 'POSTROUTING')]


def test_established_connections_pass_before_anything_is_queued():
    rules = _postrouting()
    queued = [i for i, r in enumerate(rules) if 'NFQUEUE' in r]
    established = rules.index(['-m', 'conntrack', '--ctstate',
                               'ESTABLISHED,RELATED', '-j', 'RETURN'])
    assert queued and established < min(queued)


def test_every_new_connection_from_or_to_a_pod_goes_to_the_queue():
    rules = _postrouting()
    cidr = node_host.POD_CIDR
    queue = ['-j', 'NFQUEUE', '--queue-num', str(netpol.QUEUE_ID)]
    assert ['-s', cidr] + queue in rules
    assert ['-d', cidr] + queue in rules


def test_the_queue_does_not_fail_open():
    # Without a reader the kernel drops what is queued: no bypass flag.
    assert not any('--queue-bypass' in r for r in _postrouting())


def test_only_the_hosts_root_processes_skip_the_controller():
    skips = [r for r in _postrouting() if r[-1] == 'RETURN' and
             '-m' in r and r[r.index('-m') + 1] == 'owner']
    assert skips == [['-m', 'owner', '--uid-owner', '0', '-j', 'RETURN']]


def test_the_controller_runs_as_its_own_user_with_read_rights():
    assert controlplane.USERS[netpol.NAME] == (netpol.USER, ())
    role, binding = netpol.manifests()
    verbs = {(g, r): set(rule['verbs']) for rule in role['rules']
             for g in rule['apiGroups'] for r in rule['resources']}
    assert verbs[('', 'pods')] == {'list', 'watch'}
    assert verbs[('networking.k8s.io', 'networkpolicies')] == {
        'list', 'watch'}
    assert not any('delete' in v for v in verbs.values())
    assert binding['subjects'] == [{
        'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'User',
        'name': netpol.USER}]
    assert binding['roleRef']['name'] == role['metadata']['name']


def test_argv_names_the_node_queue_and_kubeconfig():
    argv = netpol.argv('/bin/knp', '/pki/knp.kubeconfig', 'node-0')
    assert argv == ['/bin/knp', '--kubeconfig=/pki/knp.kubeconfig',
                    '--hostname-override=node-0', '--nfqueue-id=100']


def test_a_project_namespace_admits_only_its_own_pods():
    namespace, policy = netpol.project_namespace('p1')
    assert namespace['kind'] == 'Namespace'
    assert namespace['metadata']['name'] == 'p1'
    assert policy['metadata']['namespace'] == 'p1'
    spec = policy['spec']
    assert spec['podSelector'] == {}  # every pod of the namespace
    assert spec['policyTypes'] == ['Ingress']
    # Peers without a namespaceSelector are of the policy's namespace.
    assert spec['ingress'] == [{'from': [{'podSelector': {}}]}]


def test_queue_bound_reads_the_kernels_queue_list(tmp_path):
    proc = tmp_path / 'nfnetlink_queue'
    proc.write_text('  100  16871     0 2   128     0     0        0  1\n')
    assert netpol.queue_bound(100, str(proc))
    assert not netpol.queue_bound(101, str(proc))
    proc.write_text('')
    assert not netpol.queue_bound(100, str(proc))


def test_members_manage_their_namespaces_policies_and_readers_read_them():
    def verbs(rules):
        return {v for rule in rules
                if 'networking.k8s.io' in rule['apiGroups']
                and 'networkpolicies' in rule['resources']
                for v in rule['verbs']}
    assert {'create', 'patch', 'delete'} <= verbs(
        keystone_auth.CLUSTER_ROLES['member'])
    assert verbs(keystone_auth.CLUSTER_ROLES['reader']) == {
        'get', 'list', 'watch'}
