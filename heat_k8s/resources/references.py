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

"""The heat_k8s.secret_references parameter constraint.

A provider template's properties (hidden parameters included) are shown
in its events, so a service template's secret parameters take secret
references only; the error names the keys, never the values.
"""

from heat_k8s import sealing

NAME = 'heat_k8s.secret_references'


def not_references(value):
    """Keys of a map whose values are not secret references, sorted.

    None stands for a value Heat does not know yet (get_attr at validate).
    """
    if not isinstance(value, dict):
        return None
    return sorted(key for key, item in value.items()
                  if item is not None and not sealing.is_reference(item))


class SecretReferences(object):
    """Every value of the map is a secret reference."""

    message = ('A map of secret references, e.g. {get_attr: [<an '
               'OS::HeatK8s::RandomSecret>, reference]}')

    def validate(self, value, context=None):
        return not_references(value) == []

    def error(self, value):
        keys = not_references(value)
        if keys is None:
            return 'give a map of secret references'
        return ('%s: give secret references, not values (Heat shows a '
                'provider template\'s properties in its events): e.g. '
                '{get_attr: [<an OS::HeatK8s::RandomSecret>, reference]}'
                % ', '.join(keys))


def constraint_mapping():
    return {NAME: SecretReferences}
