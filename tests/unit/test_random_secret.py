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

"""OS::HeatK8s::RandomSecret and the resources that open its references,
through Heat's engine (no cluster needed)."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import json

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from heat.common import exception
from heat.engine import api
from heat.engine import scheduler
from oslo_config import cfg

from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import envelope
from heat_k8s.secrecy import sealing
from tests.unit.heat_harness import template

CONF_PATH = '/etc/api/api.conf'


def _open(reference):
    return sealing.open_text(reference, heat_harness.PROJECT_ID,
                             sensitive.keyring())


class RandomSecretTest(heat_harness.KubernetesTestCase):

    def _create(self, stack, *names):
        for name in names:
            scheduler.TaskRunner(stack[name].create)()
            self.assertEqual('CREATE_COMPLETE', '_'.join(stack[name].state))
        return [stack[name] for name in names]

    def _secret_stack(self, **props):
        return self.parse(template({'pw': {
            'type': 'OS::HeatK8s::RandomSecret', 'properties': props}}))

    def test_the_value_is_generated_and_only_referred_to(self):
        pw, = self._create(self._secret_stack(length=40), 'pw')
        reference = pw.FnGetAtt('reference')
        value = _open(reference)
        self.assertRegex(value, '^[A-Za-z0-9]{40}$')
        self.assertEqual(reference, pw.FnGetRefId())
        self.assertTrue(pw.FnGetAtt('fingerprint').startswith('<redacted:'))
        shown = json.dumps([api.format_resource_attributes(pw),
                            pw.prepare_abandon(), pw.data()], default=str)
        self.assertNotIn(value, shown)
        self.assertIn(reference, shown)

    def test_a_fernet_key_is_32_bytes_in_url_safe_base64(self):
        pw, = self._create(self._secret_stack(format='fernet_key'), 'pw')
        value = _open(pw.FnGetAtt('reference'))
        self.assertEqual(44, len(value))
        self.assertTrue(value.endswith('='))

    def test_replacing_a_random_string_keeps_its_value(self):
        stack = self.parse(template({
            'old': {'type': 'OS::Heat::RandomString',
                    'properties': {'length': 43}},
            'pw': {'type': 'OS::HeatK8s::RandomSecret',
                   'properties': {'format': 'fernet_key'}}}))
        old, = self._create(stack, 'old')
        stack['pw'].replaces = old.id
        pw, = self._create(stack, 'pw')
        self.assertEqual(old.FnGetAtt('value') + '=',
                         _open(pw.FnGetAtt('reference')))

    def test_rendered_files_give_secrets_only_sealed(self):
        pw, = self._create(self._secret_stack(), 'pw')
        ref = pw.FnGetAtt('reference')  # as get_attr hands it over
        files, = self._create(self.parse(template({'files': {
            'type': 'OS::HeatK8s::RenderedFiles', 'properties': {
                'templates': {CONF_PATH: 'password = {{ pw }}\n'},
                'values': {'pw': ref},
                'secrets': {'DB_PASSWORD': ref},
                'secret_files': {'/etc/key': 'key:' + ref}}}})), 'files')
        value = _open(ref)
        for name in ('files', 'environment'):
            error = self.assertRaises(Exception, files.FnGetAtt, name)
            self.assertIn('files: %s: made with secret values, which Heat '
                          'gives only sealed' % name, str(error))
            self.assertNotIn(value, str(error))
        self.assertEqual([CONF_PATH, '/etc/key'], files.FnGetAtt('names'))
        # Opened where the files are written: into the content.
        content = files._content(files.properties)
        self.assertEqual(({CONF_PATH: 'password = %s\n' % value,
                           '/etc/key': 'key:' + value},
                          {'DB_PASSWORD': value}), content)
        shown = json.dumps([api.format_resource_attributes(files),
                            files._stored_properties_data], default=str)
        self.assertNotIn(value, shown)

    def test_a_reference_of_another_project_opens_nothing(self):
        stranger = sealing.seal('theirs', 'another-project',
                                sensitive.keyring())
        stack = self.parse(template({'files': {
            'type': 'OS::HeatK8s::RenderedFiles',
            'properties': {'secrets': {'X': stranger}}}}))
        files = stack['files']
        error = self.assertRaises(Exception,
                                  scheduler.TaskRunner(files.create))
        self.assertIn('files: secrets: a secret reference that this '
                      'project did not make', str(error))

    def test_a_render_error_quotes_nothing_computed_from_a_reference(self):
        # Who wrote the template holds the reference, not the value.
        value = 'Opened-only-in-heat-engine-9'
        ref = sealing.seal(value, heat_harness.PROJECT_ID,
                           sensitive.keyring())
        stack = self.parse(template({'files': {
            'type': 'OS::HeatK8s::RenderedFiles', 'properties': {
                'templates': {CONF_PATH: 'a = 1\nb = {{ {}[pw|reverse] }}'},
                'values': {'pw': ref}}}}))
        error = self.assertRaises(Exception,
                                  scheduler.TaskRunner(stack['files'].create))
        self.assertIn('%s, line 2: UndefinedError' % CONF_PATH, str(error))
        self.assertNotIn(value[::-1], str(error))

    def test_without_usable_sealing_keys_validate_says_what_to_set(self):
        for keys, why in (([], r'sets \[heat_k8s\] sealing_keys'),
                          (['notgood but just long enough i t'],
                           'sealing key 1 is a sample key')):
            cfg.CONF.set_override('sealing_keys', keys, group='heat_k8s')
            stack = self._secret_stack()
            error = self.assertRaises(exception.StackValidationFailed,
                                      stack.validate)
            self.assertRegex(str(error), 'pw: .*' + why)

    def test_a_typed_value_is_sealed_and_stored_as_a_fingerprint(self):
        pw, = self._create(self._secret_stack(value='typed-by-a-user'), 'pw')
        reference = pw.FnGetAtt('reference')
        self.assertEqual('typed-by-a-user', _open(reference))
        self.assertNotIn('typed-by-a-user',
                         json.dumps(pw._stored_properties_data))
        # Heat diffs the stored fingerprint against the value: the same
        # value keeps the reference, a new one makes a new reference.
        pw.handle_update(None, None, {'value': 'typed-by-a-user'})
        self.assertEqual(reference, pw.FnGetAtt('reference'))
        pw.handle_update(None, None, {'value': 'another'})
        self.assertEqual('another', _open(pw.FnGetAtt('reference')))

    def test_a_reference_as_the_value_seals_the_value_it_names(self):
        # A nested stack given a RandomSecret's reference (the control
        # plane's admin password for templates/identity.yaml).
        given = sealing.seal('typed-by-a-user', heat_harness.PROJECT_ID,
                             sensitive.keyring())
        pw, = self._create(self._secret_stack(value=given), 'pw')
        reference = pw.FnGetAtt('reference')
        self.assertEqual('typed-by-a-user', _open(reference))
        # A new reference to the same value (a reseal) is the same value.
        pw.handle_update(None, None, {'value': sealing.seal(
            'typed-by-a-user', heat_harness.PROJECT_ID, sensitive.keyring())})
        self.assertEqual(reference, pw.FnGetAtt('reference'))
        stranger = sealing.seal('theirs', 'another-project',
                                sensitive.keyring())
        error = self.assertRaises(exception.StackValidationFailed,
                                  pw.handle_update, None, None,
                                  {'value': stranger})
        self.assertIn('pw: value: a secret reference that this project did '
                      'not make', str(error))

    def test_a_preview_shows_a_typed_value_as_its_fingerprint(self):
        stack = self.parse(template({
            'pw': {'type': 'OS::HeatK8s::RandomSecret',
                   'properties': {'value': 'typed-by-a-user'}},
            'files': {'type': 'OS::HeatK8s::RenderedFiles', 'properties': {
                'secrets': {'PW': {'get_attr': ['pw', 'reference']}}}}}))
        shown = json.dumps(api.format_stack_preview(stack), default=str)
        self.assertNotIn('typed-by-a-user', shown)
        self.assertIn('<redacted:', shown)
        self.assertIn('"required_by": ["files"]', shown)


def _host_key():
    """A docker host's key pair (PEM texts), as server-key.sh makes one."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return (key.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption()).decode(),
            key.public_key().public_bytes(
                serialization.Encoding.PEM,
                serialization.PublicFormat.SubjectPublicKeyInfo).decode())


class SealedFilesTest(heat_harness.KubernetesTestCase):
    """RenderedFiles with a recipient: Heat holds ciphertext only."""

    def _files(self, public, secret):
        ref = sealing.seal(secret, heat_harness.PROJECT_ID,
                           sensitive.keyring())
        stack = self.parse(template({'files': {
            'type': 'OS::HeatK8s::RenderedFiles', 'properties': {
                'recipient': public,
                'templates': {CONF_PATH: 'password = {{ pw }}\n'},
                'values': {'pw': ref}, 'secrets': {'PW': ref}}}}))
        scheduler.TaskRunner(stack['files'].create)()
        return stack['files']

    def test_the_content_is_given_only_sealed_to_the_host(self):
        private, public = _host_key()
        files = self._files(public, 'hunter2-battery')
        sealed = files.FnGetAtt('sealed')
        self.assertNotIn('hunter2-battery', sealed)
        self.assertEqual({'secret_files': {CONF_PATH:
                                           'password = hunter2-battery\n'},
                          'secrets': {'PW': 'hunter2-battery'}},
                         envelope.open_envelope(private, sealed))
        self.assertRaises(envelope.EnvelopeError, envelope.open_envelope,
                          private, json.dumps(dict(json.loads(sealed), v=2)))
        self.assertIsNone(files.FnGetAtt('files'))
        self.assertIsNone(files.FnGetAtt('environment'))
        self.assertNotIn('hunter2-battery', json.dumps(files.data()))

    def test_one_envelope_per_content_and_key(self):
        private, public = _host_key()
        files = self._files(public, 'first-value')
        sealed = files.FnGetAtt('sealed')
        files._record(files.properties)   # an update with the same content
        self.assertEqual(sealed, files.data()['sealed'])
        other = self._files(public, 'second-value')
        self.assertEqual('second-value', envelope.open_envelope(
            private, other.FnGetAtt('sealed'))['secrets']['PW'])

    def test_a_key_that_is_not_an_rsa_public_key_is_refused(self):
        error = self.validation_error(template({'files': {
            'type': 'OS::HeatK8s::RenderedFiles',
            'properties': {'recipient': 'ssh-rsa AAAA...'}}}))
        self.assertIn('recipient: not a PEM public key', error)


class ReferencesOnlyTest(heat_harness.KubernetesTestCase):
    """references_only, as the service templates set it: a value is
    refused before the stack exists, the message naming keys only."""

    def test_a_value_is_refused_with_its_key_only(self):
        ref = sealing.seal('fine', heat_harness.PROJECT_ID,
                           sensitive.keyring())
        for props, named in (
                ({'secrets': {'OK': ref, 'DB_PASSWORD': 'hunter2-plain'}},
                 'secrets: DB_PASSWORD: give secret references'),
                ({'secret_files': {'/etc/key': 'hunter2-plain'}},
                 'secret_files: /etc/key: give secret references')):
            error = self.create_refused(template({'files': {
                'type': 'OS::HeatK8s::RenderedFiles',
                'properties': dict(props, references_only=True)}}))
            self.assertIn(named, error)
            self.assertNotIn('hunter2-plain', error)
        error = self.create_refused(template({'secret': {
            'type': 'OS::Kubernetes::Secret', 'properties': {
                'references_only': True,
                'string_data': {'env.PW': 'hunter2-plain'}}}}))
        self.assertIn('string_data: env.PW: give secret references', error)
        self.assertNotIn('hunter2-plain', error)

    def test_references_pass_and_without_the_flag_values_too(self):
        ref = sealing.seal('fine', heat_harness.PROJECT_ID,
                           sensitive.keyring())
        for props in ({'references_only': True, 'secrets': {'A': ref}},
                      {'secrets': {'A': 'a plain value'}}):
            self.parse(template({'files': {
                'type': 'OS::HeatK8s::RenderedFiles',
                'properties': props}})).validate()


class FingerprintTest(heat_harness.KubernetesTestCase):

    def test_a_reference_fingerprints_as_its_value(self):
        # A template moving from values to references changes no
        # fingerprint, so no Secret is replaced and nothing rolls.
        ref = sealing.seal('s3cret-value', heat_harness.PROJECT_ID,
                           sensitive.keyring())
        def fingerprint(value):
            return sensitive.fingerprint(value, heat_harness.PROJECT_ID)
        self.assertEqual(fingerprint('s3cret-value'), fingerprint(ref))
        self.assertEqual(fingerprint({'a': 'x:s3cret-value'}),
                         fingerprint({'a': 'x:' + ref}))
        self.assertNotEqual(fingerprint('other'), fingerprint(ref))
