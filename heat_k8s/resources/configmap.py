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

"""OS::Kubernetes::ConfigMap."""

from heat.engine import attributes
from heat.engine import properties

from heat_k8s.resources import base

PROPERTIES = (DATA, BINARY_DATA, IMMUTABLE) = (
    'data', 'binary_data', 'immutable')


class ConfigMap(base.KubernetesResource):
    """A Kubernetes ConfigMap.

    The checksum attribute changes with the content: put it in a pod
    template annotation to roll a workload when its configuration changes.
    """

    kind = 'ConfigMap'
    body_properties = {DATA: 'data', BINARY_DATA: 'binaryData',
                       IMMUTABLE: 'immutable'}
    checksum_keys = ('data', 'binaryData')
    extra_attributes = {
        'checksum': base.Attr('SHA-256 of the data and binary_data.',
                              attributes.Schema.STRING,
                              lambda data: data.get('checksum'), 'data'),
    }
    properties_schema = dict(
        base.common_properties(),
        **{DATA: properties.Schema(
            properties.Schema.MAP, 'Configuration data: key to string.',
            update_allowed=True),
           BINARY_DATA: properties.Schema(
               properties.Schema.MAP,
               'Binary data: key to base64-encoded bytes.',
               update_allowed=True),
           IMMUTABLE: properties.Schema(
               properties.Schema.BOOLEAN,
               'Forbid changes to the data; a change then replaces the '
               'ConfigMap.', update_allowed=True)})
    attributes_schema = base.attributes_schema(extra_attributes)
