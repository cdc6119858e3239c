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

"""Workloads that really run: the demo answers, pods stay confined.

`tools/localcloud demo` creates the example on the real node and fetches
its page through the web Service on 127.0.0.1; project members cannot run
what would be root on the host, an operator-marked namespace can.
"""

import json
import os
import re
import time
import urllib.request
import uuid

import pytest

from tests.e2e import stacks
from tests.functional import cloud

PRIVILEGED_POD = {
    'apiVersion': 'v1', 'kind': 'Pod',
    'metadata': {'name': 'rooted'},
    'spec': {'containers': [{
        'name': 'c', 'image': 'localhost/heat-k8s/base:bookworm',
        'imagePullPolicy': 'Never', 'command': ['sleep', '600'],
        'securityContext': {'privileged': True},
        'volumeMounts': [{'name': 'host', 'mountPath': '/host'}]}],
        'volumes': [{'name': 'host', 'hostPath': {'path': '/'}}]},
}


def admin_kubectl(localcloud, *args, stdin=None, check=True):
    result = cloud.run(['kubectl', *args], input=stdin, check=check,
                       env=localcloud.env, timeout=120)
    return result


def test_demo_serves_the_page_on_loopback(localcloud):
    name = 'e2e-demo-' + uuid.uuid4().hex[:6]
    try:
        result = cloud.localcloud(localcloud.state_dir, 'demo',
                                  '--stack-name', name, check=False)
        out = result.stdout + result.stderr
        assert result.returncode == 0, out
        match = re.search(r'the site answers at (http://127\.0\.0\.1:\d+/): '
                          r'HTTP 200, "([^"]*)"', out)
        assert match, out
        # The page really comes from the web pods, through the Service:
        # the home page exists only once the migration Job ran.
        with urllib.request.urlopen(  # noqa: S310 (http on loopback)
                match.group(1), timeout=10) as resp:
            page = resp.read().decode()
        assert resp.status == 200
        assert '<title>' in page and match.group(2) in page
        assert 'Welcome to your new Wagtail site' in page
        pods = json.loads(admin_kubectl(
            localcloud, 'get', 'pods', '-A', '-o', 'json',
            '-l', 'app.kubernetes.io/instance=' + name).stdout)['items']
        assert pods and {p['spec']['nodeName'] for p in pods} == {'node-0'}
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name,
                       check=False)


@pytest.fixture
def tokens(localcloud):
    return {user: localcloud.token(user)['id'] for user in ('demo',)}


def test_members_cannot_run_privileged_pods(localcloud, tokens):
    ns = localcloud.projects['demo']
    result = cloud.run(['kubectl', '--kubeconfig=/dev/null',
                        '--server=' + localcloud.api_url,
                        '--certificate-authority=' + localcloud.ca_file,
                        '--token=' + tokens['demo'], '-n', ns, 'create',
                        '-f', '-'], input=json.dumps(PRIVILEGED_POD),
                       check=False, env=localcloud.env, timeout=120)
    assert result.returncode != 0
    assert 'violates PodSecurity "baseline:latest"' in result.stderr
    assert 'privileged' in result.stderr and 'hostPath' in result.stderr


def test_an_operator_marked_namespace_admits_privileged_pods(localcloud):
    ns = 'e2e-privileged-' + uuid.uuid4().hex[:6]
    admin_kubectl(localcloud, 'create', 'namespace', ns)
    try:
        refused = admin_kubectl(localcloud, '-n', ns, 'create', '-f', '-',
                                stdin=json.dumps(PRIVILEGED_POD),
                                check=False)
        assert 'violates PodSecurity' in refused.stderr
        admin_kubectl(localcloud, 'label', 'namespace', ns,
                      'pod-security.kubernetes.io/enforce=privileged')
        admin_kubectl(localcloud, '-n', ns, 'create', '-f', '-',
                      stdin=json.dumps(PRIVILEGED_POD))
    finally:
        admin_kubectl(localcloud, 'delete', 'namespace', ns, '--wait=false',
                      check=False)


PRIVILEGED_SERVICE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(
        __file__)))), 'templates', 'services', 'kubernetes',
    'privileged-service.yaml')


def test_a_privileged_service_outside_a_marked_namespace_fails_soon(
        localcloud, tmp_path):
    # Pod Security refuses the StatefulSet's pod to its controller, which
    # retries for ever: the resource fails after [kubernetes]
    # pending_grace (120 s) in the admission's words, not at the timeout.
    params = tmp_path / 'params.yaml'
    params.write_text(json.dumps({'parameters': {
        'name': 'privileged', 'image': 'localhost/heat-k8s/memcached:1.6',
        'processes': [{'name': 'one', 'command': ['sleep', 'infinity']}],
        'target': {'namespace': '', 'cluster': '',
                   'placement_label': 'role', 'deployment': 'refused'}}}))
    heat = stacks.Heat(localcloud)
    name = stacks.unique('privileged')
    started = time.monotonic()
    created = localcloud.openstack(
        'stack', 'create', '--timeout', '10', '-t', PRIVILEGED_SERVICE,
        '-e', str(params), name)
    try:
        shown = heat.wait(created['id'], timeout=600)
        waited = time.monotonic() - started
        assert shown.stack_status == 'CREATE_FAILED'
        reason = shown.stack_status_reason
        # The grace is 120 s; the check that finds it passed may be a
        # second or two later ("no progress for 121s").
        assert re.search(r'failed: no progress for 12\ds', reason), reason
        assert ('is forbidden: violates PodSecurity "baseline:latest": '
                'privileged') in reason, reason
        # The grace's words, not the timeout's ("not ready after").
        print('\nprivileged pods refused: CREATE_FAILED after %.0fs'
              % waited)
    finally:
        stacks.delete(localcloud, heat, created['id'])
