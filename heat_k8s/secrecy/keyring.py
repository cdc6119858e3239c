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

"""The operator's keys for secret references and keyed digests.

``[heat_k8s] sealing_keys`` lists random 32-byte keys, newest first. No
key is used as it is: each purpose (sealing references, fingerprints,
content checksums) and each project gets its own key derived with HKDF, so
a digest made in one project says nothing about another project's values,
and a reference opens only in the project that made it. References name
the key that sealed them (a key id), so older keys keep opening what they
sealed until `heat-k8s-keys reseal` moves it to the newest key.

Digests are keyed from ``[heat_k8s] digest_key``, one key apart from the
sealing keys, so rotating sealing keys changes no fingerprint or checksum
(a changed checksum rolls pods). Unset, digests are keyed from Heat's
``auth_encryption_key``, derived per purpose and project as well.

No key that could be guessed (keystrength), that is not exactly 32
random bytes, or that heat-k8s once derived from public bytes
(PUBLIC_ROOTS) seals or keys a digest: the digest and the seal refuse,
naming the option to set, and findings() lists every such state for
heat-engine's start and `heat-k8s-keys check`, with a guessable
``auth_encryption_key`` whatever digests are keyed from, since Heat
encrypts hidden parameters with it.
An older sealing key that parses but could be guessed still opens what it
sealed, so `heat-k8s-keys reseal` can move it to a good key. Pure: no
Heat, no network.
"""

import base64
import binascii
import hashlib

from cryptography import fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf import hkdf

from heat_k8s.secrecy import keystrength

PURPOSES = (SEAL, FINGERPRINT, CHECKSUM) = ('seal', 'fingerprint', 'checksum')
KEY_BYTES = 32
SAMPLE_KEYS = keystrength.SAMPLE_KEYS
GENERATE = '`heat-k8s-keys generate` prints one'
PUT_FIRST = ('put a new key first in [heat_k8s] sealing_keys (%s)'
             % GENERATE)
# Heat encrypts with the first 32 characters of auth_encryption_key and
# wants exactly that many (heat.common.crypt, heat.common.config).
HEAT_KEY_CHARS = 32
NEW_HEAT_KEY = ('set [DEFAULT] auth_encryption_key to 32 random characters '
                '(`openssl rand -hex 16` prints them; on a cloud with '
                "stacks, as the install guide's \"Heat's own key\" says)")
NO_KEYS = ('no sealing key: the operator sets [heat_k8s] sealing_keys '
           '(`heat-k8s-keys generate` makes one)')
_LEGACY_INFO = b'heat-k8s secret references v1'


class KeyringError(Exception):
    """A key that cannot be used (the message never quotes a key)."""


def generate():
    """A new random key, as sealing_keys and digest_key want it."""
    while True:
        # A random key can, very rarely, read as a pattern or text: it is
        # drawn again, so no key printed here is ever refused.
        key = fernet.Fernet.generate_key().decode('ascii')
        if not weakness(key):
            return key


def parse(text, position=1):
    """The 32 bytes of key text (URL-safe base64), or KeyringError."""
    where = 'sealing key %d' % position
    if text.strip() in SAMPLE_KEYS:
        raise KeyringError('%s is a sample key from Heat\'s documentation'
                           % where)
    try:
        raw = base64.urlsafe_b64decode(text.strip().encode('ascii'))
    except (binascii.Error, UnicodeEncodeError, ValueError):
        raise KeyringError('%s is not URL-safe base64' % where)
    if len(raw) < KEY_BYTES:
        raise KeyringError('%s has %d bits; a key needs 256 (32 random '
                           'bytes)' % (where, len(raw) * 8))
    if len(set(raw)) < 8:
        raise KeyringError('%s is not random' % where)
    return raw


def weakness(text):
    """Why a key that parses could still be guessed, or None: a root
    derived from public bytes, its text (keystrength), or its bytes: not
    KEY_BYTES, text or a pattern (keystrength.bytes_weakness)."""
    raw = base64.urlsafe_b64decode(text.strip().encode('ascii'))
    if raw in PUBLIC_ROOTS:
        return ('is a key heat-k8s derived from an empty or sample '
                'auth_encryption_key, which anyone can compute')
    why = keystrength.weakness(text)
    if why:
        return why
    if len(raw) != KEY_BYTES:
        return ('decodes to %d bytes; a key is exactly %d random bytes'
                % (len(raw), KEY_BYTES))
    return keystrength.bytes_weakness(raw)


def heat_key_weakness(legacy):
    """Why auth_encryption_key could be guessed (keystrength), or is not
    the HEAT_KEY_CHARS characters Heat wants, or None."""
    why = keystrength.weakness(legacy)
    if why or len(legacy) == HEAT_KEY_CHARS:
        return why
    return 'is %d characters; Heat wants %d' % (len(legacy), HEAT_KEY_CHARS)


def digest_key_from(legacy):
    """The digest_key that keys digests as auth_encryption_key legacy
    does when digest_key is unset (URL-safe base64), or KeyringError."""
    why = keystrength.weakness(legacy)
    if why:
        raise KeyringError('auth_encryption_key %s: the digests keyed '
                           'from it could be computed by anyone, so they '
                           'must change: set [heat_k8s] digest_key (%s)'
                           % (why, GENERATE))
    return base64.urlsafe_b64encode(_legacy_root(legacy)).decode('ascii')


def _legacy_root(legacy):
    """The root of digests keyed from auth_encryption_key legacy."""
    return hashlib.sha256(legacy.encode('utf-8')).digest()


def _legacy_sealing_key(legacy):
    """The key of references made before key ids, from legacy."""
    return hkdf.HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None,
                     info=_LEGACY_INFO).derive(legacy.encode('utf-8'))


# Every key heat-k8s ever derived from an auth_encryption_key anyone knows
# (none, or a sample): anyone can compute them, so none is a key. (Its
# text's own bytes, which keyed digests once, are text: refused as such.)
PUBLIC_ROOTS = frozenset(derive(public)
                         for public in ('',) + tuple(sorted(SAMPLE_KEYS))
                         for derive in (_legacy_root, _legacy_sealing_key))


def key_id(raw):
    """A short public name for a key: it says nothing of the key."""
    return 'k' + _derive(raw, b'heat-k8s key id')[:4].hex()


def _derive(raw, info):
    return hkdf.HKDF(algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None,
                     info=info).derive(raw)


def _info(purpose, project):
    return ('heat-k8s v2 %s %s' % (purpose, project)).encode('utf-8')


class Keyring(object):
    """sealing_keys (texts, newest first), the digest key and the legacy
    key (auth_encryption_key), each if any; open_legacy: whether
    references made before key ids open.

    Bad keys are not raised at construction (heat-engine must start):
    problem and digest_problem say why, what needs the key refuses with
    it, and findings() lists them.
    """

    def __init__(self, keys=(), digest=None, legacy=None, open_legacy=True):
        self._keys, self.problem, self._weak = [], None, []
        for position, text in enumerate(keys or (), 1):
            try:
                self._keys.append(parse(text, position))
            except KeyringError as exc:
                self.problem = '%s: fix [heat_k8s] sealing_keys (%s)' % (
                    exc, GENERATE)
                continue
            why = weakness(text)
            if why:
                self._weak.append((position, why))
        if self.problem:
            self._keys = []
        self._by_id = {key_id(raw): raw for raw in self._keys}
        self._legacy = legacy
        self._open_legacy = open_legacy
        # The option digests are keyed from, their root key, or why none.
        self.digest_source = 'digest_key' if digest else 'auth_encryption_key'
        self._digest, self.digest_problem = self._digest_root(digest, legacy)

    @staticmethod
    def _digest_root(digest, legacy):
        """(root key of digests, None) or (None, why there is none)."""
        if digest:
            try:
                raw = parse(digest)
            except KeyringError as exc:
                return None, '%s: set a new one (%s)' % (
                    str(exc).replace('sealing key 1', 'digest_key'),
                    GENERATE)
            why = weakness(digest)
            if why:
                return None, 'digest_key %s: set a new one (%s)' % (
                    why, GENERATE)
            return raw, None
        why = keystrength.weakness(legacy)
        if why:
            return None, ('digest_key is unset and auth_encryption_key, '
                          'which keys digests then, %s: set [heat_k8s] '
                          'digest_key (%s)' % (why, GENERATE))
        return _legacy_root(legacy), None

    @property
    def key_ids(self):
        """Key ids, newest first."""
        return [key_id(raw) for raw in self._keys]

    def findings(self):
        """Every state in which a key is missing or could be guessed, each
        naming the option to set (never a key)."""
        found = [self.problem] if self.problem else []
        if not self.problem and not self._keys:
            found.append(NO_KEYS)
        found += ['sealing key %d %s: %s, run `heat-k8s-keys reseal`, then '
                  'remove this one' % (position, why, PUT_FIRST)
                  for position, why in self._weak]
        if self.digest_problem:
            found.append(self.digest_problem)
        # Heat's hidden parameters and credentials depend on it, whatever
        # digests are keyed from.
        why = heat_key_weakness(self._legacy)
        if why:
            found.append('auth_encryption_key %s: Heat encrypts hidden '
                         'parameters and stored credentials with it: %s'
                         % (why, NEW_HEAT_KEY))
        if self._open_legacy and self._legacy:
            why = keystrength.weakness(self._legacy)
            if why:
                found.append(
                    'open_legacy_references opens references made before '
                    'key ids with a key from auth_encryption_key, which '
                    '%s: run `heat-k8s-keys reseal` for every project, '
                    'then set [heat_k8s] open_legacy_references = false'
                    % why)
        return found

    @property
    def sealing_problem(self):
        """Why nothing can be sealed, or None."""
        if not self._keys:
            return self.problem or NO_KEYS
        if self._weak and self._weak[0][0] == 1:
            return 'sealing key 1 %s: %s' % (self._weak[0][1], PUT_FIRST)
        return None

    def sealer(self, project):
        """(key id, Fernet) of the newest key for project."""
        if self.sealing_problem:
            raise KeyringError(self.sealing_problem)
        raw = self._keys[0]
        return key_id(raw), _fernet(_derive(raw, _info(SEAL, project)))

    def opener(self, kid, project):
        """The Fernet that opens what key kid sealed for project."""
        raw = self._by_id.get(kid)
        if raw is None:
            raise KeyringError('sealed with key %s, which this cloud no '
                               'longer has' % kid)
        return _fernet(_derive(raw, _info(SEAL, project)))

    def legacy_opener(self):
        """The Fernet of references made before key ids (one cloud-wide
        key derived from auth_encryption_key), or None."""
        if not (self._open_legacy and self._legacy):
            return None
        return _fernet(_legacy_sealing_key(self._legacy))

    def digest_key(self, purpose, project):
        """The HMAC key of purpose (FINGERPRINT, CHECKSUM) for project."""
        if self.digest_problem:
            raise KeyringError(self.digest_problem)
        return _derive(self._digest, _info(purpose, project))


def _fernet(raw):
    return fernet.Fernet(base64.urlsafe_b64encode(raw))
