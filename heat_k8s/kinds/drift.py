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

"""Drift: where a live object left what Heat applied to it.

Pure. Only the fields of the applied manifest count, and the object's
metadata.managedFields say who owns each one. Under server-side apply a
change by anyone else moves the field's ownership to them (an Update such
as `kubectl edit` or `kubectl scale`, or a forced apply), so a field of
the manifest is drifted when it is gone from the object, or when Heat's
field manager no longer owns it and its value differs or another manager
now owns it. A field Heat still owns whose value differs is the API
server's canonical form of Heat's own value (cpu "0.5" is stored "500m"),
not drift. Secret stringData is write-only: the API server stores it in
data, where its value is compared, while Heat keeps owning stringData.

Fields the manifest does not set are never drift, whoever owns them (an
autoscaler's replicas, someone's annotation): foreign() lists the
metadata ones a user added, to be shown as information only.
"""

import base64
import collections
import json

from heat_k8s.kinds import redaction

MISSING = object()    # a field absent from the live object
EMPTY = (None, {}, [], '')  # applied, but never stored by the API server
IDENTITY = ('apiVersion', 'kind', 'metadata.name', 'metadata.namespace')
SHOWN_VALUE_MAX = 30  # characters of a value shown in a message
REASON_MAX = 255      # Heat's status reason column

Finding = collections.namedtuple('Finding',
                                 'path applied live managers sensitive')
Finding.__doc__ = """A drifted field: its dotted path, the value applied
and the live one (MISSING when removed), the other managers owning it
now, and whether its values must never be shown."""


def findings(applied, live, manager):
    """The drifted fields of live against applied, in manifest order.

    applied: the manifest Heat applies; live: the object as read;
    manager: Heat's field manager name.
    """
    owners = _owners(live)
    ours = owners.pop(manager, set())
    union = _union(live)
    applied, mapped = _write_only_mapped(applied)
    found = []
    for path, fields, value, now in _leaves(applied, live, union):
        if '.'.join(path) in IDENTITY:
            continue
        others = sorted(name for name, owned in owners.items()
                        if fields in owned)
        if now is MISSING and value in EMPTY:
            continue  # the API server leaves empty fields out
        differs = now is MISSING or value != now
        if fields in mapped:
            drifted = differs   # Heat keeps owning write-only fields
        else:
            drifted = now is MISSING or (fields not in ours and (
                differs or bool(others)))
        if drifted:
            found.append(Finding(_dotted(path), value, now, tuple(others),
                                 _is_sensitive(applied, path)))
    return found


def foreign(applied, live, manager):
    """Labels and annotations other managers added that Heat never set:
    not drift, and never overwritten. Dotted paths, sorted."""
    meta = applied.get('metadata') or {}
    found = []
    for entry in (live.get('metadata') or {}).get('managedFields') or ():
        if entry.get('manager') == manager or entry.get('subresource'):
            continue
        tree = (entry.get('fieldsV1') or {}).get('f:metadata') or {}
        for key in ('labels', 'annotations'):
            for field in tree.get('f:' + key) or {}:
                name = field[2:]
                if field.startswith('f:') and name not in (
                        meta.get(key) or {}):
                    found.append('metadata.%s.%s' % (key, name))
    return sorted(set(found))


def message(what, found, limit=REASON_MAX):
    """One line naming the drifted fields of `what` (e.g. "Deployment
    ns/web"), within limit characters ("and N more" for the rest)."""
    head = '%s drifted from the template: ' % what
    parts = [_describe(finding) for finding in found]
    for shown in range(len(parts), 0, -1):
        rest = len(parts) - shown
        text = head + '; '.join(parts[:shown]) + (
            '; and %d more' % rest if rest else '')
        if len(text) <= limit:
            return text
    return (head + '%d fields' % len(parts))[:limit]


# --- helpers --------------------------------------------------------------

def _describe(finding):
    by = (' (manager %s)' % ', '.join(finding.managers)
          if finding.managers else '')
    if finding.live is MISSING:
        return '%s removed%s' % (finding.path, by)
    if finding.sensitive:
        return '%s changed%s' % (finding.path, by)
    return '%s %s \u2192 %s%s' % (finding.path, _shown(finding.applied),
                                  _shown(finding.live), by)


def _shown(value):
    text = json.dumps(value, sort_keys=True) if not isinstance(
        value, str) else value
    if len(text) > SHOWN_VALUE_MAX:
        return text[:SHOWN_VALUE_MAX - 3] + '...'
    return text


def _is_sensitive(applied, path):
    return (applied.get('kind') == 'Secret'
            and path[0] in redaction.SECRET_FIELDS)


def _dotted(path):
    text = ''
    for step in path:
        text += step if step.startswith('[') else ('.' + step if text
                                                   else step)
    return text


def _write_only_mapped(applied):
    """(applied with a Secret's stringData as data, {data fields path:
    stringData fields path}): the API server stores stringData in data."""
    plain = applied.get('stringData')
    if applied.get('kind') != 'Secret' or not plain:
        return applied, {}
    data = dict(applied.get('data') or {})
    mapped = {}
    for key, value in plain.items():
        data[key] = base64.b64encode(str(value).encode('utf-8')).decode()
        mapped[('f:data', 'f:' + key)] = ('f:stringData', 'f:' + key)
    converted = {k: v for k, v in applied.items() if k != 'stringData'}
    converted['data'] = data
    return converted, mapped


def _owners(live):
    """{manager: set of field paths it owns} (status subresource left
    out: Heat never applies status)."""
    owners = collections.defaultdict(set)
    for entry in (live.get('metadata') or {}).get('managedFields') or ():
        if entry.get('subresource') == 'status':
            continue
        owners[entry.get('manager')] |= set(_paths(
            entry.get('fieldsV1') or {}, ()))
    return owners


def _paths(tree, prefix):
    for key, sub in tree.items():
        if key == '.':
            continue
        path = prefix + (_step(key),)
        yield path
        yield from _paths(sub or {}, path)


def _step(key):
    """A fieldsV1 key as a comparable step: 'f:x', or ('k', items) for
    an associative list item (its JSON key parsed)."""
    if key.startswith('k:'):
        try:
            return ('k', tuple(sorted(json.loads(key[2:]).items())))
        except (ValueError, AttributeError, TypeError):
            return key
    return key


def _union(live):
    """Every manager's fieldsV1 merged into one tree of steps: where the
    list keys are, and which maps are atomic (owned as one leaf)."""
    union = {}
    for entry in (live.get('metadata') or {}).get('managedFields') or ():
        _merge(union, entry.get('fieldsV1') or {})
    return union


def _merge(into, tree):
    for key, sub in tree.items():
        if key != '.':
            _merge(into.setdefault(_step(key), {}), sub or {})


def _leaves(applied, live, union, path=(), fields=()):
    """(dotted path steps, fields path, applied value, live value) of
    every leaf of applied; atomic maps and unkeyed lists are leaves."""
    node = union
    for step in fields:
        node = node.get(step) if isinstance(node, dict) else None
        if node is None:
            break
    atomic = node == {} and bool(fields)
    if isinstance(applied, dict) and applied and not atomic:
        for key, value in applied.items():
            now = live.get(key, MISSING) if isinstance(live, dict) \
                else MISSING
            yield from _leaves(value, now, union, path + (key,),
                               fields + ('f:' + key,))
        return
    names = _list_keys(node)
    if isinstance(applied, list) and names and all(
            isinstance(item, dict) for item in applied):
        for item in applied:
            match = _matching(item, live, names)
            label = '[%s]' % ','.join('%s=%s' % (n, item[n])
                                      for n in names if n in item)
            if match is None:
                yield path + (label,), fields + (label,), item, MISSING
                continue
            step = ('k', tuple(sorted((n, match[n]) for n in names
                                      if n in match)))
            yield from _leaves(item, match, union, path + (label,),
                               fields + (step,))
        return
    yield path, fields, applied, live


def _list_keys(node):
    """The key field names of an associative list's fieldsV1 node."""
    for step in node or ():
        if isinstance(step, tuple) and step[0] == 'k':
            return [name for name, _value in step[1]]
    return []


def _matching(item, live, names):
    """The live list item with item's key values (a key the manifest
    leaves out, such as a defaulted protocol, matches any value)."""
    for candidate in live if isinstance(live, list) else ():
        if isinstance(candidate, dict) and all(
                candidate.get(n) == item[n] for n in names if n in item):
            return candidate
    return None

