# Copyright 2026 heat-k8s developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""Manifests written by hand, for the pure rules' tests (schema, projection,
field rules)."""


def deployment(**spec_changes):
    """A Deployment of one container, its spec updated with spec_changes."""
    spec = {'replicas': 1, 'selector': {'matchLabels': {'a': 'b'}},
            'template': {'metadata': {'labels': {'a': 'b'}},
                         'spec': {'containers': [{'name': 'c',
                                                  'image': 'i'}]}}}
    spec.update(spec_changes)
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
            'metadata': {'name': 'x'}, 'spec': spec}
