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

"""The bounds of one render() call, and the size of a value as text.

Runaway templates are stopped by these bounds, checked while rendering
before the memory is taken (:mod:`heat_k8s.rendering.sandbox`); the time
bound is only a backstop.
"""

import collections.abc

from jinja2 import sandbox
from jinja2 import utils as jinja_utils

MAX_FILE_BYTES = 1 << 20      # one rendered file (UTF-8)
MAX_TOTAL_BYTES = 1 << 20     # all files of one render() together
MAX_VALUE_BYTES = 1 << 20     # any one string made while rendering
MAX_ITEMS = sandbox.MAX_RANGE  # any one list made, and range()
MAX_WORK_BYTES = 64 << 20     # all strings made by one render() together
MAX_STEPS = 1000000           # loop iterations, calls, lookups, operations
MAX_INT_BITS = 4096           # integers made by arithmetic
MAX_SECONDS = 5.0             # a backstop: the bounds above come first


def text_size(value, limit=MAX_VALUE_BYTES):
    """About len(str(value)), found without making it; stops past limit."""
    if isinstance(value, str):
        return len(value)
    total, todo = 0, [value]
    while todo and total <= limit:
        item = todo.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) + 4
        elif isinstance(item, bool) or item is None:
            total += 5
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 2
        elif isinstance(item, (float, complex, range)):
            total += 32
        elif isinstance(item, jinja_utils.Namespace):
            total += 12
            todo.append(item._Namespace__attrs)
        elif isinstance(item, collections.abc.Mapping):
            total += 2 + 4 * len(item)
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (collections.abc.Collection,
                               collections.abc.MappingView)):
            # lists, tuples, sets, dict views: repr shows every item
            total += 2 + 2 * len(item)
            todo.extend(item)
        else:
            total += 64   # a repr such as <generator object ...>
    return total

def is_int(value):
    """An int that is not a bool: True and False are no sizes or counts."""
    return isinstance(value, int) and not isinstance(value, bool)
