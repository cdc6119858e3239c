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

"""Fields Kubernetes will not change in place: a change needs a new object.

Each kind declares its rules (kinds.KINDS, immutable=...); EVERY_KIND
holds the rules all kinds share. Heat compares the old desired manifest
with the new one (never the live object, so server defaults do not count)
and replaces the resource when a rule sees a difference
(kinds.replacement_paths).
is_immutable_error() recognises the API server's answer for whatever the
rules miss.
"""

import copy
import json
import re


class Rule(str):
    """A dotted path that cannot change in place; refinements are data.

    A str, so a kind declares tuples of paths. Attributes:
      exceptions  paths under this one that may change in place;
                  '[*]' stands for every item of a list
      when_old    a path in the OLD manifest that must be true for the rule
                  to apply (ConfigMap/Secret data is locked by immutable)
      values      only a change to or from one of these values counts
    """

    def __new__(cls, path, exceptions=(), when_old=None, values=()):
        rule = super().__new__(cls, path)
        rule.exceptions = tuple(exceptions)
        rule.when_old = when_old
        rule.values = tuple(values)
        return rule


def spec(*fields):
    """Rules for these fields of the spec."""
    return tuple(Rule('spec.' + field) for field in fields)


def spec_except(*fields):
    """One rule for the whole spec but these fields."""
    return (Rule('spec', exceptions=tuple('spec.' + f for f in fields)),)


def locked_by_immutable(*fields):
    """Rules for fields an object's own immutable: true locks, and it."""
    return tuple(Rule(field, when_old='immutable')
                 for field in fields + ('immutable',))


# The rules for every kind; each kind's own are in its declaration.
EVERY_KIND = (Rule('kind'), Rule('metadata.name'), Rule('metadata.namespace'))

_MISSING = object()


def _steps(path):
    return path.replace('[*]', '.*').split('.')


def _get(tree, path):
    for step in _steps(path):
        if not isinstance(tree, dict) or tree.get(step) is None:
            return _MISSING
        tree = tree[step]
    return tree


def _without_nulls(value):
    # A null in a template means "not set", the same as leaving it out.
    if isinstance(value, dict):
        return {k: _without_nulls(v) for k, v in value.items()
                if v is not None}
    if isinstance(value, list):
        return [_without_nulls(v) for v in value]
    return value


def _remove(node, steps):
    """Delete the field at steps from node in place; '*' is every item."""
    head, rest = steps[0], steps[1:]
    if head == '*':
        for item in node if isinstance(node, list) else ():
            if rest:
                _remove(item, rest)
        return
    if not isinstance(node, dict) or head not in node:
        return
    if not rest:
        del node[head]
        return
    _remove(node[head], rest)
    if node[head] == {}:
        del node[head]  # emptied by the removal: the same as absent


def _comparable(rule, value):
    if value is _MISSING:
        return value
    value = _without_nulls(copy.deepcopy(value))
    for exception in rule.exceptions:
        _remove(value, _steps(exception[len(rule) + 1:]))
    return value


# Not jsonpatch.make_patch: it would report the removal of a parent of an
# exception (spec.resources of spec.resources.requests) and no old values.
def _differences(rule, old, new):
    before = _comparable(rule, _get(old, rule))
    after = _comparable(rule, _get(new, rule))
    if before == after:
        return []
    if rule.values and before not in rule.values and after not in rule.values:
        return []
    if rule.exceptions and isinstance(before, dict) and isinstance(after,
                                                                   dict):
        # Name the fields that changed, not the whole spec.
        keys = set(before) | set(after)
        return ['%s.%s' % (rule, key) for key in keys
                if before.get(key, _MISSING) != after.get(key, _MISSING)]
    return [str(rule)]


def changed_paths(rules, old, new):
    """The paths of rules whose value differs between two desired
    manifests."""
    changed = set()
    for rule in rules:
        if rule.when_old and _get(old, rule.when_old) is not True:
            continue
        changed.update(_differences(rule, old, new))
    return sorted(changed)


# What the API server says when an update touches an immutable field.
_IMMUTABLE_MESSAGE = re.compile('|'.join((
    r'field is immutable',
    r'may not change once set',
    r'is immutable after creation',
    r'may not change fields other than',   # Pod spec
    r'spec for fields other than',         # StatefulSet spec
    r'updates to \w+ are forbidden',       # StorageClass
    r'cannot change roleref',              # (Cluster)RoleBinding
)), re.IGNORECASE)


def is_immutable_error(status_body):
    """True when an API error (a 422 Status) says a field is immutable."""
    body = status_body
    if isinstance(body, bytes):
        body = body.decode('utf-8', 'replace')
    if isinstance(body, str):
        try:
            body = json.loads(body)
        except ValueError:
            return bool(_IMMUTABLE_MESSAGE.search(body))
    if not isinstance(body, dict) or body.get('code') not in (None, 422):
        return False
    causes = (body.get('details') or {}).get('causes') or ()
    texts = [body.get('message')] + [c.get('message') for c in causes]
    return any(_IMMUTABLE_MESSAGE.search(t) for t in texts
               if isinstance(t, str))
