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

"""A traversal completed twice no longer fails its stack (Heat 24 to 27).

After a rollback in which a nested stack's check was retried while the
rollback's own update of it ran (heat_k8s.enginefixes.preemptfix), the retry
runs the check again once the lock is free and propagates a second time,
so the traversal completes twice. The first completion ends the stack
``ROLLBACK_COMPLETE`` and purges the previous template; the second, from
a stack loaded before that, tries to delete a template the resources now
reference, and MariaDB's foreign key turns the stack ``ROLLBACK_FAILED``
with ``IntegrityError (1451, 'Cannot delete or update a parent row ...
current_template_id ...')`` (seen in CI, tests/e2e/test_rollback.py).

apply() makes ``Stack.purge_db`` keep a template that is still referenced:
the database refused to delete it because it is in use, which is the only
correct outcome; nothing else of the purge is lost (the first completion
did it). The upstream change is for ``purge_db`` to keep a referenced
template (patches/purgefix.patch).
"""

import functools

from heat.engine import stack as stack_mod
from oslo_db import exception as db_exception
from oslo_log import log as logging

from heat_k8s.enginefixes import patching

LOG = logging.getLogger(__name__)
RELEASES = (24, 27)


def keep_referenced_template(purge):
    """purge_db, ending quietly where the database refuses to delete a
    template still in use."""
    @functools.wraps(purge)
    def guarded_purge(self):
        try:
            return purge(self)
        except db_exception.DBReferenceError as exc:
            LOG.info('%s: previous template still in use, kept (the '
                     'traversal completed twice): %s', self.name, exc)
            return None
    return guarded_purge


def probe():
    """None when purge_db deletes the previous template unguarded."""
    return patching.expect(stack_mod.Stack, 'purge_db',
                           has=('RawTemplate.delete',),
                           lacks=('DBReferenceError',))


# Heat's Stack.purge_db, wrapped.
# What apply() replaces (tests check it is done once and undone).
TARGETS = ((stack_mod.Stack, 'purge_db'),)
apply, restore = patching.wrapping(*TARGETS[0], keep_referenced_template)
