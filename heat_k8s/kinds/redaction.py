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

"""Keep Secret values out of logs, events, exceptions and attributes.

Manifests lose their Secret data (manifest()); text loses every value in
the spellings a program or an API prints (ENCODINGS, each JSON-escaped
too) and any run of MIN_PART characters of a value or of a file's
generated values (pieces()), in any case or reversed (text(),
structure()). Not covered: a value printed cut into runs shorter than
MIN_PART, a part of it encoded (base64 of part of a value is not part of
its base64), or transformed otherwise (hashed, interleaved, shifted).
"""

import base64
import binascii
import copy
import json
import re
import urllib.parse

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


# A value shorter than this is redacted as given and base64-encoded only:
# its other spellings (reversed, hex...) are short words of any message.
MIN_DERIVED = 6
# A run of this many characters of a value (or of a line of a file) is
# redacted wherever it appears: a program may print part of a secret.
MIN_PART = 8
# Longer values are redacted as given and base64-encoded only, and the
# pieces of files beyond this many characters in all too: it bounds the
# work and memory of a reason on Secrets of megabytes.
MAX_PART_SOURCE = 4096
PIECES_BUDGET = 65536


def _text(raw):
    return raw.decode('utf-8', 'replace')


# The spellings of a value (its UTF-8 bytes) that a program or an API
# error may print, each a function of those bytes giving text or None.
ENCODINGS = {
    'as given': _text,
    'base64': lambda raw: base64.b64encode(raw).decode('ascii'),
    'base64, unpadded': lambda raw: base64.b64encode(raw).decode(
        'ascii').rstrip('='),
    'base64url': lambda raw: base64.urlsafe_b64encode(raw).decode('ascii'),
    'base64url, unpadded': lambda raw: base64.urlsafe_b64encode(
        raw).decode('ascii').rstrip('='),
    'hex': lambda raw: raw.hex(),
    'hex, upper case': lambda raw: raw.hex().upper(),
    'URL-encoded': lambda raw: urllib.parse.quote(raw, safe=''),
    'URL-encoded, spaces as +': lambda raw: urllib.parse.quote_plus(
        raw, safe=''),
    'upper case': lambda raw: _text(raw).upper(),
    'lower case': lambda raw: _text(raw).lower(),
    'reversed': lambda raw: _text(raw)[::-1],
}
# Applied to every spelling above: API errors quote values in JSON.
ESCAPES = {
    'JSON-escaped': lambda text: json.dumps(text)[1:-1],
    'JSON-escaped, non-ASCII kept': lambda text: json.dumps(
        text, ensure_ascii=False)[1:-1],
}
_SHORT = ('as given', 'base64')   # the spellings of a short value
_ESCAPED = re.compile(r'[^ !#-\[\]-~]')   # what JSON may spell otherwise
_GENERATED = re.compile(r'(?=\S*[^\W\d_])(?=\S*\d)\S+')
_ASSIGNED = re.compile(r'[^=\s]+\s*=\s*(.*)|[^:\s]+:\s+(.*)')
# An OVSDB endpoint (tcp:host:port, ssl:..., unix:path): an address, as a
# host name is, though it mixes letters and digits.
_ENDPOINT = re.compile(r'(?:tcp|ssl|unix):[\w./-]+(?::\d{1,5})?')


def _values(secrets):
    values = secrets.values() if isinstance(secrets, dict) else secrets
    for value in values or ():
        if value is None:
            continue
        raw = value if isinstance(value, bytes) else str(value).encode('utf-8')
        yield raw
        plain = _decoded(raw)    # Secret data is base64
        if plain:
            yield plain.encode('utf-8')


def pieces(value):
    """The parts of a file (a value of several lines) that are secrets in
    their own right: a URL's password, and the lines, or the values of
    "key = value" and "key: value" lines, that look generated (MIN_PART
    characters or more, letters and digits, no space). Its other values
    (true, password, keystone, a host, an OVSDB endpoint such as
    tcp:ovn-nb.ns.svc:6641) are words a message needs."""
    found = []
    for line in value.splitlines() if '\n' in value else ():
        line = line.strip()
        if not line or line[0] in '#;' or line[0] + line[-1] == '[]':
            continue
        assigned = _ASSIGNED.fullmatch(line)
        if assigned:
            line = (assigned.group(1) or assigned.group(2) or '').strip(
                '\'" ')
        if '://' in line:
            found.extend(_url_password(line))
        elif len(line) >= MIN_PART and _GENERATED.fullmatch(line) and (
                not _ENDPOINT.fullmatch(line)):
            found.append(line)
    return found


def _url_password(url):
    try:
        password = urllib.parse.urlsplit(url).password
    except ValueError:
        return []
    if not password:
        return []
    return sorted({password, urllib.parse.unquote(password)})


def spellings(raw):
    """Every spelling (ENCODINGS, then ESCAPES) of a value's bytes."""
    names = (ENCODINGS if MIN_DERIVED <= len(raw) <= MAX_PART_SOURCE
             else _SHORT)
    found = set()
    for name in names:
        form = ENCODINGS[name](raw)
        if form:
            found.add(form)
            if _ESCAPED.search(form):
                found.update(escape(form) for escape in ESCAPES.values())
    return found


class _Forms(object):
    """What to redact: whole spellings, and the runs of MIN_PART characters
    of each piece (any case, or reversed), found in one pass over a text
    (a large file's spellings are many; a message is short)."""

    def __init__(self, secrets):
        values = list(_values(secrets))
        whole, runs, budget = set(), set(), PIECES_BUDGET
        # The values first, then files' pieces while the budget lasts.
        for piece in values + [p.encode('utf-8') for raw in values
                               for p in pieces(_text(raw))]:
            if piece not in values:
                budget -= len(piece)
                if budget < 0:
                    whole.add(_text(piece))
                    continue
            whole.update(spellings(piece))
            plain = _text(piece).lower()
            if MIN_PART <= len(plain) <= MAX_PART_SOURCE and (
                    '\n' not in plain):
                for form in (plain, plain[::-1]):
                    runs.update(form[i:i + MIN_PART] for i in range(
                        len(form) - MIN_PART + 1))
        self.short = [form for form in whole if len(form) < MIN_PART]
        self.by_head = {}   # a long spelling's first characters: spellings
        for form in sorted(whole - set(self.short), key=len, reverse=True):
            self.by_head.setdefault(form[:MIN_PART], []).append(form)
        self.runs = frozenset(runs)

    def scrub(self, value, public=()):
        hidden = bytearray(len(value))
        for form in self.short:
            found = value.find(form)
            while found >= 0:
                hidden[found:found + len(form)] = b'\1' * len(form)
                found = value.find(form, found + 1)
        folded = value.lower()
        if len(folded) != len(value):   # a few characters change length
            folded = value
        for start in range(len(value) - MIN_PART + 1):
            head = value[start:start + MIN_PART]
            for form in self.by_head.get(head, ()):
                if value.startswith(form, start):
                    hidden[start:start + len(form)] = b'\1' * len(form)
                    break
            if folded[start:start + MIN_PART] in self.runs:
                hidden[start:start + MIN_PART] = b'\1' * MIN_PART
        for word in public:
            # Shown anyway (the object's namespace and name): a file's host
            # name holding a project id must not hide it from the reason.
            found = value.find(word) if len(word) >= MIN_PART else -1
            while found >= 0:
                hidden[found:found + len(word)] = bytes(len(word))
                found = value.find(word, found + 1)
        if not any(hidden):
            return value
        out, start = [], 0
        for match in re.finditer(b'\1+', bytes(hidden)):
            out.append(value[start:match.start()] + REDACTED)
            start = match.end()
        return ''.join(out) + value[start:]


def text(msg, secrets, public=()):
    """msg with every secret value REDACTED, in any of its spellings
    (ENCODINGS), and any run of MIN_PART characters of one.

    secrets: a list of values or a dict whose values are secret. Short
    values are removed too: an over-redacted message beats a leak.
    public: words the message may show whatever the secrets hold (the
    object's namespace and name, which Heat shows beside it).
    """
    return _Forms(secrets).scrub('' if msg is None else str(msg), public)


def structure(obj, secrets):
    """A copy of a JSON-like structure with every string redacted as text().

    Safer than redacting its JSON text, where a short secret such as '1'
    could cut through a number and break the document.
    """
    forms = _Forms(secrets)

    def walk(value):
        if isinstance(value, str):
            return forms.scrub(value)
        if isinstance(value, dict):
            return {walk(k): walk(v) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return [walk(v) for v in value]
        return value

    return walk(obj)


# --- what a workload's containers may print ---------------------------------

# Where a kind keeps the spec of the pods it runs (others: spec.template).
POD_SPEC_PATHS = {
    'Pod': ('spec',),
    'CronJob': ('spec', 'jobTemplate', 'spec', 'template', 'spec'),
}
_POD_TEMPLATE_SPEC = ('spec', 'template', 'spec')
_CONTAINER_LISTS = ('initContainers', 'containers', 'ephemeralContainers')


def _at(obj, path):
    for key in path:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj if isinstance(obj, dict) else {}


def _names(items, *path):
    for item in items or ():
        name = _at(item, path[:-1]).get(path[-1]) if isinstance(
            item, dict) else None
        if name and isinstance(name, str):
            yield name


def consumed_secrets(obj):
    """The names of the Secrets the pods of obj read (environment,
    volumes, image pull): the values its containers can print."""
    spec = _at(obj, POD_SPEC_PATHS.get(obj.get('kind'), _POD_TEMPLATE_SPEC))
    found = set(_names(spec.get('imagePullSecrets'), 'name'))
    for volume in spec.get('volumes') or ():
        found.update(_names([volume], 'secret', 'secretName'))
        found.update(_names(_at(volume, ('projected',)).get('sources'),
                            'secret', 'name'))
    for key in _CONTAINER_LISTS:
        for container in spec.get(key) or ():
            found.update(_names(container.get('env'), 'valueFrom',
                                'secretKeyRef', 'name'))
            found.update(_names(container.get('envFrom'), 'secretRef',
                                'name'))
    return found


def container_messages(pods):
    """What the pods' containers and the kubelet said of them: termination
    and waiting messages, which a reason may quote, and each of their
    lines (a reason joins them)."""
    found = []
    for pod in pods or ():
        status = _at(pod, ('status',))
        for key in ('initContainerStatuses', 'containerStatuses',
                    'ephemeralContainerStatuses'):
            for container in status.get(key) or ():
                for path in (('state', 'terminated'), ('state', 'waiting'),
                             ('lastState', 'terminated')):
                    message = _at(container, path).get('message')
                    if message:
                        found.append(message)
                        found.extend(line for line in message.splitlines()
                                     if line.strip())
    return list(dict.fromkeys(found))
