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

"""What the local cloud builds or installs before anything runs.

`go` builds the pinned Kubernetes components from Go modules
(tools/versions.env, tools/gomod), `debs` installs the Debian packages a
service needs, `venv` makes the OpenStack virtualenv with heat-k8s in it,
`recipes` declares the container images and `images` builds them;
`guest` builds the tiny test guest and `agent_server` the nova-docker
server image (`agent` loads agent/install.py for it and the docker host).
Everything is cached by version or content. Imports only
`tools.lc.paths` and modules of this package; it starts no long-running
process.
"""
