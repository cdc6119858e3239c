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

"""`template validate`: bad input is refused before anything is created."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy

from oslo_config import cfg

from tests.unit.heat_harness import deployment
from tests.unit.heat_harness import template


def _spec():
    return copy.deepcopy(deployment()['properties']['spec'])


class ValidateTest(heat_harness.KubernetesTestCase):

    def assertValid(self, tmpl, params=None):
        self.parse(tmpl, params).validate()

    def test_valid_deployment(self):
        self.assertValid(template({'web': deployment()}))

    def test_name_must_be_dns_safe(self):
        self.assertInvalid(template({'web': deployment(name='Web_Server')}),
                           'resources.web.properties.name',
                           "'Web_Server'")

    def test_service_name_is_a_label(self):
        long_name = 'a' * 64
        svc = {'type': 'OS::Kubernetes::Service',
               'properties': {'name': long_name, 'spec': {'ports': [
                   {'port': 80}]}}}
        self.assertInvalid(template({'svc': svc}), 'properties.name')

    def test_replicas_must_be_an_integer(self):
        spec = _spec()
        spec['replicas'] = 'three'
        self.assertInvalid(template({'web': deployment(spec)}),
                           'resources.web.properties.spec',
                           "spec.replicas: 'three' is not of type "
                           "'integer'")

    def test_unknown_field_is_named_with_its_path(self):
        spec = _spec()
        spec['template']['spec']['containers'][0]['imagePolicy'] = 'x'
        self.assertInvalid(template({'web': deployment(spec)}),
                           'spec.template.spec.containers[0]',
                           "'imagePolicy' was unexpected")

    def test_parameter_values_are_checked(self):
        spec = _spec()
        spec['replicas'] = {'get_param': 'count'}
        tmpl = template({'web': deployment(spec)},
                        parameters={'count': {'type': 'string'}})
        self.assertInvalid(tmpl, 'spec.replicas', params={'count': '3'})
        tmpl['parameters']['count']['type'] = 'number'
        self.assertValid(tmpl, params={'count': 3})

    def test_values_unresolved_before_create_are_skipped(self):
        spec = _spec()
        spec['replicas'] = {'get_attr': ['other', 'ready_replicas']}
        spec['template']['spec']['containers'][0]['image'] = {
            'get_attr': ['other', 'name']}
        self.assertValid(template({'other': deployment(),
                                   'web': deployment(spec)}))

    def test_bad_namespace(self):
        self.assertInvalid(template({'web': deployment(namespace='Prod')}),
                           'properties.namespace', "'Prod'")

    def test_default_namespace_format_is_checked(self):
        cfg.CONF.set_override('default_namespace', '%(project_name)s-x',
                              group='kubernetes')
        self.assertInvalid(template({'web': deployment()}),
                           'default namespace', 'default_namespace')
        cfg.CONF.set_override('default_namespace', '%(tenant)s',
                              group='kubernetes')
        self.assertInvalid(template({'web': deployment()}),
                           "Invalid [kubernetes] default_namespace")

    def test_timeout_must_be_positive(self):
        self.assertInvalid(template({'web': deployment(timeout=0)}),
                           'timeout')

    def test_min_ready_seconds_must_end_before_the_wait(self):
        spec = _spec()
        spec['minReadySeconds'] = 120
        self.assertInvalid(template({'web': deployment(spec, timeout=60)}),
                           'resources.web.properties.timeout',
                           'spec.minReadySeconds (120) is not less than '
                           'the timeout property (60s)')
        self.assertValid(template({'web': deployment(spec, timeout=180)}))
        # Without a timeout property the stack's bounds the wait.
        spec['minReadySeconds'] = 7200
        self.assertInvalid(template({'web': deployment(spec)}),
                           'the stack timeout (3600s)')
        # Not waited for: nothing to end.
        self.assertValid(template({'web': deployment(spec, wait=False)}))

    def test_the_hold_must_end_before_the_wait(self):
        cfg.CONF.set_override('ready_hold_seconds', 90, group='kubernetes')
        self.assertInvalid(template({'web': deployment(timeout=60)}),
                           'resources.web.properties.timeout',
                           '[kubernetes] ready_hold_seconds (90) is not '
                           'less than the timeout property (60s)')
        self.assertValid(template({'web': deployment(timeout=91)}))
        # Not waited for: nothing to hold.
        self.assertValid(template({'web': deployment(timeout=60,
                                                     wait=False)}))

    def test_an_absurd_hold_is_refused_by_its_option(self):
        for hold in (-1, 601):
            self.assertRaises(ValueError, cfg.CONF.set_override,
                              'ready_hold_seconds', hold, group='kubernetes')

    def test_spec_is_required(self):
        job = {'type': 'OS::Kubernetes::Job', 'properties': {}}
        self.assertInvalid(template({'job': job}), 'spec')


class SecretValidateTest(heat_harness.KubernetesTestCase):

    def _secret(self, **props):
        return template({'s': {'type': 'OS::Kubernetes::Secret',
                               'properties': props}})

    def test_data_must_be_base64_and_the_value_is_not_echoed(self):
        message = self.validation_error(self._secret(
            data={'password': 'hunter2 // no!'}))
        self.assertIn('data.password: not base64', message)
        self.assertNotIn('hunter2', message)

    def test_schema_errors_do_not_echo_values(self):
        message = self.validation_error(self._secret(
            string_data={'password': 'hunter2'}, type='Opaque',
            immutable='sometimes'))
        self.assertNotIn('hunter2', message)

    def test_valid_secret(self):
        self.parse(self._secret(data={'password': 'aHVudGVyMg=='},
                                string_data={'user': 'admin'})).validate()


class GenericValidateTest(heat_harness.KubernetesTestCase):

    def _resource(self, manifest, **props):
        props['manifest'] = manifest
        return template({'r': {'type': 'OS::Kubernetes::Resource',
                               'properties': props}})

    def test_custom_resource_is_not_schema_checked(self):
        self.parse(self._resource({
            'apiVersion': 'example.com/v1', 'kind': 'Widget',
            'metadata': {'name': 'w'}, 'spec': {'anything': ['goes']}},
            wait_for=['condition=Ready'])).validate()

    def test_builtin_kind_is_schema_checked(self):
        message = self.validation_error(self._resource({
            'apiVersion': 'v1', 'kind': 'ServiceAccount',
            'metadata': {'name': 'sa'}, 'automountToken': True}))
        self.assertIn('resources.r.properties.manifest', message)
        self.assertIn("'automountToken' was unexpected", message)

    def test_kind_and_api_version_are_required(self):
        message = self.validation_error(self._resource({
            'apiVersion': 'v1', 'metadata': {'name': 'x'}}))
        self.assertIn('manifest.kind is required', message)

    def test_bad_wait_for(self):
        message = self.validation_error(self._resource({
            'apiVersion': 'example.com/v1', 'kind': 'Widget'},
            wait_for=['ready please']))
        self.assertIn('resources.r.properties.wait_for', message)
        self.assertIn("'ready please'", message)

    def test_secrets_must_use_the_secret_type(self):
        message = self.validation_error(self._resource({
            'apiVersion': 'v1', 'kind': 'Secret',
            'stringData': {'password': 'hunter2'}}))
        self.assertIn('OS::Kubernetes::Secret', message)
        self.assertNotIn('hunter2', message)
