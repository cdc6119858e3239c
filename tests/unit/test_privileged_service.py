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

"""OS::HeatK8s::PrivilegedService on Kubernetes: the yaql expressions of
templates/services/kubernetes/privileged-service.yaml evaluated by yaql
as Heat's `yaql` function runs them, on hand-made parameters: the pod's
volumes, mounts, environment, one privileged container per process, and
the replicas' host names. tests/e2e/test_compute_cloud.py runs it on the
real node (Nova's compute node)."""

import os

import yaml
import yaql

TEMPLATE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'templates', 'services', 'kubernetes',
    'privileged-service.yaml')
HANDMADE_SHARED = ['/run/libvirt', '/var/lib/libvirt']
HANDMADE_STATE = ['/var/lib/nova']
HANDMADE_FILES = {'/var/lib/kolla/config_files/compute-node.sh': '#!/bin/sh'}
HANDMADE_TEMPLATES = {'/etc/nova/nova.conf': '[DEFAULT]'}
HANDMADE_PROCESSES = [
    {'name': 'libvirtd', 'command': ['sh', 'node.sh', 'libvirtd'],
     'health_check': ['virsh', 'version']},
    {'name': 'virtlogd', 'command': ['sh', 'node.sh', 'virtlogd']}]


class _NoDates(yaml.SafeLoader):
    """YAML as Heat reads it: heat_template_version stays a string."""


_NoDates.yaml_implicit_resolvers = {
    key: [r for r in resolvers if r[0] != 'tag:yaml.org,2002:timestamp']
    for key, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}


def _template():
    with open(TEMPLATE) as f:
        return yaml.load(f, Loader=_NoDates)  # noqa: S506 (a SafeLoader)


def _evaluate(function, data):
    engine = yaql.factory.YaqlFactory().create()
    return engine(function['yaql']['expression']).evaluate(
        context=yaql.create_context(), data={'data': data})


def _pod():
    return _template()['resources']['pod']['properties']['value']


def _mounts():
    return _evaluate(_pod()['volume_mounts'], {
        'config': HANDMADE_FILES, 'secret': HANDMADE_TEMPLATES,
        'shared': HANDMADE_SHARED, 'state': HANDMADE_STATE})


def test_each_shared_path_is_a_volume_of_its_own():
    volumes = _evaluate(_pod()['volumes'], {
        'config': 'cm', 'secret': 'sec', 'shared': HANDMADE_SHARED})
    assert volumes == [
        {'name': 'config', 'configMap': {'name': 'cm'}},
        {'name': 'secret-files', 'secret': {'secretName': 'sec'}},
        {'name': 'shared-0', 'emptyDir': {}},
        {'name': 'shared-1', 'emptyDir': {}}]


def test_files_are_mounted_read_only_shared_and_state_paths_writable():
    assert _mounts() == [
        {'name': 'config',
         'mountPath': '/var/lib/kolla/config_files/compute-node.sh',
         'readOnly': True,
         'subPath': 'var_lib_kolla_config_files_compute-node.sh'},
        {'name': 'secret-files', 'mountPath': '/etc/nova/nova.conf',
         'readOnly': True, 'subPath': 'file.etc_nova_nova.conf'},
        {'name': 'shared-0', 'mountPath': '/run/libvirt'},
        {'name': 'shared-1', 'mountPath': '/var/lib/libvirt'},
        {'name': 'state-0', 'mountPath': '/var/lib/nova'}]


def test_each_state_path_is_a_claim_the_replica_keeps():
    claims = _evaluate(_pod()['volume_claims'], {
        'state': HANDMADE_STATE, 'size': '10Gi',
        'labels': {'app.kubernetes.io/name': 'nova-compute'}})
    # No storageClassName: the cluster's default class.
    assert claims == [{
        'metadata': {'name': 'state-0',
                     'labels': {'app.kubernetes.io/name': 'nova-compute'}},
        'spec': {'accessModes': ['ReadWriteOnce'],
                 'resources': {'requests': {'storage': '10Gi'}}}}]
    assert _evaluate(_pod()['volume_claims'], {
        'state': [], 'size': '10Gi', 'labels': {}}) == []
    spec = _template()['resources']['statefulset']['properties']['spec']
    assert spec['volumeClaimTemplates'] == {
        'get_attr': ['pod', 'value', 'volume_claims']}
    # Kept across a pod's replacement, not the replica's end.
    assert spec['persistentVolumeClaimRetentionPolicy'] == {
        'whenDeleted': 'Delete', 'whenScaled': 'Delete'}


def test_every_process_gets_the_pods_address():
    env = _evaluate(_pod()['env'], {'OVN_SB_DB': 'tcp:10.96.0.9:6642'})
    assert env == [
        {'name': 'POD_IP',
         'valueFrom': {'fieldRef': {'fieldPath': 'status.podIP'}}},
        {'name': 'OVN_SB_DB', 'value': 'tcp:10.96.0.9:6642'}]


def test_one_privileged_container_per_process():
    spec = _template()['resources']['statefulset']['properties']['spec']
    env = [{'name': 'POD_IP', 'value': 'x'}]
    containers = _evaluate(spec['template']['spec']['containers'], {
        'image': 'nova-compute:34.0.0', 'env': env, 'mounts': _mounts(),
        'processes': HANDMADE_PROCESSES})
    assert [c['name'] for c in containers] == ['libvirtd', 'virtlogd']
    for container, process in zip(containers, HANDMADE_PROCESSES):
        assert container['image'] == 'nova-compute:34.0.0'
        assert container['args'] == process['command']
        assert container['securityContext'] == {'privileged': True}
        # A daemon that exits says why in the resource's failure.
        assert container['terminationMessagePolicy'] == (
            'FallbackToLogsOnError')
        assert container['env'] == env
        assert container['volumeMounts'] == _mounts()
    assert containers[0]['readinessProbe']['exec'] == {
        'command': ['virsh', 'version']}
    assert 'readinessProbe' not in containers[1]


def test_one_replica_per_node():
    spec = _template()['resources']['statefulset']['properties']['spec']
    [term] = spec['template']['spec']['affinity']['podAntiAffinity'][
        'requiredDuringSchedulingIgnoredDuringExecution']
    assert term['topologyKey'] == 'kubernetes.io/hostname'
    assert term['labelSelector'] == {'matchLabels': spec['selector'][
        'matchLabels']}


def test_the_hosts_are_the_statefulsets_pod_names():
    hosts = _template()['outputs']['hosts']['value']
    assert _evaluate(hosts, {'n': 2, 'name': 'nova-compute'}) == [
        'nova-compute-0', 'nova-compute-1']
    assert _evaluate(hosts, {'n': 0, 'name': 'nova-compute'}) == []


def test_its_pods_tolerate_their_roles_dedicated_nodes_only():
    # A node given to the role is tainted heat-k8s.io/dedicated=<role>;
    # nothing else, and no other role's nodes; and only when the operator
    # says the nodes are dedicated (the isolation then wants the
    # namespace's label).
    pod = _pod()
    condition, tolerations, without = pod['tolerations']['if']
    assert condition == 'on_dedicated_nodes'
    assert _template()['conditions'][condition] == {
        'and': ['has_placement', {'get_param': 'dedicated'}]}
    assert _template()['parameters']['dedicated']['default'] is False
    assert tolerations == [{'key': 'heat-k8s.io/dedicated',
                            'operator': 'Equal',
                            'value': {'get_param': 'placement'},
                            'effect': 'NoSchedule'}]
    assert without == []
    spec = _template()['resources']['statefulset']['properties']['spec']
    assert spec['template']['spec']['tolerations'] == {
        'get_attr': ['pod', 'value', 'tolerations']}
