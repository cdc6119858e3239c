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

"""The local cloud behind `tools/localcloud`, grouped by what it runs.

At the top: `cli` (the commands), `openstack_cloud` (the OpenStack side
wired to the cluster: up, status, restart, down), `demo`, `docker_host`
(the heat-config agent on this machine), `paths` (where sources, caches
and state live), `procs` (pid and log files, start, stop, wait) and
`daemons` (one runner for the long-running services). Below them three
packages: `builds` (what is built or installed before anything runs),
`kubernetes` (the cluster: control plane, real node, DNS, certificates)
and `openstack` (MariaDB, RabbitMQ, Keystone, k8s-keystone-auth, Heat).
A package imports the top-level helpers and the packages listed before it,
never the top-level modules that use it (cli, openstack_cloud, demo).
"""
