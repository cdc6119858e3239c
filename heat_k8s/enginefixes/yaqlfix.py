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

"""Heat's yaql function made safe for heat-engine's threads (Heat 25+).

From Heat 25 heat-engine runs on native threads, and its ``yaql`` intrinsic
function parses every expression with one yaql engine shared by the
process (``Yaql.get_yaql_parser``): one PLY lexer and parser, whose state
is the text being parsed. Two threads parsing at once corrupt each other's
parse, and a valid template fails at random with ``Bad expression Parse
error: unexpected end of statement`` (or ``illegal character``). The
service templates use yaql in every nested stack, and Heat validates
sibling nested stacks in parallel, so a rollback failed that way in CI.
Heat 24's engine ran on eventlet's green threads, which a parse never
yields, so it is not affected.

apply() serialises the parse (evaluation is unaffected). Parsing takes
microseconds, so the lock costs nothing measurable. The upstream change is
the same lock in ``Yaql._parse`` (patches/yaqlfix.patch).
"""

import functools
import threading

from heat.engine.hot import functions

from heat_k8s.enginefixes import patching

RELEASES = (25, 27)


def probe():
    """None when Yaql._parse uses the shared parser without a lock."""
    return patching.expect(functions.Yaql, '_parse',
                           has=('get_yaql_parser()',), lacks=('lock',))


def serialised(parse):
    """Yaql._parse, one thread at a time."""
    lock = threading.Lock()

    @functools.wraps(parse)
    def serialised_parse(self, expression):
        with lock:
            return parse(self, expression)
    return serialised_parse


# Heat's Yaql._parse, wrapped.
# What apply() replaces (tests check it is done once and undone).
TARGETS = ((functions.Yaql, '_parse'),)
apply, restore = patching.wrapping(*TARGETS[0], serialised)
