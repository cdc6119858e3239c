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

"""OS::Kubernetes::DaemonSet; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['DaemonSet']."""

from heat.engine import attributes

from heat_k8s.kinds import fields
from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common


class DaemonSet(base.KubernetesResource):
    """A Kubernetes DaemonSet.

    Ready when rolled out: the controller has observed the latest
    generation and every node it schedules to runs a pod that is updated
    (unless the update strategy is OnDelete), ready and available.
    It must then stay up, by the hold and crash rules of
    heat_k8s.waiting.policy ([kubernetes] ready_hold_seconds and
    crash_restarts).
    A change
    to spec.selector replaces the DaemonSet; other fields update in place.
    Suspend does nothing: a DaemonSet cannot scale.
    """

    kind = 'DaemonSet'
    body_properties = {'spec': 'spec'}
    extra_attributes = {
        'ready_replicas': common.Attr(
            'Number of nodes with a ready pod.', attributes.Schema.INTEGER,
            lambda obj: fields.status_of(obj).get('numberReady', 0)),
    }
    properties_schema = dict(common.common_properties(),
                             spec=common.spec_property())
    attributes_schema = common.attributes_schema(extra_attributes)
