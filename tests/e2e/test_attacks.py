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

"""A project the cloud did not make, as an attacker would use it.

An operator adds a Keystone project and a member after the cloud is up
(`third_project`, module-scoped, for every attack here); k8s-keystone-auth's
syncer creates its namespace bare on the member's first request. The
cluster's isolation (heat_k8s/manifests/project-isolation.yaml and the
controller's default NetworkPolicy) must refuse its pods' connections to
`demo`, and `demo`'s to it, on a Service address as on a pod's, while its
own pods, the cluster DNS and the API server stay reachable; and the member
can change none of it. Without the isolation the refused connections open (the
module was run once with the baseline and the default policies deleted and
the controller started without them: doc/source/localcloud.rst).

From the same project, the other ways issue 34 found in: a fingerprint
computed offline from public inputs (the computation is checked against
the operator's own key, so it is the product's), a derived form of a
generated value in a render error (the value read back from the member's
own Secret), a Magnum cluster that would receive the member's token.
The cluster's own hardening (externalIPs, NET_RAW) is in
tests/e2e/test_hardening.py.
"""

import base64
import configparser
import json
import os
import time
import uuid

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf import hkdf
import pytest
import yaml

from heat_k8s import manifests
from heat_k8s.secrecy import digests
from heat_k8s.secrecy import keyring
from tests.e2e import connect
from tests.e2e import controlplane_clients as clients
from tests.e2e import projects
from tests.e2e import regions
from tests.e2e import stacks
from tests.functional import cloud

PORT = 8080
# A TCP server in Debian's base image (perl-base is essential there).
SERVE = ('use IO::Socket::INET; my $s = IO::Socket::INET->new('
         'LocalPort => %d, Listen => 64, ReuseAddr => 1) or die $!; '
         'while (1) { my $c = $s->accept or next; print $c "ok\\n"; '
         'close $c }' % PORT)
DEFAULT_POLICY = projects.DEFAULT_POLICY
BASELINE = 'baselineadminnetworkpolicy.policy.networking.k8s.io/default'
DROPPED = 124  # timeout(1): the SYN was dropped until CONNECT_TIMEOUT
REFUSED_ANSWER = 'Forbidden'
# Seconds after which the controller knows a new pod's address.
LEARNT = 2


admin_kubectl = projects.admin_kubectl


@pytest.fixture(scope='module')
def third_project(localcloud, tmp_path_factory):
    """A project (and its member) an operator adds once the cloud is up,
    with the namespace k8s-keystone-auth's syncer created for it and the
    NetworkPolicy the cluster gave that namespace."""
    with projects.new_project(localcloud, 'e2e-third',
                              str(tmp_path_factory.mktemp('third'))) as made:
        yield made


def _serve(localcloud, token, namespace, name):
    """A TCP server pod and its Service; (Service address, pod address)."""
    labels = {'app': name}
    pod = connect.probe_pod(name, [], labels=labels)
    pod['spec']['containers'][0]['command'] = ['perl', '-e', SERVE]
    service = {'apiVersion': 'v1', 'kind': 'Service',
               'metadata': {'name': name},
               'spec': {'selector': labels,
                        'ports': [{'port': PORT, 'protocol': 'TCP'}]}}
    for obj in (pod, service):
        result = localcloud.kubectl(token, '-n', namespace, 'create', '-f',
                                    '-', stdin=json.dumps(obj))
        assert result.returncode == 0, result.stderr

    def running():
        shown = json.loads(localcloud.kubectl(
            token, '-n', namespace, 'get', 'pod', name, '-o', 'json',
            check=True).stdout)
        ready = [c for c in shown['status'].get('conditions', ())
                 if c['type'] == 'Ready' and c['status'] == 'True']
        return ready and shown['status']['podIP']
    cloud.wait_until(running, 'server %s/%s' % (namespace, name),
                     timeout=90, interval=1)
    service = json.loads(localcloud.kubectl(
        token, '-n', namespace, 'get', 'service', name, '-o', 'json',
        check=True).stdout)
    return service['spec']['clusterIP'], running()


@pytest.fixture(scope='module')
def servers(localcloud, third_project):
    """A server (pod and Service) in `demo` and in the third project:
    {project: (token, namespace, Service address, pod address)}."""
    demo_token = localcloud.token('demo')['id']
    demo_ns = localcloud.projects['demo']
    name = 'server-' + uuid.uuid4().hex[:6]
    sides = {}
    try:
        sides['demo'] = (demo_token, demo_ns) + _serve(
            localcloud, demo_token, demo_ns, name)
        sides['third'] = (third_project.token(), third_project.namespace) + (
            _serve(localcloud, third_project.token(),
                   third_project.namespace, name))
        yield sides
    finally:
        for token, namespace in ((demo_token, demo_ns),
                                 (third_project.token(),
                                  third_project.namespace)):
            localcloud.kubectl(token, '-n', namespace, 'delete', 'pod,service',
                               name, '--wait=false', '--ignore-not-found')


def _probes(localcloud, servers, tries, delay=0):
    """Run {pod name: (from project, to project, 'service' or 'pod')} at
    once; {pod name: exit code}."""
    pods = {}
    for name, (source, target, kind) in tries.items():
        token, namespace = servers[source][:2]
        address = servers[target][2 if kind == 'service' else 3]
        pods[token, namespace, name] = connect.connect_pod(
            name, address, PORT, delay=delay)
    return connect.run_pods(localcloud, pods)


def _names(*parts):
    suffix = uuid.uuid4().hex[:6]
    return ['%s-%s' % (part, suffix) for part in parts]


def test_the_syncer_made_the_namespace_bare(localcloud, third_project):
    """The namespace is the syncer's, with no label of the operator's: the
    cluster selects it by what it is not."""
    namespace = json.loads(admin_kubectl(
        localcloud, 'get', 'namespace', third_project.namespace,
        '-o', 'json').stdout)
    assert set(namespace['metadata'].get('labels', {})) == {
        'kubernetes.io/metadata.name'}
    policy = json.loads(third_project.kubectl(
        'get', 'networkpolicy', DEFAULT_POLICY, '-o', 'json').stdout)
    # The controller's, which is the policy the package ships.
    [shipped] = [d for d in yaml.safe_load_all(manifests.text('own-pods'))
                 if d]
    assert policy['spec']['ingress'] == shipped['spec']['ingress']


def _service_and_pod(localcloud, servers, source, target):
    """Exit codes of a connection from source's pods to target's Service
    and to its pod: (to the Service, to the pod)."""
    to_service, to_pod = _names('%s-to-%s-svc' % (source, target),
                                '%s-to-%s-pod' % (source, target))
    codes = _probes(localcloud, servers, {
        to_service: (source, target, 'service'),
        to_pod: (source, target, 'pod')})
    return codes[to_service], codes[to_pod]


def test_the_new_project_reaches_no_other(localcloud, servers):
    assert _service_and_pod(localcloud, servers, 'third', 'demo') == (
        DROPPED, DROPPED)


def test_no_other_project_reaches_the_new_one(localcloud, servers):
    assert _service_and_pod(localcloud, servers, 'demo', 'third') == (
        DROPPED, DROPPED)


def test_the_new_projects_own_pods_reach_each_other(localcloud, servers):
    assert _service_and_pod(localcloud, servers, 'third', 'third') == (0, 0)


def test_the_new_project_resolves_names_and_reaches_the_api(
        localcloud, third_project):
    dns, api = _names('third-dns', 'third-api')
    api_name = 'kubernetes.default.svc.cluster.local'
    token, namespace = third_project.token(), third_project.namespace
    codes = connect.run_pods(localcloud, {
        (token, namespace, dns): connect.probe_pod(
            dns, ['getent', 'hosts', api_name]),
        (token, namespace, api): connect.connect_pod(api, api_name, 443)})
    assert codes == {dns: 0, api: 0}


def test_the_member_cannot_change_the_isolation(localcloud, third_project):
    """Neither the cluster's policy nor what makes a namespace shared."""
    tries = [
        ('delete', BASELINE),
        ('patch', BASELINE, '--type=merge', '-p', '{"spec": {"ingress": []}}'),
        ('label', 'namespace', third_project.namespace,
         'heat-k8s.io/shared=true'),
        ('label', 'namespace', third_project.namespace,
         'kubernetes.io/metadata.name=kube-system', '--overwrite'),
    ]
    for args in tries:
        result = third_project.kubectl(*args)
        assert result.returncode != 0, args
        assert REFUSED_ANSWER in result.stderr, (args, result.stderr)
    # Still in force, unchanged.
    policy = json.loads(admin_kubectl(localcloud, 'get', BASELINE,
                                      '-o', 'json').stdout)
    assert policy['spec']['ingress'][0]['action'] == 'Deny'


def _both_ways(localcloud, servers, label, target, delay=0):
    """(in, out): the codes of a probe from demo to the third project's
    target (pod or service) and of one back, once the controller's
    informer has seen what the test changed."""
    time.sleep(1)  # the controller's informer
    inbound, outbound = _names('demo-to-' + label, label + '-to-demo')
    codes = _probes(localcloud, servers, {
        inbound: ('demo', 'third', target),
        outbound: ('third', 'demo', target)}, delay=delay)
    return codes[inbound], codes[outbound]


def test_a_project_opens_only_itself(localcloud, servers, third_project):
    """The member may open its own namespace to every other (a
    NetworkPolicy of the namespace is its owners' consent); that opens no
    other project to it."""
    opened = 'open-to-all-' + uuid.uuid4().hex[:6]
    policy = {'apiVersion': 'networking.k8s.io/v1', 'kind': 'NetworkPolicy',
              'metadata': {'name': opened},
              'spec': {'podSelector': {}, 'policyTypes': ['Ingress'],
                       'ingress': [{'from': [{'namespaceSelector': {}}]}]}}
    result = third_project.kubectl('create', '-f', '-',
                                   stdin=json.dumps(policy))
    assert result.returncode == 0, result.stderr
    try:
        assert _both_ways(localcloud, servers, 'opened', 'service') == (
            0, DROPPED)
    finally:
        third_project.kubectl('delete', 'networkpolicy', opened)


def test_without_its_default_a_project_is_still_closed(
        localcloud, servers, third_project):
    """The member deletes the namespace's default (its right): the
    cluster's baseline still refuses both ways, once the controller knows
    the probe pods' addresses (the baseline admits a pod it does not know
    yet: doc/source/limitations.rst), hence their delay."""
    shown = json.loads(third_project.kubectl(
        'get', 'networkpolicy', DEFAULT_POLICY, '-o', 'json').stdout)
    deleted = third_project.kubectl('delete', 'networkpolicy',
                                    DEFAULT_POLICY)
    assert deleted.returncode == 0, deleted.stderr
    try:
        assert _both_ways(localcloud, servers, 'bare', 'pod',
                          delay=LEARNT) == (DROPPED, DROPPED)
    finally:
        restored = {'apiVersion': 'networking.k8s.io/v1',
                    'kind': 'NetworkPolicy',
                    'metadata': {'name': DEFAULT_POLICY,
                                 'labels': shown['metadata']['labels']},
                    'spec': shown['spec']}
        third_project.kubectl('create', '-f', '-',
                              stdin=json.dumps(restored))


# -- keys: a fingerprint computed offline from public inputs --

# Roots anyone can compute (keyring.PUBLIC_ROOTS, which no digest_key may
# be): from the empty value and Heat's sample auth_encryption_key, hashed
# as the fallback did, and the key of references made before key ids.
PUBLIC_ROOTS = sorted(keyring.PUBLIC_ROOTS)
GUESS = 'password123'   # the first word of any dictionary


def _offline_fingerprint(value, project, root):
    """A fingerprint as heat-engine makes it (sensitive.fingerprint),
    computed outside the cloud from a digest root."""
    key = hkdf.HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                    info=('heat-k8s v2 %s %s' % (keyring.FINGERPRINT,
                                                 project)).encode()
                    ).derive(root)
    return '<redacted:%s>' % digests.content({'v': value}, key=key)[:16]


def _cloud_digest_root(localcloud):
    """The digest key the operator configured (heat.conf): what only the
    operator knows, to show the offline computation is the product's."""
    conf = configparser.ConfigParser(interpolation=None)
    conf.read(os.path.join(localcloud.state_dir, 'heat', 'heat.conf'))
    return keyring.parse(conf['heat_k8s']['digest_key'])


def test_no_fingerprint_computed_offline_from_public_inputs(
        localcloud, third_project):
    preview = third_project.openstack(
        'stack', 'create', '--dry-run', '-f', 'json', '-t',
        stacks.template('tenant-borrow.yaml'), '--parameter',
        'secret=' + GUESS, stacks.unique('guess'))
    assert GUESS not in preview.stdout
    borrowed, = [r for r in json.loads(preview.stdout)['resources']
                 if r['resource_name'] == 'borrowed']
    shown = borrowed['properties']['string_data']['password']
    # The computation is right: with the operator's key it gives what
    # Heat showed...
    assert shown == _offline_fingerprint(
        GUESS, third_project.id, _cloud_digest_root(localcloud))
    # ...and from every public root, something else.
    assert shown not in [_offline_fingerprint(GUESS, third_project.id, root)
                         for root in PUBLIC_ROOTS]


# -- errors: a derived form of a value the member cannot read in Heat --

def _spellings(value):
    """The forms a template or a container could make of a value."""
    b64 = base64.b64encode(value.encode()).decode()
    return {value, value[::-1], value.upper(), value.lower(), b64,
            b64.rstrip('='), value.encode().hex(), value[:8], value[-8:],
            value[::-1][:8]}


def test_no_derived_form_of_a_value_in_errors(localcloud, third_project):
    name = stacks.unique('derived')
    created = third_project.openstack(
        'stack', 'create', '--wait', '-t',
        stacks.template('attack-derived.yaml'), name, check=False)
    try:
        assert created.returncode != 0, created.stdout
        shown = json.loads(third_project.openstack(
            'stack', 'show', '-f', 'json', name).stdout)
        events = third_project.openstack(
            'stack', 'event', 'list', '-f', 'json', name).stdout
        said = '\n'.join((created.stdout, created.stderr, json.dumps(shown),
                          events))
        # The render failed where and as it should...
        assert 'app.conf, line 2' in said, said
        # ...and says nothing of the value the member's Secret holds.
        secret = json.loads(third_project.kubectl(
            'get', 'secret', '-l', 'heat.openstack.org/resource-name='
            'written', '-o', 'json').stdout)['items']
        value = base64.b64decode(
            secret[0]['data']['password']).decode()
        assert len(value) == 32
        assert [form for form in _spellings(value) if form in said] == []
    finally:
        third_project.openstack('stack', 'delete', '--yes', '--wait', name,
                                check=False)


# -- the token: never sent where a project decides --

def test_a_magnum_cluster_gets_no_token(third_project, tmp_path):
    """A cluster the member names (a Magnum cluster, whose api_address its
    owner decides) is refused before any request carries the member's
    token: the operator has not turned Magnum clusters on (the token
    check once they are on: tests/unit/test_client_exposure.py)."""
    path = tmp_path / 'magnum.yaml'
    path.write_text(json.dumps({
        'heat_template_version': '2021-04-16',
        'resources': {'conf': {
            'type': 'OS::Kubernetes::ConfigMap',
            'properties': {'data': {'k': 'v'}, 'cluster': 'theirs'}}}}))
    result = third_project.openstack(
        'orchestration', 'template', 'validate', '-t', str(path),
        check=False)
    said = result.stdout + result.stderr
    assert result.returncode != 0, said
    assert '[kubernetes] allow_magnum_clusters' in said, said


def test_a_region_stack_takes_over_none_of_the_providers_catalog(
        localcloud, third_project, tmp_path):
    """(Issue 52) A control plane registered in the provider's own region
    (the local cloud's RegionOne, where its Keystone is listed): the first
    registration refuses, naming the provider's endpoint, before it
    changes anything; the provider's endpoints are the same after the
    create and after the delete, and the stack leaves nothing."""
    before = regions.endpoints(localcloud, 'RegionOne')
    ours = {i for i, (kind, _, _) in before.items() if kind == 'identity'}
    name, prefix = _names('takeover', 'tk')
    prefix += '-'
    try:
        _, shown = regions.create(localcloud, third_project, str(tmp_path),
                                  name, {'prefix': prefix,
                                         'region': 'RegionOne'},
                                  regions.GLANCE_ENVS, 600)
        reason = shown.stack_status_reason
        assert shown.stack_status == 'CREATE_FAILED', reason
        assert 'region RegionOne already lists ' in reason, reason
        assert ("(not marked as any heat-k8s stack's): kept; name another "
                'region') in reason, reason
        assert any(i in reason for i in ours), (reason, ours)
        assert regions.endpoints(localcloud, 'RegionOne') == before
    finally:
        third_project.openstack('stack', 'delete', '-y', '--wait', name,
                                check=False)
    assert regions.endpoints(localcloud, 'RegionOne') == before
    clients.assert_nothing_left(localcloud, name, prefix,
                                env=third_project.env)
