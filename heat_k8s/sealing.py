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

"""Secret references: a secret value sealed for one project.

A reference is the value encrypted (Fernet) with a key derived from
Heat's ``auth_encryption_key`` and bound to a project: text Heat may store
and show, which only heat-engine can open, and only for that project (a
reference copied into another project's stack opens nothing). Templates
pass references where they would pass secret values; the resources that
write the value (a Kubernetes Secret, a docker host's files) open them at
the last moment. A reference may stand alone or inside other text.
Pure: no Heat, no network.
"""

import base64
import json
import re

from cryptography import fernet
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf import hkdf

PREFIX = '<heat-k8s-secret:'
PATTERN = re.compile(r'<heat-k8s-secret:([A-Za-z0-9_=-]+)>')
_INFO = b'heat-k8s secret references v1'


class SealError(Exception):
    """A reference that cannot be opened here (no value in the message)."""


def _fernet(key):
    derived = hkdf.HKDF(algorithm=hashes.SHA256(), length=32, salt=None,
                        info=_INFO).derive(key.encode('utf-8'))
    return fernet.Fernet(base64.urlsafe_b64encode(derived))


def seal(value, project, key):
    """A reference to value (text) that opens for project only."""
    token = _fernet(key).encrypt(json.dumps(
        {'p': project, 'v': value}).encode('utf-8'))
    return '%s%s>' % (PREFIX, token.decode('ascii'))


def is_reference(value):
    """True when value is exactly one reference."""
    return isinstance(value, str) and PATTERN.fullmatch(value) is not None


def contains_reference(value):
    return isinstance(value, str) and PATTERN.search(value) is not None


def _payload(token, key):
    """{'p': project, 'v': value} of a reference's token."""
    try:
        return json.loads(_fernet(key).decrypt(token.encode('ascii')))
    except (fernet.InvalidToken, ValueError):
        raise SealError('a secret reference that this cloud did not make '
                        '(or a damaged one)')


def _map_text(data, fn):
    """A copy of data (maps, lists) with fn applied to each text."""
    if isinstance(data, dict):
        return {k: _map_text(v, fn) for k, v in data.items()}
    if isinstance(data, list):
        return [_map_text(v, fn) for v in data]
    return fn(data) if contains_reference(data) else data


def _open(token, project, key):
    payload = _payload(token, key)
    if payload.get('p') != project:
        raise SealError('a secret reference made for another project')
    return payload['v']


def open_text(text, project, key):
    """text with every reference in it replaced by its value."""
    if not contains_reference(text):
        return text
    return PATTERN.sub(lambda m: _open(m.group(1), project, key), text)


def open_all(data, project, key):
    """A copy of data (maps, lists, text) with every reference opened."""
    return _map_text(data, lambda text: open_text(text, project, key))



def digestible(data, key):
    """data with each reference replaced by its value, for keyed digests
    only (fingerprints): a value and its reference then compare equal, so
    moving a template to references changes no fingerprint. Opens for any
    project: a digest reveals nothing."""
    def value(match):
        try:
            return _payload(match.group(1), key)['v']
        except (SealError, KeyError):
            return match.group(0)   # a damaged reference digests as itself
    return _map_text(data, lambda text: PATTERN.sub(value, text))
