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

"""The API server's value rules, offline: formats, labels, keys, ranges."""

import json

import jsonschema
import testtools

from heat_k8s import config  # noqa: F401  (registers [kubernetes])
from heat_k8s.kinds import fieldrules
from heat_k8s.kinds import schema
from tests.unit.manifests import deployment

INT32_MAX = 2 ** 31 - 1
DEFINITIONS = 'https://kubernetes.io/api/_definitions.json#/$defs/'


def _config_map(**fields):
    return dict({'apiVersion': 'v1', 'kind': 'ConfigMap',
                 'metadata': {'name': 'c'}}, **fields)


def _paths(found):
    return [path for path, _problem in found]


class FormatTest(testtools.TestCase):

    def test_int32_range(self):
        self.assertIsNone(fieldrules.format_problem('int32', INT32_MAX))
        self.assertIsNone(fieldrules.format_problem('int32', -2 ** 31))
        self.assertEqual(
            '4294967296 is out of range for int32 (-2147483648 to '
            '2147483647)', fieldrules.format_problem('int32', 2 ** 32))
        self.assertIn('out of range for int32',
                      fieldrules.format_problem('int32', -2 ** 31 - 1))
        self.assertIn('out of range for int32',
                      fieldrules.format_problem('int32', 3e10))

    def test_int64_range(self):
        self.assertIsNone(fieldrules.format_problem('int64', 2 ** 40))
        self.assertIn('out of range for int64',
                      fieldrules.format_problem('int64', 2 ** 63))

    def test_byte_is_padded_base64(self):
        self.assertIsNone(fieldrules.format_problem('byte', 'aHVudGVyMg=='))
        for bad in ('hunter2 not base64!', 'aHVudGVyMg', 'a=b='):
            problem = fieldrules.format_problem('byte', bad)
            self.assertIn('not base64', problem or '', bad)
            self.assertNotIn(bad, problem)

    def test_other_types_are_the_schemas_to_report(self):
        for fmt, value in (('int32', 'three'), ('int32', True),
                           ('byte', 7), ('int32', None), ('date-time', 'x')):
            self.assertIsNone(fieldrules.format_problem(fmt, value))


class SchemaFormatTest(testtools.TestCase):
    """schema.validate checks the formats the OpenAPI schema declares."""

    def test_replicas_out_of_int32(self):
        self.assertEqual(
            [('spec.replicas', '4294967296 is out of range for int32 '
              '(-2147483648 to 2147483647)')],
            schema.validate(deployment(replicas=4294967296)))

    def test_binary_data_must_be_base64(self):
        self.assertEqual(
            [('binaryData.logo.png', 'not base64 (standard alphabet, '
              'padded)')],
            schema.validate(_config_map(binaryData={'logo.png': '#!'})))
        self.assertEqual([], schema.validate(
            _config_map(binaryData={'logo.png': 'iVBORw0KGgo='})))

    def _definitions(self):
        path = schema._schema_dir(None) / '_definitions.json'
        return json.loads(path.read_text())['$defs']

    def test_every_int_field_the_schema_declares_is_checked(self):
        checked = 0
        for name, definition in self._definitions().items():
            for field, prop in (definition.get('properties') or {}).items():
                fmt = prop.get('format')
                if fmt not in fieldrules.INT_RANGES:
                    continue
                validator = jsonschema.Draft202012Validator(
                    {'$ref': DEFINITIONS + name},
                    registry=schema._registry(None),
                    format_checker=schema.FORMAT_CHECKER)
                too_big = fieldrules.INT_RANGES[fmt][1] + 1
                errors = [e for e in validator.iter_errors({field: too_big})
                          if e.validator == 'format']
                self.assertEqual([[field]],
                                 [list(e.absolute_path) for e in errors],
                                 '%s.%s (%s)' % (name, field, fmt))
                checked += 1
        # 199 in kubernetes-validate 1.31's newest schema, the lower bound's
        self.assertGreater(checked, 190)

    def test_every_format_in_the_schema_is_checked_or_known_harmless(self):
        # A format a new schema adds must be decided on: checked or not.
        harmless = {'double', 'date-time'}
        found = set()

        def walk(node):
            if isinstance(node, dict):
                if isinstance(node.get('format'), str):
                    found.add(node['format'])
                for child in node.values():
                    walk(child)
            elif isinstance(node, list):
                for child in node:
                    walk(child)

        walk(self._definitions())
        self.assertEqual(set(), found - harmless - set(
            schema.FORMAT_CHECKER.checkers))


class LabelRuleTest(testtools.TestCase):

    def test_label_keys(self):
        for good in ('app', 'app.kubernetes.io/name', 'a' * 63,
                     'example.com/' + 'a' * 63, 'A_b.c-1'):
            self.assertEqual([], fieldrules.qualified_name_problems(good),
                             good)
        for bad, words in (('bad key', 'name part must consist'),
                           ('a' * 64, 'no more than 63'),
                           ('/app', 'prefix part: must be non-empty'),
                           ('Example.com/app', 'prefix part'),
                           ('example.com/', 'name part must be non-empty'),
                           ('-app', 'start and end with an alphanumeric'),
                           ('a/b/c', "optional DNS subdomain prefix and '/'")):
            self.assertIn(words, ' '.join(
                fieldrules.qualified_name_problems(bad)), bad)

    def test_label_values(self):
        for good in ('', 'web', 'v1.2_3-x', 'a' * 63):
            self.assertEqual([], fieldrules.label_value_problems(good))
        self.assertIn('no more than 63', ' '.join(
            fieldrules.label_value_problems('a' * 64)))
        self.assertIn('a valid label must', ' '.join(
            fieldrules.label_value_problems('web server')))

    def test_labels_anywhere_in_the_manifest(self):
        manifest = deployment()
        manifest['metadata']['labels'] = {'tier': 'front end'}
        manifest['spec']['selector']['matchLabels'] = {'bad key': 'x'}
        manifest['spec']['template']['metadata']['labels'] = {
            'app': '-web'}
        manifest['spec']['template']['spec']['nodeSelector'] = {
            'role': 'a' * 64}
        found = fieldrules.problems(manifest)
        self.assertEqual(['metadata.labels', 'spec.selector.matchLabels',
                          'spec.template.metadata.labels',
                          'spec.template.spec.nodeSelector'], _paths(found))
        self.assertIn("'front end' (key 'tier')", found[0][1])
        self.assertIn("Invalid value 'bad key'", found[1][1])

    def test_annotation_keys_not_values(self):
        manifest = _config_map(metadata={'name': 'c', 'annotations': {
            'note': 'any text at all!', 'example.com/bad key': 'v'}})
        self.assertEqual([('metadata.annotations',
                           "Invalid value 'example.com/bad key': name part "
                           "must consist of alphanumeric characters, '-', "
                           "'_' or '.', and must start and end with an "
                           "alphanumeric character (e.g. 'MyName', or "
                           "'my.name', or '123-abc', regex used for "
                           "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?"
                           "[A-Za-z0-9]')")],
                         fieldrules.problems(manifest))

    def test_service_selector_is_labels_only_for_services(self):
        service = {'apiVersion': 'v1', 'kind': 'Service',
                   'spec': {'selector': {'app': 'web!'}}}
        self.assertEqual(['spec.selector'],
                         _paths(fieldrules.problems(service)))
        service['kind'] = 'Widget'
        self.assertEqual([], fieldrules.problems(service))

    def test_non_strings_and_unknowns_are_left_to_the_schema(self):
        manifest = deployment()
        manifest['metadata']['labels'] = {'version': 3, 'app': None}
        manifest['spec']['replicas'] = None
        self.assertEqual([], fieldrules.problems(manifest))


class ConfigKeyTest(testtools.TestCase):

    def test_config_keys(self):
        for good in ('app.ini', 'KEY_NAME', 'key-name', '.hidden', 'a' * 253):
            self.assertEqual([], fieldrules.config_key_problems(good), good)
        for bad, words in (('conf/app.ini', 'a valid config key'),
                           ('a b', 'a valid config key'),
                           ('.', "must not be '.'"),
                           ('..', "must not be '..'"),
                           ('..x', "must not start with '..'"),
                           ('a' * 254, 'no more than 253')):
            self.assertIn(words, ' '.join(
                fieldrules.config_key_problems(bad)), bad)

    def test_config_map_and_secret_keys(self):
        self.assertEqual(['data', 'binaryData'], _paths(fieldrules.problems(
            _config_map(data={'conf/app.ini': 'x'},
                        binaryData={'a b': 'eA=='}))))
        secret = {'apiVersion': 'v1', 'kind': 'Secret',
                  'data': {'conf/x': 'eA=='}, 'stringData': {'a b': 's3'}}
        found = fieldrules.problems(secret)
        self.assertEqual(['data', 'stringData'], _paths(found))
        self.assertNotIn('s3', repr(found))   # keys named, never values

    def test_config_map_key_in_data_and_binary_data(self):
        self.assertEqual(
            [('binaryData', "Invalid value 'k': duplicate of key 'k' in "
              "data")],
            fieldrules.problems(_config_map(data={'k': 'x'},
                                            binaryData={'k': 'eA=='})))


class RangeRuleTest(testtools.TestCase):

    def test_negative_replicas(self):
        self.assertEqual(
            [('spec.replicas',
              'Invalid value: -1: must be greater than or equal to 0')],
            fieldrules.problems(deployment(replicas=-1)))
        self.assertEqual([], fieldrules.problems(deployment(replicas=0)))

    def test_job_counts_in_a_job_and_a_cron_job(self):
        job = {'apiVersion': 'batch/v1', 'kind': 'Job',
               'spec': {'backoffLimit': -2, 'parallelism': 1}}
        self.assertEqual(['spec.backoffLimit'],
                         _paths(fieldrules.problems(job)))
        cron = {'apiVersion': 'batch/v1', 'kind': 'CronJob',
                'spec': {'failedJobsHistoryLimit': -1, 'jobTemplate': {
                    'spec': {'completions': -1}}}}
        self.assertEqual(['spec.failedJobsHistoryLimit',
                          'spec.jobTemplate.spec.completions'],
                         _paths(fieldrules.problems(cron)))

    def test_ports(self):
        manifest = deployment()
        manifest['spec']['template']['spec']['containers'][0]['ports'] = [
            {'containerPort': 80}, {'containerPort': 0},
            {'containerPort': 65536, 'hostPort': 0}]
        self.assertEqual(
            ['spec.template.spec.containers[0].ports[1].containerPort',
             'spec.template.spec.containers[0].ports[2].containerPort'],
            _paths(fieldrules.problems(manifest)))
        service = {'apiVersion': 'v1', 'kind': 'Service', 'spec': {
            'ports': [{'port': 80, 'targetPort': 'http', 'nodePort': 0},
                      {'port': 70000, 'targetPort': 0}]}}
        found = fieldrules.problems(service)
        self.assertEqual(['spec.ports[1].port', 'spec.ports[1].targetPort'],
                         _paths(found))
        self.assertIn('must be between 1 and 65535, inclusive', found[0][1])

    def test_kinds_a_rule_does_not_name_are_untouched(self):
        widget = {'apiVersion': 'example.com/v1', 'kind': 'Widget',
                  'spec': {'replicas': -1}}
        self.assertEqual([], fieldrules.problems(widget))
