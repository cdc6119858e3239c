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

"""Heat's one-second pause between a traversal's leaves, as an option.

When a convergence traversal starts, Heat's
``Stack._converge_create_or_update`` sends one ``check_resource`` message
per leaf of the dependency graph and sleeps 1 s after each
(``time.sleep(1)`` from Heat 25, ``eventlet.sleep(1)`` in Heat 24, under
``scheduler.ENABLE_SLEEP``). Upstream added the pause in 2016 (bug
1566845) so that a big stack's first messages reach the engine workers
spread out rather than all at once. It makes a stack of N independent
resources take at least N seconds to start, whatever the engines could
take: 400 independent Kubernetes objects took 412 s.

``[heat_k8s_engine_fixes] leaf_trigger_interval`` sets that pause (default
1, Heat's own). apply() gives ``heat.engine.stack`` a clock module whose
one-second sleep is the option's value; every other use of that module
there is unchanged. The upstream-ready change is a Heat option read at
that line (patches/leafpace.patch).
"""

import re

from heat.engine import stack as stack_mod
from oslo_config import cfg

from heat_k8s.enginefixes import options
from heat_k8s.enginefixes import patching

RELEASES = (24, 27)
# The one pause Heat's stack module takes with this argument.
HEAT_PAUSE = 1
# Heat's leaf pause: <module>.sleep(1), the module named by the group.
PAUSE = re.compile(r'\b(time|eventlet)\.sleep\(%d\)' % HEAT_PAUSE)


class PacedClock(object):
    """A clock module, with Heat's leaf pause read from the options."""

    def __init__(self, clock, interval=None):
        self.clock = clock
        self._interval = interval or _configured_interval

    def sleep(self, seconds):
        if seconds == HEAT_PAUSE:
            seconds = self._interval()
        self.clock.sleep(seconds)

    def __getattr__(self, name):
        return getattr(self.clock, name)


def paused_module():
    """The name of the module whose sleep(1) is Heat's leaf pause, or
    None."""
    found = PAUSE.search(patching.source(stack_mod.Stack,
                                         '_converge_create_or_update'))
    return found.group(1) if found else None


def probe():
    """None when Heat pauses 1 s per leaf with a module it imports."""
    name = paused_module()
    if name is None:
        return ('Stack._converge_create_or_update no longer pauses %d s '
                'per leaf' % HEAT_PAUSE)
    if not hasattr(stack_mod, name):
        return 'heat.engine.stack has no module %s' % name
    return None


# What apply() replaces: the clock module heat.engine.stack pauses with.
TARGETS = ((stack_mod, 'time'), (stack_mod, 'eventlet'))


def apply():
    """Pace heat.engine.stack's leaf triggers by the option; idempotent."""
    name = paused_module()
    clock = getattr(stack_mod, name)
    if not isinstance(clock, PacedClock):
        setattr(stack_mod, name, PacedClock(clock))


def restore():
    for name in ('time', 'eventlet'):
        clock = getattr(stack_mod, name, None)
        if isinstance(clock, PacedClock):
            setattr(stack_mod, name, clock.clock)


def _configured_interval():
    return cfg.CONF[options.GROUP].leaf_trigger_interval
