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

"""OS::HeatK8s::RenderedFiles: Jinja2 files where no ConfigMap renders them.

The docker backends of the service templates have no ConfigMap or Secret
to render into, so Heat renders the files itself, with the same sandbox,
merge order and errors as OS::Kubernetes::ConfigMap and Secret.
"""

from heat.common import exception
from heat.engine import attributes
from heat.engine import properties
from heat.engine import resource

from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import literal
from heat_k8s.resources.shared import references
from heat_k8s.resources.shared import sensitive
from heat_k8s.resources.shared import templated
from heat_k8s.secrecy import digests
from heat_k8s.secrecy import envelope
from heat_k8s.secrecy import keyring
from heat_k8s.secrecy import sealing

PROPERTIES = (SECRETS, SECRET_FILES, RECIPIENT) = (
    'secrets', 'secret_files', 'recipient')
ATTRIBUTES = (FILES, ENVIRONMENT, SEALED, CHECKSUM, NAMES) = (
    'files', 'environment', 'sealed', 'checksum', 'names')
# Properties in which secret references open (only when files are written).
OPENED = (SECRETS, SECRET_FILES, templated.VALUES, templated.VALUE_OVERRIDES,
          templated.INI_OVERRIDES)


class RenderedFiles(literal.CheckedBeforeCreate, sensitive.Fingerprinted,
                    resource.Resource):
    """Files rendered from Jinja2 templates, given as an attribute.

    For backends without a Kubernetes ConfigMap or Secret to render into,
    such as the docker backends of the service templates: the same
    templates, values, value_overrides and ini_overrides, the same
    sandbox and merge order, and errors naming the file and line (at
    template validate when every input is known). The content is treated
    as secret, since rendered configuration usually holds passwords: Heat
    stores fingerprints of the variables, `resource show` lists only the
    file names and the checksum, and errors quote no value. The files
    attribute hands the content to the resources that write the files.

    With recipient (a host's RSA public key), the content is given only
    sealed to that key (the sealed attribute,
    heat_k8s/secrecy/envelope.py): Heat then holds ciphertext only, in
    software configs and server metadata alike, and files and
    environment give nothing. Without it, files and
    environment refuse content made with secrets (secrets, secret_files or
    any secret reference): no opened value leaves Heat through its API.
    """

    sensitive_properties = (SECRETS, SECRET_FILES, templated.VALUES,
                            templated.VALUE_OVERRIDES,
                            templated.INI_OVERRIDES)
    sensitive_note = ('Heat stores a keyed fingerprint in place of each '
                      'value, and no event or error message shows it.')

    properties_schema = dict(
        templated.properties_schema(
            'the files attribute', notes='A file name is any text (a path, '
            'for the docker backends).'),
        **{SECRET_FILES: properties.Schema(
            properties.Schema.MAP,
            'Literal secret files joining the rendered ones in the files '
            'attribute: name to content, typically a secret reference.',
            update_allowed=True),
           SECRETS: properties.Schema(
               properties.Schema.MAP,
               'Secret variables for the environment attribute: name to '
               'value, typically a secret reference.',
               update_allowed=True),
           RECIPIENT: properties.Schema(
               properties.Schema.STRING,
               'PEM RSA public key (2048 bits or more) of the host that '
               'writes the files: the content is then given only sealed '
               'to it (the sealed attribute).',
               update_allowed=True),
           references.REFERENCES_ONLY: references.schema(
               (SECRETS, SECRET_FILES))})

    attributes_schema = {
        FILES: attributes.Schema(
            'File name to content: the rendered files, for content made '
            'without secrets only (an error otherwise: set recipient and '
            'pass sealed). resource show does not list it.',
            type=attributes.Schema.MAP,
            cache_mode=attributes.Schema.CACHE_NONE),
        ENVIRONMENT: attributes.Schema(
            'Unused without secrets; with secrets an error, like files: '
            'they reach a host only sealed.',
            type=attributes.Schema.MAP,
            cache_mode=attributes.Schema.CACHE_NONE),
        SEALED: attributes.Schema(
            'With recipient: {"secret_files": files, "secrets": '
            'environment} sealed to its key (text; ciphertext only). A new '
            'envelope only when the content or the key changes.',
            type=attributes.Schema.STRING),
        CHECKSUM: attributes.Schema(
            'Keyed SHA-256 of the rendered files: it changes with the '
            'content and reveals nothing of it.',
            type=attributes.Schema.STRING),
        NAMES: attributes.Schema('Names of the rendered files, sorted.',
                                 type=attributes.Schema.LIST),
    }

    def validate_properties(self, props):
        if props[RECIPIENT]:
            try:
                envelope.public_key(props[RECIPIENT])
            except envelope.EnvelopeError as exc:
                raise self._invalid('recipient: %s' % exc, RECIPIENT)
        problem = (references.problem(props, (SECRETS, SECRET_FILES)) or
                   templated.input_error(props))
        if problem:
            raise self._invalid(*problem)
        if props[templated.TEMPLATES] and templated.known(props):
            error = templated.render(props, sensitive=True)[1]
            if error is not None:
                raise self._invalid(self._message(error, props),
                                    error.source)

    def handle_create(self):
        self._record(self.properties)

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        self._record(json_snippet.properties(self.properties_schema,
                                             self.context))

    def _resolve_attribute(self, name):
        if name in (FILES, ENVIRONMENT) and self.properties[RECIPIENT]:
            return None   # given only sealed
        if name in (FILES, ENVIRONMENT):
            self._refuse_secrets(name)
            files, environment = self._content(self.properties)
            return files if name == FILES else environment
        if name == SEALED:
            return self._sealed()
        if name == CHECKSUM:
            return self.data().get(CHECKSUM)
        if name == NAMES:
            return sorted(set(self.properties[templated.TEMPLATES] or {}) |
                          set(self.properties[SECRET_FILES] or {}))

    def _show_resource(self):
        # What `resource show` lists instead of every attribute.
        return {CHECKSUM: self.FnGetAtt(CHECKSUM),
                NAMES: self.FnGetAtt(NAMES)}

    def _record(self, props):
        files, environment = self._content(props)
        digest = digests.content(
            {'files': files, 'environment': environment} if environment
            else files,  # as before secrets were taken
            key=sensitive.digest_key(keyring.CHECKSUM,
                                     self.stack.tenant_id))
        recipient = props[RECIPIENT]
        data = self.data()
        if recipient and (digest, sensitive.fingerprint(
                recipient, self.stack.tenant_id)) != (
                data.get(CHECKSUM), data.get(RECIPIENT)):
            # Sealed once per content and key: a new envelope would be a
            # new software config, and new containers, at every update.
            self.data_set(SEALED, envelope.seal(recipient, {
                'secret_files': files, 'secrets': environment}))
            self.data_set(RECIPIENT, sensitive.fingerprint(
                recipient, self.stack.tenant_id))
        self.data_set(CHECKSUM, digest)
        self.resource_id_set(self.physical_resource_name())

    def _content(self, props):
        """(files, environment): the references opened once, the
        templates rendered and joined to secret_files."""
        props = sensitive.opened(self, props, OPENED)
        files = dict(props[SECRET_FILES] or {})
        if props[templated.TEMPLATES]:
            rendered, error = templated.render(props, sensitive=True)
            if error is not None:
                raise exception.Error('%s: %s' % (
                    error.source, self._message(error, props)))
            files.update(rendered)
        return files, props[SECRETS] or {}

    def _refuse_secrets(self, name):
        props = self.properties
        if props[SECRETS] or props[SECRET_FILES] or any(
                sealing.holds_reference(props[prop]) for prop in OPENED):
            raise exception.Error(
                '%s: %s: made with secret values, which Heat gives only '
                'sealed to the host that writes them: set recipient and '
                'pass the sealed attribute' % (self.name, name))

    def _sealed(self):
        if self.data().get(SEALED):
            return self.data()[SEALED]
        if any(self._content(self.properties)):
            raise exception.Error(
                '%s: no key to seal the secrets to: the host gave no '
                'public key (recipient); a host whose deployments do not '
                'signal (NO_SIGNAL) needs ContainerHostPublicKey'
                % self.name)
        return None   # nothing secret: nothing to seal

    def _message(self, error, props):
        return templated.error_message(error, props,
                                       self.sensitive_properties)

    # Validation errors point at the property as for every other type.
    _invalid = base.KubernetesResource._invalid

