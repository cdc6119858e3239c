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

"""Envelopes: data encrypted to a docker host's own key.

Heat hands a host its secrets inside a software deployment, which Heat
stores and shows; sealed to the RSA key the host generated (and never
sent), the deployment holds only ciphertext. The format is what the
``openssl`` command opens, so the host needs no Python library
(templates/services/docker/write-files.py):

- ``key``: RSA-OAEP (SHA-256, MGF1 SHA-256) of 64 random bytes, base64:
  the first 32 as hex are the passphrase of ``ct``, the last 32 the
  HMAC-SHA256 key of ``mac``;
- ``ct``: the JSON data as ``openssl enc -aes-256-cbc -pbkdf2 -md sha256
  -iter 10000`` writes it (``Salted__``, salt, AES-256-CBC), base64; the
  passphrase reaches openssl through its environment, not its arguments;
- ``mac``: HMAC-SHA256 of ct (hex), checked before decrypting;
- ``v``: 1; not covered by the MAC, so an opener refuses any other.

Pure: no Heat, no network.
"""

import base64
import hashlib
import hmac
import json
import os

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import padding as asym_padding
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.ciphers import Cipher
from cryptography.hazmat.primitives.ciphers import algorithms
from cryptography.hazmat.primitives.ciphers import modes

VERSION = 1
ITERATIONS = 10000   # openssl enc -iter: the passphrase is random anyway


class EnvelopeError(Exception):
    """A key or envelope that cannot be used (no secret in the message)."""


def _oaep():
    return asym_padding.OAEP(mgf=asym_padding.MGF1(hashes.SHA256()),
                             algorithm=hashes.SHA256(), label=None)


def public_key(pem):
    """The RSA public key in pem (text), or EnvelopeError."""
    try:
        key = serialization.load_pem_public_key(pem.encode('ascii'))
    except (ValueError, TypeError, AttributeError, UnicodeError):
        raise EnvelopeError('not a PEM public key')
    if not isinstance(key, rsa.RSAPublicKey) or key.key_size < 2048:
        raise EnvelopeError('not an RSA public key of 2048 bits or more')
    return key


def _key_iv(passphrase, salt):
    derived = hashlib.pbkdf2_hmac('sha256', passphrase, salt, ITERATIONS, 48)
    return derived[:32], derived[32:]


def seal(pem, data):
    """data (JSON-serialisable) as an envelope (text) for pem's key."""
    keys, salt = os.urandom(64), os.urandom(8)
    key, iv = _key_iv(keys[:32].hex().encode('ascii'), salt)
    padder = padding.PKCS7(128).padder()
    plain = padder.update(json.dumps(data, sort_keys=True).encode(
        'utf-8')) + padder.finalize()
    encryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ct = b'Salted__' + salt + encryptor.update(plain) + encryptor.finalize()
    return json.dumps({
        'v': VERSION,
        'key': base64.b64encode(public_key(pem).encrypt(
            keys, _oaep())).decode('ascii'),
        'ct': base64.b64encode(ct).decode('ascii'),
        'mac': hmac.new(keys[32:], ct, hashlib.sha256).hexdigest()})


def open_envelope(private_pem, envelope):
    """The data in envelope, with the private key (tests; hosts use
    openssl)."""
    env = json.loads(envelope)
    if env.get('v') != VERSION:
        raise EnvelopeError('the envelope is not of version %d' % VERSION)
    private = serialization.load_pem_private_key(
        private_pem.encode('ascii'), password=None)
    keys = private.decrypt(base64.b64decode(env['key']), _oaep())
    ct = base64.b64decode(env['ct'])
    mac = hmac.new(keys[32:], ct, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(mac, env['mac']):
        raise EnvelopeError('the envelope was altered')
    key, iv = _key_iv(keys[:32].hex().encode('ascii'), ct[8:16])
    decryptor = Cipher(algorithms.AES(key), modes.CBC(iv)).decryptor()
    unpadder = padding.PKCS7(128).unpadder()
    plain = unpadder.update(decryptor.update(ct[16:]) + decryptor.finalize())
    return json.loads(plain + unpadder.finalize())
