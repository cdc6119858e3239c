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

A reference is the value encrypted (Fernet) with the newest of the
operator's sealing keys, derived for one project
(heat_k8s.secrecy.keyring), and named by that key's id: text Heat may
store and show, which only
heat-engine can open, and only for that project (a reference copied into
another project's stack opens nothing, and digests as itself). Templates
pass references where they would pass secret values; the resources that
write the value (a Kubernetes Secret, a docker host's files) open them at
the last moment. A reference may stand alone or inside other text.
References made before key ids (no id) open with the legacy key while
the operator allows it. Pure: no Heat, no network.
"""

import json
import re

from cryptography import fernet

from heat_k8s.secrecy import keyring as keyring_

PREFIX = '<heat-k8s-secret:'
# The key id (absent before key ids), then the Fernet token.
PATTERN = re.compile(
    r'<heat-k8s-secret:(?:(k[0-9a-f]{8})\.)?([A-Za-z0-9_=-]+)>')


class SealError(Exception):
    """A reference that cannot be opened here (no value in the message)."""


def seal(value, project, keyring):
    """A reference to value (text) that opens for project only."""
    try:
        kid, sealer = keyring.sealer(project)
    except keyring_.KeyringError as exc:
        raise SealError(str(exc))
    token = sealer.encrypt(json.dumps(
        {'p': project, 'v': value}).encode('utf-8'))
    return '%s%s.%s>' % (PREFIX, kid, token.decode('ascii'))


def is_reference(value):
    """True when value is exactly one reference."""
    return isinstance(value, str) and PATTERN.fullmatch(value) is not None


def contains_reference(value):
    return isinstance(value, str) and PATTERN.search(value) is not None


def key_id_of(reference):
    """The id of the key that sealed reference (None before key ids)."""
    return PATTERN.fullmatch(reference).group(1)


def _opener(kid, project, keyring):
    if kid is None:
        opener = keyring.legacy_opener()
        if opener is None:
            raise SealError('a secret reference made before key ids, '
                            'which this cloud no longer opens')
        return opener
    try:
        return keyring.opener(kid, project)
    except keyring_.KeyringError as exc:
        raise SealError('a secret reference %s' % exc)


def _open(match, project, keyring):
    kid, token = match.groups()
    try:
        payload = json.loads(_opener(kid, project, keyring).decrypt(
            token.encode('ascii')))
    except (fernet.InvalidToken, ValueError):
        # Keys are per project: another project's reference fails here.
        raise SealError('a secret reference that this project did not '
                        'make (or a damaged one)')
    if payload.get('p') != project:
        raise SealError('a secret reference made for another project')
    return payload['v']


def _map_text(data, fn):
    """A copy of data (maps, lists) with fn applied to each text."""
    if isinstance(data, dict):
        return {k: _map_text(v, fn) for k, v in data.items()}
    if isinstance(data, list):
        return [_map_text(v, fn) for v in data]
    return fn(data) if contains_reference(data) else data


def holds_reference(data):
    """True when any text in data (maps, lists, text) holds a reference."""
    found = []
    _map_text(data, found.append)
    return bool(found)


def open_text(text, project, keyring):
    """text with every reference in it replaced by its value."""
    if not contains_reference(text):
        return text
    return PATTERN.sub(lambda m: _open(m, project, keyring), text)


def open_all(data, project, keyring):
    """A copy of data (maps, lists, text) with every reference opened."""
    return _map_text(data, lambda text: open_text(text, project, keyring))


def digestible(data, project, keyring):
    """data with each of project's references replaced by its value, for
    keyed digests only (fingerprints): a value and its reference then
    compare equal, so moving a template to references changes no
    fingerprint. Another project's (or a damaged) reference digests as
    itself, so a digest says nothing of a value the project cannot open.
    """
    def value(match):
        try:
            return _open(match, project, keyring)
        except SealError:
            return match.group(0)
    return _map_text(data, lambda text: PATTERN.sub(value, text))


def reseal(data, project, keyring):
    """(data, resealed, unopened): a copy of data with each of project's
    references not sealed by the newest key sealed again by it; how many
    were resealed, and how many could not be opened (left as they are).
    """
    newest = keyring.key_ids[0] if keyring.key_ids else None
    counts = {'resealed': 0, 'unopened': 0}

    def again(match):
        if newest is None or match.group(1) == newest:
            return match.group(0)
        try:
            value = _open(match, project, keyring)
        except SealError:
            counts['unopened'] += 1
            return match.group(0)
        counts['resealed'] += 1
        return seal(value, project, keyring)
    data = _map_text(data, lambda text: PATTERN.sub(again, text))
    return data, counts['resealed'], counts['unopened']
