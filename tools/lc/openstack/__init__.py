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

"""The OpenStack services of the local cloud, each a `daemons.Service`.

`mariadb` and `rabbitmq` (from Debian's packages), `keystone`
(`keystone_setup` runs in the cloud's virtualenv to populate it),
`keystone_auth` (k8s-keystone-auth, the apiserver's token webhook) and
`heat` (heat-api and heat-engine); `passwords` keeps their generated
secrets. Imports `tools.lc.daemons`, `tools.lc.procs`, `tools.lc.builds`
and, for the webhook only, `tools.lc.kubernetes`; `tools.lc.openstack_cloud`
wires them together.
"""
