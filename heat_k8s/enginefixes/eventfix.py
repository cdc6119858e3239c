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

"""A stack's events no longer fail its resources under load (Heat 25-27).

Every event a stack or resource stores is also handed to the stack's
event sinks by ``Stack.dispatch_event``, in a new thread of the stack's
thread group. From Heat 25 heat-engine runs on threads, and its
``ThreadGroup.add_thread`` raises ``RuntimeError: Maximum number of
threads reached`` once a stack's group is full in one engine process
(Heat never took finished threads out of it; threadfix now does). When
many resources of one stack change state at once (400 independent objects
deleted together) the event over the limit raises inside
``Resource.state_set``, and the resource, then the stack, fails with that
message (seen with ``leaf_trigger_interval = 0``).

apply() makes ``dispatch_event`` start no thread when the stack has no
event sinks (the thread would do nothing; most stacks have none), and
send to the sinks in the caller's thread when the group is full rather
than fail. As Heat, it reads the sinks only of a stack with a thread
group: the nested stacks a delete's cancel loads have no environment.
The upstream change is the same test in ``dispatch_event``
(patches/eventfix.patch). Heat 24's group (oslo.service's, on eventlet)
waited for room rather than raise.
"""

import functools

from heat.engine import service
from heat.engine import stack as stack_mod
from oslo_log import log as logging

from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import threadfix

LOG = logging.getLogger(__name__)
RELEASES = (25, 27)
# heat.engine.service.ThreadGroup.add_thread's error for a full group.
FULL = 'Maximum number of threads reached'


def send(context, sinks, event):
    """What Heat's dispatch thread does: each sink consumes the event."""
    try:
        for sink in sinks:
            sink.consume(context, event)
    except Exception as exc:
        LOG.debug('Got error sending events %s', exc)


def without_idle_threads(dispatch):
    """dispatch_event, starting a thread only when there is work for it."""
    @functools.wraps(dispatch)
    def dispatch_event(self, ev):
        if getattr(self, 'thread_group_mgr', None) is None:
            # Heat sends nothing, and reads no environment: a stack that
            # delete_stack's cancel loads (a nested one) has none.
            return dispatch(self, ev)
        sinks = self.env.get_event_sinks()
        if not sinks:
            return None
        try:
            return dispatch(self, ev)
        except RuntimeError as exc:
            if FULL not in str(exc):
                raise
            LOG.debug('%s: sending event in this thread (%s)', self.name,
                      exc)
            send(self.context, sinks, ev.as_dict())
            return None
    return dispatch_event


def probe():
    """None when dispatch_event starts a thread per event, sinks or
    not, in a group that raises when full."""
    return patching.expect(getattr(service, 'ThreadGroup', None),
                           'add_thread', has=(FULL,),
                           where=threadfix.ADD_THREAD) or patching.expect(
        stack_mod.Stack, 'dispatch_event',
        has=('thread_group_mgr.start',), lacks=('if not sinks',))


# Heat's Stack.dispatch_event, wrapped.
# What apply() replaces (tests check it is done once and undone).
TARGETS = ((stack_mod.Stack, 'dispatch_event'),)
apply, restore = patching.wrapping(*TARGETS[0], without_idle_threads)
