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
controller's rights, its flags for the shipped project isolation, and that
isolation (heat-k8s-configure manifests isolation) as the API server reads
it."""


import os

import yaml

from heat_k8s import manifests
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
    assert verbs[('', 'pods')] == verbs[('', 'nodes')] == {'list', 'watch'}
    # It creates each project namespace's default, and changes nothing.
    assert verbs[('networking.k8s.io', 'networkpolicies')] == {
        'list', 'watch', 'create'}
    assert verbs[('policy.networking.k8s.io',
                  'baselineadminnetworkpolicies')] == {'list', 'watch'}
    assert not any(v & {'delete', 'update', 'patch'}
                   for (g, r), v in verbs.items() if r != 'events')
    assert binding['subjects'] == [{
        'apiGroup': 'rbac.authorization.k8s.io', 'kind': 'User',
        'name': netpol.USER}]
    assert binding['roleRef']['name'] == role['metadata']['name']


def test_argv_names_the_node_queue_and_kubeconfig():
    argv = netpol.argv('/bin/knp', '/pki/knp.kubeconfig', 'node-0')
    assert argv == ['/bin/knp', '--kubeconfig=/pki/knp.kubeconfig',
                    '--hostname-override=node-0', '--nfqueue-id=100']


def _shipped(name):
    return {d['kind']: d for d in yaml.safe_load_all(manifests.text(name))
            if d}


def _isolation():
    return _shipped(netpol.ISOLATION)['BaselineAdminNetworkPolicy']


def test_the_shipped_isolation_is_the_one_baseline():
    policy = _isolation()
    assert policy['apiVersion'] == 'policy.networking.k8s.io/v1alpha1'
    assert policy['kind'] == 'BaselineAdminNetworkPolicy'
    # The CRD admits one, named default.
    assert policy['metadata']['name'] == 'default'
    assert netpol.BASELINE.endswith('/' + policy['metadata']['name'])


def test_project_namespaces_are_refused_to_each_other_both_ways():
    spec = _isolation()['spec']
    projects = spec['subject']['namespaces']
    # Every rule denies the subject's own namespaces; nothing else.
    assert [(r['action'], r['from']) for r in spec['ingress']] == [
        ('Deny', [{'namespaces': projects}])]
    assert [(r['action'], r['to']) for r in spec['egress']] == [
        ('Deny', [{'namespaces': projects}])]


def test_projects_are_every_namespace_but_the_systems_and_shared_ones():
    projects = _isolation()['spec']['subject']['namespaces']
    # No matchLabels: a namespace the syncer creates bare is selected.
    assert 'matchLabels' not in projects
    assert sorted((e['key'], e['operator'], tuple(e['values']))
                  for e in projects['matchExpressions']) == [
        (netpol.SHARED_LABEL, 'NotIn', ('true',)),
        ('kubernetes.io/metadata.name', 'NotIn',
         ('kube-system', 'kube-public', 'kube-node-lease'))]


def test_selector_string_is_the_label_selector_syntax():
    assert netpol.selector_string(
        _isolation()['spec']['subject']['namespaces']) == (
        'kubernetes.io/metadata.name notin '
        '(kube-node-lease,kube-public,kube-system),'
        'heat-k8s.io/shared notin (true)')
    assert netpol.selector_string({
        'matchLabels': {'b': '2', 'a': '1'},
        'matchExpressions': [
            {'key': 'c', 'operator': 'In', 'values': ['y', 'x']},
            {'key': 'd', 'operator': 'Exists'},
            {'key': 'e', 'operator': 'DoesNotExist'}]}) == (
        'a=1,b=2,c in (x,y),d,!e')


def test_isolation_args_enforce_the_baseline_and_the_default():
    args = netpol.isolation_args({'matchLabels': {'p': 'y'}})
    assert args == ['--baseline-admin-network-policy',
                    '--project-namespaces=p=y',
                    '--shared-namespaces=heat-k8s.io/shared=true',
                    '--own-pods-policy=allow-same-namespace']


def test_the_shipped_own_pods_policy_is_the_controllers_default():
    # What the controller gives each namespace (isolation_args' flags).
    policy = _shipped('own-pods')['NetworkPolicy']
    assert policy['metadata']['name'] == netpol.OWN_PODS_POLICY
    assert 'namespace' not in policy['metadata']   # any project's
    assert policy['spec'] == {
        'podSelector': {}, 'policyTypes': ['Ingress'],
        'ingress': [{'from': [
            # A compute node's pods are admitted only by what serves them.
            {'podSelector': {'matchExpressions': [
                {'key': 'heat-k8s.io/privileged',
                 'operator': 'DoesNotExist'}]}},
            {'namespaceSelector': {'matchLabels': {
                netpol.SHARED_LABEL: 'true'}}}]}]}


def test_apply_installs_the_crd_then_the_shipped_isolation(monkeypatch):
    calls = []

    class Cluster:
        def request(self, method, path, body=None, content_type=None):
            calls.append((method, path.split('?')[0]))
            if path == netpol.BASELINE:
                return _isolation()
            return {'status': {'conditions': [
                {'type': 'Established', 'status': 'True'}]}}

        def apply_manifest(self, name):
            calls.append(('apply', name))

    monkeypatch.setattr(netpol, '_crd_file', lambda: os.devnull)
    subject = netpol.apply(Cluster(), lambda check, what: check())
    assert subject == _isolation()['spec']['subject']['namespaces']
    crd = netpol.CRD + netpol.BASELINE_CRD
    assert calls[-4:] == [('PATCH', crd), ('GET', crd),
                          ('apply', 'isolation'), ('GET', netpol.BASELINE)]


def test_crd_established_reads_its_condition():
    assert netpol.crd_established({'status': {'conditions': [
        {'type': 'NamesAccepted', 'status': 'True'},
        {'type': 'Established', 'status': 'True'}]}})
    assert not netpol.crd_established({'status': {'conditions': [
        {'type': 'Established', 'status': 'False'}]}})
    assert not netpol.crd_established({})
    # As the API server answers at first.
    assert not netpol.crd_established({'status': {'conditions': None}})


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


def test_members_get_nothing_of_the_isolation_nor_the_namespace():
    rules = keystone_auth.CLUSTER_ROLES['member']
    assert not [r for r in rules
                if 'policy.networking.k8s.io' in r['apiGroups']]
    # The namespace object (its labels decide what is shared): read only.
    assert [r['verbs'] for r in rules if 'namespaces' in r['resources']] == [
        ['get']]


def test_a_changed_main_is_built_again(tmp_path, monkeypatch):
    from tools.lc import paths
    from tools.lc.builds import go
    monkeypatch.setattr(paths, 'GOMOD_DIR', str(tmp_path))
    [component] = [c for c in go.COMPONENTS if c.name == netpol.NAME]
    (tmp_path / netpol.NAME).mkdir()
    main = tmp_path / netpol.NAME / 'main.go'
    main.write_text('package main\n')
    versions = {component.version_key: '0.8.0'}
    before = go.bin_dir(component, versions)
    main.write_text('package main // changed\n')
    after = go.bin_dir(component, versions)
    assert before != after
    assert os.path.basename(after).startswith(netpol.NAME + '-v0.8.0-')
    # Upstream's own main: keyed by its version alone.
    [etcd] = [c for c in go.COMPONENTS if c.name == 'etcd']
    assert os.path.basename(go.bin_dir(etcd, {etcd.version_key: '3.6.16'}))\
        == 'etcd-v3.6.16'
