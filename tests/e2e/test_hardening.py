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

"""A project member against its neighbours on the shared cluster: no
Service taking other addresses over (DenyServiceExternalIPs), no raw
socket in a project's pod (heat_k8s/manifests/cluster-hardening.yaml drops
NET_RAW).
"""

import json
import uuid

import pytest

from tests.functional import cloud
from tools.lc.builds import recipes

# As root, a raw IP socket and a packet socket: what forging addresses on
# the pods' bridge needs (each line says opened, or the error).
RAW_PROBE = '''
import os, socket
print('uid', os.getuid())
for name, family, proto in (('inet', socket.AF_INET, socket.IPPROTO_ICMP),
                            ('packet', socket.AF_PACKET, 0)):
    try:
        socket.socket(family, socket.SOCK_RAW, proto).close()
        print(name, 'opened')
    except OSError as exc:
        print(name, exc.strerror)
'''
DENIED = 'Operation not permitted'


def raw_socket_pod(name):
    """A root pod of the wagtail image (the example's: it has python3)."""
    return {'apiVersion': 'v1', 'kind': 'Pod',
            'metadata': {'name': name},
            'spec': {'restartPolicy': 'Never',
                     'terminationGracePeriodSeconds': 1,
                     'containers': [{
                         'name': 'probe', 'image': recipes.ref('wagtail'),
                         'imagePullPolicy': 'Never',
                         'command': ['python3', '-c', RAW_PROBE],
                         'securityContext': {'runAsUser': 0}}]}}


def external_ips_service(name):
    return {'apiVersion': 'v1', 'kind': 'Service',
            'metadata': {'name': name},
            'spec': {'selector': {'app': name},
                     'ports': [{'port': 80}],
                     # Another tenant's (or the host's) address.
                     'externalIPs': ['10.85.0.1']}}


@pytest.fixture
def member(localcloud):
    token = localcloud.token('demo')['id']
    namespace = localcloud.projects['demo']

    def kubectl(*args, stdin=None):
        return cloud.run(['kubectl', '--kubeconfig=/dev/null',
                          '--server=' + localcloud.api_url,
                          '--certificate-authority=' + localcloud.ca_file,
                          '--token=' + token, '-n', namespace, *args],
                         input=stdin, check=False, env=localcloud.env,
                         timeout=120)
    kubectl.namespace = namespace
    return kubectl


def admin_kubectl(localcloud, *args, stdin=None):
    return cloud.run(['kubectl', *args], input=stdin, env=localcloud.env,
                     timeout=180)


def probe_output(localcloud, namespace, name):
    admin_kubectl(localcloud, '-n', namespace, 'wait', '--timeout=120s',
                  '--for=jsonpath={.status.phase}=Succeeded', 'pod/' + name)
    out = admin_kubectl(localcloud, '-n', namespace, 'logs', name).stdout
    return dict(line.split(' ', 1) for line in out.splitlines())


def test_a_members_external_ips_service_is_refused(localcloud, member):
    name = 'e2e-extip-' + uuid.uuid4().hex[:6]
    service = external_ips_service(name)
    refused = member('create', '-f', '-', stdin=json.dumps(service))
    assert refused.returncode != 0
    assert 'Use of external IPs is denied by admission control' in (
        refused.stderr), refused.stderr
    # The member may create the Service itself: only its externalIPs go.
    del service['spec']['externalIPs']
    created = member('create', '-f', '-', stdin=json.dumps(service))
    try:
        assert created.returncode == 0, created.stderr
        patched = member('patch', 'service', name, '--type=merge', '-p',
                         json.dumps({'spec': {'externalIPs': ['10.85.0.1']}}))
        assert patched.returncode != 0
        assert 'Use of external IPs is denied' in patched.stderr
    finally:
        member('delete', 'service', name, '--ignore-not-found')


def test_a_project_pod_cannot_open_raw_sockets(localcloud, member):
    name = 'e2e-raw-' + uuid.uuid4().hex[:6]
    created = member('create', '-f', '-',
                     stdin=json.dumps(raw_socket_pod(name)))
    assert created.returncode == 0, created.stderr
    try:
        got = json.loads(member('get', 'pod', name, '-o', 'json').stdout)
        [c] = got['spec']['containers']
        assert c['securityContext']['capabilities'] == {'drop': ['NET_RAW']}
        assert probe_output(localcloud, member.namespace, name) == {
            'uid': '0', 'inet': DENIED, 'packet': DENIED}
    finally:
        member('delete', 'pod', name, '--wait=false')


def test_the_probe_opens_them_where_the_operator_allows(localcloud):
    # The same pod in a namespace the operator labelled privileged (the
    # policy leaves it alone): the probe sees NET_RAW when it is there.
    ns = 'e2e-rawok-' + uuid.uuid4().hex[:6]
    admin_kubectl(localcloud, 'create', 'namespace', ns)
    try:
        admin_kubectl(localcloud, 'label', 'namespace', ns,
                      'pod-security.kubernetes.io/enforce=privileged')
        # Pods are refused until the serviceaccount controller made it.
        cloud.wait_until(lambda: cloud.run(
            ['kubectl', '-n', ns, 'get', 'serviceaccount', 'default'],
            check=False, env=localcloud.env).returncode == 0,
            'the default service account of ' + ns)
        admin_kubectl(localcloud, '-n', ns, 'create', '-f', '-',
                      stdin=json.dumps(raw_socket_pod('probe')))
        assert probe_output(localcloud, ns, 'probe') == {
            'uid': '0', 'inet': 'opened', 'packet': 'opened'}
    finally:
        admin_kubectl(localcloud, 'delete', 'namespace', ns, '--wait=false')
