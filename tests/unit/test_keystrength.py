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

"""Which key texts could be guessed (heat_k8s.secrecy.keystrength): the
published, digested, uuid, short, patterned and passphrase ones, keys whose
bytes are a pattern, and how often a random generator's key is refused by
mistake (seeded, so each run is the same).
"""

import base64
import hashlib
import os
import random
import re
import string
import unittest
import uuid

from heat_k8s.secrecy import keystrength

# Seeded on purpose: the same texts at every run (not for secrets).
Seeded = random.Random  # noqa: S311

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
ALNUM = string.ascii_letters + string.digits


def _random_texts(seed, count, length, alphabet):
    chance = Seeded(seed)
    return [''.join(chance.choice(alphabet) for _ in range(length))
            for _ in range(count)]


def _hex(name, data):
    """A digest as `md5sum` and the like print it."""
    return hashlib.new(name, data, usedforsecurity=False).hexdigest()


def _prose_windows(length, style, count=300):
    """Passphrases made of this project's English prose (its install
    guide), written as people write passphrases."""
    with open(os.path.join(ROOT, 'doc', 'source', 'install.rst')) as f:
        words = [w for w in re.findall('[A-Za-z]+', f.read()) if len(w) > 1]
    chance = Seeded(length)
    joined = {'lower': lambda ws: ''.join(w.lower() for w in ws),
              'dashes': lambda ws: '-'.join(w.lower() for w in ws),
              'spaces': ' '.join,
              'camel': lambda ws: ''.join(w.capitalize() for w in ws),
              'upper': lambda ws: '_'.join(w.upper() for w in ws),
              'digits': lambda ws: ''.join(
                  w.capitalize() + str(chance.randrange(100)) for w in ws)}
    texts = []
    for _ in range(count):
        start = chance.randrange(len(words) - 30)
        texts.append(joined[style](words[start:start + 30])[:length])
    return texts


class RefusedTest(unittest.TestCase):

    def assertRefused(self, text, why):
        found = keystrength.weakness(text)
        self.assertIsNotNone(found, 'accepted: %r' % text)
        self.assertIn(why, found)
        if text:
            self.assertNotIn(text.strip(), found)   # never quotes the key

    def test_empty_and_published_keys(self):
        self.assertRefused('', 'is empty')
        self.assertEqual('is empty', keystrength.weakness(None))
        # Heat's default auth_encryption_key, and what guides print.
        self.assertRefused('notgood but just long enough i t', 'published')
        self.assertRefused('notgood but just long enough i think',
                           'published')

    def test_keys_too_small_for_128_bits(self):
        # What Heat also accepts: 16 and 24 characters.
        self.assertRefused('0f3a9c2e7b1d4a6f8e2c5b7d9a1c3e5f'[:24],
                           'at most 96 bits (24 hex digits); a key needs 128')
        self.assertRefused('Xk7pQ2vLm9RtW4zB', '(16 letters and digits)')
        self.assertRefused('38475610293847561029384756102938',
                           '(32 decimal digits)')

    def test_text_characters(self):
        self.assertRefused('a key with spaces in it, 32 chars', 'spaces')
        self.assertRefused('clé-très-secrète-de-trente-deux!', 'ASCII')

    def test_runs_and_repeats(self):
        for text in ('a' * 32, '0123456789abcdef' * 2,
                     'abcdefghijklmnopqrstuvwxyzABCDEF',
                     'Zq8#Zq8#Zq8#Zq8#Zq8#Zq8#Zq8#Zq8#',
                     'x7Kp2mQv' + '98765432' + 'Ld3Rf6Wa' + 'zzzzzzzz'):
            self.assertRefused(text, 'pattern')

    def test_keyboard_walks(self):
        # Along the rows, down the columns, between two rows, either case,
        # shifted: none is a run or a repeat of characters.
        for text in ('qwertyuiopasdfghjklzxcvbnmQWERTY',
                     'q1w2e3r4t5y6u7i8o9p0Q1W2E3R4t5y6',
                     '1qaz2wsx3edc4rfv5tgb6yhn7ujm8ik9ol',
                     'zaq1xsw2cde3vfr4bgt5nhy6mju7',
                     'QAWSEDRFTGYHUJIKOLP1q2w3e4r5',
                     '!QAZ@WSX#EDC$RFV%TGB^YHN&UJM*IK<'):
            self.assertRefused(text, 'keyboard walks')

    def test_digests_of_common_words(self):
        # `echo heat | md5sum`, and the like, in hex or base64.
        for text in (_hex('md5', b'heat'), _hex('md5', b'heat\n'),
                     _hex('sha1', b'Keystone').upper(),
                     _hex('sha256', b'OPENSTACK'),
                     base64.b64encode(hashlib.sha256(b'changeme').digest())
                     .decode(),
                     base64.urlsafe_b64encode(hashlib.sha256(b'').digest())
                     .decode(),
                     uuid.uuid5(uuid.NAMESPACE_DNS, 'devstack').hex):
            self.assertRefused(text, 'digest of a common word')
        for word in keystrength.COMMON_WORDS:
            self.assertRefused(_hex('md5', word.encode()), 'common word')

    def test_uuids(self):
        # uuid1 is a clock and a MAC address, and no uuid has more than
        # 122 random bits: uuid text is refused in any form, and a uuid1
        # as 32 hex digits too (by its clock).
        made = uuid.uuid1()
        for text in (str(made), made.hex, made.hex.upper(), made.urn,
                     str(uuid.uuid4()), '{%s}' % uuid.uuid4(),
                     str(uuid.uuid4()).upper()):
            self.assertRefused(text, 'is a uuid')

    def test_bytes_in_runs_or_repeats(self):
        for raw in (bytes(range(32)), bytes(range(32, 0, -1)),
                    b'\0\xff\x10\x80' * 8,
                    bytes(16) + hashlib.sha256(b'x').digest()[:16]):
            self.assertEqual(
                'decodes to bytes in runs or repeats, not random bytes',
                keystrength.bytes_weakness(raw))
        self.assertIn('text in base64',
                      keystrength.bytes_weakness(b'our key, typed by hand'))

    def test_passphrases(self):
        # Hand-made passphrases, as operators type them.
        for text in ('correcthorsebatterystaplecorrect',
                     'correct-horse-battery-staple-2026',
                     'MySuperSecretHeatEncryptionKey01',
                     'ThisIsMyHeatAuthEncryptionKey!!!',
                     'openstack_heat_auth_encryption_k',
                     'PleaseChangeThisKeyBeforeUsing12',
                     'iloveopenstackandkubernetes2026x'):
            self.assertRefused(text, 'looks like text')

    def test_prose_as_passphrases(self):
        # Measured: every window of separated, spaced or capital prose,
        # and 295 to 300 of 300 of those run together, read as text.
        for length in (32, 43):
            for style, most in (('dashes', 300), ('spaces', 300),
                                ('upper', 300), ('lower', 294),
                                ('camel', 294), ('digits', 294)):
                refused = sum(keystrength.weakness(text) is not None
                              for text in _prose_windows(length, style))
                self.assertGreaterEqual(refused, most, (length, style))


class AcceptedTest(unittest.TestCase):

    def test_keys_of_random_generators(self):
        examples = {
            # openssl rand -hex 16; devstack's generate_hex_string 16
            'hex': _random_texts(1, 2000, 32, '0123456789abcdef'),
            # TripleO's and kolla's generated passwords
            'letters and digits': _random_texts(2, 2000, 32, ALNUM),
            'letters and digits, 24': _random_texts(3, 2000, 24, ALNUM),
            # secrets.token_urlsafe
            'URL-safe': _random_texts(4, 2000, 32, ALNUM + '-_'),
        }
        for name, texts in examples.items():
            refused = [t for t in texts if keystrength.weakness(t)]
            # Measured on 200,000 of each: under four in 10,000 read as
            # text, a pattern or (hex) a uuid1 by its clock.
            self.assertLessEqual(len(refused), 2, name)

    def test_random_32_byte_keys_in_base64(self):
        chance = Seeded(5)
        for encode in (base64.urlsafe_b64encode, base64.b64encode):
            raws = [chance.randbytes(32) for _ in range(5000)]
            self.assertEqual([], [raw for raw in raws
                                  if keystrength.weakness(encode(raw).decode())
                                  or keystrength.bytes_weakness(raw)])

    def test_hex_digits_with_a_uuid4s_marks_are_random_hex(self):
        # One random hex text in 64 has a uuid4's version and variant
        # digits, and a uuid4's 122 random bits are out of reach: as 32
        # hex digits, only a uuid1's clock tells a uuid from a random key.
        text = '3f0c9a4e5b7d4e21a86c0d9b2e4f7a13'
        self.assertEqual(4, uuid.UUID(text).version)
        self.assertIsNone(keystrength.weakness(text))
        # The same uuid written as one is refused.
        self.assertIn('is a uuid',
                      keystrength.weakness(str(uuid.UUID(text))))
