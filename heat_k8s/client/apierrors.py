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

"""Kubernetes API errors as messages safe to show a Heat user.

The API's own Status message, with the field paths of its causes, object
dumps clipped and Secret values removed. Pure: no request is made here.
"""

import json
import re

from kubernetes.client import exceptions as k8s_exceptions

from heat_k8s.kinds import redaction


class ApiError(k8s_exceptions.ApiException):
    """An API failure whose text is the Status message, safe to show.

    ``status_body`` is the decoded Status (with Secret values removed) for
    callers that need the reason or causes, e.g. immutable-field errors.
    """

    def __init__(self, status, reason, message, status_body=None):
        super().__init__(status=status, reason=reason)
        self.message = message
        self.status_body = status_body or {}

    def __str__(self):
        return self.message


MAX_VALUE_TEXT = 80
# What a bare status means for a plugin that brings a Keystone token: the
# API's own message for it is one word.
HINTS = {
    401: 'the Kubernetes API did not accept the Keystone token: the '
         "cluster's Keystone webhook (k8s-keystone-auth) is down or cannot "
         'reach Keystone, or the token expired (heat.conf '
         'reauthentication_auth_method = trusts renews it)',
}
_DUMP_START = re.compile(r'[\w.]*[{\[]')


def _value_end(text, start):
    """Index after the JSON object or array starting at text[start]."""
    depth, quoted, escaped = 0, False, False
    for index in range(start, len(text)):
        char = text[index]
        if quoted:
            if escaped:
                escaped = False
            elif char == '\\':
                escaped = True
            elif char == '"':
                quoted = False
        elif char == '"':
            quoted = True
        elif char in '{[':
            depth += 1
        elif char in '}]':
            depth -= 1
            if depth == 0:
                return index + 1
    return len(text)


def clip_values(message):
    """Shorten the object dumps in 'Invalid value: {...}' messages.

    The API quotes a whole pod template when it refuses a change to one.
    """
    marker, out, pos = 'Invalid value: ', [], 0
    while True:
        found = message.find(marker, pos)
        if found < 0:
            return ''.join(out) + message[pos:]
        start = found + len(marker)
        # JSON ({...}) or Go syntax (core.PodTemplateSpec{...}) dumps
        dump = _DUMP_START.match(message, start)
        if dump:
            end = _value_end(message, dump.end() - 1)
            if end - start > MAX_VALUE_TEXT:
                out.append(message[pos:dump.end()] + '...' + message[end - 1])
                pos = end
                continue
        out.append(message[pos:start])
        pos = start


def status_message(status_code, body, secrets=()):
    """(message, Status dict) for an error response body."""
    try:
        status = json.loads(body) if body else {}
    except ValueError:
        status = {}
    if not isinstance(status, dict):
        status = {}
    message = status.get('message') or (body or '').strip()[:500]
    causes = (status.get('details') or {}).get('causes') or []
    for cause in causes:
        field = cause.get('field')
        if field and field + ':' not in message:
            message = '%s; %s: %s' % (message, field, cause.get('message'))
    reason = status.get('reason') or ''
    message = '%s (HTTP %s%s)' % (clip_values(message) or
                                  'Kubernetes API error',
                                  status_code,
                                  ' ' + reason if reason else '')
    if status_code in HINTS:
        message = '%s: %s' % (message, HINTS[status_code])
    if secrets:
        message = redaction.text(message, secrets)
        status = redaction.structure(status, secrets)
    return message, status
