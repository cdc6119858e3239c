# Copyright 2026 heat-k8s developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The cluster manifests ship in the package (heat_k8s/manifests/), once:
read through importlib.resources, and in the wheel pbr builds from the
checkout, which is what an installation from PyPI has."""

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
import yaml

from heat_k8s import manifests

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def _git(*args, cwd=REPO):
    return subprocess.run(['git', *args], cwd=cwd, check=True,
                          capture_output=True, text=True).stdout


def _checkout_files():
    """The checkout's files as pbr sees them (tracked, and new ones not
    ignored)."""
    return _git('ls-files', '--cached', '--others', '--exclude-standard',
                '-z').split('\0')[:-1]


@pytest.mark.parametrize('name', sorted(manifests.FILES))
def test_each_manifest_is_objects_kubectl_applies(name):
    docs = [d for d in yaml.safe_load_all(manifests.text(name)) if d]
    assert docs
    assert all(d['apiVersion'] and d['kind'] and d['metadata']['name']
               for d in docs)


def test_the_isolation_keeps_the_operators_labels_to_the_operator():
    # What it refuses is checked on a real API server
    # (tests/functional/test_namespace_labels.py); here, its wiring.
    docs = _isolation('heat-k8s-namespace-labels')
    policy = docs['ValidatingAdmissionPolicy']
    binding = docs['ValidatingAdmissionPolicyBinding']['spec']
    assert binding['policyName'] == policy['metadata']['name']
    assert binding['validationActions'] == ['Deny']
    assert 'matchResources' not in binding   # every namespace
    assert policy['spec']['failurePolicy'] == 'Fail'
    [rule] = policy['spec']['matchConstraints']['resourceRules']
    assert rule['operations'] == ['CREATE', 'UPDATE']
    assert rule['resources'] == ['namespaces', 'namespaces/status',
                                 'namespaces/finalize']
    # The group the policy admits is the one the shipped RBAC lets patch.
    group = docs['ClusterRoleBinding']['subjects'][0]['name']
    operator = {v['name']: v['expression']
                for v in policy['spec']['variables']}['operator']
    assert "'system:masters', '%s'" % group in operator
    assert docs['ClusterRole']['rules'] == [{
        'apiGroups': [''], 'resources': ['namespaces'],
        'verbs': ['get', 'list', 'watch', 'patch', 'update']}]


def test_the_isolation_keeps_dedicated_nodes_to_their_namespaces():
    # What it refuses is checked on a real API server
    # (tests/functional/test_namespace_labels.py); here, its wiring.
    docs = _isolation('heat-k8s-dedicated-nodes')
    policy = docs['ValidatingAdmissionPolicy']['spec']
    binding = docs['ValidatingAdmissionPolicyBinding']['spec']
    assert binding['validationActions'] == ['Deny']
    assert policy['failurePolicy'] == 'Fail'
    [rule] = policy['matchConstraints']['resourceRules']
    assert (rule['operations'], rule['resources']) == (
        ['CREATE', 'UPDATE'], ['pods'])
    # The project namespaces: those the baseline isolates.
    [baseline] = [d for d in yaml.safe_load_all(manifests.text('isolation'))
                  if d and d['kind'] == 'BaselineAdminNetworkPolicy']
    assert policy['matchConstraints']['namespaceSelector'] == (
        baseline['spec']['subject']['namespaces'])
    # Its grant is a label the operator's alone.
    labels = _isolation('heat-k8s-namespace-labels')[
        'ValidatingAdmissionPolicy']['spec']['variables']
    assert "k.startsWith('dedicated.heat-k8s.io/')" in {
        v['name']: v['expression'] for v in labels}['changed']
    granted = {v['name']: v['expression']
               for v in policy['variables']}['granted']
    assert ".substring(%d)" % len('dedicated.heat-k8s.io/') in granted


def _isolation(policy):
    """The isolation manifest's documents that belong to `policy` (its
    ValidatingAdmissionPolicy and binding) and the others, by kind."""
    docs = {}
    for doc in yaml.safe_load_all(manifests.text('isolation')):
        if doc and (not doc['kind'].startswith('ValidatingAdmission') or
                    doc['metadata']['name'] == policy):
            docs[doc['kind']] = doc
    return docs


def test_one_copy_of_each_in_the_checkout():
    files = _checkout_files()
    for filename in manifests.FILES.values():
        assert [f for f in files if os.path.basename(f) == filename] == [
            'heat_k8s/manifests/' + filename]


@pytest.mark.skipif(not os.path.isdir(os.path.join(REPO, '.git')) and
                    not os.path.isfile(os.path.join(REPO, '.git')),
                    reason='not a git checkout: pbr lists files with git')
# pyproject.toml's build backend; pbr before 6.1 (py3-lower's) has none.
@pytest.mark.skipif(importlib.util.find_spec('pbr') is None or
                    importlib.util.find_spec('pbr.build') is None,
                    reason="pyproject.toml's build backend, pbr.build, "
                           'is not installed here')
def test_the_wheel_holds_them(tmp_path):
    # A copy of the checkout as its own repository: pbr builds in the
    # tree, which the test environments running at once share.
    src = tmp_path / 'src'
    for name in _checkout_files():
        target = src / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(os.path.join(REPO, name), target)
    _git('init', '-q', cwd=src)
    _git('add', '-A', cwd=src)
    built = subprocess.run(
        [sys.executable, '-m', 'pip', 'wheel', '--no-deps', '--no-index',
         '--no-build-isolation', '-q', '-w', str(tmp_path / 'dist'),
         str(src)], capture_output=True, text=True,
        env=dict(os.environ, PBR_VERSION='0.0.0'))
    if built.returncode and (
            "No module named 'pkg_resources'" in built.stderr):
        # A series' pbr with a setuptools that dropped pkg_resources
        # (py3-2025.2's) builds nothing: the newest series builds it.
        pytest.skip("this environment's pbr imports pkg_resources, which "
                    'its setuptools no longer has')
    assert built.returncode == 0, built.stdout + built.stderr
    [wheel] = (tmp_path / 'dist').iterdir()
    with zipfile.ZipFile(wheel) as z:
        for name, filename in manifests.FILES.items():
            assert z.read('heat_k8s/manifests/' + filename).decode() == \
                manifests.text(name)
        assert 'heat_k8s/manifests/__init__.py' in z.namelist()
    # The sdist's list (pbr's, from git) has them too.
    sources = (src / 'heat_k8s.egg-info' / 'SOURCES.txt').read_text()
    for filename in manifests.FILES.values():
        assert 'heat_k8s/manifests/%s\n' % filename in sources
