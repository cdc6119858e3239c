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

"""A stack's finished threads leave its thread group (Heat 25 to 27).

From Heat 25, heat-engine runs on threads, and
``heat.engine.service.ThreadGroup.add_thread`` replaces oslo.service's,
which removes a thread from its group when the thread
ends, and leaves that out. Every thread a stack ever started in an engine
worker (its ``converge_stack``, event dispatches, a delete's
``stop_workers``) then stays in the stack's group with its arguments, the
whole loaded stack among them, until the group is stopped, which a
convergence stack's delete never does. A worker that created and deleted
a stack of 800 resources kept two copies of it (found with
``gc.get_referrers``: Stack <- bound method <- ThreadWithCallback <- the
group's list). The finished threads also count towards the group's limit,
so a busy stack's next thread raises ``Maximum number of threads
reached`` (see eventfix).

apply() links each new thread to its group's own ``thread_done``, as
oslo.service's ``add_thread`` does. The upstream change is that link in
Heat's ``add_thread`` (patches/threadfix.patch). Heat 24 used
oslo.service's own group, which has it.
"""

import functools

from heat.engine import service

from heat_k8s.enginefixes import patching

RELEASES = (25, 27)
# What it wraps; Heat 24 has no ThreadGroup of its own.
ADD_THREAD = 'heat.engine.service.ThreadGroup.add_thread'


def leaving_when_done(add_thread):
    """add_thread, whose thread leaves the group when it ends."""
    @functools.wraps(add_thread)
    def add(self, func, *args, **kwargs):
        thread = add_thread(self, func, *args, **kwargs)
        # link() calls back at once if the thread has already ended.
        thread.link(self.thread_done)
        return thread
    return add


def probe():
    """None when Heat's own ThreadGroup.add_thread keeps finished
    threads."""
    return patching.expect(getattr(service, 'ThreadGroup', None),
                           'add_thread', has=('threads.append',),
                           lacks=('thread_done',), where=ADD_THREAD)


# What apply() replaces (tests check it is done once and undone).
TARGETS = ((getattr(service, 'ThreadGroup', None), 'add_thread'),)


def apply():
    """Make Heat's ThreadGroup drop finished threads; idempotent."""
    patching.wrap_once(service.ThreadGroup, 'add_thread', leaving_when_done)


def restore():
    if hasattr(service, 'ThreadGroup'):
        patching.restore(service.ThreadGroup, 'add_thread')
