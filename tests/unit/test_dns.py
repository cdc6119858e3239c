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

"""The local cloud's cluster DNS objects and Corefile."""

import os
import re

from tools.lc import paths
from tools.lc.builds import go
from tools.lc.kubernetes import dns

IMAGE = 'localhost/heat-k8s/coredns:9.9.9'


def _by_kind(objs=None):
    objs = objs or dns.manifests(image=IMAGE)
    return {o['kind']: o for o in objs}


def _container():
    spec = _by_kind()['Deployment']['spec']['template']['spec']
    assert len(spec['containers']) == 1
    return spec['containers'][0]


def _directives(corefile):
    """Top-level directives of the server block(s) of a Corefile."""
    return re.findall(r'^ {4}(\w+)', corefile, re.MULTILINE)


def _linked_plugins():
    with open(os.path.join(paths.GOMOD_DIR, 'coredns', 'main.go')) as f:
        return set(re.findall(
            r'_ "github.com/coredns/coredns/plugin/(\w+)"', f.read()))


def test_objects_in_apply_order():
    kinds = [o['kind'] for o in dns.manifests(image=IMAGE)]
    assert kinds == ['ServiceAccount', 'ClusterRole', 'ClusterRoleBinding',
                     'ConfigMap', 'Deployment', 'Service']


def test_namespaced_objects_live_in_kube_system():
    for obj in dns.manifests(image=IMAGE):
        if not obj['kind'].startswith('Cluster'):
            assert obj['metadata']['namespace'] == 'kube-system', obj


def test_default_image_is_the_pinned_version():
    deployment = _by_kind(dns.manifests())['Deployment']
    image = deployment['spec']['template']['spec']['containers'][0]['image']
    version = go.read_versions()['COREDNS_VERSION']
    assert image == 'localhost/heat-k8s/coredns:' + version
    assert image == dns.image_ref()


def test_service_is_kube_dns_on_53_udp_and_tcp():
    service = _by_kind(dns.manifests(service_ip='10.0.0.53',
                                     image=IMAGE))['Service']
    assert service['metadata']['name'] == 'kube-dns'
    assert service['spec']['clusterIP'] == '10.0.0.53'
    assert sorted((p['port'], p['protocol'])
                  for p in service['spec']['ports']) == [
        (53, 'TCP'), (53, 'UDP')]
    assert _by_kind()['Service']['spec']['clusterIP'] == '10.0.0.10'


def test_service_selects_the_pods_and_targets_their_dns_ports():
    objs = _by_kind()
    service, deployment = objs['Service'], objs['Deployment']
    pod_labels = deployment['spec']['template']['metadata']['labels']
    assert service['spec']['selector'].items() <= pod_labels.items()
    assert deployment['spec']['selector']['matchLabels'].items() <= \
        pod_labels.items()
    named = {(p['name'], p['protocol']): p['containerPort']
             for p in _container()['ports']}
    for port in service['spec']['ports']:
        assert named[(port['targetPort'], port['protocol'])] == \
            dns.DNS_PORT


def test_corefile_listens_where_the_container_says():
    corefile = _by_kind()['ConfigMap']['data']['Corefile']
    first = corefile.splitlines()[0]
    assert first == ('cluster.local:1053 in-addr.arpa:1053 '
                     'ip6.arpa:1053 {')
    ports = {p['name']: p['containerPort'] for p in _container()['ports']}
    assert ports['dns'] == dns.DNS_PORT
    assert '    health :%d {' % ports['health'] in corefile
    assert '    ready :%d' % ports['ready'] in corefile


def test_probes_use_the_ready_and_health_plugins():
    container = _container()
    ready = container['readinessProbe']['httpGet']
    live = container['livenessProbe']['httpGet']
    assert (ready['path'], ready['port']) == ('/ready', 'ready')
    assert (live['path'], live['port']) == ('/health', 'health')


def test_the_container_runs_unprivileged():
    context = _container()['securityContext']
    assert context['runAsNonRoot'] is True
    assert context['runAsUser'] != 0
    assert context['allowPrivilegeEscalation'] is False
    assert context['capabilities'] == {'drop': ['ALL']}
    # Without NET_BIND_SERVICE it can only bind an unprivileged port.
    assert all(p['containerPort'] >= 1024 for p in _container()['ports'])


def test_runs_on_the_real_node_only():
    spec = _by_kind()['Deployment']['spec']
    assert spec['replicas'] == 1
    pod = spec['template']['spec']
    assert pod['nodeSelector'] == {'type': 'real'}
    assert 'tolerations' not in pod
    # CoreDNS must not resolve through itself.
    assert pod['dnsPolicy'] == 'Default'


def test_corefile_serves_the_cluster_zone_and_forwards_nothing():
    corefile = dns.corefile('example.internal')
    assert ('    kubernetes example.internal in-addr.arpa ip6.arpa {'
            in corefile)
    assert '        pods insecure' in corefile
    assert 'forward' not in corefile
    assert 'fallthrough' not in corefile
    assert corefile.startswith('example.internal:1053 ')
    assert set(_directives(corefile)) == {
        'errors', 'health', 'ready', 'kubernetes', 'cache', 'loop',
        'reload'}


def test_corefile_for_a_host_binds_an_address_and_reads_a_kubeconfig():
    corefile = dns.corefile(listen='127.0.0.53:5353',
                            health='127.0.0.53:18080',
                            ready='127.0.0.53:18181',
                            kubeconfig='/state/kubeconfig',
                            log_queries=True)
    assert corefile.startswith('cluster.local:5353 in-addr.arpa:5353 ')
    assert '    bind 127.0.0.53\n' in corefile
    assert '    health 127.0.0.53:18080 {' in corefile
    assert '    ready 127.0.0.53:18181\n' in corefile
    assert '        kubeconfig /state/kubeconfig\n' in corefile
    assert '    log\n' in corefile


def test_every_directive_is_linked_into_our_binary():
    corefile = dns.corefile(listen='127.0.0.1:1', kubeconfig='/k',
                            log_queries=True)
    assert set(_directives(corefile)) <= _linked_plugins()


def test_corefile_change_rolls_the_pods():
    def checksum(domain):
        template = _by_kind(dns.manifests(domain, image=IMAGE))[
            'Deployment']['spec']['template']
        return template['metadata']['annotations'][
            'localcloud/corefile-checksum']
    assert checksum('cluster.local') == checksum('cluster.local')
    assert checksum('cluster.local') != checksum('other.local')


def test_rbac_grants_what_the_kubernetes_plugin_watches():
    objs = _by_kind()
    granted = {(group, resource, verb)
               for rule in objs['ClusterRole']['rules']
               for group in rule['apiGroups']
               for resource in rule['resources']
               for verb in rule['verbs']}
    for group, resource in (('', 'services'), ('', 'pods'),
                            ('', 'namespaces'),
                            ('discovery.k8s.io', 'endpointslices')):
        for verb in ('list', 'watch'):
            assert (group, resource, verb) in granted
    assert all(verb in ('list', 'watch') for _, _, verb in granted)
    binding = objs['ClusterRoleBinding']
    assert binding['roleRef']['name'] == \
        objs['ClusterRole']['metadata']['name']
    account = objs['ServiceAccount']['metadata']
    assert binding['subjects'] == [{
        'kind': 'ServiceAccount', 'name': account['name'],
        'namespace': account['namespace']}]
    pod = objs['Deployment']['spec']['template']['spec']
    assert pod['serviceAccountName'] == account['name']


def test_object_paths():
    paths = [dns.object_path(o) for o in dns.manifests(image=IMAGE)]
    assert paths == [
        '/api/v1/namespaces/kube-system/serviceaccounts/coredns',
        '/apis/rbac.authorization.k8s.io/v1/clusterroles/system:coredns',
        '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/'
        'system:coredns',
        '/api/v1/namespaces/kube-system/configmaps/coredns',
        '/apis/apps/v1/namespaces/kube-system/deployments/coredns',
        '/api/v1/namespaces/kube-system/services/kube-dns']


def _deployment(generation=2, **status):
    return {'metadata': {'generation': generation},
            'spec': {'replicas': 1}, 'status': status}


def test_deployment_status_available():
    assert dns.deployment_status(_deployment(
        observedGeneration=2, replicas=1, updatedReplicas=1,
        readyReplicas=1, availableReplicas=1)) is None


def test_deployment_status_says_what_is_missing():
    assert 'generation 2' in dns.deployment_status(
        _deployment(observedGeneration=1))
    assert dns.deployment_status(_deployment(
        observedGeneration=2, replicas=1, updatedReplicas=1)) == \
        'readyReplicas 0 of 1'
    assert dns.deployment_status(_deployment(
        observedGeneration=2, replicas=2, updatedReplicas=1,
        readyReplicas=1, availableReplicas=1)) == \
        'old replicas still terminating'


def test_image_is_the_binary_alone_as_a_non_root_user():
    changes = dns.image_changes('abc')
    assert 'ENTRYPOINT ["/coredns"]' in changes
    assert 'USER 65532:65532' in changes
    assert 'LABEL heat-k8s.recipe=abc' in changes


def _coredns_component():
    return next(c for c in go.COMPONENTS if c.name == 'coredns')


def test_wrapper_gomod_builds_our_own_main_without_a_tool_line():
    versions = {'COREDNS_VERSION': '1.2.3'}
    text = go.render_gomod(_coredns_component(), versions)
    assert 'module heatk8s.local/coredns\n' in text
    assert 'require github.com/coredns/coredns v1.2.3\n' in text
    directives = [line.split()[0] for line in text.splitlines()
                  if line and not line.startswith('//')]
    assert directives == ['module', 'go', 'require']


def test_committed_gomod_pins_the_version_of_versions_env():
    # Raises SystemExit when go.mod and versions.env disagree.
    go.check_pins(_coredns_component(), go.read_versions())
