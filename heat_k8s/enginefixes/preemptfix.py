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

"""A rollback that cancels itself, prevented (Heat 24 to 27).

When an update fails, Heat starts the rollback traversal while the failed
traversal's other resources are still busy. The rollback's check of such a
resource finds it locked and retries for a few seconds; meanwhile the busy
resource finishes and hands the resource to the rollback (a re-trigger),
whose second check takes the lock and starts rolling it back. When the
first check's retries run out, ``CheckResource._do_check_resource`` takes
the lock's holder for an older traversal and calls ``handle_preempt()``;
for a nested stack (``StackResource``) that cancels the nested update in
progress, which is now the rollback's own, and the stack ends
``ROLLBACK_FAILED`` with ``Stack UPDATE cancelled``. Seen with every
template whose nested stacks fail a second or two apart.

apply() makes ``StackResource.handle_preempt`` cancel only an update that
holds the lock since before the current traversal began (the resource
row's ``updated_at``, written when the lock is taken, against the stack's
``updated_time``, written when the traversal starts). A holder that began
later works for this traversal or a newer one; cancelling it is never
right, and leaving it alone is always safe: when it ends it carries on the
latest traversal. The upstream change is the same test in
``_do_check_resource`` before it calls ``handle_preempt()``
(patches/preemptfix.patch).
"""

import functools

from heat.engine import check_resource
from heat.engine.resources import stack_resource
from heat.objects import resource as resource_objects
from oslo_log import log as logging

from heat_k8s.enginefixes import patching

LOG = logging.getLogger(__name__)
RELEASES = (24, 27)


def lock_predates(locked_at, engine_id, traversal_began):
    """Whether a resource's lock was taken before the traversal began:
    only then is its holder an older traversal worth pre-empting."""
    if engine_id is None or locked_at is None or traversal_began is None:
        return True  # nothing to tell by: Heat's own behaviour
    return locked_at < traversal_began


def only_older_traversals(preempt):
    """handle_preempt, cancelling only an update older than the
    current traversal."""
    @functools.wraps(preempt)
    def guarded_preempt(self):
        row = resource_objects.Resource.get_obj(
            self.context, self.id, refresh=True,
            fields=('updated_at', 'engine_id'))
        if not lock_predates(row.updated_at, row.engine_id,
                             self.stack.updated_time):
            LOG.info('%s: not cancelling its update in progress: it began '
                     'after this traversal did (%s >= %s)', self.name,
                     row.updated_at, self.stack.updated_time)
            return
        return preempt(self)
    return guarded_preempt


def probe():
    """None when a locked resource's check pre-empts its holder without
    asking when the lock was taken."""
    return patching.expect(
        stack_resource.StackResource, 'handle_preempt') or patching.expect(
        check_resource.CheckResource, '_do_check_resource',
        has=('handle_preempt()',), lacks=('updated_at',))


# Heat's StackResource.handle_preempt, wrapped.
# What apply() replaces (tests check it is done once and undone).
TARGETS = ((stack_resource.StackResource, 'handle_preempt'),)
apply, restore = patching.wrapping(*TARGETS[0], only_older_traversals)
