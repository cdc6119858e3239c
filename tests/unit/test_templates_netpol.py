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

"""The Kubernetes service templates' NetworkPolicy, read from the YAML:
who may connect to a service's pods (tests/e2e/test_templates.py shows
it enforced)."""

from tests.unit import hot

LABEL = 'heat-k8s.io/deployment'
PRIVILEGED = 'heat-k8s.io/privileged'
DEPLOYMENT_ID = {'get_param': ['target', 'deployment']}


def _service():
    return hot.load('services', 'kubernetes', 'container-service.yaml')


def test_the_host_names_the_deployment_by_its_stack_id():
    host = hot.load('hosts', 'kubernetes.yaml')
    target = host['outputs']['target']['value']
    assert target['deployment'] == {'get_param': 'OS::stack_id'}


def test_the_policy_selects_exactly_the_services_pods():
    resources = _service()['resources']
    policy = resources['network_policy']
    assert policy['type'] == 'OS::Kubernetes::Resource'
    manifest = policy['properties']['manifest']
    assert manifest['kind'] == 'NetworkPolicy'
    selector = resources['deployment']['properties']['spec']['selector']
    assert manifest['spec']['podSelector'] == selector
    assert manifest['spec']['policyTypes'] == ['Ingress']


def test_only_the_deployments_pods_reach_the_ports_unless_public():
    spec = _service()['resources']['network_policy']['properties'][
        'manifest']['spec']
    service_rule, member_rule = spec['ingress']
    # A worker that listens on nothing admits nothing (Heat drops an
    # item whose two-argument `if` is false).
    condition, rule = service_rule['if']
    assert condition == 'has_ports'
    ports, sources = rule['map_merge']
    assert ports['ports']['yaql']['data'] == {'get_param': 'ports'}
    assert 'protocol => "TCP"' in ports['ports']['yaql']['expression']
    condition, public, private = sources['if']
    assert condition == 'is_public'
    assert public == {}  # no `from`: any source, on the ports only
    assert private == {'from': [{'podSelector': {
        'matchLabels': {LABEL: DEPLOYMENT_ID},
        'matchExpressions': {'if': [
            {'get_param': 'privileged_clients'}, [],
            [{'key': PRIVILEGED, 'operator': 'DoesNotExist'}]]}}}]}
    # A cluster's peer ports: from its own members alone.
    condition, rule = member_rule['if']
    assert condition == 'has_member_ports'
    assert rule['ports']['yaql'] == {'expression': ports['ports']['yaql'][
        'expression'], 'data': {'get_param': 'member_ports'}}
    selector = _service()['resources']['deployment']['properties']['spec'][
        'selector']
    assert rule['from'] == [{'podSelector': selector}]


def test_privileged_pods_carry_their_label_and_reach_only_their_services():
    # A compute node hosts tenants' guests: the deployment's database,
    # memcached and OVN's northbound database refuse it.
    privileged = hot.load('services', 'kubernetes', 'privileged-service.yaml')
    statefulset = privileged['resources']['statefulset']['properties'][
        'spec']
    labels = statefulset['template']['metadata']['labels']['map_merge']
    assert {LABEL: DEPLOYMENT_ID, PRIVILEGED: 'true'} in labels
    assert PRIVILEGED not in statefulset['selector']['matchLabels']
    serving = set()
    for name in ('controlplane.yaml', 'neutron.yaml', 'nova.yaml',
                 'glance.yaml', 'placement.yaml', 'identity.yaml'):
        for res_name, res in hot.load(name)['resources'].items():
            if res.get('properties', {}).get('privileged_clients'):
                serving.add(res_name)
    assert serving == {'rabbitmq', 'ovn_sb'}
    docker = hot.load('services', 'docker', 'container-service.yaml')
    assert 'privileged_clients' in docker['parameters']


def test_pods_start_behind_their_policy():
    deployment = _service()['resources']['deployment']
    assert 'network_policy' in deployment['depends_on']


def test_every_pod_of_a_deployment_carries_its_label():
    resources = _service()['resources']
    labels = resources['deployment']['properties']['spec']['template'][
        'metadata']['labels']['map_merge']
    assert {LABEL: DEPLOYMENT_ID} in labels
    # Not in the selector: a Deployment's selector cannot change.
    assert LABEL not in resources['deployment']['properties']['spec'][
        'selector']['matchLabels']
    bootstrap = resources['bootstrap']['properties']['spec']['template']
    assert bootstrap['metadata']['labels'][LABEL] == DEPLOYMENT_ID
    task = hot.load('services', 'kubernetes', 'container-task.yaml')
    job = task['resources']['job']['properties']['spec']['template']
    assert job['metadata']['labels'][LABEL] == DEPLOYMENT_ID


def test_replicas_spread_over_nodes_and_leave_one_at_a_time():
    resources = _service()['resources']
    spec = resources['deployment']['properties']['spec']
    selector = spec['selector']
    [spread] = spec['template']['spec']['topologySpreadConstraints']
    # Soft: one node (or the others drained) still takes every replica;
    # cordoned and kwok nodes (tainted) are no domain to spread to.
    assert spread == {'maxSkew': 1,
                      'topologyKey': 'kubernetes.io/hostname',
                      'whenUnsatisfiable': 'ScheduleAnyway',
                      'nodeTaintsPolicy': 'Honor',
                      'labelSelector': selector}
    budget = resources['disruption_budget']
    assert budget['condition'] == 'is_replicated'
    manifest = budget['properties']['manifest']
    assert manifest['kind'] == 'PodDisruptionBudget'
    assert manifest['spec'] == {'maxUnavailable': 1, 'selector': selector}
    condition = _service()['conditions']['is_replicated']
    cases = {(0, 0): False, (0, 1): False, (0, 2): True, (1, 3): False,
             (2, 1): True, (3, 0): True}
    for (members, replicas), replicated in cases.items():
        assert hot.evaluate(condition, members=members,
                            replicas=replicas) is replicated, (members,
                                                               replicas)
