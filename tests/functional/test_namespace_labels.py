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

"""Labels only the operator sets, on the session's real API server: the
ValidatingAdmissionPolicy of heat_k8s/manifests/project-isolation.yaml,
which the local cloud applies with the isolation.

The member holds a RoleBinding in their namespace to a wildcard ClusterRole
(`*` on `*`, as operators' clusters often grant), so RBAC lets them patch
their namespace; only the policy keeps heat-k8s.io/shared and Pod
Security's labels from them. The member is a ServiceAccount with a token
of its own; the operator is a user the admin impersonates in the group
heat-k8s:namespace-admins (the install guide's recipe). Run once with the
binding left out of the manifest, every refusal here failed.

The labels grant what the second policy of the manifest reads: a pod may
tolerate the taint of nodes dedicated to a role (heat-k8s.io/dedicated)
only in a namespace the operator labelled dedicated.heat-k8s.io/<role>.
"""

import json
import uuid

import kubernetes
import pytest
import yaml

from heat_k8s import manifests
from tests.functional import cloud
from tests.functional.conftest import api_client

POLICY = 'heat-k8s-namespace-labels'
DEDICATED_POLICY = 'heat-k8s-dedicated-nodes'
DEDICATED = 'dedicated.heat-k8s.io/'
GROUP = 'heat-k8s:namespace-admins'
SHARED = 'heat-k8s.io/shared'
ENFORCE = 'pod-security.kubernetes.io/enforce'
VERSION = 'pod-security.kubernetes.io/enforce-version'
RBAC = 'rbac.authorization.k8s.io'


def _id():
    return uuid.uuid4().hex[:8]


def _shipped(kind, name=POLICY):
    [doc] = [d for d in yaml.safe_load_all(manifests.text('isolation'))
             if d and d['kind'] == kind and d['metadata']['name'] == name]
    return doc


def _with_token(admin, token):
    """A client of the admin's API server presenting `token` instead."""
    config = kubernetes.client.Configuration()
    config.host = admin.configuration.host
    config.ssl_ca_cert = admin.configuration.ssl_ca_cert
    config.api_key = {'authorization': 'Bearer ' + token}
    return kubernetes.client.ApiClient(config)


@pytest.fixture(scope='module')
def wildcard_role(admin):
    rbac = kubernetes.client.RbacAuthorizationV1Api(admin)
    name = 'test-wildcard-' + _id()
    rbac.create_cluster_role({'metadata': {'name': name}, 'rules': [
        {'apiGroups': ['*'], 'resources': ['*'], 'verbs': ['*']}]})
    yield name
    rbac.delete_cluster_role(name)


@pytest.fixture
def member(admin, namespace, wildcard_role):
    """CoreV1Api of a ServiceAccount bound in `namespace` to `*` on `*`."""
    core = kubernetes.client.CoreV1Api(admin)
    core.create_namespaced_service_account(
        namespace, {'metadata': {'name': 'member'}})
    kubernetes.client.RbacAuthorizationV1Api(
        admin).create_namespaced_role_binding(namespace, {
            'metadata': {'name': 'member-wildcard'},
            'roleRef': {'apiGroup': RBAC, 'kind': 'ClusterRole',
                        'name': wildcard_role},
            'subjects': [{'kind': 'ServiceAccount', 'name': 'member',
                          'namespace': namespace}]})
    token = core.create_namespaced_service_account_token(
        'member', namespace,
        {'spec': {'expirationSeconds': 600}}).status.token
    client = _with_token(admin, token)
    yield kubernetes.client.CoreV1Api(client)
    client.close()


@pytest.fixture
def impersonated(cluster):
    """CoreV1Api of a user (in a group), as the admin impersonates them."""
    clients = []

    def as_user(user, group=None):
        clients.append(api_client(cluster))
        clients[-1].set_default_header('Impersonate-User', user)
        if group:
            clients[-1].set_default_header('Impersonate-Group', group)
        return kubernetes.client.CoreV1Api(clients[-1])
    yield as_user
    for client in clients:
        client.close()


@pytest.fixture
def operator(impersonated):
    return impersonated('operator-' + _id(), GROUP)


@pytest.fixture
def masters(admin):
    """CoreV1Api of the local cloud's admin, in system:masters."""
    return kubernetes.client.CoreV1Api(admin)


def _labels(core, namespace):
    return core.read_namespace(namespace).metadata.labels or {}


def _refusal(call, *args, **kwargs):
    """(HTTP status, the API server's message) of a refused request."""
    with pytest.raises(kubernetes.client.ApiException) as raised:
        call(*args, **kwargs)
    return raised.value.status, json.loads(raised.value.body)['message']


def _accepted(call, *args, **kwargs):
    """Whether the API server did what was asked (False: it refused)."""
    try:
        call(*args, **kwargs)
        return True
    except kubernetes.client.ApiException:
        return False


def _patch(core, namespace, labels):
    """Patch the namespace's labels (a None value removes one)."""
    return core.patch_namespace(namespace, {'metadata': {'labels': labels}})


@pytest.mark.parametrize('name', [POLICY, DEDICATED_POLICY])
def test_the_local_cloud_applied_the_shipped_policy(admin, name):
    registration = kubernetes.client.AdmissionregistrationV1Api(admin)
    policy = registration.read_validating_admission_policy(name)
    binding = registration.read_validating_admission_policy_binding(name)
    shipped = _shipped('ValidatingAdmissionPolicy', name)['spec']
    assert [v.expression for v in policy.spec.validations] == [
        v['expression'] for v in shipped['validations']]
    assert [v.expression for v in policy.spec.variables] == [
        v['expression'] for v in shipped['variables']]
    assert binding.spec.policy_name == name
    assert binding.spec.validation_actions == ['Deny']


def test_the_member_may_patch_their_namespace_with_other_labels(
        masters, member, namespace):
    # RBAC lets the member patch the namespace: what follows is the policy.
    _patch(member, namespace, {'team': 'blue'})
    _patch(member, namespace, {'team': 'green'})
    assert _labels(masters, namespace)['team'] == 'green'
    _patch(member, namespace, {'team': None})
    assert 'team' not in _labels(masters, namespace)


@pytest.mark.parametrize('key,value', [
    (SHARED, 'true'), (ENFORCE, 'privileged'), (DEDICATED + 'compute', 'true'),
    ('pod-security.kubernetes.io/warn', 'privileged')])
def test_the_member_is_refused_the_operators_labels(
        masters, member, namespace, key, value):
    status, message = _refusal(_patch, member, namespace, {key: value})
    assert status == 403
    assert ('namespace %s: %s may be set only by the cluster operator '
            '(group %s)' % (namespace, key, GROUP)) in message
    assert message.endswith('Ask the operator to set it.')
    assert key not in _labels(masters, namespace)


def test_the_member_may_neither_change_nor_remove_them(
        masters, member, namespace):
    set_by_operator = {SHARED: 'true', ENFORCE: 'baseline'}
    _patch(masters, namespace, set_by_operator)
    for labels in ({SHARED: 'false'}, {SHARED: None},
                   {ENFORCE: 'privileged'}, {ENFORCE: None}):
        status, _ = _refusal(_patch, member, namespace, labels)
        assert status == 403, labels
    # Nor in one request with an allowed change, which goes with it.
    status, message = _refusal(_patch, member, namespace,
                               {'team': 'blue', SHARED: None})
    assert status == 403
    assert 'team' not in message    # only what was refused
    labels = _labels(masters, namespace)
    assert {k: labels.get(k) for k in set_by_operator} == set_by_operator
    assert 'team' not in labels


@pytest.mark.parametrize('subresource', ['status', 'finalize'])
def test_nor_through_the_namespaces_subresources(
        masters, member, namespace, subresource):
    # Their updates keep the labels sent (the API server's strategies
    # reset only the spec, or the status).
    ns = member.read_namespace(namespace)
    ns.metadata.labels[SHARED] = 'true'
    replace = getattr(member, 'replace_namespace_' + subresource)
    status, _ = _refusal(replace, namespace, ns)
    assert status == 403
    assert SHARED not in _labels(masters, namespace)


def test_the_member_cannot_join_the_operators_group(
        masters, member, namespace):
    # Impersonation is cluster-wide: no RoleBinding grants it.
    member.api_client.set_default_header('Impersonate-User', 'anyone')
    member.api_client.set_default_header('Impersonate-Group', GROUP)
    status, message = _refusal(_patch, member, namespace, {SHARED: 'true'})
    assert status == 403
    assert 'cannot impersonate' in message
    assert SHARED not in _labels(masters, namespace)


def test_the_operators_group_may_set_change_and_remove_them(
        masters, operator, namespace):
    # The group's own ClusterRoleBinding (shipped) grants the patch.
    _patch(operator, namespace, {SHARED: 'true', ENFORCE: 'privileged'})
    assert _labels(masters, namespace)[SHARED] == 'true'
    _patch(operator, namespace, {ENFORCE: 'baseline'})
    assert _labels(masters, namespace)[ENFORCE] == 'baseline'
    _patch(operator, namespace, {SHARED: None, ENFORCE: None})
    labels = _labels(masters, namespace)
    assert SHARED not in labels and ENFORCE not in labels


def test_so_may_system_masters(masters, namespace):
    # The local cloud's admin kubeconfig, as the API server's loopback.
    _patch(masters, namespace, {SHARED: 'true', ENFORCE: 'privileged'})
    _patch(masters, namespace, {SHARED: None, ENFORCE: None})


def test_anyone_else_rbac_allows_is_refused(admin, impersonated, namespace):
    # The group's ClusterRole, bound to a user rather than the group: RBAC
    # allows the patch, the policy refuses the operator's labels.
    name = 'patcher-' + _id()
    rbac = kubernetes.client.RbacAuthorizationV1Api(admin)
    rbac.create_cluster_role_binding({
        'metadata': {'name': name},
        'roleRef': {'apiGroup': RBAC, 'kind': 'ClusterRole', 'name': GROUP},
        'subjects': [{'apiGroup': RBAC, 'kind': 'User', 'name': name}]})
    try:
        core = impersonated(name)
        _patch(core, namespace, {'team': 'blue'})
        status, _ = _refusal(_patch, core, namespace, {SHARED: 'true'})
        assert status == 403
    finally:
        rbac.delete_cluster_role_binding(name)


@pytest.mark.parametrize('who', ['masters', 'operator'])
def test_an_enforce_version_below_1_34_is_refused_to_everyone(
        request, masters, namespace, who):
    core = request.getfixturevalue(who)
    for pin in ('v1.33', 'v1.0'):
        status, message = _refusal(_patch, core, namespace, {VERSION: pin})
        assert status == 422, pin
        assert ('namespace %s: %s=%s is refused: before v1.34 Pod Security '
                'admits probes' % (namespace, VERSION, pin)) in message
        assert message.endswith('Use latest, or v1.34 or later.')
    for pin in ('v1.34', 'v1.36', 'latest'):
        _patch(core, namespace, {VERSION: pin})
        assert _labels(masters, namespace)[VERSION] == pin


def test_a_bare_namespace_is_created_as_the_syncer_creates_it(
        admin, masters, impersonated):
    # k8s-keystone-auth's syncer creates namespaces bare, with rights of
    # its own (not system:masters in every cluster).
    name = 'syncer-' + _id()
    rbac = kubernetes.client.RbacAuthorizationV1Api(admin)
    rbac.create_cluster_role({'metadata': {'name': name}, 'rules': [
        {'apiGroups': [''], 'resources': ['namespaces'],
         'verbs': ['create', 'get']}]})
    rbac.create_cluster_role_binding({
        'metadata': {'name': name},
        'roleRef': {'apiGroup': RBAC, 'kind': 'ClusterRole', 'name': name},
        'subjects': [{'apiGroup': RBAC, 'kind': 'User', 'name': name}]})
    syncer = impersonated(name)
    try:
        created = syncer.create_namespace({'metadata': {'name': name}})
        # The one label Kubernetes adds, whoever creates it.
        assert created.metadata.labels == {
            'kubernetes.io/metadata.name': name}
        status, _ = _refusal(syncer.create_namespace, {'metadata': {
            'name': name + '-shared', 'labels': {SHARED: 'true'}}})
        assert status == 403
        status, _ = _refusal(masters.create_namespace, {'metadata': {
            'name': name + '-pinned', 'labels': {VERSION: 'v1.33'}}})
        assert status == 422
    finally:
        for made in (name, name + '-shared', name + '-pinned'):
            try:
                masters.delete_namespace(made)
            except kubernetes.client.ApiException as exc:
                if exc.status != 404:
                    raise
        rbac.delete_cluster_role_binding(name)
        rbac.delete_cluster_role(name)


def test_a_pin_made_before_the_policy_stays_until_changed(
        admin, masters, namespace):
    # Let through while it stays as it was, so that a namespace pinned
    # before the policy can still change otherwise, and be deleted (the
    # namespace controller's finalize writes it back as it is).
    registration = kubernetes.client.AdmissionregistrationV1Api(admin)

    def pinnable():   # admission judges a dry run as the real request
        return _accepted(masters.patch_namespace, namespace, {'metadata': {
            'labels': {VERSION: 'v1.32'}}}, dry_run='All')

    registration.delete_validating_admission_policy_binding(POLICY)
    try:
        cloud.wait_until(pinnable, 'the policy lifted')
        _patch(masters, namespace, {VERSION: 'v1.33'})
    finally:
        registration.create_validating_admission_policy_binding(
            _shipped('ValidatingAdmissionPolicyBinding'))
    cloud.wait_until(lambda: not pinnable(), 'the policy in force again')
    _patch(masters, namespace, {'team': 'blue'})
    assert _labels(masters, namespace)[VERSION] == 'v1.33'
    masters.delete_namespace(namespace)
    cloud.wait_until(lambda: not _accepted(masters.read_namespace,
                                           namespace),
                     'namespace %s deleted' % namespace, timeout=120)


def _pod(*tolerations):
    return {'metadata': {'name': 'tolerant-' + _id()},
            'spec': {'containers': [{'name': 'c', 'image': 'pause'}],
                     'tolerations': list(tolerations)}}


def _dedicated(role, operator='Equal'):
    toleration = {'key': 'heat-k8s.io/dedicated', 'operator': operator,
                  'effect': 'NoSchedule'}
    if role is not None:
        toleration['value'] = role
    return toleration


def _admitted(core, namespace, pod):
    """Whether admission lets `pod` be created (a dry run: admission
    judges it as the real request)."""
    return _accepted(core.create_namespaced_pod, namespace, pod,
                     dry_run='All')


def test_a_pod_may_not_tolerate_a_role_its_namespace_was_not_given(
        masters, member, namespace):
    status, message = _refusal(
        member.create_namespaced_pod, namespace,
        _pod(_dedicated('compute')), dry_run='All')
    assert status == 403
    assert ('tolerates heat-k8s.io/dedicated=compute, but namespace %s is '
            'not dedicated to that role' % namespace) in message
    assert message.endswith('Ask the operator, or remove the toleration.')
    # Nor every taint at once, nor every role of the key.
    status, message = _refusal(
        member.create_namespaced_pod, namespace,
        _pod({'operator': 'Exists'}), dry_run='All')
    assert status == 403
    assert 'tolerates every taint' in message
    assert not _admitted(member, namespace,
                         _pod(_dedicated(None, 'Exists')))
    # The cluster's admin is held to it too: the label is the grant.
    assert not _admitted(masters, namespace, _pod(_dedicated('compute')))
    # Other tolerations pass, and so does a pod with none.
    assert _admitted(member, namespace, _pod({
        'key': 'node.kubernetes.io/unreachable', 'operator': 'Exists',
        'effect': 'NoExecute', 'tolerationSeconds': 30}))
    assert _admitted(member, namespace, _pod())


def test_a_namespace_the_operator_dedicates_runs_that_roles_pods_only(
        masters, operator, member, namespace):
    _patch(operator, namespace, {DEDICATED + 'compute': 'true'})
    # Admission reads the namespace from the API server's cache, which
    # follows the patch within moments.
    cloud.wait_until(lambda: _admitted(
        member, namespace, _pod(_dedicated('compute'))), 'the grant seen',
        timeout=10)
    assert not _admitted(member, namespace, _pod(_dedicated('storage')))
    assert not _admitted(member, namespace,
                         _pod(_dedicated(None, 'Exists')))
    # A pod really made, not only judged.
    made = member.create_namespaced_pod(namespace, _pod(
        _dedicated('compute')))
    member.delete_namespaced_pod(made.metadata.name, namespace)
    # The grant goes with the label.
    _patch(operator, namespace, {DEDICATED + 'compute': None})
    cloud.wait_until(lambda: not _admitted(
        member, namespace, _pod(_dedicated('compute'))), 'the grant gone',
        timeout=10)


def test_kubernetes_and_the_shared_namespaces_are_the_operators(
        masters, operator, namespace):
    assert _admitted(masters, 'kube-system', _pod({'operator': 'Exists'}))
    _patch(operator, namespace, {SHARED: 'true'})
    cloud.wait_until(lambda: _admitted(
        masters, namespace, _pod({'operator': 'Exists'})), 'shared seen',
        timeout=10)
