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

"""Offline OpenAPI validation and live-state projection."""

import testtools

from heat_k8s import config  # noqa: F401  (registers [kubernetes])
from heat_k8s.kinds import projection
from heat_k8s.kinds import schema
from tests.unit.manifests import deployment


class SchemaTest(testtools.TestCase):

    def test_valid(self):
        self.assertEqual([], schema.validate(deployment()))

    def test_type_errors_have_paths(self):
        self.assertEqual(
            [('spec.replicas', "'three' is not of type 'integer'")],
            schema.validate(deployment(replicas='three')))

    def test_unknown_fields_are_errors(self):
        manifest = deployment()
        manifest['spec']['template']['spec']['containers'][0]['cpu'] = 1
        [(path, problem)] = schema.validate(manifest)
        self.assertEqual('spec.template.spec.containers[0]', path)
        self.assertIn("'cpu' was unexpected", problem)

    def test_unresolved_values_are_skipped(self):
        self.assertEqual([], schema.validate(deployment(replicas=None)))

    def test_unknown_kinds_are_not_checked(self):
        self.assertEqual([], schema.validate({
            'apiVersion': 'example.com/v1', 'kind': 'Widget', 'x': 1}))

    def test_secret_values_are_not_echoed(self):
        errors = schema.validate({'apiVersion': 'v1', 'kind': 'Secret',
                                  'metadata': {'name': 's'},
                                  'stringData': {'pw': ['hunter2']}})
        self.assertTrue(errors)
        self.assertNotIn('hunter2', repr(errors))

    def test_error_count_is_bounded(self):
        manifest = deployment()
        manifest['spec']['template']['spec']['containers'] = [
            {'name': n, 'image': 'i'} for n in range(schema.MAX_ERRORS + 3)]
        errors = schema.validate(manifest)
        self.assertEqual(schema.MAX_ERRORS + 1, len(errors))
        self.assertEqual(('', '(3 more)'), errors[-1])


class ProjectionTest(testtools.TestCase):

    def test_only_desired_keys(self):
        self.assertEqual({'a': 1, 'b': {'c': None}}, projection.project(
            {'a': 0, 'b': {'c': 0}}, {'a': 1, 'b': {'d': 2}, 'e': 3}))

    def test_lists_item_by_item(self):
        self.assertEqual([{'name': 'c', 'image': 'i:2'}], projection.project(
            [{'name': 'c', 'image': 'i'}],
            [{'name': 'c', 'image': 'i:2', 'imagePullPolicy': 'Always'}]))

    def test_a_list_of_other_length_is_drift(self):
        live = [{'port': 80}, {'port': 81}]
        self.assertEqual(live, projection.project([{'port': 80}], live))

    def test_missing_live_values(self):
        self.assertEqual({'a': None}, projection.project({'a': 1}, None))
