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

"""Heat's yaql function made safe for heat-engine's threads.

Heat 27 runs heat-engine on threads, and its ``yaql`` intrinsic function
parses every expression with one yaql engine shared by the process
(``Yaql.get_yaql_parser``): one PLY lexer and parser, whose state is the
text being parsed. Two threads parsing at once corrupt each other's
parse, and a valid template fails at random with ``Bad expression Parse
error: unexpected end of statement`` (or ``illegal character``). The
service templates use yaql in every nested stack, and Heat validates
sibling nested stacks in parallel, so a rollback failed that way in CI.

apply() serialises the parse (evaluation is unaffected); heat-engine runs
it when it loads the plugin. Parsing takes microseconds, so the lock costs
nothing measurable. ``Yaql._parse`` is private:
tests/unit/test_heat_contract.py fails, naming it, if a Heat upgrade
changes what this relies on.
"""

import functools
import threading

from heat.engine.hot import functions

_lock = threading.Lock()


def apply():
    """Serialise Heat's yaql parsing; idempotent."""
    parse = functions.Yaql._parse
    if getattr(parse, 'serialised', False):
        return

    @functools.wraps(parse)
    def serialised_parse(self, expression):
        with _lock:
            return parse(self, expression)

    serialised_parse.serialised = True
    functions.Yaql._parse = serialised_parse
