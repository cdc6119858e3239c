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

"""The references_only property: secret references, never values.

A provider template's properties (hidden parameters included) are shown
in its events, so the service templates pass their secrets to our
resources with references_only set: a value is refused at validation,
before the stack is stored, and the error names the keys, never the
values. (Heat allows no custom constraint on a json parameter.)
"""

from heat.engine import properties

from heat_k8s.secrecy import sealing

REFERENCES_ONLY = 'references_only'


def schema(names):
    return properties.Schema(
        properties.Schema.BOOLEAN,
        'Refuse values in %s: each must be a secret reference ({get_attr: '
        '[<an OS::HeatK8s::RandomSecret>, reference]}). The service '
        'templates set it, since their callers\' values would be in the '
        "provider resource's events." % ', '.join(names), default=False,
        update_allowed=True)   # a check only: changing it writes nothing


def not_references(value):
    """Keys of a map whose values are not secret references, sorted.

    None stands for a value Heat does not know yet (get_attr at validate).
    """
    return sorted(key for key, item in (value or {}).items()
                  if item is not None and not sealing.is_reference(item))


def problem(props, names):
    """(message, property) when references_only refuses a value, or None."""
    if not props[REFERENCES_ONLY]:
        return None
    for name in names:
        keys = not_references(props[name])
        if keys:
            return ('%s: %s: give secret references, not values (Heat shows '
                    "a provider template's properties in its events): e.g. "
                    '{get_attr: [<an OS::HeatK8s::RandomSecret>, reference]}'
                    % (name, ', '.join(keys)), name)
    return None
