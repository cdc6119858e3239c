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

"""OS::Kubernetes::Pod."""

from heat.engine import attributes

from heat_k8s.resources import base


class Pod(base.KubernetesResource):
    """A bare Kubernetes Pod: ready when Ready, or Succeeded if it ends."""

    kind = 'Pod'
    body_properties = {'spec': 'spec'}
    extra_attributes = {
        'pod_ip': base.Attr('IP address of the pod.',
                            attributes.Schema.STRING,
                            lambda obj: base.status_of(obj).get('podIP')),
        'node_name': base.Attr('Node the pod runs on.',
                               attributes.Schema.STRING,
                               lambda obj: obj['spec'].get('nodeName')),
        'phase': base.Attr('Pod phase: Pending, Running, Succeeded, Failed.',
                           attributes.Schema.STRING,
                           lambda obj: base.status_of(obj).get('phase')),
    }
    properties_schema = dict(base.common_properties(),
                             spec=base.spec_property())
    attributes_schema = base.attributes_schema(extra_attributes)
