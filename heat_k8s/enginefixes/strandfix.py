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

"""A stack whose heat-engine died ends FAILED, not IN_PROGRESS for ever.

Heat (24 to 27) recovers a dead engine's stacks only on the legacy path: at
start, ``EngineService.reset_stack_status`` marks IN_PROGRESS stacks of
dead engines FAILED, but its query skips convergence stacks. A
convergence resource being checked is locked with its engine's id; when
that engine is killed, nothing checks the resource again, nothing
triggers what depends on it, and the stack stays IN_PROGRESS until a user
retries (then ``CheckResource._stale_resource_needs_retry`` steals the
lock). The fault campaign measured that after every engine kill.

apply() adds a timer to every engine worker: every
``[heat_k8s_engine_fixes] stranded_check_interval`` seconds it looks at the
IN_PROGRESS convergence stacks. A stack is stranded when locks of engines
that do not answer Heat's own liveness call hold some of its resources
and no live engine holds any, seen in two rounds in a row with the same
traversal and the same locks (a new traversal may just be about to steal
them). Then the worker that wins the first lock (an atomic update, as
Heat's own locking) marks those resources FAILED as Heat does when it
steals a lock, and the stack FAILED with ``Stack.mark_failed``, which also
rolls back a stack that asked for it. A retry (``stack update
--existing``, or delete again) then recovers it. Work lost with no lock
held (a message RabbitMQ dropped) is left alone: from the database it
looks like a queue that is merely slow. The upstream-ready change is the
same check in a periodic task beside ``reset_stack_status``
(patches/strandfix.patch).

This changes what Heat does for every convergence stack of the cloud (a
stack that would wait for a retry now fails), so it is off unless the
operator sets ``[heat_k8s_engine_fixes] strandfix = true``.
"""

import functools

from heat.common import context
from heat.common import service_utils
from heat.engine import service
from heat.engine import stack as parser
from heat.objects import resource as resource_objects
from heat.objects import stack as stack_object
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s.enginefixes import options
from heat_k8s.enginefixes import patching

LOG = logging.getLogger(__name__)
RELEASES = (24, 27)

# Heat's own words when it steals the lock of a dead engine's resource.
RESOURCE_REASON = 'Worker went down during resource %s'
STACK_REASON = ('heat-engine %(engine)s went down during stack %(action)s '
                'while it checked %(resources)s; retry with "openstack '
                'stack update --existing", or delete the stack again')


def dead_locks(resources, alive):
    """The resources locked by engines that are not `alive`, sorted by id,
    if no live engine holds a lock among `resources`; else []."""
    locked = [r for r in resources if r.engine_id]
    engines = sorted({r.engine_id for r in locked})
    if not engines or any(alive(engine) for engine in engines):
        return []
    return sorted(locked, key=lambda r: r.id)


class Sightings(object):
    """Which stacks looked stranded in the last round, so that a stack is
    only acted on when two rounds in a row saw it so."""

    def __init__(self):
        self._last, self._this = {}, {}

    def confirmed(self, stack_id, traversal, resource_ids):
        """Record a sighting; whether the last round saw the same."""
        seen = (traversal, tuple(resource_ids))
        self._this[stack_id] = seen
        return self._last.get(stack_id) == seen

    def next_round(self):
        self._last, self._this = self._this, {}


class Reaper(object):
    """One engine worker's rounds over the IN_PROGRESS convergence stacks."""

    def __init__(self, engine_id, alive=None):
        self.engine_id = engine_id
        self.sightings = Sightings()
        self._alive = alive or service_utils.engine_alive
        # Stacks whose locks this worker stole: stack id -> (traversal,
        # reason), until marking them FAILED succeeds.
        self._unmarked = {}

    def reap(self):
        """Mark FAILED every convergence stack a dead engine stranded
        (seen twice)."""
        cnxt = context.get_admin_context()
        alive = functools.lru_cache()(functools.partial(self._is_alive,
                                                        cnxt))
        try:
            stacks = stack_object.Stack.get_all(
                cnxt, filters={'status': parser.Stack.IN_PROGRESS,
                               'convergence': True}, show_nested=True)
            for stack in stacks:
                self._guarded(self._reap_stack, cnxt, stack, alive)
            for stack_id in list(self._unmarked):
                self._guarded(self._mark_failed, cnxt, stack_id)
        finally:
            self.sightings.next_round()

    def _is_alive(self, cnxt, engine_id):
        return engine_id == self.engine_id or self._alive(cnxt, engine_id)

    def _guarded(self, step, cnxt, stack, *args):
        try:
            step(cnxt, stack, *args)
        except Exception:
            LOG.exception('Could not end stack %s of a dead engine',
                          getattr(stack, 'id', stack))

    def _reap_stack(self, cnxt, stack, alive):
        resources = resource_objects.Resource.get_all_by_stack(cnxt,
                                                               stack.id)
        dead = dead_locks(list(resources.values()), alive)
        if not dead or not self.sightings.confirmed(
                stack.id, stack.current_traversal, [r.id for r in dead]):
            return
        # Whoever steals the first lock marks the stack; the others skip.
        if not _steal(cnxt, dead[0]):
            return
        for rsrc in dead[1:]:
            _steal(cnxt, rsrc)
        self._unmarked[stack.id] = (stack.current_traversal, STACK_REASON % {
            'engine': ', '.join(sorted({r.engine_id for r in dead})),
            'action': stack.action,
            'resources': ', '.join(r.name for r in dead)})

    def _mark_failed(self, cnxt, stack_id):
        traversal, reason = self._unmarked[stack_id]
        stack = stack_object.Stack.get_by_id(cnxt, stack_id)
        if (stack is not None and stack.status == parser.Stack.IN_PROGRESS
                and stack.current_traversal == traversal):
            # A rollback goes on with the user's stored (trust) context,
            # which reaches Kubernetes; marking alone needs none.
            stk = parser.Stack.load(cnxt, stack=stack,
                                    use_stored_context=_rolls_back(stack))
            LOG.warning('Stack %s stranded: %s', stk.id, reason)
            stk.mark_failed(reason)
        del self._unmarked[stack_id]


def probe():
    """None when Heat's own recovery skips convergence stacks and the
    engine has a start to hook the check into."""
    return patching.expect(
        service.EngineService, 'reset_stack_status',
        has=("'convergence': False",)) or patching.expect(
        service.EngineService, 'start', has=('manage_thread_grp',),
        lacks=('stranded',))


def checking_stranded(start):
    """EngineService.start, then the stranded-stack timer."""
    @functools.wraps(start)
    def started(self):
        start(self)
        interval = cfg.CONF[options.GROUP].stranded_check_interval
        if interval > 0:
            # A round that fails (the database restarting) is logged and
            # the timer goes on.
            self.manage_thread_grp.add_timer_args(
                interval, Reaper(self.engine_id).reap,
                initial_delay=interval, stop_on_exception=False)
    return started


# EngineService.start, then the stranded-stack timer; idempotent.
# What apply() replaces (tests check it is done once and undone).
TARGETS = ((service.EngineService, 'start'),)
apply, restore = patching.wrapping(*TARGETS[0], checking_stranded)


# --- helpers ----------------------------------------------------------------

def _rolls_back(stack):
    """Whether Stack.mark_failed will start a rollback of `stack`."""
    return not stack.disable_rollback and stack.action in (
        parser.Stack.CREATE, parser.Stack.ADOPT, parser.Stack.UPDATE,
        parser.Stack.RESTORE)


def _steal(cnxt, rsrc):
    """Unlock a dead engine's resource and mark it FAILED, unless another
    engine got there first."""
    return resource_objects.Resource.select_and_update_by_id(
        cnxt, rsrc.id,
        {'engine_id': None, 'status': 'FAILED',
         'status_reason': RESOURCE_REASON % rsrc.action},
        expected_engine_id=rsrc.engine_id, atomic_key=rsrc.atomic_key)
