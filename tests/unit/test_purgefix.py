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

"""heat_k8s.enginefixes.purgefix: a referenced template is kept, quietly."""

from tests.unit import heat_harness  # noqa: F401 (first: sets up Heat)

# isort: split

import inspect
import unittest

from heat.engine import stack as stack_mod
from oslo_db import exception as db_exception

from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import purgefix


class _Stack(object):
    name = 'a-stack'


class PurgeGuardTest(unittest.TestCase):

    def test_a_template_still_in_use_ends_the_purge_quietly(self):
        def purge(stack):
            raise db_exception.DBReferenceError(
                'raw_template', 'resource_ibfk_1', 'current_template_id',
                'resource')
        self.assertIsNone(purgefix.keep_referenced_template(purge)(_Stack()))

    def test_other_errors_and_results_pass_through(self):
        def broken(stack):
            raise db_exception.DBConnectionError('gone')
        self.assertRaises(db_exception.DBConnectionError,
                          purgefix.keep_referenced_template(broken), _Stack())
        self.assertEqual('done', purgefix.keep_referenced_template(
            lambda stack: 'done')(_Stack()))

    def test_apply_guards_heats_purge_once(self):
        self.addCleanup(purgefix.restore)
        purgefix.apply()
        guarded = stack_mod.Stack.purge_db
        purgefix.apply()
        self.assertTrue(getattr(guarded, patching.MARK))
        self.assertIs(guarded, stack_mod.Stack.purge_db)
        # What the guard relies on in Heat: purge_db deletes the previous
        # template through RawTemplate.delete.
        self.assertIn('RawTemplate.delete', inspect.getsource(
            guarded.__wrapped__))
