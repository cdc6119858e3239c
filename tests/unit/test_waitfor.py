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

import unittest

from heat_k8s.kinds import readiness
from heat_k8s.kinds import verdict
from heat_k8s.kinds import waitfor
from tests.unit.fixtures import load

READY, PROGRESSING = verdict.READY, verdict.PROGRESSING


class ParseWaitForTest(unittest.TestCase):

    def test_condition(self):
        parsed = waitfor.parse_wait_for('condition=Ready')
        self.assertEqual(('condition', 'Ready', 'True'),
                         (parsed.kind, parsed.target, parsed.value))
        parsed = waitfor.parse_wait_for('condition=Ready=False')
        self.assertEqual('False', parsed.value)
        self.assertEqual('condition=Ready=False', str(parsed))

    def test_jsonpath(self):
        parsed = waitfor.parse_wait_for(
            'jsonpath={.status.conditions[0].type}=Ready')
        self.assertEqual('jsonpath', parsed.kind)
        self.assertEqual('Ready', parsed.value)
        self.assertEqual((('field', 'status'), ('field', 'conditions'),
                          ('index', 0), ('field', 'type')), parsed.path)

    def test_jsonpath_without_value_braces_or_with_shell_quotes(self):
        self.assertIsNone(waitfor.parse_wait_for(
            'jsonpath={.status.loadBalancer.ingress}').value)
        for expr in ("jsonpath='{.status.phase}'=Running",
                     'jsonpath=.status.phase=Running',
                     '--for=jsonpath={.status.phase}=Running'):
            parsed = waitfor.parse_wait_for(expr)
            self.assertEqual(('{.status.phase}', 'Running'),
                             (parsed.target, parsed.value), expr)

    def test_bad_syntax_is_explained(self):
        cases = {
            '': 'non-empty string',
            'condition=': 'expected condition=<Type>',
            'jsonpath={.status.phase': 'missing "}"',
            'jsonpath={status.phase}=x': "unsupported JSONPath 'status.phase'",
            'jsonpath={.items[*].x}=y': '[index]',
            'jsonpath={.a[?(@.b.c=="d")]}=e': 'unsupported JSONPath',
            'jsonpath={}=x': 'empty JSONPath',
            'jsonpath={.a}x': 'expected jsonpath={<path>}=<value>',
            'delete': 'unsupported wait condition',
            'phase=Running': 'use condition=<Type>',
        }
        for expr, words in cases.items():
            with self.assertRaises(ValueError, msg=expr) as caught:
                waitfor.parse_wait_for(expr)
            self.assertIn(words, str(caught.exception), expr)
        self.assertRaises(ValueError, waitfor.parse_wait_for, None)


class JsonPathTest(unittest.TestCase):

    OBJ = {'status': {'conditions': [
        {'type': 'Ready', 'status': 'True', 'observedGeneration': 2},
        {'type': 'Synced', 'status': 'False', 'observedGeneration': 1}],
        'replicas': 0, 'paused': None, 'selector': {'app': 'web'}}}

    def select(self, path):
        return waitfor.select(self.OBJ, waitfor.parse_jsonpath(path))

    def test_fields_indexes_and_filters(self):
        self.assertEqual(['True'], self.select('.status.conditions[0].status'))
        self.assertEqual(['Synced'], self.select('.status.conditions[1].type'))
        self.assertEqual(['False'], self.select(
            '.status.conditions[?(@.type=="Synced")].status'))
        # Filters compare the text kubectl would print: 2, not '2'.
        self.assertEqual(['Ready'], self.select(
            "$.status.conditions[?(@.observedGeneration=='2')].type"))

    def test_missing_out_of_range_and_null_select_nothing(self):
        for path in ('.status.missing', '.status.conditions[2]',
                     '.status.conditions[-3]', '.status.replicas.x',
                     '.status.paused',
                     '.status.conditions[?(@.type=="Gone")]'):
            self.assertEqual([], self.select(path), path)

    def test_falsy_values_are_selected(self):
        self.assertEqual([0], self.select('.status.replicas'))

    def test_values_print_as_kubectl_prints_them(self):
        self.assertEqual(['true', '0', '{"app":"web"}', 'x', '[1,"a"]'],
                         [waitfor.as_text(v) for v in
                          (True, 0, {'app': 'web'}, 'x', [1, 'a'])])

    def test_escaped_dots_are_one_field(self):
        self.assertEqual((('field', 'metadata'), ('field', 'labels'),
                          ('field', 'app.kubernetes.io/name')),
                         waitfor.parse_jsonpath(
                             r'.metadata.labels.app\.kubernetes\.io/name'))


class WaitForTest(unittest.TestCase):

    def test_condition_true(self):
        self.assertEqual(READY, waitfor.wait_for(
            load('pod_ready'), ['condition=Ready']).state)

    def test_condition_not_met_says_why(self):
        result = waitfor.wait_for(load('pod_crashloop'),
                                  ['condition=Ready'])
        self.assertEqual(PROGRESSING, result.state)
        self.assertEqual('condition Ready is False (want True): '
                         'ContainersNotReady: containers with unready '
                         'status: [app]', result.message)

    def test_condition_type_and_status_ignore_case(self):
        self.assertEqual(READY, waitfor.wait_for(
            load('pod_crashloop'), ['condition=ready=false']).state)

    def test_condition_not_reported(self):
        self.assertEqual('condition Synced not reported yet',
                         waitfor.wait_for(load('pod_ready'),
                                          ['condition=Synced']).message)

    def test_jsonpath_values_compare_as_strings(self):
        cases = [
            ('pod_ready', 'jsonpath={.status.phase}=Running'),
            ('pod_ready', 'jsonpath={.status.conditions[0].type}='
                          'PodReadyToStartContainers'),
            ('pod_ready', 'jsonpath={.status.conditions[-1].type}='
                          'PodScheduled'),
            ('pod_ready', 'jsonpath={.status.conditions[?(@.type=="Ready")]'
                          '.status}=True'),
            ('deployment_ready', 'jsonpath={.status.readyReplicas}=3'),
            ('job_running', 'jsonpath={.spec.suspend}=false'),
            ('endpointslice_web', r'jsonpath={.metadata.labels.'
                                  r'endpointslice\.kubernetes\.io/'
                                  r'managed-by}='
                                  'endpointslice-controller.k8s.io'),
            ('service_clusterip', 'jsonpath={.spec.clusterIP}'),
        ]
        for fixture, expr in cases:
            self.assertEqual(READY, waitfor.wait_for(
                load(fixture), [expr]).state, expr)

    def test_jsonpath_not_met(self):
        result = waitfor.wait_for(load('pod_imagepull'),
                                  ['jsonpath={.status.phase}=Running'])
        self.assertEqual("{.status.phase} is 'Pending' (want 'Running')",
                         result.message)
        result = waitfor.wait_for(
            load('service_loadbalancer'),
            ['jsonpath={.status.loadBalancer.ingress[0].ip}'])
        self.assertEqual('{.status.loadBalancer.ingress[0].ip} is not set '
                         'yet', result.message)

    def test_every_condition_must_hold(self):
        result = waitfor.wait_for(load('pod_ready'), [
            'condition=Ready', 'jsonpath={.status.phase}=Succeeded'])
        self.assertEqual(PROGRESSING, result.state)
        self.assertEqual("{.status.phase} is 'Running' (want 'Succeeded')",
                         result.message)

    def test_parsed_conditions_and_create(self):
        parsed = waitfor.parse_wait_for('condition=Ready')
        self.assertEqual(READY, waitfor.wait_for(load('pod_ready'),
                                                 [parsed, 'create']).state)
        self.assertEqual(PROGRESSING,
                         waitfor.wait_for(None, ['create']).state)

    def test_unmet_of_a_missing_object(self):
        for text in ('create', 'condition=Ready', 'jsonpath={.a}'):
            self.assertEqual('object does not exist', waitfor.unmet(
                {}, waitfor.parse_wait_for(text)), text)

    def test_bad_expression_raises(self):
        self.assertRaises(ValueError, waitfor.wait_for, load('pod_ready'),
                          ['jsonpath={status}'])


class ReexportTest(unittest.TestCase):

    def test_callers_of_readiness_keep_working(self):
        self.assertIs(waitfor.wait_for, readiness.wait_for)
        self.assertIs(waitfor.parse_wait_for, readiness.parse_wait_for)
        self.assertIs(waitfor.WaitCondition, readiness.WaitCondition)
        self.assertIs(verdict.Verdict, readiness.Verdict)
        self.assertEqual((verdict.READY, verdict.PROGRESSING, verdict.FAILED),
                         (readiness.READY, readiness.PROGRESSING,
                          readiness.FAILED))


if __name__ == '__main__':
    unittest.main()
