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

"""devstack for real, with the heat-k8s plugin, behind `tools/devstack/run`.

A rootful podman container boots systemd from the `devstack-host` image
(tools.lc.builds.recipes) in a network namespace of its own that reaches
out through slirp4netns (`container`); /opt/stack holds clones of local
snapshots of the git repositories devstack would clone (`snapshots`), so
it clones nothing; `localconf` writes the local.conf that runs; inside the
container, `cluster` starts the Kubernetes that heat-k8s is pointed at
(the local cloud's binaries and code, tools.lc) and, once devstack's
Keystone is up, k8s-keystone-auth against it. `cli` is the command line.
Nothing here ships with heat-k8s.
"""
