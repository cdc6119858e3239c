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

"""The in-process heat-engine of EngineTestCase, on Heat's own resources.

Every action the functional tests use goes through the engine's RPC API
and ends as `--wait` sees it; the resources were checked by the worker
(convergence), not by the legacy path.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

from tests.unit.heat_harness import template


def random_strings(length=8):
    tmpl = template({
        'first': {'type': 'OS::Heat::RandomString',
                  'properties': {'length': length}},
        'second': {'type': 'OS::Heat::RandomString', 'properties': {
            'salt': {'get_attr': ['first', 'value']}}}})
    tmpl['outputs'] = {'salt': {'value': {'get_attr': ['first', 'value']}}}
    return tmpl


class EngineTest(heat_harness.EngineTestCase):

    def assertConverged(self, stack, action):
        self.assertEqual((action, 'COMPLETE'), stack.state,
                         stack.status_reason)
        self.assertTrue(stack.convergence)
        # Only a worker's check records the template a resource is of.
        for rsrc in stack.resources.values():
            self.assertEqual(stack.t.id, rsrc.current_template_id, rsrc.name)

    def test_every_action_through_the_engine(self):
        stack = self.create(random_strings())
        self.assertConverged(stack, 'CREATE')
        first = stack['first'].FnGetAtt('value')
        self.assertEqual(8, len(first))
        self.assertEqual(first, self.output(stack, 'salt'))
        self.assertEqual({'salt': first},
                         stack['second']._stored_properties_data)
        for act, action in ((self.check, 'CHECK'), (self.suspend, 'SUSPEND'),
                            (self.resume, 'RESUME')):
            stack = act(stack)
            self.assertEqual((action, 'COMPLETE'), stack.state,
                             stack.status_reason)

        # A new length replaces first, and second follows its value.
        stack = self.update(stack, random_strings(length=12))
        self.assertConverged(stack, 'UPDATE')
        self.assertEqual(12, len(self.output(stack, 'salt')))
        stack = self.update(stack, existing=True)
        self.assertConverged(stack, 'UPDATE')

        stack = self.delete(stack)
        self.assertEqual(('DELETE', 'COMPLETE'), stack.state)

    def test_a_failed_create_is_waited_for(self):
        stack = self.create(template({'broken': {
            'type': 'OS::Heat::TestResource',
            'properties': {'fail': True}}}))
        self.assertEqual(('CREATE', 'FAILED'), stack.state)
        self.assertIn('Test Resource failed', stack.status_reason)
