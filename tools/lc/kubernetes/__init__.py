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

"""The Kubernetes cluster of the local cloud.

`controlplane` runs etcd, kube-apiserver, the controllers and kwok and
talks to the API; `node` runs the real worker node (containerd, kubelet,
kube-proxy) and `node_host` is what that node changes on the host
(bridge, iptables, routes, sysctls) and puts back; `dns` deploys CoreDNS;
`pki` makes the certificates; `storage` is the default StorageClass and
its volumes. Imports `tools.lc.builds`, `tools.lc.paths` and
`tools.lc.procs`, never `tools.lc.openstack`.
"""
