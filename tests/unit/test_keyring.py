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

"""The operator's keys (heat_k8s.secrecy.keyring): which keys are refused, and
keys derived apart per purpose and project."""

import base64
import unittest

from heat_k8s.secrecy import keyring

KEY = keyring.generate()


class ParseTest(unittest.TestCase):

    def test_a_generated_key_is_256_random_bits(self):
        self.assertEqual(32, len(keyring.parse(KEY)))
        self.assertNotEqual(keyring.generate(), keyring.generate())

    def test_refused_keys_say_why_and_never_quote_the_key(self):
        short = base64.urlsafe_b64encode(b'x' * 16).decode()
        zeros = base64.urlsafe_b64encode(b'\0' * 32).decode()
        cases = {'notgood but just long enough i t': 'sample key',
                 short: 'has 128 bits; a key needs 256',
                 zeros: 'not random',
                 'not base64 at all!': 'not URL-safe base64'}
        for text, why in cases.items():
            with self.assertRaisesRegex(keyring.KeyringError,
                                        'sealing key 2 .*' + why) as caught:
                keyring.parse(text, 2)
            self.assertNotIn(text, str(caught.exception))

    def test_one_bad_key_disables_sealing_and_says_which(self):
        ring = keyring.Keyring([KEY, 'notgood but just long enough i t'])
        self.assertIn('sealing key 2', ring.problem)
        self.assertEqual([], ring.key_ids)
        with self.assertRaisesRegex(keyring.KeyringError, 'sealing key 2'):
            ring.sealer('p')


class DerivationTest(unittest.TestCase):

    def test_key_ids_name_keys_without_revealing_them(self):
        raw = keyring.parse(KEY)
        kid = keyring.key_id(raw)
        self.assertRegex(kid, '^k[0-9a-f]{8}$')
        self.assertNotIn(raw.hex()[:8], kid)
        self.assertEqual([kid], keyring.Keyring([KEY]).key_ids)

    def test_keys_differ_per_purpose_and_project(self):
        ring = keyring.Keyring([KEY], digest=keyring.generate())
        keys = {(purpose, project): ring.digest_key(purpose, project)
                for purpose in (keyring.FINGERPRINT, keyring.CHECKSUM)
                for project in ('p1', 'p2')}
        self.assertEqual(4, len(set(keys.values())))
        token = ring.sealer('p1')[1].encrypt(b'x')
        self.assertEqual(b'x', ring.opener(ring.key_ids[0], 'p1')
                         .decrypt(token))
        with self.assertRaises(Exception):
            ring.opener(ring.key_ids[0], 'p2').decrypt(token)

    def test_digests_do_not_follow_the_sealing_keys(self):
        digest = keyring.generate()
        first = keyring.Keyring([KEY], digest=digest)
        rotated = keyring.Keyring([keyring.generate(), KEY], digest=digest)
        self.assertEqual(first.digest_key(keyring.FINGERPRINT, 'p'),
                         rotated.digest_key(keyring.FINGERPRINT, 'p'))

    def test_without_a_digest_key_digests_derive_from_the_legacy_key(self):
        one = keyring.Keyring(legacy='a' * 32)
        other = keyring.Keyring(legacy='b' * 32)
        self.assertNotEqual(one.digest_key(keyring.CHECKSUM, 'p'),
                            other.digest_key(keyring.CHECKSUM, 'p'))
        # Never the legacy key's own bytes.
        self.assertNotEqual(b'a' * 32, one.digest_key(keyring.CHECKSUM, 'p'))

    def test_a_bad_digest_key_refuses_digests_naming_the_option(self):
        ring = keyring.Keyring([KEY], digest='too short')
        with self.assertRaisesRegex(keyring.KeyringError, 'digest_key'):
            ring.digest_key(keyring.FINGERPRINT, 'p')
