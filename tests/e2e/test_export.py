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

"""A way out: a stack's objects exported as plain manifests, applied to a
fresh namespace with kubectl, come back as the same objects.

The export runs as the demo user, with this tree's heat_k8s: as
`heat-k8s-export` (run by this Python) and as `openstack stack kubernetes
export` (the cloud's `openstack`, shown this tree's entry point in a
dist-info of its own, written from setup.cfg: the installed heat-k8s's
metadata is the main checkout's).
"""

import base64
import configparser
import json
import os
import sys
import uuid

import pytest
import yaml

from heat_k8s.export import manifests
from tests.e2e import identity as tt
from tests.e2e import stacks
from tests.e2e.conftest import CLI_TIMEOUT
from tests.functional import cloud

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SECRET_VALUE = 'e2e-export-secret-value'  # templates/export.yaml
COMMAND_GROUP = 'openstack.orchestration.v1'


@pytest.fixture(scope='module')
def entry_points(tmp_path_factory):
    """A directory with a dist-info declaring setup.cfg's command group."""
    setup = configparser.ConfigParser()
    setup.read(os.path.join(REPO, 'setup.cfg'))
    root = tmp_path_factory.mktemp('entry-points')
    info = root / 'heat_k8s_export_e2e-0.dist-info'
    info.mkdir()
    (info / 'METADATA').write_text(
        'Metadata-Version: 2.1\nName: heat-k8s-export-e2e\nVersion: 0\n')
    (info / 'entry_points.txt').write_text('[%s]%s\n' % (
        COMMAND_GROUP, setup['entry_points'][COMMAND_GROUP]))
    return str(root)


@pytest.fixture
def export(localcloud, entry_points):
    """Run the export as os_cloud; `openstack` picks the command."""
    def run(*args, os_cloud='demo', openstack=False):
        argv = (['openstack', 'stack', 'kubernetes', 'export'] if openstack
                else [sys.executable, '-m', 'heat_k8s.cmd.exportstack'])
        path = [REPO, entry_points] + [
            p for p in [localcloud.env.get('PYTHONPATH')] if p]
        return cloud.run(argv + list(args), check=False,
                         timeout=CLI_TIMEOUT,
                         env=dict(localcloud.env, OS_CLOUD=os_cloud,
                                  PYTHONPATH=os.pathsep.join(path)))
    return run


@pytest.fixture
def exported(export):
    def run(*args, **kwargs):
        result = export(*args, **kwargs)
        assert result.returncode == 0, result.stderr
        return result.stdout, list(yaml.safe_load_all(result.stdout))
    return run


@pytest.fixture(scope='module')
def stack(localcloud):
    name = stacks.unique('e2e-export')
    app = stacks.unique('exp')
    try:
        created = tt.stack_create(localcloud, name, [], [
            'app=' + app], template=stacks.template('export.yaml'))
        assert created['stack_status'] == 'CREATE_COMPLETE', (
            tt.failures(localcloud, name))
        yield name
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name,
                       check=False)


@pytest.fixture
def fresh_namespace(localcloud):
    namespace = stacks.unique('e2e-export-copy')
    tt.admin_kubectl(localcloud, 'create', 'namespace', namespace)
    yield namespace
    tt.admin_kubectl(localcloud, 'delete', 'namespace', namespace,
                     '--wait=false')


def comments(text):
    """The resource comment of each document, in order."""
    return [line[len('# resource '):].split(' ')[0]
            for line in text.splitlines() if line.startswith('# resource ')]


def content(obj):
    """What an object is, where it is aside: plain, without its namespace."""
    obj = manifests.plain(obj)
    obj['metadata'].pop('namespace', None)
    return obj


def test_export_applies_to_a_fresh_namespace(localcloud, stack, exported,
                                             fresh_namespace):
    text, docs = exported('--namespace', fresh_namespace,
                          '--include-secret-values', stack)
    assert [d['kind'] for d in docs] == [
        'Secret', 'Service', 'ConfigMap', 'ConfigMap', 'Deployment']
    assert {d['metadata']['namespace'] for d in docs} == {fresh_namespace}
    tt.admin_kubectl(localcloud, 'apply', '-f', '-', stdin=text)

    for doc in docs:
        kind, name = doc['kind'], doc['metadata']['name']
        copy = stacks.kubectl(localcloud, 'get', kind, name, '-n',
                              fresh_namespace)
        original = [o for o in stacks.kubectl(
            localcloud, 'get', kind, '--all-namespaces')['items']
            if o['metadata']['name'] == name and
            o['metadata']['namespace'] != fresh_namespace]
        assert len(original) == 1, (kind, name)
        assert content(copy) == content(original[0]), (kind, name)
        assert 'heat.openstack.org/stack-id' not in json.dumps(copy)
    secret = [d for d in docs if d['kind'] == 'Secret'][0]
    assert base64.b64decode(secret['data']['password']).decode() == (
        SECRET_VALUE)
    # The copy works: its pods mount the copied ConfigMap and Secret.
    web = [d for d in docs if d['kind'] == 'Deployment'][0]
    tt.admin_kubectl(localcloud, 'rollout', 'status', '-n', fresh_namespace,
                     'deployment/' + web['metadata']['name'], '--timeout=60s')


def test_dependency_order_nested_stacks_included(stack, exported):
    text, docs = exported(stack)
    order = comments(text)
    assert sorted(order) == ['credentials', 'extras.tuning', 'frontend',
                             'settings', 'web']
    # web needs settings and credentials; extras (tuning) needs frontend.
    for needed, needer in (('settings', 'web'), ('credentials', 'web'),
                           ('frontend', 'extras.tuning')):
        assert order.index(needed) < order.index(needer), order
    for doc in docs:
        meta = doc['metadata']
        assert not set(meta) & {'uid', 'resourceVersion', 'managedFields',
                                'creationTimestamp'}, meta
        assert 'status' not in doc
    service = [d for d in docs if d['kind'] == 'Service'][0]
    assert 'clusterIP' not in service['spec']


def test_secret_values_only_when_asked(stack, exported):
    text, docs = exported(stack)
    encoded = base64.b64encode(SECRET_VALUE.encode()).decode()
    assert SECRET_VALUE not in text and encoded not in text
    secret = [d for d in docs if d['kind'] == 'Secret'][0]
    assert secret['data'] == {'password': ''}
    assert manifests.VALUES_OMITTED in secret['metadata']['annotations']
    assert 'Secret values omitted' in text
    asked, _ = exported('--include-secret-values', stack)
    assert encoded in asked


def test_openstack_client_command(stack, exported):
    text, docs = exported('--namespace', 'elsewhere', stack,
                          openstack=True)
    assert len(docs) == 5
    assert {d['metadata']['namespace'] for d in docs} == {'elsewhere'}
    assert SECRET_VALUE not in text


def _one_line_refusal(result, wanted):
    assert result.returncode != 0, result.stdout
    assert result.stdout == ''
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and wanted in lines[0], result.stderr


@pytest.mark.parametrize('openstack', [False, True], ids=['script', 'osc'])
def test_a_stack_the_caller_cannot_see(stack, export, openstack):
    _one_line_refusal(export(stack, os_cloud='other',
                             openstack=openstack), 'not found')
    _one_line_refusal(export('e2e-no-such-' + uuid.uuid4().hex,
                             openstack=openstack), 'not found')


def test_a_stack_without_kubernetes_resources(localcloud, export,
                                               tmp_path):
    path = tmp_path / 'none.yaml'
    path.write_text(yaml.safe_dump({
        'heat_template_version': '2021-04-16',
        'resources': {'nothing': {'type': 'OS::Heat::None'}}}))
    name = stacks.unique('e2e-export-none')
    try:
        stacks.openstack_wait(localcloud, 'create', '-t', str(path), name)
        _one_line_refusal(export(name),
                          'has no Kubernetes resources')
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name,
                       check=False)
