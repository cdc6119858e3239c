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

"""Secret references (heat_k8s.sealing), and which values are not."""

import unittest

from heat_k8s import sealing
from heat_k8s.resources import references

KEY = 'an auth_encryption_key of 32 ch.'
VALUE = 'correct-horse-battery-staple'


class SealingTest(unittest.TestCase):

    def test_a_reference_opens_to_its_value_for_its_project_only(self):
        ref = sealing.seal(VALUE, 'p1', KEY)
        self.assertTrue(sealing.is_reference(ref))
        self.assertNotIn(VALUE, ref)
        self.assertEqual(VALUE, sealing.open_text(ref, 'p1', KEY))
        with self.assertRaisesRegex(sealing.SealError, 'another project'):
            sealing.open_text(ref, 'p2', KEY)

    def test_another_cloud_or_a_damaged_reference_opens_nothing(self):
        ref = sealing.seal(VALUE, 'p1', KEY)
        for bad in (ref.replace('<heat-k8s-secret:g', '<heat-k8s-secret:h'),
                    ref):
            key = KEY if bad is not ref else 'another key, another cloud'
            with self.assertRaises(sealing.SealError) as caught:
                sealing.open_text(bad, 'p1', key)
            self.assertNotIn(VALUE, str(caught.exception))

    def test_references_open_inside_text_and_structures(self):
        ref = sealing.seal(VALUE, 'p', KEY)
        other = sealing.seal('s3cret', 'p', KEY)
        data = {'url': 'mysql://u:%s@db/x' % ref,
                'keys': [ref + '=', other], 'n': 3, 'none': None}
        self.assertFalse(sealing.is_reference(data['url']))
        self.assertTrue(sealing.contains_reference(data['url']))
        self.assertEqual({'url': 'mysql://u:%s@db/x' % VALUE,
                          'keys': [VALUE + '=', 's3cret'], 'n': 3,
                          'none': None},
                         sealing.open_all(data, 'p', KEY))

    def test_each_reference_differs_though_the_value_is_the_same(self):
        self.assertNotEqual(sealing.seal(VALUE, 'p', KEY),
                            sealing.seal(VALUE, 'p', KEY))


class NotReferencesTest(unittest.TestCase):

    def test_references_and_unknown_values_pass(self):
        ref = sealing.seal(VALUE, 'p', KEY)
        self.assertEqual([], references.not_references({}))
        self.assertEqual([], references.not_references({'A': ref,
                                                        'B': None}))

    def test_values_are_named_by_key(self):
        given = {'DB_PASSWORD': VALUE, 'OK': sealing.seal('x', 'p', KEY),
                 'ALSO': 'prefix ' + sealing.seal('y', 'p', KEY)}
        self.assertEqual(['ALSO', 'DB_PASSWORD'],
                         references.not_references(given))
