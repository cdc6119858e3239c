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

"""OS::Kubernetes::ConfigMap; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['ConfigMap']."""

from heat.engine import attributes

from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common
from heat_k8s.resources.shared import templated

PROPERTIES = (DATA, BINARY_DATA, IMMUTABLE) = (
    'data', 'binary_data', 'immutable')


class ConfigMap(base.KubernetesResource):
    """A Kubernetes ConfigMap.

    Ready once it exists. Once immutable is true, a change to data,
    binary_data or immutable replaces it; until then they update in place.
    Its data is literal (data, binary_data), rendered from Jinja2
    templates (templates, values, value_overrides, ini_overrides), or
    both. The checksum attribute changes with the content: put it in a pod
    template annotation to roll a workload when its configuration changes.
    """

    kind = 'ConfigMap'
    body_properties = {DATA: 'data', BINARY_DATA: 'binaryData',
                       IMMUTABLE: 'immutable'}
    rendered_key = 'data'
    literal_properties = (DATA, BINARY_DATA)
    checksum_keys = ('data', 'binaryData')
    extra_attributes = {
        'checksum': common.Attr('SHA-256 of the content: data, binary_data '
                                'and the files rendered from templates.',
                                attributes.Schema.STRING,
                                lambda data: data.get('checksum'), 'data'),
    }
    properties_schema = dict(
        common.common_properties(),
        **templated.properties_schema('data'),
        **{DATA: common.data_property('Configuration data: key to string.'),
           BINARY_DATA: common.data_property(
               'Binary data: key to base64-encoded bytes.'),
           IMMUTABLE: common.immutable_property('ConfigMap')})
    attributes_schema = common.attributes_schema(extra_attributes)
