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
import hashlib
import os
import unittest
import uuid

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf import hkdf

from heat_k8s.secrecy import keyring

KEY = keyring.generate()
# Hand-made: an auth_encryption_key as a cloud sets it (32 random URL-safe
# characters), and the digest key heat-k8s derived from it before this
# release (recorded with heat_k8s at commit f757d4f, digest_key unset).
AUTH_KEY = 'TGdNh5-KRbs-pKfgx1N5qIOfVsSMQihn'
RECORDED = {
    keyring.FINGERPRINT: '288085fcb087a3f7b0f19f989e7c6be5'
                         '3d756e1a206eb1d0dae3105a0071dcad',
    keyring.CHECKSUM: '6dd8df7855b085a7c0b41ebff807d2f6'
                      'b47dccb6374ca1e41866d2ece4850def'}
# What that release keyed digests from with open_legacy_references off
# and digest_key unset: sha256(b''), which anyone can compute.
PUBLIC_ROOT = ('e3b0c44298fc1c149afbf4c8996fb924'
               '27ae41e4649b934ca495991b7852b855')
SAMPLE = 'notgood but just long enough i t'


def b64(raw):
    return base64.urlsafe_b64encode(raw).decode()


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
        one = keyring.Keyring(legacy=AUTH_KEY)
        other = keyring.Keyring(legacy=AUTH_KEY[::-1])
        self.assertNotEqual(one.digest_key(keyring.CHECKSUM, 'p'),
                            other.digest_key(keyring.CHECKSUM, 'p'))
        # Never the legacy key's own bytes.
        self.assertNotIn(AUTH_KEY.encode(),
                         one.digest_key(keyring.CHECKSUM, 'p'))
        self.assertEqual('auth_encryption_key', one.digest_source)

    def test_a_bad_digest_key_refuses_digests_naming_the_option(self):
        ring = keyring.Keyring([KEY], digest='too short')
        with self.assertRaisesRegex(keyring.KeyringError, 'digest_key'):
            ring.digest_key(keyring.FINGERPRINT, 'p')


class GuessableTest(unittest.TestCase):
    """No key anyone could compute seals or keys a digest, and every such
    state is a finding that names the option to set."""

    def assertRefusesDigests(self, ring, *words):
        for word in words:
            self.assertIn(word, ring.digest_problem)
        with self.assertRaisesRegex(keyring.KeyringError, 'digest_key'):
            ring.digest_key(keyring.FINGERPRINT, 'p')
        self.assertIn(ring.digest_problem, ring.findings())

    def test_digests_refuse_a_published_or_empty_auth_encryption_key(self):
        for legacy, why in ((SAMPLE, 'published sample key'),
                            ('', 'is empty'), (None, 'is empty'),
                            ('MySuperSecretHeatEncryptionKey01',
                             'looks like text')):
            ring = keyring.Keyring([KEY], legacy=legacy)
            self.assertRefusesDigests(
                ring, 'digest_key is unset', 'auth_encryption_key', why,
                'set [heat_k8s] digest_key')

    def test_after_a_rotation_digests_are_not_keyed_from_nothing(self):
        # open_legacy_references = false keyed digests from sha256(b'').
        ring = keyring.Keyring([KEY], legacy=AUTH_KEY, open_legacy=False)
        self.assertIsNone(ring.legacy_opener())
        public = keyring._derive(bytes.fromhex(PUBLIC_ROOT),
                                 keyring._info(keyring.FINGERPRINT, 'p'))
        self.assertNotEqual(public,
                            ring.digest_key(keyring.FINGERPRINT, 'p'))
        self.assertEqual(RECORDED[keyring.FINGERPRINT],
                         ring.digest_key(keyring.FINGERPRINT, 'p').hex())
        self.assertEqual([], ring.findings())
        without = keyring.Keyring([KEY], open_legacy=False)
        self.assertRefusesDigests(without, 'is empty')

    def test_a_guessable_digest_key_is_refused(self):
        passphrase = base64.urlsafe_b64encode(
            b'our digest key, typed by hand!!!').decode()
        for digest, why in (('correct-horse-battery-staple-on-a-windy-hill',
                             'looks like text'),
                            (passphrase, 'text in base64'),
                            (SAMPLE, 'sample key')):
            ring = keyring.Keyring([KEY], digest=digest, legacy=AUTH_KEY)
            self.assertRefusesDigests(ring, 'digest_key', why,
                                      'heat-k8s-keys generate')
            self.assertNotIn(digest, ring.digest_problem)

    def test_a_guessable_sealing_key_never_seals_but_still_opens(self):
        weak = 'correct-horse-battery-staple-on-a-windy-hill'
        old = keyring.Keyring([weak])
        self.assertIn('sealing key 1 looks like text', old.sealing_problem)
        with self.assertRaisesRegex(keyring.KeyringError, 'sealing key 1'):
            old.sealer('p')
        # Sealed before this release, when the key was accepted: it opens,
        # so `heat-k8s-keys reseal` moves it to a new key, which seals.
        kid = keyring.key_id(keyring.parse(weak))
        token = keyring._fernet(keyring._derive(
            keyring.parse(weak), keyring._info(keyring.SEAL, 'p'))).encrypt(
                b'value')
        rotated = keyring.Keyring([KEY, weak], digest=KEY, legacy=AUTH_KEY)
        self.assertEqual(b'value', rotated.opener(kid, 'p').decrypt(token))
        self.assertIsNone(rotated.sealing_problem)
        self.assertEqual(keyring.key_id(keyring.parse(KEY)),
                         rotated.sealer('p')[0])
        found, = rotated.findings()
        self.assertIn('sealing key 2 looks like text', found)
        self.assertIn('run `heat-k8s-keys reseal`, then remove', found)
        self.assertNotIn(weak, found)

    def test_legacy_references_under_a_published_key_are_a_finding(self):
        ring = keyring.Keyring([KEY], digest=KEY, legacy=SAMPLE)
        heats, legacy = ring.findings()
        self.assertIn('open_legacy_references', legacy)
        self.assertIn('open_legacy_references = false', legacy)
        # They still open, so that they can be resealed.
        self.assertIsNotNone(ring.legacy_opener())
        self.assertEqual([heats], keyring.Keyring(
            [KEY], digest=KEY, legacy=SAMPLE, open_legacy=False).findings())

    def test_a_guessable_auth_encryption_key_is_always_a_finding(self):
        # Heat encrypts hidden parameters (an existing Keystone's admin
        # password among them) with it, whatever keys heat-k8s's digests
        # and whether references made before key ids still open.
        made = uuid.uuid1()
        for legacy, why in (
                (SAMPLE, "is Heat's published sample key"),
                ('', 'is empty'),
                ('q1w2e3r4t5y6u7i8o9p0Q1W2E3R4t5y6',
                 'is a pattern (runs, repeats or keyboard walks)'),
                (hashlib.md5(b'heat', usedforsecurity=False).hexdigest(),
                 'is a digest of a common word'),
                (made.hex, 'is a uuid'), (str(uuid.uuid4()), 'is a uuid'),
                (AUTH_KEY[:24], 'is 24 characters; Heat wants 32')):
            ring = keyring.Keyring([KEY], digest=keyring.generate(),
                                   legacy=legacy, open_legacy=False)
            found, = ring.findings()
            self.assertIn('auth_encryption_key ' + why, found)
            self.assertIn('set [DEFAULT] auth_encryption_key to 32 random '
                          'characters (`openssl rand -hex 16`', found)
            if legacy:
                self.assertNotIn(legacy, found)
            # Digests keyed from digest_key are not refused for it.
            self.assertIsNone(ring.digest_problem)

    def test_a_root_derived_from_public_bytes_is_no_key(self):
        # The digest root the fallback derived from sha256(b''), and from
        # Heat's sample keys; the key of references made before key ids
        # from the same.
        roots = [b64(hashlib.sha256(public.encode()).digest())
                 for public in ('', *keyring.SAMPLE_KEYS)]
        self.assertEqual(b64(bytes.fromhex(PUBLIC_ROOT)), roots[0])
        roots.append(b64(hkdf.HKDF(
            algorithm=hashes.SHA256(), length=32, salt=None,
            info=b'heat-k8s secret references v1').derive(SAMPLE.encode())))
        for root in roots:
            ring = keyring.Keyring([KEY], digest=root, legacy=AUTH_KEY)
            self.assertRefusesDigests(
                ring, 'digest_key is a key heat-k8s derived from an empty or '
                'sample auth_encryption_key', 'heat-k8s-keys generate')
            self.assertNotIn(root, ring.digest_problem)
            self.assertIn('sealing key 1 is a key heat-k8s derived',
                          keyring.Keyring([root]).sealing_problem)

    def test_a_key_is_exactly_32_random_bytes(self):
        for digest, why in (
                (b64(bytes(range(32))), 'runs or repeats'),
                (b64(bytes(range(32, 0, -1))), 'runs or repeats'),
                (b64(os.urandom(48)), 'decodes to 48 bytes; a key is '
                                      'exactly 32 random bytes')):
            ring = keyring.Keyring([KEY], digest=digest, legacy=AUTH_KEY)
            self.assertRefusesDigests(ring, 'digest_key', why,
                                      'heat-k8s-keys generate')

    def test_a_safe_configuration_has_no_findings(self):
        self.assertEqual([], keyring.Keyring(
            [KEY], digest=keyring.generate(), legacy=AUTH_KEY).findings())
        self.assertEqual([keyring.NO_KEYS], keyring.Keyring(
            [], digest=KEY, legacy=AUTH_KEY).findings())

    def test_generated_keys_are_never_refused(self):
        for _ in range(200):
            key = keyring.generate()
            self.assertIsNone(keyring.weakness(key))
            self.assertEqual([], keyring.Keyring([key], digest=key,
                                                 legacy=AUTH_KEY).findings())


class UpgradeTest(unittest.TestCase):
    """From the previous release's configuration: digests keep their
    values where nobody could compute them, and change where they could."""

    def test_without_digest_key_digests_keep_their_recorded_values(self):
        ring = keyring.Keyring([KEY], legacy=AUTH_KEY)
        for purpose, recorded in RECORDED.items():
            self.assertEqual(recorded, ring.digest_key(purpose, 'p').hex())

    def test_the_digest_key_printed_for_it_keeps_them_too(self):
        printed = keyring.digest_key_from(AUTH_KEY)
        self.assertIsNone(keyring.weakness(printed))
        # auth_encryption_key may now change: digests no longer follow it.
        ring = keyring.Keyring([KEY], digest=printed,
                               legacy=AUTH_KEY[::-1])
        self.assertEqual('digest_key', ring.digest_source)
        for purpose, recorded in RECORDED.items():
            self.assertEqual(recorded, ring.digest_key(purpose, 'p').hex())

    def test_no_digest_key_is_printed_for_a_guessable_one(self):
        for legacy in (SAMPLE, '', 'ThisIsMyHeatAuthEncryptionKey!!!'):
            with self.assertRaisesRegex(
                    keyring.KeyringError,
                    'must change: set \\[heat_k8s\\] digest_key'):
                keyring.digest_key_from(legacy)
