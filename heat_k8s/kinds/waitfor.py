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

"""Wait conditions spelled as for kubectl wait: pure parsing and checking.

'condition=Ready', 'condition=Ready=False', 'jsonpath={.status.phase}=
Running', 'jsonpath={.spec.host}' (any value) and 'create'. JSONPath is
the subset kubectl users write in wait conditions: dotted fields (with
escaped dots), [index] and [?(@.field=="value")] filters.
"""

import dataclasses
import json
import re

from heat_k8s.kinds import verdict


@dataclasses.dataclass(frozen=True)
class WaitCondition:
    kind: str                 # 'condition' | 'jsonpath' | 'create'
    target: str = ''          # condition type, or the JSONPath as written
    value: str | None = None  # wanted status or value; None: any value
    path: tuple = ()          # parsed JSONPath steps

    def __str__(self):
        if self.kind == 'create':
            return 'create'
        wanted = '' if self.value is None else '=' + self.value
        return '%s=%s%s' % (self.kind, self.target, wanted)


_CONDITION = re.compile(r'condition=([A-Za-z0-9][\w./-]*)(?:=(.+))?\Z')
_STEP = re.compile(r'''
      \.(?P<field>(?:[^.\[\\]|\\.)+)
    | \[(?P<index>-?\d+)\]
    | \[\?\(@\.(?P<key>[\w-]+)\s*==\s*(?P<q>["'])(?P<match>.*?)(?P=q)\)\]
''', re.VERBOSE)
_JSONPATH_HELP = ('use dotted fields, [index] and [?(@.field=="value")], '
                  'e.g. jsonpath={.status.phase}=Running')


# --- the JSONPath subset ---------------------------------------------------

def parse_jsonpath(expr):
    """Steps of a JSONPath such as .status.conditions[0].type.

    Each step is ('field', name), ('index', int) or
    ('filter', (key, wanted text)); ValueError for anything else.
    """
    body = expr[1:] if expr.startswith('$') else expr
    steps, pos = [], 0
    while pos < len(body):
        match = _STEP.match(body, pos)
        if not match:
            raise ValueError('unsupported JSONPath %r at %r: %s'
                             % (expr, body[pos:], _JSONPATH_HELP))
        if match.group('field') is not None:
            steps.append(('field', match.group('field').replace('\\.', '.')))
        elif match.group('index') is not None:
            steps.append(('index', int(match.group('index'))))
        else:
            steps.append(('filter', (match.group('key'),
                                     match.group('match'))))
        pos = match.end()
    if not steps:
        raise ValueError('empty JSONPath in %r: %s' % (expr, _JSONPATH_HELP))
    return tuple(steps)


def select(obj, steps):
    """The non-null values the parsed JSONPath steps reach in obj."""
    values = [obj]
    for step, arg in steps:
        if step == 'field':
            values = [v[arg] for v in values
                      if isinstance(v, dict) and arg in v]
        elif step == 'index':
            values = [v[arg] for v in values
                      if isinstance(v, list) and -len(v) <= arg < len(v)]
        else:
            key, wanted = arg
            values = [item for v in values if isinstance(v, list)
                      for item in v if isinstance(item, dict)
                      and as_text(item.get(key)) == wanted]
    return [v for v in values if v is not None]


def as_text(value):
    """A value printed the way kubectl's JSONPath does (true, 3, {"a":1})."""
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(',', ':'), sort_keys=True)


# --- conditions ------------------------------------------------------------

def _parse_jsonpath_condition(expr, rest):
    if rest[:1] in ('"', "'"):
        # Shell-style quotes around the path: jsonpath='{.a}'=b
        rest = rest[1:].replace(rest[0], '', 1)
    if rest.startswith('{'):
        end = rest.find('}')
        if end < 0:
            raise ValueError('bad jsonpath %r: missing "}"' % expr)
        path, value = rest[1:end], rest[end + 1:]
    else:
        path, equals, value = rest.partition('=')
        value = equals + value
    if value and not value.startswith('='):
        raise ValueError('bad jsonpath %r: expected jsonpath={<path>}='
                         '<value>' % expr)
    return WaitCondition('jsonpath', '{%s}' % path,
                         value[1:] if value else None, parse_jsonpath(path))


def parse_wait_for(expr):
    """Parse one kubectl-wait condition; ValueError says what is wrong.

    Accepts 'condition=Ready', 'condition=Ready=False',
    'jsonpath={.status.phase}=Running', 'jsonpath={.spec.host}' (any
    value) and 'create', optionally after '--for='.
    """
    if not isinstance(expr, str) or not expr.strip():
        raise ValueError('a wait condition must be a non-empty string such '
                         'as condition=Ready or jsonpath={.status.phase}='
                         'Running, not %r' % (expr,))
    text = expr.strip()
    text = text[len('--for='):] if text.startswith('--for=') else text
    if text == 'create':
        return WaitCondition('create')
    if text.startswith('condition='):
        match = _CONDITION.match(text)
        if not match:
            raise ValueError('bad condition %r: expected condition=<Type> or '
                             'condition=<Type>=<Status>' % expr)
        return WaitCondition('condition', match.group(1),
                             match.group(2) or 'True')
    if text.startswith('jsonpath='):
        return _parse_jsonpath_condition(expr, text[len('jsonpath='):])
    raise ValueError('unsupported wait condition %r: use condition=<Type>'
                     '[=<Status>], jsonpath={<path>}[=<value>] or create'
                     % expr)


def _unmet_condition(obj, condition):
    wanted = condition.target.lower()
    found = [c for c in (obj.get('status') or {}).get('conditions') or ()
             if str(c.get('type', '')).lower() == wanted]
    if not found:
        return 'condition %s not reported yet' % condition.target
    status = str(found[0].get('status'))
    if status.lower() == condition.value.lower():
        return None
    detail = verdict.reason(found[0])
    return 'condition %s is %s (want %s)%s' % (
        condition.target, status, condition.value,
        ': ' + detail if detail else '')


def _unmet_jsonpath(obj, condition):
    values = select(obj, condition.path)
    if not values:
        return '%s is not set yet' % condition.target
    text = ' '.join(as_text(v) for v in values)
    if condition.value is None or text == condition.value:
        return None
    return '%s is %r (want %r)' % (condition.target, verdict.clip(text),
                                    condition.value)


def unmet(obj, condition):
    """Why condition does not hold for obj (None if it holds)."""
    if not obj:
        return 'object does not exist'
    if condition.kind == 'create':
        return None
    if condition.kind == 'condition':
        return _unmet_condition(obj, condition)
    return _unmet_jsonpath(obj, condition)


def wait_for(obj, conditions):
    """READY when every kubectl-wait condition holds, else PROGRESSING.

    conditions: WaitCondition objects or their text (parsed here, so a
    bad expression raises ValueError).
    """
    problems = []
    for condition in conditions:
        if not isinstance(condition, WaitCondition):
            condition = parse_wait_for(condition)
        problem = unmet(obj, condition)
        if problem:
            problems.append(problem)
    if problems:
        return verdict.progressing(verdict.join(*problems))
    return verdict.ready()
