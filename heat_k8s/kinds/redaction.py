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

"""Keep Secret values out of logs, events, exceptions and attributes."""

import base64
import binascii
import copy
import json

REDACTED = '<redacted>'
SECRET_FIELDS = ('data', 'stringData')
# kubectl's client-side apply copies the whole object in here.
LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration'


def _redact(obj):
    if not isinstance(obj, dict):
        return
    if obj.get('kind') == 'Secret':
        for field in SECRET_FIELDS:
            if isinstance(obj.get(field), dict):
                obj[field] = {key: REDACTED for key in obj[field]}
        annotations = (obj.get('metadata') or {}).get('annotations')
        if annotations and LAST_APPLIED in annotations:
            annotations[LAST_APPLIED] = REDACTED
    if str(obj.get('kind', '')).endswith('List'):
        for item in obj.get('items') or ():
            _redact(item)


def manifest(obj):
    """A copy of obj whose Secret values are REDACTED (keys are kept)."""
    redacted = copy.deepcopy(obj)
    _redact(redacted)
    return redacted


def secret_values(obj):
    """The values of a Secret manifest's data and stringData."""
    if not isinstance(obj, dict) or obj.get('kind') != 'Secret':
        return []
    return [value for field in SECRET_FIELDS
            for value in (obj.get(field) or {}).values()]


def _decoded(raw):
    try:
        return base64.b64decode(raw, validate=True).decode('utf-8')
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _forms(secrets):
    """Every spelling of the secret values in a message, longest first."""
    values = secrets.values() if isinstance(secrets, dict) else secrets
    forms = set()
    for value in values or ():
        if value is None:
            continue
        raw = value if isinstance(value, bytes) else str(value).encode('utf-8')
        plain = raw.decode('utf-8', 'replace')
        # As given, base64-encoded, base64-decoded (Secret data is base64)
        # and JSON-escaped (API errors quote invalid values).
        for form in (plain, base64.b64encode(raw).decode('ascii'),
                     _decoded(raw)):
            if form:
                forms.update((form, json.dumps(form)[1:-1]))
    return sorted(forms, key=len, reverse=True)


def _scrub(value, forms):
    for form in forms:
        value = value.replace(form, REDACTED)
    return value


def text(msg, secrets):
    """msg with every secret value (and its base64 form) REDACTED.

    secrets: a list of values or a dict whose values are secret. Short
    values are removed too: an over-redacted message beats a leak.
    """
    return _scrub('' if msg is None else str(msg), _forms(secrets))


def structure(obj, secrets):
    """A copy of a JSON-like structure with every string redacted as text().

    Safer than redacting its JSON text, where a short secret such as '1'
    could cut through a number and break the document.
    """
    forms = _forms(secrets)

    def walk(value):
        if isinstance(value, str):
            return _scrub(value, forms)
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(v) for v in value]
        return value

    return walk(obj)
