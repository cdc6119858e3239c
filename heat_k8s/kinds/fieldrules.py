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

"""The API server's value rules that its OpenAPI schema does not state.

The schema (heat_k8s.kinds.schema) says a label is a string and replicas
an int32; the API server's Go validation says more: what a label key or
value may spell, what a ConfigMap key may be, that replicas are never
negative, that a port is 1 to 65535. The rules below are those, as data
(RULES: which field, which check) and pure checks, with the API server's
own wording, so a template is refused offline with the field path the
server would name. Values Heat cannot resolve yet (None) are skipped.
"""

import base64
import binascii
import collections
import re

from heat_k8s.kinds import naming

# The OpenAPI formats the schema declares and the checks they stand for.
INT_RANGES = {'int32': (-2 ** 31, 2 ** 31 - 1),
              'int64': (-2 ** 63, 2 ** 63 - 1)}

# Text rules: (longest, regex, what the API server says when it fails).
TextRule = collections.namedtuple('TextRule', 'max_len regex description')
_NAME_PART = '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'
NAME_PART = TextRule(
    63, _NAME_PART,
    "name part must consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character (e.g. "
    "'MyName', or 'my.name', or '123-abc', regex used for validation is "
    "'%s')" % _NAME_PART)
LABEL_VALUE = TextRule(
    63, '(%s)?' % _NAME_PART,
    "a valid label must be an empty string or consist of alphanumeric "
    "characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345', "
    "regex used for validation is '(%s)?')" % _NAME_PART)
CONFIG_KEY = TextRule(
    253, '[-._a-zA-Z0-9]+',
    "a valid config key must consist of alphanumeric characters, '-', '_' "
    "or '.' (e.g. 'key.name', or 'KEY_NAME', or 'key-name', regex used "
    "for validation is '[-._a-zA-Z0-9]+')")
PREFIX_MAX = 253


def is_base64(value):
    """True when value is standard, padded base64 (what the API decodes)."""
    try:
        base64.b64decode(str(value), validate=True)
    except (binascii.Error, ValueError):
        return False
    return True


def format_problem(fmt, value):
    """What is wrong with value for an OpenAPI format, or None."""
    if value is None or isinstance(value, bool):
        return None
    if fmt in INT_RANGES and isinstance(value, (int, float)):
        low, high = INT_RANGES[fmt]
        if not low <= value <= high:
            return '%s is out of range for %s (%d to %d)' % (
                _number(value), fmt, low, high)
    if fmt == 'byte' and isinstance(value, str) and not is_base64(value):
        return 'not base64 (standard alphabet, padded)'
    return None


def _number(value):
    return '%d' % value if float(value).is_integer() else repr(value)


def qualified_name_problems(key):
    """Why key is not a label or annotation key ([prefix/]name)."""
    parts = key.split('/')
    if len(parts) > 2:
        return ["a qualified name must consist of alphanumeric characters, "
                "'-', '_' or '.', and must start and end with an "
                "alphanumeric character, with an optional DNS subdomain "
                "prefix and '/' (e.g. 'example.com/MyName')"]
    name, problems = parts[-1], []
    if len(parts) == 2:
        prefix = parts[0]
        error = (naming.validate(prefix, 'subdomain', PREFIX_MAX) if prefix
                 else 'must be non-empty')
        if error:
            problems.append('prefix part: %s' % error)
    if not name:
        return problems + ['name part must be non-empty']
    return problems + _text_problems(NAME_PART, name, 'name part ')


def label_value_problems(value):
    """Why value is not a label value."""
    return _text_problems(LABEL_VALUE, value)


def config_key_problems(key):
    """Why key is not a ConfigMap or Secret key (IsConfigMapKey)."""
    problems = _text_problems(CONFIG_KEY, key)
    if key in ('.', '..'):
        problems.append("must not be '%s'" % key)
    elif key.startswith('..'):
        problems.append("must not start with '..'")
    return problems


def _text_problems(rule, text, part=''):
    problems = []
    if len(text) > rule.max_len:
        problems.append('%smust be no more than %d characters'
                        % (part, rule.max_len))
    if not re.fullmatch(rule.regex, text):
        problems.append(rule.description)
    return problems


# --- checks of one field's value: [message] ------------------------------

def _keys(key_rule):
    def check(mapping):
        return ['Invalid value %r: %s' % (key, '; '.join(problems))
                for key in sorted(mapping, key=str) if isinstance(key, str)
                for problems in [key_rule(key)] if problems]
    return check


def _labels(mapping):
    found = _keys(qualified_name_problems)(mapping)
    for key, value in sorted(mapping.items(), key=lambda i: str(i[0])):
        problems = isinstance(value, str) and label_value_problems(value)
        if problems:
            found.append('Invalid value %r (key %r): %s' % (
                value, key, '; '.join(problems)))
    return found


def _at_least(low):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return []
        if value < low:
            return ['Invalid value: %s: must be greater than or equal to %d'
                    % (_number(value), low)]
        return []
    return check


def _port(low):
    def check(value):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return []  # a named port (IntOrString) is checked elsewhere
        if not low <= value <= 65535:
            return ['Invalid value: %s: must be between %d and 65535, '
                    'inclusive' % (_number(value), low)]
        return []
    return check


LABEL_MAP, ANNOTATION_MAP = _labels, _keys(qualified_name_problems)
CONFIG_KEYS = _keys(config_key_problems)
NON_NEGATIVE, PORT, PORT_OR_ZERO = _at_least(0), _port(1), _port(0)
_MAP_CHECKS = (LABEL_MAP, ANNOTATION_MAP, CONFIG_KEYS)

# Which fields a check applies to. kinds: None for every kind. A pattern
# is a field path with [] for any list index; '*.' in front matches it at
# any depth (a pod template inside a Deployment, a Job inside a CronJob).
Rule = collections.namedtuple('Rule', 'kinds pattern check')
_SCALED = ('Deployment', 'StatefulSet', 'ReplicaSet', 'ReplicationController')
_JOBS = ('Job', 'CronJob')
RULES = (
    Rule(None, '*.metadata.labels', LABEL_MAP),
    Rule(None, '*.metadata.annotations', ANNOTATION_MAP),
    Rule(None, '*.selector.matchLabels', LABEL_MAP),
    Rule(None, '*.spec.nodeSelector', LABEL_MAP),
    Rule(('Service',), 'spec.selector', LABEL_MAP),
    Rule(('ConfigMap', 'Secret'), 'data', CONFIG_KEYS),
    Rule(('ConfigMap',), 'binaryData', CONFIG_KEYS),
    Rule(('Secret',), 'stringData', CONFIG_KEYS),
    Rule(_SCALED, 'spec.replicas', NON_NEGATIVE),
    Rule(_SCALED, 'spec.minReadySeconds', NON_NEGATIVE),
    Rule(_SCALED, 'spec.revisionHistoryLimit', NON_NEGATIVE),
    Rule(_JOBS, '*.spec.parallelism', NON_NEGATIVE),
    Rule(_JOBS, '*.spec.completions', NON_NEGATIVE),
    Rule(_JOBS, '*.spec.backoffLimit', NON_NEGATIVE),
    Rule(('CronJob',), 'spec.successfulJobsHistoryLimit', NON_NEGATIVE),
    Rule(('CronJob',), 'spec.failedJobsHistoryLimit', NON_NEGATIVE),
    Rule(None, '*.containers[].ports[].containerPort', PORT),
    Rule(None, '*.initContainers[].ports[].containerPort', PORT),
    Rule(None, '*.containers[].ports[].hostPort', PORT_OR_ZERO),
    Rule(('Service',), 'spec.ports[].port', PORT),
    Rule(('Service',), 'spec.ports[].targetPort', PORT),
    Rule(('Service',), 'spec.ports[].nodePort', PORT_OR_ZERO),
)


def _matches(pattern, path):
    if pattern.startswith('*.'):
        return ('.' + path).endswith(pattern[1:])
    return path == pattern


def _fields(value, path='', pattern=''):
    """(path, pattern, value) of every field: 'a.b[0]', 'a.b[]'."""
    if path:
        yield path, pattern, value
    if isinstance(value, dict):
        for key, child in value.items():
            if isinstance(key, str):
                yield from _fields(child, '%s.%s' % (path, key) if path
                                   else key, '%s.%s' % (pattern, key)
                                   if pattern else key)
    elif isinstance(value, list):
        for index, child in enumerate(value):
            yield from _fields(child, '%s[%d]' % (path, index),
                               pattern + '[]')


def problems(manifest):
    """[(field path, problem)] the API server would refuse, in field order."""
    kind = manifest.get('kind')
    rules = [rule for rule in RULES if rule.kinds is None
             or kind in rule.kinds]
    found = []
    for path, pattern, value in _fields(manifest):
        if value is None:
            continue
        for rule in rules:
            if not _matches(rule.pattern, pattern):
                continue
            if isinstance(value, dict) != (rule.check in _MAP_CHECKS):
                continue  # the wrong type is the schema's to report
            found += [(path, message) for message in rule.check(value)]
    if kind == 'ConfigMap':
        found += _overlap(manifest, 'data', 'binaryData')
    return found


def _overlap(manifest, first, second):
    both = set(manifest.get(first) or {}) & set(manifest.get(second) or {})
    return [(second, 'Invalid value %r: duplicate of key %r in %s'
             % (key, key, first)) for key in sorted(both, key=str)]
