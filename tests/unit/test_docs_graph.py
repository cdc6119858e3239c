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

"""The control plane's graph page, generated from its templates
(doc/source/_ext/template_graph.py, run without Sphinx)."""

import os
import re
import unittest

from tests.unit import doc_ext

graph = doc_ext.load('template_graph')
LINE = re.compile(r'^( *)\* ``(\w+)`` \(([^)]*)\)(?: \(when [^)]*\))?, '
                  r'after (.*)$')


def parse(page):
    """{(service or '', resource): set of what it waits for}."""
    found, service = {}, ''
    for line in page.splitlines():
        match = LINE.match(line)
        if not match:
            continue
        indent, name, _, after = match.groups()
        if not indent:
            service = name
        waits = set(re.findall(r'``(\w+)``', after))
        found[(service if indent else '', name)] = waits
    return found


class ControlPlaneGraphTest(unittest.TestCase):

    def setUp(self):
        self.page = graph.render()
        self.graph = parse(self.page)

    def test_services_wait_for_what_they_take(self):
        self.assertEqual({'host'}, self.graph[('', 'database')])
        self.assertLessEqual({'database', 'memcached'},
                             self.graph[('', 'keystone')])
        # Through the `identity` Value: Glance and Placement wait for
        # the whole Keystone stack.
        for service in ('glance', 'placement'):
            self.assertIn('keystone', self.graph[('', service)])

    def test_each_services_steps_in_upgrade_order(self):
        self.assertEqual({'glance_db_expand'},
                         self.graph[('glance', 'glance_db_migrate')])
        self.assertEqual({'glance_db_migrate', 'service_user'},
                         self.graph[('glance', 'glance')])
        self.assertEqual({'keystone'},
                         self.graph[('keystone', 'keystone_db_contract')])

    def test_keystone_in_the_control_plane_makes_no_infrastructure(self):
        # identity.yaml's own host and database are conditioned on an
        # empty `infrastructure`, which the control plane fills.
        self.assertNotIn(('keystone', 'database'), self.graph)
        self.assertNotIn(('keystone', 'host'), self.graph)
        alone = graph.lines_for(
            os.path.join(graph.REPO, 'templates', 'identity.yaml'), {})
        self.assertTrue(any('``database``' in line for line in alone))

    def test_values_and_secrets_are_not_steps(self):
        names = {name for _, name in self.graph}
        self.assertFalse(names & {'identity', 'shared', 'roles', 'site',
                                  'database_root_password',
                                  'glance_requires'})

    def test_a_cycle_is_an_error(self):
        self.assertRaises(ValueError, graph.in_order,
                          {'a': ['b'], 'b': ['a']}, ['a', 'b'])

    def test_conditions(self):
        conditions = {'alone': {'equals': [{'get_param': 'infra'}, {}]}}
        self.assertFalse(graph.condition_value(
            'alone', conditions, {'infra': {'host': {'get_attr': ['x']}}}))
        self.assertTrue(graph.condition_value('alone', conditions,
                                              {'infra': {}}))
        self.assertIs(graph.UNKNOWN, graph.condition_value(
            {'yaql': {'expression': '$.data > 1'}}, conditions, {}))
        self.assertIs(graph.UNKNOWN, graph.condition_value(
            'alone', conditions, {'infra': {'get_param': 'other'}}))
