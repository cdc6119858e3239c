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

"""OS::Kubernetes::Service; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['Service']."""

from heat.engine import attributes

from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common


def _cluster_ip(obj):
    ip = obj['spec'].get('clusterIP')
    return None if ip in (None, '', 'None') else ip


def _endpoint(obj):
    """host:port of the first port on the cluster IP (None if headless)."""
    ip, ports = _cluster_ip(obj), obj['spec'].get('ports') or []
    if ip is None or not ports:
        return None
    host = '[%s]' % ip if ':' in ip else ip
    return '%s:%s' % (host, ports[0]['port'])


class Service(base.KubernetesResource):
    """A Kubernetes Service.

    Ready when a Service with a selector (not headless) has a ready
    endpoint in its EndpointSlices, read on every poll, and a LoadBalancer
    has an address; an ExternalName alias is ready at once. A change to
    spec.clusterIP or clusterIPs, or of spec.type to or from ExternalName,
    replaces the Service; other fields update in place. Its name is a
    DNS-1035 label (it starts with a letter).
    """

    kind = 'Service'
    body_properties = {'spec': 'spec'}
    extra_attributes = {
        'cluster_ip': common.Attr('Cluster IP (None for headless).',
                                  attributes.Schema.STRING, _cluster_ip),
        'ports': common.Attr('The ports, as the API reports them.',
                             attributes.Schema.LIST,
                             lambda obj: obj['spec'].get('ports') or []),
        'endpoint': common.Attr('host:port of the first port.',
                                attributes.Schema.STRING, _endpoint),
    }
    properties_schema = dict(common.common_properties(),
                             spec=common.spec_property())
    attributes_schema = common.attributes_schema(extra_attributes)
