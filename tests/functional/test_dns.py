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

"""Cluster DNS: our CoreDNS build answers for the session's cluster.

CoreDNS runs on the host with the cloud's own Corefile, bound to
127.0.0.1 on free ports and reading the cluster through the admin
kubeconfig; the objects that run it on the real node are checked by the
API server with a server-side dry run.
"""

import ipaddress
import os
import secrets
import socket
import struct
import subprocess
import urllib.error
import urllib.parse
import urllib.request

import kubernetes
import pytest

from tests.functional import cloud
from tools.lc.builds import go
from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import dns

HOST = '127.0.0.1'
NOERROR, NXDOMAIN, REFUSED = 0, 3, 5


def _free_port():
    # DNS needs the port free for UDP and TCP alike.
    while True:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as tcp:
            tcp.bind((HOST, 0))
            port = tcp.getsockname()[1]
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
                try:
                    udp.bind((HOST, port))
                except OSError:
                    continue
            return port


def _skip_name(data, pos):
    while data[pos]:
        if data[pos] & 0xC0 == 0xC0:   # a compression pointer ends it
            return pos + 2
        pos += data[pos] + 1
    return pos + 1


def query_a(name, port, timeout=2):
    """(rcode, [IPv4 addresses]) of an A query over UDP."""
    qid = secrets.randbelow(1 << 16)
    qname = b''.join(bytes([len(label)]) + label.encode()
                     for label in name.rstrip('.').split('.')) + b'\0'
    message = struct.pack('!6H', qid, 0x0100, 1, 0, 0, 0) + qname + \
        struct.pack('!2H', 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout)
        sock.sendto(message, (HOST, port))
        data = sock.recv(4096)
    rid, flags, _, answers, _, _ = struct.unpack('!6H', data[:12])
    assert rid == qid
    pos, addresses = 12 + len(qname) + 4, []
    for _ in range(answers):
        pos = _skip_name(data, pos)
        rtype, _, _, length = struct.unpack('!2HIH', data[pos:pos + 10])
        pos += 10
        if rtype == 1:
            addresses.append(socket.inet_ntoa(data[pos:pos + 4]))
        pos += length
    return flags & 0xF, addresses


def _http_ok(port, path):
    url = 'http://%s:%d%s' % (HOST, port, path)
    try:
        with urllib.request.urlopen(url, timeout=2) as resp:  # noqa: S310
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


@pytest.fixture(scope='module')
def coredns(cluster, tmp_path_factory):
    """The DNS port of our CoreDNS serving the session's cluster."""
    versions = go.read_versions()
    component = next(c for c in go.COMPONENTS if c.name == 'coredns')
    binary = os.path.join(go.bin_dir(component, versions), 'coredns')
    assert os.access(binary, os.X_OK), (
        '%s is not built: run tools/localcloud build' % binary)
    workdir = tmp_path_factory.mktemp('coredns')
    port, health, ready = _free_port(), _free_port(), _free_port()
    corefile = workdir / 'Corefile'
    corefile.write_text(dns.corefile(
        listen='%s:%d' % (HOST, port), health='%s:%d' % (HOST, health),
        ready='%s:%d' % (HOST, ready),
        kubeconfig=os.path.join(cluster['state_dir'], 'kubeconfig')))
    log = open(workdir / 'coredns.log', 'w+')
    proc = subprocess.Popen([binary, '-conf', str(corefile)], stdout=log,
                            stderr=subprocess.STDOUT)
    try:
        # The ready plugin answers 200 once the Kubernetes caches synced.
        cloud.wait_until(lambda: proc.poll() is not None or _http_ok(
            ready, '/ready'), 'CoreDNS /ready', 30)
        log.seek(0)
        assert proc.poll() is None, 'CoreDNS exited:\n' + log.read()
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()


def test_a_service_resolves_by_name(coredns, admin, namespace):
    core = kubernetes.client.CoreV1Api(admin)
    name = 'web.%s.svc.cluster.local' % namespace
    # Asked before it exists: that NXDOMAIN must not be cached (30 s).
    assert query_a(name, coredns) == (NXDOMAIN, [])
    service = core.create_namespaced_service(namespace, {
        'metadata': {'name': 'web'},
        'spec': {'selector': {'app': 'web'},
                 'ports': [{'name': 'http', 'port': 80}]}})
    # The answer comes from CoreDNS's watch of Services.
    rcode, addresses = cloud.wait_until(
        lambda: (lambda r: r[0] == NOERROR and r)(query_a(name, coredns)),
        name, 10)
    assert addresses == [service.spec.cluster_ip]


def test_the_api_service_resolves(coredns):
    first = ipaddress.ip_network(controlplane.SERVICE_CIDR)[1]
    assert query_a('kubernetes.default.svc.cluster.local', coredns) == (
        NOERROR, [str(first)])


def test_an_unknown_service_is_nxdomain(coredns, namespace):
    assert query_a('nothing.%s.svc.cluster.local' % namespace,
                   coredns) == (NXDOMAIN, [])


def test_names_outside_the_cluster_are_refused_not_forwarded(coredns):
    assert query_a('deb.debian.org', coredns) == (REFUSED, [])


def test_the_api_server_accepts_the_node_objects(cluster):
    api = controlplane.Cluster(cluster['state_dir'])
    for obj in dns.manifests():
        query = urllib.parse.urlencode({
            'fieldManager': dns.FIELD_MANAGER, 'dryRun': 'All',
            'fieldValidation': 'Strict', 'force': 'true'})
        applied = api.request('PATCH', dns.object_path(obj) + '?' + query,
                              obj, 'application/apply-patch+yaml')
        assert applied['kind'] == obj['kind']
        assert applied['metadata']['name'] == obj['metadata']['name']
        if obj['kind'] == 'Service':
            assert applied['spec']['clusterIP'] == '10.0.0.10'
