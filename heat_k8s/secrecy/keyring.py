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
Without sealing keys nothing new can be sealed. Pure: no Heat, no network.
"""

import base64
import binascii
import hashlib

from cryptography import fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf import hkdf

PURPOSES = (SEAL, FINGERPRINT, CHECKSUM) = ('seal', 'fingerprint', 'checksum')
KEY_BYTES = 32
# Heat's default and sample auth_encryption_key, and the sample values of
# guides that people copy: never a key.
SAMPLE_KEYS = frozenset((
    'notgood but just long enough i t',
    'notgood but just long enough i think',
))
NO_KEYS = ('no sealing key: the operator sets [heat_k8s] sealing_keys '
           '(`heat-k8s-keys generate` makes one)')
_LEGACY_INFO = b'heat-k8s secret references v1'


class KeyringError(Exception):
    """A key that cannot be used (the message never quotes a key)."""


def generate():
    """A new random key, as sealing_keys wants it."""
    return fernet.Fernet.generate_key().decode('ascii')


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
    key (auth_encryption_key), each if any.

    Bad keys are not raised at construction (heat-engine must start):
    problem says why, and what needs the key refuses with it.
    """

    def __init__(self, keys=(), digest=None, legacy=None):
        self._keys, self.problem = [], None
        for position, text in enumerate(keys or (), 1):
            try:
                self._keys.append(parse(text, position))
            except KeyringError as exc:
                self.problem = str(exc)
        if self.problem:
            self._keys = []
        self._by_id = {key_id(raw): raw for raw in self._keys}
        self._legacy = legacy
        self._digest, self.digest_problem = None, None
        if digest:
            try:
                self._digest = parse(digest)
            except KeyringError as exc:
                self.digest_problem = str(exc).replace(
                    'sealing key 1', 'digest_key')

    @property
    def key_ids(self):
        """Key ids, newest first."""
        return [key_id(raw) for raw in self._keys]

    def sealer(self, project):
        """(key id, Fernet) of the newest key for project."""
        if not self._keys:
            raise KeyringError(self.problem or NO_KEYS)
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
        if not self._legacy:
            return None
        return _fernet(hkdf.HKDF(
            algorithm=hashes.SHA256(), length=KEY_BYTES, salt=None,
            info=_LEGACY_INFO).derive(self._legacy.encode('utf-8')))

    def digest_key(self, purpose, project):
        """The HMAC key of purpose (FINGERPRINT, CHECKSUM) for project."""
        if self.digest_problem:
            raise KeyringError(self.digest_problem)
        root = self._digest or hashlib.sha256(
            (self._legacy or '').encode('utf-8')).digest()
        return _derive(root, _info(purpose, project))


def _fernet(raw):
    return fernet.Fernet(base64.urlsafe_b64encode(raw))
