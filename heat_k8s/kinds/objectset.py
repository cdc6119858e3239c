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

"""Many objects behind one resource: who they are, what an update does.

Pure (no Heat, no network): OS::Kubernetes::Objects names each object by
its identity (API group, kind, namespace, name), refuses two entries
naming one object, plans an update as the objects to create, apply in
place, replace alone and delete, and keeps its record of what exists
(identity and uid) in pieces small enough for Heat's resource data.
"""

import collections
import json

from heat_k8s import kinds

Identity = collections.namedtuple('Identity', 'group kind namespace name')

# Heat's resource_data values are TEXT (64 KiB in MySQL): the record is
# stored in pieces of at most this many characters.
CHUNK = 30000
SHOWN_PENDING = 3  # objects a progress text names


def identity(manifest):
    """The Identity of a manifest whose namespace is already resolved."""
    meta = manifest.get('metadata') or {}
    return Identity((manifest.get('apiVersion') or '').rpartition('/')[0],
                    manifest.get('kind'), meta.get('namespace') or None,
                    meta.get('name'))


def describe(ident):
    """'Kind ns/name' (or 'Kind name' when cluster-scoped)."""
    return '%s %s' % (ident.kind, '%s/%s' % (ident.namespace, ident.name)
                      if ident.namespace else ident.name)


def duplicates(identities):
    """[(first index, later index, identity)] of entries naming one object.

    identities: one Identity (or None, not known yet) per entry.
    """
    first, found = {}, []
    for index, ident in enumerate(identities):
        if ident is None:
            continue
        if ident in first:
            found.append((first[ident], index, ident))
        else:
            first[ident] = index
    return found


Plan = collections.namedtuple('Plan', 'create apply replace delete keep')


def plan(existing, old, new):
    """What an update does to each object, by identity.

    existing: identities of the objects that exist (the record); old and
    new: {identity: comparable desired manifest} before and after. An
    object whose immutable fields changed is replaced alone; one that
    exists but the old manifests do not describe (left by a failed
    update) is applied. Returns a Plan of identity lists in new's order
    (delete in existing's order).
    """
    create, apply, replace, keep = [], [], [], []
    for ident, manifest in new.items():
        if ident not in existing:
            create.append(ident)
        elif ident not in old:
            apply.append(ident)
        elif old[ident] == manifest:
            keep.append(ident)
        elif kinds.replacement_paths(ident.kind, old[ident], manifest):
            replace.append(ident)
        else:
            apply.append(ident)
    delete = [ident for ident in existing if ident not in new]
    return Plan(create, apply, replace, delete, keep)


def entry(ident, api_version, uid):
    """What the record (and the `objects` attribute) says of an object."""
    return {'apiVersion': api_version, 'kind': ident.kind,
            'namespace': ident.namespace, 'name': ident.name, 'uid': uid}


def entry_identity(entry):
    return identity({'apiVersion': entry['apiVersion'], 'kind': entry['kind'],
                     'metadata': {'namespace': entry['namespace'],
                                  'name': entry['name']}})


def encode(entries, size=CHUNK):
    """The record as strings of at most `size` characters."""
    text = json.dumps([[e['apiVersion'], e['kind'], e['namespace'],
                        e['name'], e['uid']] for e in entries],
                      separators=(',', ':'))
    return [text[i:i + size] for i in range(0, len(text), size)] or ['[]']


def decode(chunks):
    """The entries encode() cut into chunks, in order."""
    rows = json.loads(''.join(chunks) or '[]')
    keys = ('apiVersion', 'kind', 'namespace', 'name', 'uid')
    return [dict(zip(keys, row)) for row in rows]


def progress_text(ready, total, pending):
    """'17/400 objects ready; waiting for Deployment ns/x, ...'."""
    text = '%d/%d objects ready' % (ready, total)
    if pending:
        shown = ', '.join(describe(i) for i in pending[:SHOWN_PENDING])
        more = len(pending) - SHOWN_PENDING
        text += '; waiting for %s%s' % (
            shown, ' and %d more' % more if more > 0 else '')
    return text
