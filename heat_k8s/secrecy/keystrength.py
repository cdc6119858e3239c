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
published one (Heat's sample ``auth_encryption_key``); spaces or
characters outside printable ASCII (text, not a generator's output); fewer
than 128 bits, counted as the length times log2 of the smallest
generator alphabet the text fits (10 digits, 16 hex digits, 36 one case
and digits, 62 letters and digits, 64 base64, 95 printable ASCII); a
quarter or more of it in runs (``aaaa``, ``1234``, ``dcba``) or repeats;
and text that a model of English (letter frequencies, how vowels,
consonants, digits and separators follow each other, in either case)
explains better than uniformly random characters of its alphabet do: a
passphrase. The last two are statistical: they refuse one to three in
10,000 random texts of 24 to 32 characters (measured; none of 200,000
random 32-byte keys in base64), which costs that operator a digest_key,
never a guessable key (install guide, Keys). Pure; never quotes the key.
"""

import math
import string

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
PATTERN_LENGTH = 4   # a run or repeat this long is a pattern
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


def weakness(text):
    """Why key text could be guessed, or None."""
    text = (text or '').strip()
    if not text:
        return 'is empty'
    if text in SAMPLE_KEYS:
        return "is Heat's published sample key"
    text = text.rstrip('=')  # base64 padding carries nothing
    name, size = alphabet(text)
    if name is None or any(char.isspace() for char in text):
        return ('holds spaces or characters outside printable ASCII: '
                'text, not a random key')
    bits = len(text) * math.log2(size)
    if bits < MIN_BITS:
        return ('carries at most %d bits (%d %s); a key needs %d'
                % (bits, len(text), name, MIN_BITS))
    if 4 * patterned(text) >= len(text):
        return 'is a pattern (runs or repeats), not random'
    if text_bits(text, size) > 0:
        return 'looks like text (a passphrase), not random characters'
    return None


def alphabet(text):
    """(name, size) of the smallest generator alphabet holding text;
    (None, 0) when none does."""
    chars = set(text)
    for name, letters in ALPHABETS:
        if chars <= letters:
            return name, len(letters)
    return None, 0


def patterned(text):
    """How many characters of text are in runs (a constant step of -1, 0
    or +1) or repeat a stretch seen before, PATTERN_LENGTH or longer."""
    covered, start = set(), 0
    while start < len(text) - 1:
        step, end = ord(text[start + 1]) - ord(text[start]), start + 1
        if -1 <= step <= 1:
            while end + 1 < len(text) and (
                    ord(text[end + 1]) - ord(text[end]) == step):
                end += 1
            if end - start + 1 >= PATTERN_LENGTH:
                covered.update(range(start, end + 1))
        start = end
    for i in range(1, len(text) - PATTERN_LENGTH + 1):
        if text[i:i + PATTERN_LENGTH] in text[:i + PATTERN_LENGTH - 1]:
            covered.update(range(i, i + PATTERN_LENGTH))
    return len(covered)


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
