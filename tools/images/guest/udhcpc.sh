#!/bin/sh
# udhcpc's hook: the lease's address and router on the interface.
# udhcpc sets interface, ip, mask and router in the environment.
# shellcheck disable=SC2154
case "$1" in
bound|renew)
    ip addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" dev "$interface"
    [ -n "$router" ] && ip route replace default via "${router%% *}"
    ;;
deconfig)
    ip addr flush dev "$interface"
    ;;
esac
exit 0
