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

"""A clustered ContainerService (`members`) on each backend, and the
control plane's switch to clustered backends (environments/ha.yaml), as
the templates state them; tests/e2e/test_members.py runs them."""

from tests.unit import hot

TOLERATIONS = {'if': ['has_tolerations',
                      {'get_param': 'KubernetesTolerations'}]}


def _kubernetes():
    return hot.load('services', 'kubernetes', 'container-service.yaml')


def test_members_are_a_statefulset_or_replicas_a_deployment():
    resources = _kubernetes()['resources']
    assert resources['deployment']['condition'] == 'not_clustered'
    for name in ('statefulset', 'members_service', 'member_hosts'):
        assert resources[name]['condition'] == 'is_clustered', name
    # One volume for the Deployment's replicas, one per member.
    assert resources['storage_claim']['condition'] == 'shared_storage'
    claims = resources['statefulset']['properties']['spec'][
        'volumeClaimTemplates']
    assert claims['if'][0] == 'member_storage'
    [claim] = claims['if'][1]
    assert claim['metadata'] == {'name': 'data'}
    assert claim['spec'] == resources['storage_claim']['properties']['spec']


def test_a_member_per_node_found_by_name_before_it_is_ready():
    resources = _kubernetes()['resources']
    spec = resources['statefulset']['properties']['spec']
    selector = resources['deployment']['properties']['spec']['selector']
    assert spec['selector'] == selector
    assert spec['replicas'] == {'get_param': 'members'}
    assert spec['podManagementPolicy'] == 'Parallel'
    [anti] = spec['template']['spec']['affinity']['podAntiAffinity'][
        'requiredDuringSchedulingIgnoredDuringExecution']
    assert anti == {'labelSelector': selector,
                    'topologyKey': 'kubernetes.io/hostname'}
    assert spec['serviceName'] == {'get_attr': ['members_service', 'name']}
    headless = resources['members_service']['properties']['spec']
    assert headless['clusterIP'] == 'None'
    assert headless['publishNotReadyAddresses'] is True
    assert headless['selector'] == selector['matchLabels']


def test_each_member_knows_its_name_and_its_peers():
    resources = _kubernetes()['resources']
    hosts = resources['member_hosts']['properties']['value']
    assert hot.evaluate(hosts, n=3, name='memcached',
                        domain='memcached-members.p.svc') == [
        'memcached-0.memcached-members.p.svc',
        'memcached-1.memcached-members.p.svc',
        'memcached-2.memcached-members.p.svc']
    [container] = resources['statefulset']['properties']['spec'][
        'template']['spec']['containers']
    parts = container['map_merge']['list_concat']
    env = parts[-1][0]['env']['list_concat']
    names = [v['name'] for v in env[0]]
    # $(MEMBER_NAME) expands only in a variable defined after it.
    assert names == ['MEMBER_NAME', 'MEMBER', 'MEMBERS']
    assert env[0][1]['value']['list_join'][1][0] == '$(MEMBER_NAME)'
    assert env[1] == {'get_attr': ['pod', 'value', 'env']}


def test_every_pod_takes_the_operators_tolerations():
    resources = _kubernetes()['resources']
    for name in ('bootstrap', 'deployment', 'statefulset'):
        pod = resources[name]['properties']['spec']['template']['spec']
        assert pod['tolerations'] == TOLERATIONS, name
    task = hot.load('services', 'kubernetes', 'container-task.yaml')
    for name in ('job', 'delete_job'):
        pod = task['resources'][name]['properties']['spec']['template'][
            'spec']
        assert pod['tolerations'] == TOLERATIONS, name


def test_one_host_refuses_more_than_one_member_in_so_many_words():
    docker = hot.load('services', 'docker', 'container-service.yaml')
    [constraint] = docker['parameters']['members']['constraints']
    assert constraint['range'] == {'min': 0, 'max': 1}
    assert 'environments/ha.yaml' in constraint['description']
    assert 'needs Kubernetes' in constraint['description']


def test_the_control_plane_lists_every_memcached_member():
    plane = hot.load('controlplane.yaml')
    memcached = plane['resources']['memcached']['properties']
    # Unset unless clustered: a memcached made before stays as it was.
    assert memcached['members'] == {'if': [
        'clustered_backends', {'get_param': 'control_members'}]}
    servers = plane['resources']['shared']['properties']['value'][
        'memcached_servers']
    assert hot.evaluate(servers, members=['m-0.d', 'm-1.d'], port=11211) == [
        'm-0.d:11211', 'm-1.d:11211']
    # memcached switched off: OS::Heat::None's attributes are null.
    assert hot.evaluate(servers, members=None, port=None) == []
    ha = hot.load('..', 'environments', 'ha.yaml')
    assert ha == {'parameter_defaults': {'control_members': 3}}


def test_the_control_plane_clusters_rabbitmq_with_a_cookie_of_its_own():
    plane = hot.load('controlplane.yaml')
    resources = plane['resources']
    rabbitmq = resources['rabbitmq']['properties']
    # Each unset unless clustered: a RabbitMQ made before stays as it was.
    for name in ('members', 'member_ports', 'storage'):
        assert rabbitmq[name]['if'][0] == 'clustered_backends', name
        assert len(rabbitmq[name]['if']) == 2, name
    assert rabbitmq['member_ports']['if'][1] == [
        {'name': 'epmd', 'port': 4369}, {'name': 'dist', 'port': 25672}]
    assert rabbitmq['storage']['if'][1]['path'] == '/var/lib/rabbitmq'
    assert rabbitmq['secrets']['ERLANG_COOKIE'] == {'if': [
        'clustered_backends', {'get_attr': ['messaging_cookie', 'reference']}]}
    cookie = resources['messaging_cookie']
    assert cookie['type'] == 'OS::HeatK8s::RandomSecret'
    assert cookie['condition'] == 'clustered_backends'
