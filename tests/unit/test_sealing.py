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

"""Secret references (heat_k8s.secrecy.sealing), and which values are not."""

import json
import unittest

from heat_k8s.resources.shared import references
from heat_k8s.secrecy import keyring
from heat_k8s.secrecy import sealing

# Hand-made test keys (random bytes, as `heat-k8s-keys generate` prints).
OLD_KEY = keyring.generate()
NEW_KEY = keyring.generate()
LEGACY = 'an auth_encryption_key of 32 ch.'
RING = keyring.Keyring([OLD_KEY])
VALUE = 'correct-horse-battery-staple'


class SealingTest(unittest.TestCase):

    def test_a_reference_opens_to_its_value_for_its_project_only(self):
        ref = sealing.seal(VALUE, 'p1', RING)
        self.assertTrue(sealing.is_reference(ref))
        self.assertNotIn(VALUE, ref)
        self.assertEqual(VALUE, sealing.open_text(ref, 'p1', RING))
        with self.assertRaisesRegex(sealing.SealError,
                                    'this project did not make'):
            sealing.open_text(ref, 'p2', RING)

    def test_a_reference_names_the_key_that_sealed_it(self):
        ref = sealing.seal(VALUE, 'p1', RING)
        self.assertEqual(RING.key_ids[0], sealing.key_id_of(ref))
        self.assertTrue(ref.startswith('<heat-k8s-secret:%s.'
                                       % RING.key_ids[0]))

    def test_another_cloud_or_a_damaged_reference_opens_nothing(self):
        ref = sealing.seal(VALUE, 'p1', RING)
        token_at = len('<heat-k8s-secret:k12345678.')
        damaged = ref[:token_at + 5] + (
            'A' if ref[token_at + 5] != 'A' else 'B') + ref[token_at + 6:]
        for bad, ring in ((damaged, RING),
                          (ref, keyring.Keyring([NEW_KEY]))):
            with self.assertRaises(sealing.SealError) as caught:
                sealing.open_text(bad, 'p1', ring)
            self.assertNotIn(VALUE, str(caught.exception))

    def test_a_retired_key_is_named_not_guessed(self):
        ref = sealing.seal(VALUE, 'p1', RING)
        with self.assertRaisesRegex(sealing.SealError,
                                    'sealed with key %s, which this cloud '
                                    'no longer has' % RING.key_ids[0]):
            sealing.open_text(ref, 'p1', keyring.Keyring([NEW_KEY]))

    def test_references_open_inside_text_and_structures(self):
        ref = sealing.seal(VALUE, 'p', RING)
        other = sealing.seal('s3cret', 'p', RING)
        data = {'url': 'mysql://u:%s@db/x' % ref,
                'keys': [ref + '=', other], 'n': 3, 'none': None}
        self.assertFalse(sealing.is_reference(data['url']))
        self.assertTrue(sealing.contains_reference(data['url']))
        self.assertEqual({'url': 'mysql://u:%s@db/x' % VALUE,
                          'keys': [VALUE + '=', 's3cret'], 'n': 3,
                          'none': None},
                         sealing.open_all(data, 'p', RING))

    def test_a_reference_is_found_at_any_depth(self):
        ref = sealing.seal(VALUE, 'p', RING)
        self.assertTrue(sealing.holds_reference({'a': [{'b': 'x' + ref}]}))
        self.assertFalse(sealing.holds_reference({'a': ['x', 3, None]}))

    def test_each_reference_differs_though_the_value_is_the_same(self):
        self.assertNotEqual(sealing.seal(VALUE, 'p', RING),
                            sealing.seal(VALUE, 'p', RING))

    def test_no_keys_seal_nothing_and_say_what_to_set(self):
        with self.assertRaisesRegex(sealing.SealError,
                                    r'\[heat_k8s\] sealing_keys'):
            sealing.seal(VALUE, 'p', keyring.Keyring([], legacy=LEGACY))


class DigestibleTest(unittest.TestCase):

    def test_only_the_projects_own_references_digest_as_values(self):
        ref = sealing.seal(VALUE, 'p1', RING)
        self.assertEqual({'a': VALUE},
                         sealing.digestible({'a': ref}, 'p1', RING))
        # Another project's reference digests as itself: no oracle.
        self.assertEqual({'a': ref},
                         sealing.digestible({'a': ref}, 'p2', RING))


class RotationTest(unittest.TestCase):

    def test_older_keys_open_and_reseal_moves_to_the_newest(self):
        old_ref = sealing.seal(VALUE, 'p', RING)
        rotated = keyring.Keyring([NEW_KEY, OLD_KEY])
        self.assertEqual(VALUE, sealing.open_text(old_ref, 'p', rotated))
        data = {'a': 'x:' + old_ref, 'b': [sealing.seal('y', 'p', rotated)]}
        again, resealed, unopened = sealing.reseal(data, 'p', rotated)
        self.assertEqual((1, 0), (resealed, unopened))
        self.assertEqual(data['b'], again['b'])   # already the newest
        self.assertNotEqual(data['a'], again['a'])
        retired = keyring.Keyring([NEW_KEY])
        self.assertEqual({'a': 'x:' + VALUE, 'b': ['y']},
                         sealing.open_all(again, 'p', retired))

    def test_reseal_leaves_what_it_cannot_open_and_counts_it(self):
        theirs = sealing.seal(VALUE, 'p2', RING)
        rotated = keyring.Keyring([NEW_KEY, OLD_KEY])
        self.assertEqual((theirs, 0, 1),
                         sealing.reseal(theirs, 'p1', rotated))

    def test_legacy_references_open_with_the_legacy_key_only(self):
        legacy_ref = _legacy_reference(VALUE, 'p', LEGACY)
        self.assertIsNone(sealing.key_id_of(legacy_ref))
        ring = keyring.Keyring([NEW_KEY], legacy=LEGACY)
        self.assertEqual(VALUE, sealing.open_text(legacy_ref, 'p', ring))
        with self.assertRaisesRegex(sealing.SealError, 'made for another'):
            sealing.open_text(legacy_ref, 'p2', ring)
        with self.assertRaisesRegex(sealing.SealError, 'before key ids'):
            sealing.open_text(legacy_ref, 'p', keyring.Keyring([NEW_KEY]))
        again, resealed, _ = sealing.reseal(legacy_ref, 'p', ring)
        self.assertEqual(1, resealed)
        self.assertEqual(ring.key_ids[0], sealing.key_id_of(again))


def _legacy_reference(value, project, legacy):
    """A reference as heat-k8s made them before key ids (v1 format)."""
    token = keyring.Keyring(legacy=legacy).legacy_opener().encrypt(
        json.dumps({'p': project, 'v': value}).encode('utf-8'))
    return '%s%s>' % (sealing.PREFIX, token.decode('ascii'))


class NotReferencesTest(unittest.TestCase):

    def test_references_and_unknown_values_pass(self):
        ref = sealing.seal(VALUE, 'p', RING)
        self.assertEqual([], references.not_references({}))
        self.assertEqual([], references.not_references({'A': ref,
                                                        'B': None}))

    def test_values_are_named_by_key(self):
        given = {'DB_PASSWORD': VALUE, 'OK': sealing.seal('x', 'p', RING),
                 'ALSO': 'prefix ' + sealing.seal('y', 'p', RING)}
        self.assertEqual(['ALSO', 'DB_PASSWORD'],
                         references.not_references(given))
