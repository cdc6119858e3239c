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

import copy
import unittest

from heat_k8s.kinds import labels
from tests.unit.fixtures import load

STACK_ID = '3f2c1a9e-5b7d-4c1e-9a8f-2d6b0e4c7a11'
LONG_NAME = ('keystone_database_migration_job_for_the_production_'
             'region_one_and_its_cells')


def marked(obj, stack_id, resource_name):
    """obj carrying the ownership marks, as the plugin writes them."""
    obj = copy.deepcopy(obj)
    ours_labels, ours_annotations = labels.ownership(stack_id, resource_name)
    metadata = obj['metadata']
    metadata['labels'] = labels.merge(metadata.get('labels'), ours_labels)
    metadata['annotations'] = labels.merge(metadata.get('annotations'),
                                           ours_annotations)
    return obj


class LabelValueTest(unittest.TestCase):

    def test_fitting_values_are_kept(self):
        for value in (STACK_ID, 'web', 'db_sync', 'a.b-c', '', 'A' * 63):
            self.assertTrue(labels.fits_label(value), value)
            self.assertEqual(value, labels.label_value(value))

    def test_values_that_do_not_fit(self):
        for value in ('A' * 64, 'web server', '-web', 'web_', 'ключ', None):
            self.assertFalse(labels.fits_label(value), value)

    def test_long_or_odd_values_get_a_readable_hashed_label(self):
        self.assertGreater(len(LONG_NAME), 63)
        for value in (LONG_NAME, 'Web Server (primary)', '_x_', 'ключ',
                      '-' * 80):
            label = labels.label_value(value)
            self.assertTrue(labels.fits_label(label), (value, label))
            self.assertEqual(label, labels.label_value(value))
        self.assertTrue(labels.label_value(
            'Web Server (primary)').startswith('Web-Server-primary-'))
        self.assertEqual(12, len(labels.label_value('ключ')))

    def test_names_with_a_common_prefix_get_different_labels(self):
        self.assertNotEqual(labels.label_value(LONG_NAME + '1'),
                            labels.label_value(LONG_NAME + '2'))


class OwnershipTest(unittest.TestCase):

    def test_short_names_are_labels_only(self):
        self.assertEqual(({labels.MANAGED_BY: 'heat',
                           labels.STACK_ID: STACK_ID,
                           labels.RESOURCE: 'web'}, {}),
                         labels.ownership(STACK_ID, 'web'))

    def test_long_names_go_in_an_annotation_too(self):
        ours_labels, ours_annotations = labels.ownership(STACK_ID, LONG_NAME)
        self.assertEqual({labels.RESOURCE: LONG_NAME}, ours_annotations)
        self.assertTrue(labels.fits_label(ours_labels[labels.RESOURCE]))
        self.assertNotEqual(LONG_NAME, ours_labels[labels.RESOURCE])

    def test_owner_of_reads_labels_or_annotations(self):
        for name in ('web', LONG_NAME, 'Web Server'):
            obj = marked(load('deployment_ready'), STACK_ID, name)
            self.assertEqual((STACK_ID, name), labels.owner_of(obj))

    def test_objects_not_managed_by_heat_have_no_owner(self):
        obj = load('pod_ready')
        self.assertEqual((None, None), labels.owner_of(obj))
        obj = marked(obj, STACK_ID, 'web')
        obj['metadata']['labels'][labels.MANAGED_BY] = 'Helm'
        self.assertEqual((None, None), labels.owner_of(obj))
        self.assertEqual((None, None), labels.owner_of({}))

    def test_an_annotation_disagreeing_with_the_label_is_ignored(self):
        obj = marked(load('deployment_ready'), STACK_ID, 'web')
        obj['metadata']['annotations'][labels.RESOURCE] = 'api'
        self.assertEqual((STACK_ID, 'web'), labels.owner_of(obj))

    def test_is_owned_by(self):
        obj = marked(load('deployment_ready'), STACK_ID, LONG_NAME)
        self.assertTrue(labels.is_owned_by(obj, STACK_ID, LONG_NAME))
        self.assertTrue(labels.is_owned_by(obj, STACK_ID))
        self.assertFalse(labels.is_owned_by(obj, STACK_ID, 'web'))
        self.assertFalse(labels.is_owned_by(
            obj, '00000000-0000-4000-8000-000000000000', LONG_NAME))
        self.assertFalse(labels.is_owned_by(load('pod_ready'), STACK_ID))

    def test_is_owned_by_works_from_the_hashed_label_alone(self):
        obj = marked(load('deployment_ready'), STACK_ID, LONG_NAME)
        del obj['metadata']['annotations']
        self.assertTrue(labels.is_owned_by(obj, STACK_ID, LONG_NAME))
        self.assertFalse(labels.is_owned_by(obj, STACK_ID, LONG_NAME + 'y'))


class MergeTest(unittest.TestCase):

    def test_user_keys_kept_and_ours_win(self):
        user = {'app': 'web', labels.MANAGED_BY: 'me'}
        ours, _ = labels.ownership(STACK_ID, 'web')
        merged = labels.merge(user, ours)
        self.assertEqual('web', merged['app'])
        self.assertEqual('heat', merged[labels.MANAGED_BY])
        self.assertEqual({'app': 'web', labels.MANAGED_BY: 'me'}, user)

    def test_user_cannot_forge_ownership_we_do_not_set(self):
        # The name fits a label, so we write no annotation: a user's
        # resource-name annotation must not appear and claim the object.
        _, ours = labels.ownership(STACK_ID, 'web')
        user = {labels.RESOURCE: 'api', labels.STACK_ID: 'other',
                'note': 'hello'}
        merged = labels.merge(user, ours)
        self.assertEqual({'note': 'hello'}, merged)

    def test_no_user_values(self):
        ours, _ = labels.ownership(STACK_ID, 'web')
        self.assertEqual(ours, labels.merge(None, ours))


if __name__ == '__main__':
    unittest.main()
