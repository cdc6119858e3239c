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

"""OS::HeatK8s::Requires through Heat's engine: `template validate` and
`stack create` (in-process), with services switched off by the
environment or by a condition."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

from tests.unit.heat_harness import template

ABSTRACT = 'OS::Example::Services::'


def services(*names, conditions=None):
    tmpl = template(dict(
        {name: {'type': ABSTRACT + name.capitalize(),
                'properties': {'value': name}} for name in names},
        needs={'type': 'OS::HeatK8s::Requires', 'properties': {
            'service': 'api', 'requires': {'identity': 'tokens',
                                           'db': ''}}}))
    if conditions:
        tmpl['conditions'] = conditions
    return tmpl


def environment(off=()):
    registry = {ABSTRACT + name.capitalize(): 'OS::Heat::Value'
                for name in ('api', 'identity', 'db')}
    registry.update({ABSTRACT + name.capitalize(): 'OS::Heat::None'
                     for name in off})
    return {'resource_registry': registry}


class RequiresTest(heat_harness.KubernetesTestCase):

    def validate(self, tmpl, env):
        return self.engine().validate_template(self.context(), tmpl, env)

    def test_everything_on(self):
        answer = self.validate(services('api', 'identity', 'db'),
                               environment())
        self.assertNotIn('Error', answer, answer.get('Error'))

    def test_a_dependency_off(self):
        tmpl, env = services('api', 'identity', 'db'), environment(
            off=['identity'])
        message = self.validate(tmpl, env).get('Error')
        self.assertEqual(
            'resources.needs.properties: api needs identity (tokens), which '
            'is switched off: OS::Example::Services::Identity is '
            'OS::Heat::None in the environment. Switch api off too, or '
            'identity on.', message)
        error = self.create_error(self.context(), 'refused', tmpl, env)
        self.assertIn('api needs identity (tokens)', str(error))

    def test_two_dependencies_off(self):
        message = self.validate(services('api', 'identity', 'db'),
                                environment(off=['identity', 'db'])).get(
                                    'Error')
        self.assertIn('api needs db, which is switched off', message)
        self.assertIn('api needs identity (tokens), which', message)
        self.assertIn('Switch api off too, or db, identity on.', message)

    def test_the_service_off_needs_nothing(self):
        answer = self.validate(services('api', 'identity', 'db'),
                               environment(off=['api', 'identity']))
        self.assertNotIn('Error', answer, answer.get('Error'))

    def test_a_dependency_left_out_by_a_condition(self):
        tmpl = services('api', 'identity', 'db', conditions={
            'with_identity': {'get_param': 'with_identity'}})
        tmpl['parameters'] = {'with_identity': {'type': 'boolean',
                                                'default': True}}
        tmpl['resources']['identity']['condition'] = 'with_identity'
        env = environment()
        self.assertNotIn('Error', self.validate(tmpl, env))
        env['parameters'] = {'with_identity': False}
        self.assertIn('api needs identity (tokens), which is switched off: '
                      'left out by its condition',
                      self.validate(tmpl, env).get('Error'))

    def test_a_name_that_is_no_resource(self):
        message = self.validate(services('api', 'db'), environment()).get(
            'Error')
        self.assertIn('identity is not a resource of this template',
                      message)
