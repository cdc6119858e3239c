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

"""Pods for kwok's fake nodes: simulations, labelled as such.

The local cloud taints its kwok nodes, so a pod lands there only when it
asks to (and everything else runs on the real node). Tests whose pods use
images that exist nowhere, or kwok's simulated failures, ask with this.
"""

TOLERATION = {'key': 'kwok.x-k8s.io/node', 'operator': 'Exists',
              'effect': 'NoSchedule'}


def on_kwok(pod_spec):
    """`pod_spec` placed on a kwok node (a new dict)."""
    return dict(pod_spec,
                nodeSelector=dict(pod_spec.get('nodeSelector') or {},
                                  type='kwok'),
                tolerations=list(pod_spec.get('tolerations') or []) +
                [TOLERATION])
