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

"""OS::Kubernetes::Secret; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['Secret']."""

import base64

from heat.engine import attributes
from heat.engine import properties

from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common
from heat_k8s.resources.shared import references
from heat_k8s.resources.shared import sensitive
from heat_k8s.resources.shared import templated
from heat_k8s.secrecy import digests
from heat_k8s.secrecy import keyring
from heat_k8s.secrecy import sealing

PROPERTIES = (TYPE, DATA, STRING_DATA, IMMUTABLE) = (
    'type', 'data', 'string_data', 'immutable')


# Properties in which secret references open (in data, to base64).
OPENED = (DATA, STRING_DATA, templated.VALUES, templated.VALUE_OVERRIDES,
          templated.INI_OVERRIDES)


def _base64_references(given, opened):
    """data's values: a value given as a reference, base64-encoded."""
    if not given:
        return opened
    return {key: (base64.b64encode(opened[key].encode('utf-8')).decode()
                  if sealing.is_reference(value) else opened[key])
            for key, value in given.items()}


class Secret(base.KubernetesResource):
    """A Kubernetes Secret whose values Heat never shows.

    Ready once it exists. A change to type replaces it; once immutable is
    true, so does a change to data, string_data or immutable.

    The values of data and string_data are written to Kubernetes only:
    Heat stores keyed fingerprints in their place (events, resource
    properties), and no attribute, log or error message carries them. Pass
    them as secret references ({get_attr: [<an OS::HeatK8s::RandomSecret>,
    reference]}, alone or inside text), which open only here, or with
    hidden parameters so the template does not hold them either. A
    reference in data is written base64-encoded.

    Files may also be rendered from Jinja2 templates (templates, values,
    value_overrides, ini_overrides), e.g. a configuration file holding a
    password. The rendered files are as secret as string_data, and so are
    values, value_overrides and ini_overrides; the template text is not
    (it is stored like any template file).
    """

    kind = 'Secret'
    body_properties = {TYPE: 'type', DATA: 'data',
                       STRING_DATA: 'stringData', IMMUTABLE: 'immutable'}
    sensitive_properties = (DATA, STRING_DATA, templated.VALUES,
                            templated.VALUE_OVERRIDES,
                            templated.INI_OVERRIDES)
    rendered_key = 'stringData'
    literal_properties = (DATA, STRING_DATA)
    checksum_keys = ('data', 'stringData')
    extra_attributes = {
        'checksum': common.Attr(
            'Keyed SHA-256 of the content, for pod template annotations; '
            'it reveals nothing of the values.', attributes.Schema.STRING,
            lambda data: data.get('checksum'), 'data'),
    }
    properties_schema = dict(
        common.common_properties(),
        **templated.properties_schema('stringData (Kubernetes stores them '
                                      'in data)'),
        **{TYPE: properties.Schema(
            properties.Schema.STRING,
            'Secret type, e.g. kubernetes.io/tls. A change replaces.',
            default='Opaque'),
           DATA: common.data_property('Key to base64-encoded value.'),
           STRING_DATA: common.data_property(
               'Key to plain-text value (Kubernetes stores it base64).'),
           IMMUTABLE: common.immutable_property('Secret'),
           references.REFERENCES_ONLY: references.schema(
               (STRING_DATA, DATA))})
    attributes_schema = common.attributes_schema(extra_attributes)

    def validate_body(self, props):
        problem = references.problem(props, (STRING_DATA, DATA))
        if problem:
            raise self._invalid(*problem)
        super().validate_body(props)

    def manifest(self, props, owned=True, content=True):
        # Secret references open here, into what is written to Kubernetes.
        opened = sensitive.opened(self, props, OPENED)
        opened[DATA] = _base64_references(props[DATA], opened[DATA])
        return super().manifest(opened, owned=owned, content=content)

    def content_checksum(self, data, string_data):
        return digests.secret_content(data, string_data, key=(
            sensitive.digest_key(keyring.CHECKSUM, self.stack.tenant_id)))
