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

"""``ast.parse`` one thread at a time where CPython's races (gh-106905).

CPython 3.11.0-3.11.7 and 3.12.0-3.12.1 count the AST constructor's
recursion in state that every thread shares. A garbage collection inside
one thread's ``ast.parse`` can hand the interpreter to another thread that
parses too, and one of them fails with ``SystemError: AST constructor
recursion depth mismatch``. Heat's engine checks resources on threads and
reads each sync point's input back with ``ast.literal_eval``
(``heat/engine/sync_point.py``): a stack of 400 independent pairs failed so
on Python 3.11.7 (Debian 12 ships 3.11.2). CPython fixed it in 3.11.8 and
3.12.2; on the versions before, apply() serialises ``ast.parse`` (which
``literal_eval`` calls). The upstream change is CPython's, already released
(patches/astfix.txt); Heat needs none.
"""

import ast
import functools
import sys
import threading

from heat.engine import sync_point

from heat_k8s.enginefixes import patching

# Every supported Heat reads sync points with ast.literal_eval.
RELEASES = (24, 27)
# [first, fixed) CPython versions whose AST constructor races.
RACING = (((3, 11, 0), (3, 11, 8)), ((3, 12, 0), (3, 12, 2)))


def races(version):
    """Whether CPython `version` (major, minor, micro) has the race."""
    return any(first <= tuple(version[:3]) < fixed
               for first, fixed in RACING)


def one_thread_at_a_time(parse):
    """`parse`, serialised; re-entrant for a collection in the same thread
    that parses again."""
    lock = threading.RLock()

    @functools.wraps(parse)
    def locked(*args, **kwargs):
        with lock:
            return parse(*args, **kwargs)
    return locked


def probe(version=sys.version_info, implementation=sys.implementation.name):
    """None when this interpreter races and Heat parses sync points with
    ast.literal_eval; else why the fix is not needed."""
    if implementation != 'cpython' or not races(version):
        return '%s %s has no AST constructor race' % (
            implementation, '.'.join(map(str, version[:3])))
    if 'literal_eval' not in patching.source(sync_point,
                                            '_str_unpack_tuple'):
        return 'sync_point._str_unpack_tuple no longer uses literal_eval'
    return None


# Heat's ast.parse, wrapped.
# What apply() replaces (tests check it is done once and undone).
TARGETS = ((ast, 'parse'),)
apply, restore = patching.wrapping(*TARGETS[0], one_thread_at_a_time)
