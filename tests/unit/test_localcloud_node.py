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

"""The local cloud's real node: what it requires and how it is wired."""

import ipaddress

from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import machine
from tools.lc.kubernetes import node_config
from tools.lc.kubernetes import node_host

EVERYTHING = {key: True for key, _ in node_host.REQUIREMENTS}


def test_a_complete_host_lacks_nothing():
    assert node_host.missing(EVERYTHING) == []


def test_each_missing_piece_is_named():
    for key, what in node_host.REQUIREMENTS:
        assert node_host.missing(dict(EVERYTHING, **{key: False})) == [what]


def test_missing_iptables_says_which_package():
    lacking = node_host.missing(dict(EVERYTHING, iptables=False,
                                     overlay=False))
    assert lacking == ['the overlay filesystem (modprobe overlay)',
                       'the iptables command (Debian package iptables)']


def test_pods_have_no_default_route_and_no_masquerade():
    bridge = node_host.cni_config('/ipam')['plugins'][0]
    assert bridge['ipMasq'] is False
    assert bridge['isDefaultGateway'] is False
    routes = [r['dst'] for r in bridge['ipam']['routes']]
    assert '0.0.0.0/0' not in routes
    # Every node's pods (node_host.POD_CIDR is node-0's) and Services.
    assert routes == [machine.PODS_SUPERNET, controlplane.SERVICE_CIDR]
    assert ipaddress.ip_network(node_host.POD_CIDR).subnet_of(
        ipaddress.ip_network(machine.PODS_SUPERNET))
    assert bridge['ipam']['dataDir'] == '/ipam'


def test_real_pods_and_fake_pods_never_share_addresses():
    real = ipaddress.ip_network(machine.PODS_SUPERNET)
    assert not real.overlaps(ipaddress.ip_network(controlplane.POD_CIDR))
    assert not real.overlaps(ipaddress.ip_network(controlplane.SERVICE_CIDR))
    assert ipaddress.ip_address(node_config.DNS_IP) in ipaddress.ip_network(
        controlplane.SERVICE_CIDR)
    links = ipaddress.ip_network(machine.LINK_CIDR)
    assert not links.overlaps(real)
    assert not links.overlaps(ipaddress.ip_network(controlplane.SERVICE_CIDR))


def test_kubelet_listens_on_loopback_and_accepts_cgroup_v1():
    config = node_config.kubelet_config(10250, 10248, '/run/c.sock', '/ca',
                                        '/crt', '/key', '/logs')
    assert config['address'] == config['healthzBindAddress'] == '127.0.0.1'
    assert config['readOnlyPort'] == 0
    assert config['failCgroupV1'] is False
    assert config['cgroupDriver'] == 'cgroupfs'
    assert config['authentication']['anonymous']['enabled'] is False
    assert config['containerRuntimeEndpoint'] == 'unix:///run/c.sock'
    assert config['clusterDNS'] == [node_config.DNS_IP]
    # Images built here cannot be pulled again.
    assert config['imageGCHighThresholdPercent'] == 100


def test_kube_proxy_serves_node_ports_on_loopback_only():
    config = node_config.kube_proxy_config('/kc', 1, 2)
    assert config['nodePortAddresses'] == ['127.0.0.0/8']
    assert config['bindAddress'] == '127.0.0.1'
    assert config['healthzBindAddress'] == '127.0.0.1:1'
    assert config['conntrack']['maxPerCore'] == 0


def test_guard_drops_everything_forwarded_off_the_bridge():
    rules = node_host.guard_rules(6443)
    bridge = node_host.BRIDGE
    assert ('filter', 'FORWARD', ['-i', bridge, '!', '-o', bridge,
                                  '-j', 'DROP']) in rules


def test_pods_reach_the_api_server_at_the_kubernetes_service():
    nat = [r for _, hook, r in node_host.guard_rules(6443)
           if hook == 'PREROUTING' and r[-1] == '127.0.0.1:6443']
    # node-0's pods at the Service address; the other nodes' forwarders
    # at the host's address on their network.
    assert [(r[r.index('-i') + 1], r[r.index('-d') + 1]) for r in nat] == [
        (node_host.BRIDGE, '10.0.0.1'),
        (machine.LINK_BRIDGE, machine.HOST_ADDRESS)]


def test_pods_and_the_host_reach_a_host_port_at_the_bridge_address_only():
    nat = [(hook, r) for _, hook, r in node_host.guard_rules(6443, [35357])
           if r[-1] != '127.0.0.1:6443' and '-j' in r and 'DNAT' in r]
    to_port = ['-d', node_host.GATEWAY, '-p', 'tcp', '--dport', '35357',
               '-j', 'DNAT', '--to-destination', '127.0.0.1:35357']
    # Pods from the bridge; this host's own connections (a docker host's
    # agent given the URL servers use) in OUTPUT.
    assert nat == [('PREROUTING', ['-i', node_host.BRIDGE] + to_port),
                   ('PREROUTING', ['-i', machine.LINK_BRIDGE] + to_port),
                   ('OUTPUT', to_port)]
    assert node_host.host_url(35357) == 'http://%s:35357' % (
        node_host.GATEWAY)


def test_down_finds_the_chains_of_host_ports_too():
    hooks = {(table, hook) for table, hook, _ in node_host.guard_rules(
        6443, [35357])}
    assert hooks <= {(table, hook) for table, hook, _ in
                     node_host.guard_rules(0, [0])}
    assert ('nat', 'OUTPUT') in hooks


def test_containerd_uses_runc_without_systemd_and_the_local_pause():
    text = node_config.containerd_config(
        '/root', '/state', '/s.sock', '/net.d',
        'localhost/heat-k8s/pause:3.10.2')
    assert 'sandbox_image = "localhost/heat-k8s/pause:3.10.2"' in text
    assert 'SystemdCgroup = false' in text
    assert 'BinaryName = "/usr/sbin/runc"' in text
    assert 'restrict_oom_score_adj = true' in text
    assert 'conf_dir = "/net.d"' in text
    assert 'base_runtime_spec' not in text


def test_kwok_nodes_are_tainted_and_the_real_node_is_a_controller():
    assert controlplane.KWOK_TAINT['effect'] == 'NoSchedule'
    assert node_config.LABELS == {'role': 'controller', 'type': 'real'}


def test_pod_security_is_baseline_outside_kube_system():
    (plugin,) = controlplane.ADMISSION_CONFIG['plugins']
    config = plugin['configuration']
    assert config['defaults']['enforce'] == 'baseline'
    assert config['exemptions']['namespaces'] == ['kube-system']


# -- further nodes (tools.lc.kubernetes.machine) ------------------------------

def test_each_node_has_its_own_pod_range_address_and_cgroup():
    ranges = [ipaddress.ip_network(machine.pod_cidr(i)) for i in range(4)]
    assert all(r.subnet_of(ipaddress.ip_network(machine.PODS_SUPERNET))
               for r in ranges)
    assert len({str(r) for r in ranges}) == 4
    addresses = {machine.address(i) for i in range(1, 4)}
    assert machine.HOST_ADDRESS not in addresses and len(addresses) == 3
    assert all(ipaddress.ip_address(a) in ipaddress.ip_network(
        machine.LINK_CIDR) for a in addresses)
    assert machine.cgroup(1) != machine.cgroup(2)


def test_a_further_node_routes_only_to_other_nodes_pods():
    # No default route: nothing a node sends leaves the machine.
    assert machine.node_routes() == [(machine.PODS_SUPERNET,
                                      machine.HOST_ADDRESS)]
    assert machine.host_routes([0, 2]) == [(machine.pod_cidr(2),
                                            machine.address(2))]


def test_a_further_nodes_rules_forward_to_pods_and_trust_the_host_alone():
    rules = node_host.machine_rules(2, 6443)
    forward = [r for _, hook, r in rules if hook == 'FORWARD']
    assert forward == [
        ['-i', node_host.BRIDGE, '-o', 'eth0', '-d', machine.PODS_SUPERNET,
         '-j', 'ACCEPT'],
        ['-i', node_host.BRIDGE, '!', '-o', node_host.BRIDGE, '-j', 'DROP']]
    mangle = [r for table, _, r in rules if table == 'mangle']
    # The host's connections pass before the node's pods' go to its queue.
    assert mangle[0] == ['-s', machine.HOST_ADDRESS, '-j', 'RETURN']
    assert ['-s', machine.pod_cidr(2), '-j', 'NFQUEUE', '--queue-num',
            '100'] in mangle
    snat = [r for table, hook, r in rules if hook == 'POSTROUTING'
            and table == 'nat']
    assert snat == [['-s', machine.HOST_ADDRESS, '-o', node_host.BRIDGE,
                     '-j', 'SNAT', '--to-source', machine.gateway(2)]]


def test_a_further_nodes_kubelet_listens_on_its_address_in_its_cgroup():
    config = node_config.kubelet_config(
        10250, 10248, '/run/c.sock', '/ca', '/crt', '/key', '/logs',
        address=machine.address(1), cgroup_root=machine.cgroup(1))
    assert config['address'] == machine.address(1)
    assert config['healthzBindAddress'] == '127.0.0.1'
    assert config['cgroupRoot'] == machine.cgroup(1)
    assert 'cgroupRoot' not in node_config.kubelet_config(
        10250, 10248, '/run/c.sock', '/ca', '/crt', '/key', '/logs')


def test_only_a_further_nodes_containerd_keeps_pod_namespaces_itself():
    def text(own):
        return node_config.containerd_config('/r', '/s', '/sock', '/cni',
                                             'pause', own_netns_dir=own)
    assert 'netns_mounts_under_state_dir = true' in text(True)
    assert 'netns_mounts_under_state_dir = false' in text(False)


def test_a_taint_reads_as_kubectl_writes_it():
    assert node_config.taint('a.io/b=c:NoSchedule') == {
        'key': 'a.io/b', 'value': 'c', 'effect': 'NoSchedule'}
    assert node_config.taint('k:NoExecute') == {'key': 'k',
                                                 'effect': 'NoExecute'}
    for bad in ('k=v', 'k=v:Sometimes', ':NoSchedule'):
        try:
            node_config.taint(bad)
        except ValueError as exc:
            assert 'key=value:Effect' in str(exc)
        else:
            raise AssertionError('%r was taken' % bad)


def test_cgroup_hierarchies_are_read_from_the_mount_table(tmp_path):
    mounts = tmp_path / 'mounts'
    # Hand-made, after this machine's /proc/mounts (hybrid cgroup v1).
    mounts.write_text(
        'tmpfs /sys/fs/cgroup tmpfs rw 0 0\n'
        'cgroup /sys/fs/cgroup/cpu cgroup rw,cpu 0 0\n'
        'cgroup /sys/fs/cgroup/freezer cgroup rw,freezer 0 0\n'
        'cgroup2 /sys/fs/cgroup/unified cgroup2 rw 0 0\n'
        'proc /proc proc rw 0 0\n')
    assert machine.hierarchies(str(mounts)) == [
        '/sys/fs/cgroup/cpu', '/sys/fs/cgroup/freezer',
        '/sys/fs/cgroup/unified']
