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

"""ConfigMap and Secret files rendered from templates, through Heat."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import base64
import json
from unittest import mock

from heat.common import exception
from heat.objects import event as event_object

from heat_k8s import rendering
from heat_k8s.rendering import checksum
from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import sealing
from tests.unit.heat_harness import template

SECRET_VALUE = 'hunter2-correct-horse'
API_CONF = ('[DEFAULT]\n'
            'debug = {{ debug | lower }}\n'
            '\n'
            '[database]\n'
            'connection = mysql://api:{{ db.password }}@{{ db.host }}/api\n')
VALUES = {'debug': False, 'db': {'host': 'db', 'password': 'pw'}}


def configmap(**props):
    return {'type': 'OS::Kubernetes::ConfigMap', 'properties': props}


def secret(**props):
    return {'type': 'OS::Kubernetes::Secret', 'properties': props}


def fake_kube():
    kube = mock.Mock()
    kube.get.return_value = None
    kube.apply.side_effect = lambda manifest: {
        'metadata': dict(manifest['metadata'], uid='uid-1')}
    kube.delete.return_value = False
    return kube


class RenderValidateTest(heat_harness.KubernetesTestCase):

    def test_valid(self):
        self.parse(template({'config': configmap(
            templates={'api.conf': API_CONF}, values=VALUES,
            data={'other': 'x'})})).validate()

    def test_undefined_variable_names_property_file_and_line(self):
        values = {'debug': True, 'db': {'host': 'db'}}
        self.assertInvalid(
            template({'config': configmap(templates={'api.conf': API_CONF},
                                          values=values)}),
            'resources.config.properties.templates',
            "api.conf, line 5: 'dict object' has no attribute 'password'")

    def test_syntax_error_names_file_and_line(self):
        self.assertInvalid(
            template({'config': configmap(
                templates={'a.conf': 'ok\n{% for x in y %}\n{{ x }}'})}),
            'properties.templates', 'a.conf, line 3', "'endfor'")

    def test_sandbox_refusals_are_validation_errors(self):
        self.assertInvalid(
            template({'config': configmap(
                templates={'a.conf': "{{ ''.__class__ }}"})}),
            'a.conf, line 1', 'unsafe')
        self.assertInvalid(
            template({'config': configmap(
                templates={'a.conf': "{% include '/etc/passwd' %}"})}),
            'a.conf, line 1', "'include' is not allowed")

    def test_values_from_parameters_are_rendered_at_validate(self):
        tmpl = template({'config': configmap(
            templates={'api.conf': API_CONF},
            values={'get_param': 'defaults'},
            value_overrides={'get_param': 'overrides'})},
            parameters={'defaults': {'type': 'json'},
                        'overrides': {'type': 'json', 'default': {}}})
        self.assertInvalid(tmpl, "'debug' is undefined",
                           params={'defaults': {'db': {}}})
        self.parse(tmpl, {'parameters': {'defaults': VALUES}}).validate()

    def test_inputs_known_only_at_create_are_not_rendered_at_validate(self):
        # get_attr of a resource not yet created is None at validate.
        values = dict(VALUES, db={'host': {'get_attr': ['other', 'name']}})
        self.parse(template({
            'other': configmap(),
            'config': configmap(templates={'api.conf': API_CONF},
                                values=values)})).validate()
        self.parse(template({
            'other': configmap(),
            'config': configmap(
                templates={'api.conf': API_CONF},
                values={'get_attr': ['other', 'status']})})).validate()

    def test_a_null_value_is_a_value(self):
        self.assertInvalid(
            template({'config': configmap(templates={'api.conf': API_CONF},
                                          values=dict(VALUES, db=None))}),
            "api.conf, line 5: 'None' has no attribute 'password'")

    def test_a_key_is_either_rendered_or_literal(self):
        self.assertInvalid(
            template({'config': configmap(templates={'a.conf': 'x'},
                                          data={'a.conf': 'y'})}),
            'properties.templates', "'a.conf' is also a key of data")
        self.assertInvalid(
            template({'s': secret(templates={'a.conf': 'x'},
                                  string_data={'a.conf': 'y'})}),
            "'a.conf' is also a key of string_data")

    def test_keys_and_shapes(self):
        self.assertInvalid(
            template({'config': configmap(templates={'a/b.conf': 'x'})}),
            "'a/b.conf' is not a valid key")
        self.assertInvalid(
            template({'config': configmap(templates={'a.conf': ['x']})}),
            'templates.a.conf: a template is text')
        self.assertInvalid(
            template({'config': configmap(
                templates={'a.conf': 'x'},
                ini_overrides={'b.conf': {'DEFAULT': {'a': 1}}})}),
            'properties.ini_overrides', "'b.conf' is not a key of templates")
        self.assertInvalid(
            template({'config': configmap(
                templates={'a.conf': 'x'},
                ini_overrides={'a.conf': {'DEFAULT': 'a=1'}})}),
            'properties.ini_overrides', 'give {section: {key: value}}')

    def test_bad_ini_override_value_blames_ini_overrides(self):
        self.assertInvalid(
            template({'config': configmap(
                templates={'a.conf': '[DEFAULT]\n'},
                ini_overrides={'a.conf': {'DEFAULT': {'a': 'x\ny'}}})}),
            'resources.config.properties.ini_overrides',
            'a.conf: [DEFAULT] a: a value cannot span lines')


class SecretRenderTest(heat_harness.KubernetesTestCase):

    def _secret(self, **props):
        return self.stored_secret(props, SECRET_VALUE)

    def test_validation_errors_do_not_echo_values(self):
        # Jinja names a missing key: here the key is the secret.
        tmpl = template({'s': secret(
            templates={'app.conf': 'a\n{{ users[password] }}'},
            values={'users': {}, 'password': {'get_param': 'pw'}})},
            parameters={'pw': {'type': 'string', 'hidden': True}})
        message = self.validation_error(tmpl, {'pw': SECRET_VALUE})
        self.assertIn('app.conf, line 2: UndefinedError', message)
        self.assertIn('withheld', message)
        self.assertNotIn(SECRET_VALUE, message)

    def test_python_errors_are_withheld(self):
        tmpl = template({'s': secret(
            templates={'app.conf': "{{ 'x'.encode(password|upper) }}"},
            values={'password': {'get_param': 'pw'}})},
            parameters={'pw': {'type': 'string', 'hidden': True}})
        message = self.validation_error(tmpl, {'pw': SECRET_VALUE})
        self.assertIn('app.conf, line 1: LookupError', message)
        self.assertNotIn(SECRET_VALUE.upper(), message)

    def test_create_errors_do_not_echo_values(self):
        rsrc = self._secret(templates={'app.conf': '{{ x[pw] }}'},
                            values={'x': {}, 'pw': {'get_param': 'pw'}})
        kube = fake_kube()
        with mock.patch.object(type(rsrc), '_kube', return_value=kube):
            error = self.assertRaises(exception.Error, rsrc.handle_create)
        self.assertIn('templates: app.conf, line 1:', str(error))
        self.assertNotIn(SECRET_VALUE, str(error))
        self.assertIsNone(error.__context__)
        kube.apply.assert_not_called()

    def test_errors_quote_nothing_computed_from_a_reference(self):
        # The template's author holds a reference, not its value: no
        # error may give the value back, even changed.
        value = 'Gener4ted-by-RandomSecret'
        ref = sealing.seal(value, heat_harness.PROJECT_ID,
                           sensitive.keyring())
        for source in ('{{ {}[pw|reverse] }}', '{{ {}[pw|upper] }}',
                       '{{ {}[pw[1:]] }}', "{{ 'x'.encode(pw|lower) }}"):
            rsrc = self._secret(templates={'app.conf': '\n' + source},
                                values={'pw': ref})
            kube = fake_kube()
            with mock.patch.object(type(rsrc), '_kube', return_value=kube):
                error = self.assertRaises(exception.Error,
                                          rsrc.handle_create)
            self.assertIn('templates: app.conf, line 2: ', str(error))
            self.assertIn('withheld', str(error))
            for form in (value, value[::-1], value.upper(), value[1:],
                         value.lower()):
                self.assertNotIn(form, str(error), source)
            kube.apply.assert_not_called()

    def test_rendered_into_string_data_with_literal_data(self):
        rsrc = self._secret(templates={'app.conf': 'pw={{ pw }}\n'},
                            values={'pw': {'get_param': 'pw'}},
                            data={'raw': 'aHVudGVyMg=='})
        manifest = rsrc.manifest(rsrc.properties)
        self.assertEqual({'app.conf': 'pw=%s\n' % SECRET_VALUE},
                         manifest['stringData'])
        self.assertEqual({'raw': 'aHVudGVyMg=='}, manifest['data'])

    def test_inputs_are_stored_as_fingerprints(self):
        rsrc = self._secret(
            templates={'app.conf': '[a]\npw={{ pw }}\n'},
            values={'pw': {'get_param': 'pw'}},
            value_overrides={'nested': {'pw': {'get_param': 'pw'}}},
            ini_overrides={'app.conf': {'a': {'b': {'get_param': 'pw'}}}})
        rsrc._update_stored_properties()
        rsrc._add_event('CREATE', 'IN_PROGRESS', 'testing')
        stored = json.dumps(rsrc._stored_properties_data)
        self.assertNotIn(SECRET_VALUE, stored)
        for prop in ('values', 'value_overrides', 'ini_overrides'):
            for value in rsrc._stored_properties_data[prop].values():
                self.assertTrue(value.startswith('<redacted:'), value)
        # The template is not secret; it is stored as given.
        self.assertIn('pw={{ pw }}', stored)
        for event in event_object.Event.get_all_by_stack(rsrc.context,
                                                         rsrc.stack.id):
            self.assertNotIn(SECRET_VALUE, json.dumps(
                event.resource_properties))

    def test_stored_inputs_are_never_rendered_or_written(self):
        rsrc = self._secret(templates={'app.conf': 'pw={{ pw.x }}\n'},
                            values={'pw': {'x': {'get_param': 'pw'}}})
        rsrc._update_stored_properties()
        frozen = rsrc.frozen_definition().properties(
            rsrc.properties_schema, rsrc.context)
        manifest = rsrc.manifest(frozen)
        self.assertTrue(manifest['stringData']['app.conf'].startswith(
            '<redacted:'))
        error = self.assertRaises(exception.Error, rsrc.object.apply,
                                  manifest)
        self.assertIn('does not store the values', str(error))

    def test_the_checksum_covers_rendered_content_and_is_keyed(self):
        checksums = []
        for password in ('one', 'two', 'two'):
            rsrc = self._secret(templates={'app.conf': 'pw={{ pw }}'},
                                values={'pw': password})
            with mock.patch.object(type(rsrc), '_kube',
                                   return_value=fake_kube()):
                rsrc.object.apply(rsrc.manifest(rsrc.properties))
            checksums.append(rsrc.data()['checksum'])
        self.assertNotEqual(checksums[0], checksums[1])
        self.assertEqual(checksums[1], checksums[2])
        # Keyed: not the plain sum of the content as the API stores it.
        self.assertNotEqual(checksum.content(
            {'app.conf': base64.b64encode(b'pw=two').decode()}),
            checksums[1])


class RenderLifecycleTest(heat_harness.KubernetesTestCase):

    def _config(self, params=None, **props):
        tmpl = template({'config': configmap(**props)}, parameters={
            'overrides': {'type': 'json', 'default': {}}})
        stack = self.parse(tmpl, params)
        rsrc = stack['config']
        rsrc.store()
        return rsrc

    def test_rendered_files_join_literal_data(self):
        rsrc = self._config(templates={'api.conf': API_CONF}, values=VALUES,
                            data={'policy.yaml': '{}'})
        data = rsrc.manifest(rsrc.properties)['data']
        self.assertEqual({'api.conf', 'policy.yaml'}, set(data))
        self.assertIn('connection = mysql://api:pw@db/api', data['api.conf'])

    def test_parameter_defaults_change_one_key(self):
        props = dict(templates={'api.conf': API_CONF}, values=VALUES,
                     value_overrides={'get_param': 'overrides'},
                     ini_overrides={'api.conf': {
                         'database': {'max_retries': 3}}})
        plain = self._config(**props)
        tuned = self._config({'parameter_defaults': {'overrides': {
            'db': {'host': 'db.example'}}}}, **props)
        before = plain.manifest(plain.properties)['data']['api.conf']
        after = tuned.manifest(tuned.properties)['data']['api.conf']
        self.assertEqual(before.replace('@db/', '@db.example/'), after)
        self.assertIn('max_retries = 3\n', after)

    def test_create_renders_and_sums_the_rendered_content(self):
        rsrc = self._config(templates={'api.conf': API_CONF}, values=VALUES)
        kube = fake_kube()
        with mock.patch.object(type(rsrc), '_kube', return_value=kube):
            rsrc.handle_create()
        written = kube.apply.call_args[0][0]
        self.assertIn('debug = false', written['data']['api.conf'])
        self.assertEqual(checksum.content(written['data']),
                         rsrc.data()['checksum'])

    def test_create_error_names_file_and_line_and_writes_nothing(self):
        rsrc = self._config(templates={'api.conf': API_CONF},
                            values={'get_param': 'overrides'})
        kube = fake_kube()
        with mock.patch.object(type(rsrc), '_kube', return_value=kube):
            error = self.assertRaises(exception.Error, rsrc.handle_create)
        self.assertEqual("templates: api.conf, line 2: 'debug' is undefined",
                         str(error))
        kube.apply.assert_not_called()

    def test_reading_and_deleting_render_nothing(self):
        rsrc = self._config(templates={'api.conf': API_CONF}, values=VALUES)
        rsrc.resource_id_set('uid-1')
        kube = fake_kube()
        with mock.patch.object(type(rsrc), '_kube', return_value=kube), \
                mock.patch.object(rendering, 'render',
                                  side_effect=AssertionError('rendered')):
            rsrc.handle_delete()
            self.assertRaises(exception.Error, rsrc.handle_check)
            self.assertIsNone(rsrc._show_resource())
            self.assertIsNone(rsrc._resolve_attribute('uid'))
        kube.delete.assert_called_once()

    def test_immutable_configmap_is_replaced_when_rendered_input_changes(self):
        props = dict(templates={'api.conf': API_CONF}, values=VALUES,
                     immutable=True)
        rsrc = self._config(**props)
        same = self._config(**props)
        changed = self._config(**dict(props, value_overrides={'debug': True}))
        self.assertFalse(rsrc.needs_replace_with_prop_diff(
            {'values'}, same.properties, rsrc.properties))
        self.assertTrue(rsrc.needs_replace_with_prop_diff(
            {'value_overrides'}, changed.properties, rsrc.properties))

    def test_immutable_secret_compared_with_its_stored_inputs(self):
        def secret_rsrc(password):
            stack = self.parse(template({'s': secret(
                immutable=True, templates={'a': '{{ pw }}'},
                values={'pw': password})}))
            rsrc = stack['s']
            rsrc.store()
            return rsrc

        rsrc = secret_rsrc(SECRET_VALUE)
        rsrc._update_stored_properties()
        stored = rsrc.frozen_definition().properties(
            rsrc.properties_schema, rsrc.context)
        self.assertFalse(rsrc.needs_replace_with_prop_diff(
            {'values'}, secret_rsrc(SECRET_VALUE).properties, stored))
        self.assertTrue(rsrc.needs_replace_with_prop_diff(
            {'values'}, secret_rsrc('other').properties, stored))
