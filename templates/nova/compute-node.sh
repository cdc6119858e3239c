#!/bin/sh
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

# One process of a Nova compute node (OS::HeatK8s::ComputeNode), the first
# argument saying which; each is a container of the node, sharing
# /run/libvirt, /run/openvswitch, /var/lib/openvswitch and /var/lib/nova
# (the last kept when the node's pod is replaced).
# Each waits for what it connects to and then replaces this shell, so that
# a daemon's exit is its container's and nothing restarts for want of a
# socket that was a moment away.
#
#   virtlogd | libvirtd | ovsdb-server | ovs-vswitchd | ovn-controller |
#   nova-compute
#
# ovn-controller reads OVN_SB_DB (its southbound database), POD_IP (the
# tunnels' address) and the host name (the chassis, as Nova's host);
# libvirtd VIRT_TYPE (nova.conf's, kvm or qemu). With UPLINK_ADDRESS (an
# address and prefix, e.g. 172.24.4.1/24) the node is a gateway chassis
# whose bridge br-ex carries the flat provider network `external`: br-ex
# holds that address, the subnet's gateway, and what comes from the
# subnet for UPLINK_REACH (CIDRs separated by spaces) leaves through the
# pod's interface with its address (source NAT). Nothing else is
# forwarded, and nothing from br-ex reaches the pod's own ports: with the
# pod's address, servers would reach the cluster's pods and services.
set -eu

OVS_DB=/var/lib/openvswitch/conf.db
OVS_SOCK=/run/openvswitch/db.sock
LIBVIRT_SOCK=/run/libvirt/libvirt-sock
# The node's KVM device (another path only in tests).
KVM=${KVM_DEVICE:-/dev/kvm}

wait_for() {  # path what [test]: wait up to 120 s for a socket (or -e)
  i=0
  until test "${3:--S}" "$1"; do
    i=$((i + 1))
    if [ "$i" -gt 240 ]; then
      echo "compute-node: no $2 after 120 s ($1)" >&2
      exit 1
    fi
    sleep 0.5
  done
}

uplink() {  # br-ex's address, forwarding and source NAT (see above)
  # ovs-vswitchd makes br-ex's own port, a tap device, when it runs.
  wait_for /sys/class/net/br-ex "br-ex (ovs-vswitchd)" -e
  ip addr replace "$UPLINK_ADDRESS" dev br-ex
  ip link set br-ex up
  # A restarted container finds its chain: made anew, the same rules.
  iptables -N HEAT-K8S-UPLINK 2>/dev/null || iptables -F HEAT-K8S-UPLINK
  for cidr in ${UPLINK_REACH:-}; do
    iptables -A HEAT-K8S-UPLINK -d "$cidr" -j ACCEPT
  done
  iptables -A HEAT-K8S-UPLINK -j DROP
  for rule in "FORWARD -i br-ex -j HEAT-K8S-UPLINK" \
      "INPUT -i br-ex -p icmp -j ACCEPT" "INPUT -i br-ex -j DROP" \
      "POSTROUTING -t nat -s $UPLINK_ADDRESS ! -o br-ex -j MASQUERADE"; do
    # shellcheck disable=SC2086  # the rule's words
    iptables -C $rule 2>/dev/null || iptables -A $rule
  done
  echo 1 >/proc/sys/net/ipv4/ip_forward
}

case "${1:-}" in
virtlogd)
  exec virtlogd
  ;;
libvirtd)
  # QEMU runs as libvirt-qemu in group kvm; /dev/kvm arrives as the
  # host's (root, 0600 here). Without it only emulation (qemu) runs: say
  # so rather than have every server fail at its boot.
  if [ -e "$KVM" ]; then
    chgrp kvm "$KVM"
    chmod 0660 "$KVM"
  elif [ "${VIRT_TYPE:-kvm}" = kvm ]; then
    echo "compute-node: virt_type kvm, but this node has no $KVM" \
      "(compute_virt_type qemu emulates, slowly)" >&2
    exit 1
  fi
  wait_for /run/libvirt/virtlogd-sock virtlogd
  exec libvirtd
  ;;
ovsdb-server)
  mkdir -p /run/openvswitch
  [ -f "$OVS_DB" ] ||
    ovsdb-tool create "$OVS_DB" /usr/share/openvswitch/vswitch.ovsschema
  exec ovsdb-server "$OVS_DB" --remote="punix:$OVS_SOCK" \
    --pidfile=/run/openvswitch/ovsdb-server.pid
  ;;
ovs-vswitchd)
  wait_for "$OVS_SOCK" ovsdb-server
  ovs-vsctl --no-wait init
  # The userspace datapath: no kernel module (the node has none).
  ovs-vsctl --no-wait --may-exist add-br br-int -- \
    set bridge br-int datapath_type=netdev fail-mode=secure
  if [ -n "${UPLINK_ADDRESS:-}" ]; then
    ovs-vsctl --no-wait --may-exist add-br br-ex -- \
      set bridge br-ex datapath_type=netdev
  fi
  exec ovs-vswitchd "unix:$OVS_SOCK" \
    --pidfile=/run/openvswitch/ovs-vswitchd.pid
  ;;
ovn-controller)
  wait_for "$OVS_SOCK" ovsdb-server
  mkdir -p /run/ovn
  ovs-vsctl --no-wait set open . \
    "external_ids:system-id=$(hostname)" \
    "external_ids:hostname=$(hostname)" \
    "external_ids:ovn-remote=$OVN_SB_DB" \
    external_ids:ovn-encap-type=geneve \
    "external_ids:ovn-encap-ip=$POD_IP" \
    external_ids:ovn-bridge-datapath-type=netdev \
    external_ids:ovn-bridge=br-int
  if [ -n "${UPLINK_ADDRESS:-}" ]; then
    ovs-vsctl --no-wait set open . \
      external_ids:ovn-bridge-mappings=external:br-ex \
      external_ids:ovn-cms-options=enable-chassis-as-gw
    uplink
  fi
  exec ovn-controller "unix:$OVS_SOCK" \
    --pidfile=/run/ovn/ovn-controller.pid
  ;;
nova-compute)
  wait_for "$LIBVIRT_SOCK" libvirtd
  wait_for "$OVS_SOCK" ovsdb-server
  # /var/lib/nova is a volume claim's, whose provisioner picks its mode:
  # QEMU, as libvirt-qemu, reaches the servers' disks through it.
  chmod 755 /var/lib/nova
  mkdir -p /var/lib/nova/instances /var/lib/nova/tmp
  # The node's address is the pod's: Nova's guess, the route off the
  # machine, finds none and says 127.0.0.1.
  printf '[DEFAULT]\nmy_ip = %s\n' "$POD_IP" >/var/lib/nova/my_ip.conf
  exec nova-compute --config-file /etc/nova/nova.conf \
    --config-file /var/lib/nova/my_ip.conf
  ;;
*)
  echo "usage: $0 virtlogd|libvirtd|ovsdb-server|ovs-vswitchd|" \
    "ovn-controller|nova-compute" >&2
  exit 2
  ;;
esac
