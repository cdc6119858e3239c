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

"""The local cloud's cluster as an operator's should be: the hardening
manifest, its admission flags and its storage."""

import os
import subprocess

import yaml

from heat_k8s import manifests
from tests.unit.fixtures import load
from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import storage


def manifest():
    return {d['kind']: d for d in yaml.safe_load_all(
        manifests.text(controlplane.HARDENING)) if d}


def cluster(tmp_path):
    for name in ('kube-apiserver', 'kube-controller-manager'):
        (tmp_path / name).touch(mode=0o755)
    cluster = controlplane.Cluster(str(tmp_path), bins=[str(tmp_path)])
    cluster.info['tokens_file'] = os.path.join(str(tmp_path), 'tokens.csv')
    return cluster


def test_net_raw_is_dropped_outside_kube_system_and_privileged():
    docs = manifest()
    policy = docs['MutatingAdmissionPolicy']
    binding = docs['MutatingAdmissionPolicyBinding']
    assert binding['spec']['policyName'] == policy['metadata']['name']
    assert policy['spec']['failurePolicy'] == 'Fail'
    [rule] = policy['spec']['matchConstraints']['resourceRules']
    assert rule['resources'] == ['pods', 'pods/ephemeralcontainers']
    # One JSON patch per list of containers (drop is an atomic list).
    expressions = [m['jsonPatch']['expression']
                   for m in policy['spec']['mutations']]
    assert [e.split('.transformList(')[0].split('.')[-1]
            for e in expressions] == [
                'containers', 'initContainers', 'ephemeralContainers']
    assert all("['NET_RAW']" in e for e in expressions)
    assert binding['spec']['matchResources']['namespaceSelector'] == {
        'matchExpressions': [
            {'key': 'kubernetes.io/metadata.name', 'operator': 'NotIn',
             'values': ['kube-system']},
            {'key': 'pod-security.kubernetes.io/enforce', 'operator': 'NotIn',
             'values': ['privileged']}]}


def test_the_shipped_manifest_is_applied_as_an_operator_would(
        tmp_path, monkeypatch):
    applied = []
    monkeypatch.setattr(subprocess, 'run', lambda argv, **kw: applied.append(
        (argv, kw['input'])) or subprocess.CompletedProcess(argv, 0))
    (tmp_path / 'kubectl').touch(mode=0o755)
    cluster(tmp_path).apply_manifest(controlplane.HARDENING)
    [(argv, stdin)] = applied
    assert argv[1:] == ['--kubeconfig=' + str(tmp_path / 'kubeconfig'),
                        'apply', '--server-side', '--field-manager=localcloud',
                        '-f', '-']
    assert stdin == manifests.text('hardening')


def test_the_apiserver_denies_external_ips(tmp_path):
    argv = cluster(tmp_path).argv('kube-apiserver')
    assert '--enable-admission-plugins=DenyServiceExternalIPs' in argv


def test_claims_are_provisioned_by_the_controller_manager(tmp_path):
    argv = cluster(tmp_path).argv('kube-controller-manager')
    assert '--enable-hostpath-provisioner=true' in argv
    assert storage.DEFAULT_CLASS['provisioner'] == 'kubernetes.io/host-path'
    assert storage.DEFAULT_CLASS['metadata']['annotations'] == {
        'storageclass.kubernetes.io/is-default-class': 'true'}


def test_purge_removes_only_the_directories_the_provisioner_made():
    provisioned = load('pv_hostpath_provisioned')
    by_hand = load('pv_hostpath_provisioned')
    del by_hand['metadata']['annotations']
    elsewhere = load('pv_hostpath_provisioned')
    elsewhere['spec']['hostPath']['path'] = '/srv/data'
    assert storage.provisioned_paths([provisioned, by_hand, elsewhere]) == [
        provisioned['spec']['hostPath']['path']]
    assert provisioned['spec']['hostPath']['path'].startswith(
        '/tmp/hostpath_pv/')
