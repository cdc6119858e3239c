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

"""Whether a key, given as text, could be guessed.

A key is safe only when a random generator made it, and its text is all
heat-k8s sees. weakness() refuses, in this order: an empty key; a
published one (Heat's sample ``auth_encryption_key``); a digest (md5, sha1,
sha2, uuid3, uuid5) of a common word (COMMON_WORDS, in its case variants,
typed with or without a newline), in hex or base64; a uuid (at most 122
random bits): in any form but 32 hex digits, and as 32 hex digits a
uuid1, whose clock reads a year within UUID_YEARS; spaces or characters
outside printable ASCII (text, not a generator's output); fewer than 128
bits, counted as the length times log2 of the smallest generator alphabet
the text fits (10 digits, 16 hex digits, 36 one case and digits, 62
letters and digits, 64 base64, 95 printable ASCII); a quarter or more of
it in runs (``aaaa``, ``1234``, ``dcba``), repeats or keyboard walks
(KEYBOARD_ROWS: ``qwer``, ``1qaz``, ``q1w2``); and text that a model of
English (letter frequencies, how vowels, consonants, digits and
separators follow each other, in either case) explains better than
uniformly random characters of its alphabet do: a passphrase.
bytes_weakness() refuses the bytes a base64 key decodes to when they are
all printable (text in base64) or a quarter or more runs or repeats.

The uuid1, pattern and English rules can refuse a random key. Measured on
200,000 random texts of each kind, they refused 61 of 32 hex digits (26 of
them as a uuid1), 10 of 32 letters and digits, 67 of 24, 15 of 32 URL-safe
and 8 of 32 base64 characters: under four in 10,000; and 2 of 800,000
random 32-byte keys in base64 (keyring.generate draws again rather than
print one). A key refused so is replaced by a new one (install guide,
Keys); none that could be guessed is kept for it. A random hex text has a
uuid4's version and variant digits one time in 64, so 32 hex digits are
not refused for those alone. Pure; never quotes the key.
"""

import base64
import hashlib
import math
import string
import uuid

MIN_BITS = 128
# Heat's default and sample auth_encryption_key, and the sample values of
# guides that people copy: published, so never a key.
SAMPLE_KEYS = frozenset((
    'notgood but just long enough i t',
    'notgood but just long enough i think',
))
# Generator alphabets, smallest first: a text's bits per character are
# log2 of the first that holds it.
ALPHABETS = tuple((name, frozenset(chars)) for name, chars in (
    ('decimal digits', string.digits),
    ('hex digits', string.digits + 'abcdef'),
    ('hex digits', string.digits + 'ABCDEF'),
    ('lowercase letters and digits', string.ascii_lowercase + string.digits),
    ('uppercase letters and digits', string.ascii_uppercase + string.digits),
    ('letters and digits', string.ascii_letters + string.digits),
    ('URL-safe base64', string.ascii_letters + string.digits + '-_'),
    ('base64', string.ascii_letters + string.digits + '+/'),
    ('printable ASCII', string.printable[:95]),
))
PATTERN_LENGTH = 4   # a run, repeat or keyboard walk this long is a pattern
# A US keyboard's rows, unshifted and shifted, each key under the one above
# it and a little to the right: keyboard walks go along them ('qwer'), down
# a column ('1qaz') or between two rows ('q1w2', 'qawsed').
KEYBOARD_ROWS = ('1234567890-=', 'qwertyuiop[]', "asdfghjkl;'", 'zxcvbnm,./')
SHIFTED_ROWS = ('!@#$%^&*()_+', 'QWERTYUIOP{}', 'ASDFGHJKL:"', 'ZXCVBNM<>?')
# Words whose digests are pasted as keys (`echo heat | md5sum`): what is
# being configured, and the first passwords people type. Heat's sample
# keys are words too.
COMMON_WORDS = (
    '', 'heat', 'heat-k8s', 'k8s', 'keystone', 'openstack', 'devstack',
    'stack', 'nova', 'glance', 'neutron', 'cinder', 'swift', 'kubernetes',
    'password', 'passw0rd', 'secret', 'secretkey', 'key', 'admin', 'root',
    'changeme', 'default', 'test', 'demo', 'guest', 'letmein', 'qwerty',
    '123456', 'encryption', 'auth_encryption_key', 'digest_key',
    'sealing_keys') + tuple(sorted(SAMPLE_KEYS))
DIGESTS = ('md5', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512')
# As 32 hex digits, a uuid is told from a random text by its version 1
# clock (a random text's reads any time in 3,600 years), not by its
# version and variant digits alone: a random hex text has a uuid4's one
# time in 64, and a uuid4's 122 random bits are out of anyone's reach.
UUID_YEARS = (2010, 2040)
# English letter frequencies, percent (Lewand, Cryptological Mathematics).
LETTERS = dict(zip(string.ascii_lowercase, (
    8.167, 1.492, 2.782, 4.253, 12.702, 2.228, 2.015, 6.094, 6.966, 0.153,
    0.772, 4.025, 2.406, 6.749, 7.507, 1.929, 0.095, 5.987, 6.327, 9.056,
    2.758, 0.978, 2.360, 0.150, 1.974, 0.074)))
VOWELS = frozenset('aeiou')
CLASSES = (VOWEL, CONSONANT, DIGIT, OTHER) = ('v', 'c', 'd', 's')
FIRST = {VOWEL: .35, CONSONANT: .55, DIGIT: .05, OTHER: .05}
# How text goes on from a character of one class to the next (v, c, d,
# s): words with few digits (rounded from the README's prose, with room
# made for digits), and words with digits between them.
HABITS = tuple(
    {cls: dict(zip(CLASSES, row)) for cls, row in zip(CLASSES, rows)}
    for rows in (
        ((.10, .70, .05, .15), (.42, .33, .05, .20),
         (.25, .35, .30, .10), (.30, .60, .08, .02)),
        ((.10, .60, .20, .10), (.40, .30, .20, .10),
         (.30, .50, .15, .05), (.30, .60, .08, .02))))
MAIN_CASE = 0.9      # text keeps to one case, mostly
_IN_CLASS = {VOWEL: sum(LETTERS[c] for c in VOWELS),
             CONSONANT: sum(f for c, f in LETTERS.items()
                            if c not in VOWELS)}
_PRINTABLE = frozenset(string.printable.encode('ascii'))
_HEX = frozenset(string.hexdigits)
_UNSHIFTED = str.maketrans(''.join(SHIFTED_ROWS), ''.join(KEYBOARD_ROWS))
_GREGORIAN_TO_UNIX = 12219292800   # seconds from 1582-10-15 to 1970-01-01
_YEAR = 365.2425 * 86400


def _walks():
    """Every stretch of PATTERN_LENGTH keys a keyboard walk takes, either
    way: along a row, down a column, and between two rows."""
    columns = tuple(''.join(row[i] for row in KEYBOARD_ROWS if i < len(row))
                    for i in range(len(KEYBOARD_ROWS[0])))
    zigzags = tuple(''.join(a + b for a, b in zip(one, other))
                    for upper, lower in zip(KEYBOARD_ROWS, KEYBOARD_ROWS[1:])
                    for one, other in ((upper, lower), (lower, upper)))
    stretches = set()
    for walk in KEYBOARD_ROWS + columns + zigzags:
        for way in (walk, walk[::-1]):
            stretches.update(way[i:i + PATTERN_LENGTH]
                             for i in range(len(way) - PATTERN_LENGTH + 1))
    return frozenset(stretches)


def _word_digests():
    """Each digest of each common word, in each case, typed with or
    without a newline, as hex (either case) or base64 (either alphabet,
    unpadded); and uuid3 and uuid5 (md5 and sha1 again) of it."""
    texts = set()
    for word in COMMON_WORDS:
        for spelt in {word, word.upper(), word.capitalize()}:
            digests = [hashlib.new(name, typed.encode('utf-8'),
                                   usedforsecurity=False).digest()
                       for name in DIGESTS
                       for typed in (spelt, spelt + '\n')]
            digests += [made(namespace, spelt).bytes
                        for made in (uuid.uuid3, uuid.uuid5)
                        for namespace in (uuid.NAMESPACE_DNS,
                                          uuid.NAMESPACE_URL,
                                          uuid.NAMESPACE_OID,
                                          uuid.NAMESPACE_X500)]
            for raw in digests:
                texts.update((raw.hex(), raw.hex().upper()) + tuple(
                    encode(raw).decode('ascii').rstrip('=')
                    for encode in (base64.b64encode,
                                   base64.urlsafe_b64encode)))
    return frozenset(texts)


WALKS = _walks()
WORD_DIGESTS = _word_digests()


def weakness(text):
    """Why key text could be guessed, or None."""
    text = (text or '').strip()
    if not text:
        return 'is empty'
    if text in SAMPLE_KEYS:
        return "is Heat's published sample key"
    text = text.rstrip('=')  # base64 padding carries nothing
    if text in WORD_DIGESTS:
        return 'is a digest of a common word, not random'
    if uuid_shaped(text):
        return ('is a uuid (at most 122 random bits; version 1 is a clock '
                'and a MAC address), not a random key')
    name, size = alphabet(text)
    if name is None or any(char.isspace() for char in text):
        return ('holds spaces or characters outside printable ASCII: '
                'text, not a random key')
    bits = len(text) * math.log2(size)
    if bits < MIN_BITS:
        return ('carries at most %d bits (%d %s); a key needs %d'
                % (bits, len(text), name, MIN_BITS))
    if 4 * patterned(text) >= len(text):
        return 'is a pattern (runs, repeats or keyboard walks), not random'
    if text_bits(text, size) > 0:
        return 'looks like text (a passphrase), not random characters'
    return None


def bytes_weakness(raw):
    """Why the bytes a key decodes to could be guessed, or None."""
    if set(raw) <= _PRINTABLE:
        return 'is text in base64 (a passphrase), not random bytes'
    if 4 * len(_runs_and_repeats(raw)) >= len(raw):
        return 'decodes to bytes in runs or repeats, not random bytes'
    return None


def alphabet(text):
    """(name, size) of the smallest generator alphabet holding text;
    (None, 0) when none does."""
    chars = set(text)
    for name, letters in ALPHABETS:
        if chars <= letters:
            return name, len(letters)
    return None, 0


def uuid_shaped(text):
    """Whether text is a uuid: any form uuid.UUID reads but 32 hex digits;
    as 32 hex digits, a version 1 uuid whose clock reads a year within
    UUID_YEARS."""
    try:
        parsed = uuid.UUID(text)
    except ValueError:
        return False
    if len(text) != 32 or not set(text) <= _HEX:
        return True   # dashes, braces or urn:uuid: uuid text, not hex
    if parsed.variant != uuid.RFC_4122 or parsed.version != 1:
        return False
    # parsed.time: 100 ns steps since 1582-10-15
    year = 1970 + (parsed.time / 1e7 - _GREGORIAN_TO_UNIX) / _YEAR
    return UUID_YEARS[0] <= year < UUID_YEARS[1]


def patterned(text):
    """How many characters of text are in runs (a constant step of -1, 0
    or +1), repeat a stretch seen before, or walk the keyboard
    (KEYBOARD_ROWS), PATTERN_LENGTH or longer."""
    return len(_runs_and_repeats([ord(char) for char in text])
               | _walked(text))


def _runs_and_repeats(codes):
    """Indexes of codes (characters' or bytes) in runs or repeats."""
    covered, start = set(), 0
    while start < len(codes) - 1:
        step, end = codes[start + 1] - codes[start], start + 1
        if -1 <= step <= 1:
            while end + 1 < len(codes) and (
                    codes[end + 1] - codes[end] == step):
                end += 1
            if end - start + 1 >= PATTERN_LENGTH:
                covered.update(range(start, end + 1))
        start = end
    seen = set()
    for i in range(len(codes) - PATTERN_LENGTH + 1):
        stretch = tuple(codes[i:i + PATTERN_LENGTH])
        if stretch in seen:
            covered.update(range(i, i + PATTERN_LENGTH))
        seen.add(stretch)
    return covered


def _walked(text):
    """Indexes of text's characters in keyboard walks, in either case."""
    keys, covered = text.translate(_UNSHIFTED), set()
    for i in range(len(keys) - PATTERN_LENGTH + 1):
        if keys[i:i + PATTERN_LENGTH] in WALKS:
            covered.update(range(i, i + PATTERN_LENGTH))
    return covered


def text_bits(text, size):
    """log2 of how much likelier text is as English than as random
    characters of an alphabet of size (positive: text)."""
    best = max(_log_likelihood(text, habit, lower)
               for habit in HABITS for lower in (True, False))
    # Choosing the best of the models costs their number's log2.
    return best - math.log2(2 * len(HABITS)) + len(text) * math.log2(size)


def _log_likelihood(text, habit, lower):
    total, previous = 0.0, None
    for char in text:
        cls = _class(char)
        chance = (habit[previous] if previous else FIRST)[cls]
        if cls in (VOWEL, CONSONANT):
            case = MAIN_CASE if char.islower() == lower else 1 - MAIN_CASE
            chance *= case * LETTERS[char.lower()] / _IN_CLASS[cls]
        elif cls == DIGIT:
            chance /= 10
        else:
            chance /= 33   # printable ASCII that is no letter or digit
        total += math.log2(chance)
        previous = cls
    return total


def _class(char):
    lower = char.lower()
    if lower in VOWELS:
        return VOWEL
    if lower in LETTERS:
        return CONSONANT
    if char in string.digits:
        return DIGIT
    return OTHER
