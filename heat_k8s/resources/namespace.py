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

"""OS::Kubernetes::Namespace; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['Namespace']."""

from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common


class Namespace(base.KubernetesResource):
    """A Kubernetes Namespace (cluster-scoped).

    Ready when Active; failed when Terminating. Its name is an RFC 1123
    label; only a change of name (or cluster) replaces it.
    """

    kind = 'Namespace'
    properties_schema = common.common_properties(namespaced=False)
    attributes_schema = common.attributes_schema()
