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

"""One declaration per kind, and the resource types that say what it says."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import re
import unittest

from heat_k8s import kinds
from heat_k8s.kinds import readiness
from heat_k8s.resources.registry import KUBERNETES_TYPES
from heat_k8s.resources.shared import base

TYPED = {name: cls for name, cls in KUBERNETES_TYPES.items() if cls.kind}


def _words(text):
    return ' '.join(text.split())


def _spelled(cls, path):
    """A manifest path as the type's docstring names it: the property for
    the top key (binaryData is binary_data), 'spec.' left out."""
    head, _, rest = path.partition('.')
    prop = {key: p for p, key in cls.body_properties.items()}.get(head, head)
    return rest if prop == 'spec' and rest else prop


class DeclarationTest(unittest.TestCase):

    def test_names_are_unique_and_keys(self):
        self.assertEqual(len(kinds.DECLARATIONS), len(kinds.KINDS))
        for name, kind in kinds.KINDS.items():
            self.assertEqual(name, kind.name)
            self.assertRegex(kind.plural, '^[a-z]+$', name)
            self.assertIn(kind.suspend, (None, kinds.SCALE,
                                         kinds.SUSPEND_FIELD), name)

    def test_job_in_one_look(self):
        job = kinds.KINDS['Job']
        self.assertEqual(('batch/v1', 'jobs', True),
                         (job.api_version, job.plural, job.namespaced))
        self.assertIs(readiness.job, job.ready)
        self.assertEqual({'pods', 'events'}, job.explains)
        self.assertEqual(kinds.SUSPEND_FIELD, job.suspend)
        self.assertIn('spec.completions', job.immutable)

    def test_undeclared_kinds_have_only_common_rules(self):
        custom = kinds.declared('Database')
        self.assertEqual((), custom.immutable)
        self.assertIs(readiness.exists, custom.ready)
        self.assertEqual(frozenset(), custom.related)
        self.assertIsNone(kinds.builtin('example.com/v1', 'Database'))


class ResourceTypeTest(heat_harness.KubernetesTestCase):

    def test_every_type_has_a_declaration(self):
        self.assertEqual(11, len(TYPED))
        for name, cls in TYPED.items():
            self.assertEqual(name, 'OS::Kubernetes::' + cls.kind)
            self.assertIn(cls.kind, kinds.KINDS, name)

    def test_suspend_strategy_is_the_declared_one(self):
        for name, cls in TYPED.items():
            self.assertEqual(kinds.KINDS[cls.kind].suspend,
                             cls.suspend_strategy, name)
        self.assertEqual((kinds.SCALE, kinds.SUSPEND_FIELD),
                         (base.SCALE, base.SUSPEND_FIELD))

    def test_docstrings_name_what_replaces_the_object(self):
        checked = 0
        for name, cls in TYPED.items():
            doc = _words(cls.__doc__)
            for rule in kinds.KINDS[cls.kind].immutable:
                for path in (rule,) + rule.exceptions:
                    self.assertIn(_spelled(cls, path), doc, name)
                    checked += 1
                for value in rule.values:
                    self.assertIn(value, doc, name)
                if rule.when_old:
                    self.assertIn('once %s is true' % rule.when_old,
                                  doc.lower(), name)
        self.assertGreater(checked, 30)

    def test_docstrings_name_the_readiness_rule_and_suspend(self):
        for name, cls in TYPED.items():
            doc = _words(cls.__doc__)
            self.assertTrue(re.search(r'\bReady (when|once)\b', doc), name)
            suspend = kinds.KINDS[cls.kind].suspend
            if suspend == kinds.SCALE:
                self.assertIn('Suspend scales it to zero', doc, name)
            elif suspend == kinds.SUSPEND_FIELD:
                self.assertIn('Suspend sets spec.suspend', doc, name)
            else:
                self.assertNotIn('Suspend s', doc, name)


if __name__ == '__main__':
    unittest.main()
