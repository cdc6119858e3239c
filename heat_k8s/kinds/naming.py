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

"""Kubernetes object names: generated defaults and validation.

Generated names are DNS-1035 labels (lowercase, start with a letter, at
most 63 characters), valid for every kind, and unique per physical
resource through Heat's short id, which is always kept whole. Each kind
declares the API server's rule for its names (kinds.KINDS, name_rule).
"""

import collections
import re

from heat_k8s import kinds

_NameRule = collections.namedtuple('_NameRule', 'max_len regex description')

_LABEL = '[a-z0-9]([-a-z0-9]*[a-z0-9])?'
_RULES = {
    'label': _NameRule(
        63, _LABEL,
        "a lowercase RFC 1123 label must consist of lower case alphanumeric "
        "characters or '-', and must start and end with an alphanumeric "
        "character (e.g. 'my-name', or '123-abc', regex used for "
        "validation is '%s')" % _LABEL),
    'dns1035-label': _NameRule(
        63, '[a-z]([-a-z0-9]*[a-z0-9])?',
        "a DNS-1035 label must consist of lower case alphanumeric "
        "characters or '-', start with an alphabetic character, and end "
        "with an alphanumeric character (e.g. 'my-name', or 'abc-123', "
        "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"),
    'subdomain': _NameRule(
        253, r'%s(\.%s)*' % (_LABEL, _LABEL),
        "a lowercase RFC 1123 subdomain must consist of lower case "
        "alphanumeric characters, '-' or '.', and must start and end with "
        "an alphanumeric character (e.g. 'example.com', regex used for "
        r"validation is '%s(\.%s)*')" % (_LABEL, _LABEL)),
}

def rule(kind):
    """The API server's name rule for kind (its declaration's name_rule)."""
    return kinds.declared(kind).name_rule


def max_length(kind):
    """The longest name to generate or accept for kind."""
    return kinds.declared(kind).name_max_len


def _sanitize(text):
    text = re.sub(r'[^a-z0-9-]+', '-', str(text or '').lower())
    return re.sub(r'-{2,}', '-', text).strip('-')


def _shorten(first, second, room):
    """Trim the longer part until 'first-second' fits in room."""
    while first or second:
        size = len(first) + len(second) + (1 if first and second else 0)
        if size <= room:
            break
        if len(first) >= len(second):
            first = first[:-1]
        else:
            second = second[:-1]
    return first.rstrip('-'), second.rstrip('-')


def generated_name(stack_name, resource_name, short_id, max_len=63):
    """'<stack>-<resource>-<short_id>', always a valid DNS-1035 label."""
    suffix = _sanitize(short_id)[:max(max_len - 2, 1)]
    name = ''
    for prefix in ('', 'h'):
        # 'h-' goes in front when the name would not start with a letter.
        fixed = [p for p in (prefix, suffix) if p]
        room = max_len - sum(len(p) + 1 for p in fixed)
        stack, resource = _shorten(_sanitize(stack_name),
                                   _sanitize(resource_name), room)
        name = '-'.join(p for p in (prefix, stack, resource, suffix) if p)
        if name[:1].isalpha():
            return name
    return name or 'h'


def validate(name, rule, max_len=None):
    """An error message when name breaks the rule, else None.

    rule: 'label' (RFC 1123, 63), 'dns1035-label' (63, starts with a
    letter) or 'subdomain' (253); max_len: a tighter kind limit.
    """
    try:
        spec = _RULES[rule]
    except KeyError:
        raise ValueError('unknown name rule %r (known: %s)'
                         % (rule, ', '.join(sorted(_RULES))))
    if not name:
        return 'a name is required: %s' % spec.description
    problems = []
    limit = min(spec.max_len, max_len or spec.max_len)
    if len(name) > limit:
        problems.append('must be no more than %d characters' % limit)
    if not re.fullmatch(spec.regex, name):
        problems.append(spec.description)
    if not problems:
        return None
    return 'Invalid value %r: %s' % (name, '; '.join(problems))
