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

"""OS::HeatK8s::RandomSecret: a generated secret Heat only refers to."""

import base64
import os
import secrets
import string

from heat.common import exception
from heat.db import api as db_api
from heat.engine import attributes
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource

from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import sealing

PROPERTIES = (LENGTH, FORMAT, SALT, VALUE) = (
    'length', 'format', 'salt', 'value')
FORMATS = (LETTERS_DIGITS, FERNET_KEY) = ('letters_digits', 'fernet_key')
ATTRIBUTES = (REFERENCE, FINGERPRINT) = ('reference', 'fingerprint')
_ALPHABET = string.ascii_letters + string.digits


class RandomSecret(sensitive.Fingerprinted, resource.Resource):
    """A random secret that Heat never stores or shows in clear.

    Like OS::Heat::RandomString, but no attribute gives the value: the
    reference attribute (also get_resource) is the value sealed for this
    stack's project, which only heat-engine can open and only into a
    resource of the same project that writes it where it is used (an
    OS::Kubernetes::Secret's string_data, data or template values; an
    OS::HeatK8s::RenderedFiles's secrets, secret_files or values; a
    ContainerService's or ContainerTask's secrets and secret_files).
    A reference may stand inside other text, e.g. in a list_join.

    Heat keeps only the reference (in its database and in `stack export`
    output); the fingerprint attribute changes when the value does and
    reveals nothing of it. A change to length, format or salt makes a new
    value (the resource is replaced). Replacing an OS::Heat::RandomString
    of the same name, e.g. when a template moves to this type, it takes
    that resource's value, so an updated stack keeps its passwords.
    With value set, it seals that value instead (a typed password); a
    value that holds references of this project is sealed opened (a
    nested stack given another RandomSecret's reference keeps the same
    value, and its properties show only the reference).
    """

    sensitive_properties = (VALUE,)

    properties_schema = {
        LENGTH: properties.Schema(
            properties.Schema.INTEGER,
            'Length of a letters_digits value.', default=32,
            constraints=[constraints.Range(8, 512)]),
        FORMAT: properties.Schema(
            properties.Schema.STRING,
            'letters_digits: ASCII letters and digits (length of them); '
            'fernet_key: 32 random bytes, URL-safe base64 (a Keystone '
            'Fernet or credential key).', default=LETTERS_DIGITS,
            constraints=[constraints.AllowedValues(FORMATS)]),
        SALT: properties.Schema(
            properties.Schema.STRING,
            'Any text; a change makes a new value (rotation).'),
        VALUE: properties.Schema(
            properties.Schema.STRING,
            'A value to seal instead of a generated one, e.g. a password '
            'a user types as a hidden parameter: Heat stores only its '
            'fingerprint; a change makes a new reference.',
            update_allowed=True),
    }

    attributes_schema = {
        REFERENCE: attributes.Schema(
            'The value, sealed for this project: pass it where a secret '
            'value is wanted; only heat-engine can open it.',
            type=attributes.Schema.STRING),
        FINGERPRINT: attributes.Schema(
            'Keyed digest of the value: changes when it does.',
            type=attributes.Schema.STRING),
    }

    def validate(self):
        super().validate()
        ring = sensitive.keyring()
        if ring.sealing_problem:   # refused at validate, not at create
            raise exception.StackValidationFailed(message='%s: %s' % (
                self.name, ring.sealing_problem))

    def handle_create(self):
        self._seal(self._typed(self.properties[VALUE]) or
                   self._replaced_value() or self._generate())
        self.resource_id_set(self.physical_resource_name())

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        # Heat compares the stored fingerprint with the value: only a
        # different fingerprint is a new value.
        if VALUE in prop_diff:
            value = self._typed(prop_diff[VALUE]) or self._generate()
            if sensitive.fingerprint(value, self.stack.tenant_id) != (
                    self.data().get(FINGERPRINT)):
                self._seal(value)

    def _resolve_attribute(self, name):
        if name in ATTRIBUTES:
            return self.data().get(name)

    def get_reference_id(self):
        return self.data().get(REFERENCE) or str(self.name)

    def _seal(self, value):
        try:
            reference = sealing.seal(value, self.stack.tenant_id,
                                     sensitive.keyring())
        except sealing.SealError as exc:
            raise exception.Error('%s: %s' % (self.name, exc))
        self.data_set(REFERENCE, reference)
        self.data_set(FINGERPRINT, sensitive.fingerprint(
            value, self.stack.tenant_id))
        self.attributes.reset_resolved_values()

    def _typed(self, value):
        """A typed value, with the references it holds opened."""
        if not value or not sealing.contains_reference(value):
            return value
        return sensitive.opened(self, {VALUE: value}, [VALUE])[VALUE]

    def _generate(self):
        if self.properties[FORMAT] == FERNET_KEY:
            return base64.urlsafe_b64encode(os.urandom(32)).decode('ascii')
        return ''.join(secrets.choice(_ALPHABET)
                       for _ in range(self.properties[LENGTH]))

    def _replaced_value(self):
        """The value of the OS::Heat::RandomString this one replaces."""
        if not self.replaces:
            return None
        try:  # RandomString keeps its value as (encrypted) data 'value'
            value = db_api.resource_data_get_all(
                self.context, self.replaces).get('value')
        except Exception:
            return None
        if value and self.properties[FORMAT] == FERNET_KEY:
            return value + '=' * (-len(value) % 4)  # base64 padding
        return value
