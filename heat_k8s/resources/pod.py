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

"""OS::Kubernetes::Pod; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['Pod']."""

from heat.engine import attributes

from heat_k8s.kinds import fields
from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common


class Pod(base.KubernetesResource):
    """A bare Kubernetes Pod.

    Ready when scheduled, initialized and Ready, or when it Succeeded (a
    pod that runs to completion); failed when it Failed, with its
    containers' waiting reasons, exit codes and messages.
    It must then stay up, by the hold and crash rules of
    heat_k8s.waiting.policy ([kubernetes] ready_hold_seconds and
    crash_restarts). A pod no node can take fails after [kubernetes]
    pending_grace with the scheduler's message. Only
    containers[*].image, initContainers[*].image, activeDeadlineSeconds
    and tolerations update in place: a change to any other spec field
    replaces the Pod.
    """

    kind = 'Pod'
    body_properties = {'spec': 'spec'}
    extra_attributes = {
        'pod_ip': common.Attr('IP address of the pod.',
                              attributes.Schema.STRING,
                              lambda obj: fields.status_of(obj).get('podIP')),
        'node_name': common.Attr('Node the pod runs on.',
                                 attributes.Schema.STRING,
                                 lambda obj: obj['spec'].get('nodeName')),
        'phase': common.Attr('Pod phase: Pending, Running, Succeeded, Failed.',
                             attributes.Schema.STRING,
                             lambda obj: fields.status_of(obj).get('phase')),
    }
    properties_schema = dict(common.common_properties(),
                             spec=common.spec_property())
    attributes_schema = common.attributes_schema(extra_attributes)
