# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""astfix: threads that parse at once, with collections switching between
them, as Heat's engine threads read sync points back."""

from tests.unit import heat_harness  # noqa: F401 (first: sets up Heat)

# isort: split

import ast
import gc
import sys
import threading
import unittest

from heat_k8s.enginefixes import astfix

# A sync point's input as Heat stores it, many entries long.
SOURCE = '[%s]' % ', '.join("((%d, True), {'k': [%d]})" % (i, i)
                            for i in range(300))
THREADS = 8
PARSES = 20


def heats_parse():
    """ast.parse as the interpreter ships it, whatever apply() did."""
    return getattr(ast.parse, '__wrapped__', ast.parse)


def parse_at_once(parse):
    """The SystemErrors of THREADS threads each parsing SOURCE PARSES
    times with `parse`, while every collection runs Python code (a switch
    point) and collections and switches come as often as they can."""
    errors = []

    def collecting(phase, info):
        sum(range(100))

    def work():
        try:
            for _ in range(PARSES):
                parse(SOURCE, mode='eval')
        except SystemError as e:
            errors.append(e)

    threshold, interval = gc.get_threshold(), sys.getswitchinterval()
    gc.callbacks.append(collecting)
    gc.set_threshold(50)
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=work) for _ in range(THREADS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        gc.callbacks.remove(collecting)
        gc.set_threshold(*threshold)
        sys.setswitchinterval(interval)
    return errors


class RacingVersionsTest(unittest.TestCase):

    def test_the_versions_before_cpythons_fix(self):
        for version, racing in (((3, 10, 13), False), ((3, 11, 0), True),
                                ((3, 11, 2), True), ((3, 11, 7), True),
                                ((3, 11, 8), False), ((3, 12, 1), True),
                                ((3, 12, 2), False), ((3, 13, 0), False)):
            self.assertEqual(racing, astfix.races(version), version)


class ParseAtOnceTest(unittest.TestCase):

    @unittest.skipUnless(astfix.races(sys.version_info),
                         'this CPython has the fix (gh-106905)')
    def test_this_interpreter_races_without_the_fix(self):
        # Why the fix is there: it fails in a second or two here.
        self.assertTrue(parse_at_once(heats_parse()))

    def test_serialised_parse_never_fails(self):
        parse = astfix.one_thread_at_a_time(heats_parse())
        self.assertEqual([], parse_at_once(parse))

    def test_literal_eval_goes_through_the_patched_parse(self):
        original = ast.parse
        try:
            astfix.apply()
            self.assertIs(heats_parse(), ast.parse.__wrapped__)
            # literal_eval looks parse up in the module when it runs.
            self.assertIs(ast.parse, ast.literal_eval.__globals__['parse'])
            self.assertEqual([1, (2, 'x')], ast.literal_eval("[1, (2, 'x')]"))
            patched = ast.parse
            astfix.apply()
            self.assertIs(patched, ast.parse)
        finally:
            ast.parse = original

    def test_a_fixed_interpreter_is_left_alone(self):
        self.assertEqual('cpython 3.12.2 has no AST constructor race',
                         astfix.probe((3, 12, 2, 'final', 0)))
        self.assertEqual('pypy 3.11.7 has no AST constructor race',
                         astfix.probe((3, 11, 7), 'pypy'))

    def test_a_racing_interpreter_is_fixed(self):
        self.assertIsNone(astfix.probe((3, 11, 7, 'final', 0), 'cpython'))
