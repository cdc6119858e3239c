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

"""Layered template values: defaults, then overrides merged over them.

Maps merge key by key, recursively; any other value (string, number,
list, null) replaces the value below it. An environment file can so
change one nested key without restating the rest.
"""

import collections.abc
import copy


def merge_values(*layers):
    """Deep-merge maps of values, each layer over the ones before it.

    Maps merge key by key, recursively; any other value (string, number,
    list, null) replaces. None layers are skipped. The inputs are not
    changed.
    """
    merged = {}
    for depth, layer in enumerate(layers):
        if layer is None:
            continue
        if not isinstance(layer, collections.abc.Mapping):
            raise TypeError('layer %d of values is not a map' % depth)
        merged = _merge(merged, layer)
    return merged


def _merge(base, override):
    merged = dict(base)
    for key, value in override.items():
        if (isinstance(value, collections.abc.Mapping) and
                isinstance(merged.get(key), collections.abc.Mapping)):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged
