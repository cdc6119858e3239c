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

When a convergence traversal starts, Heat 27's
``Stack._converge_create_or_update`` sends one ``check_resource`` message
per leaf of the dependency graph and sleeps 1 s after each
(``time.sleep(1)`` under ``scheduler.ENABLE_SLEEP``). Upstream added the
pause in 2016 (bug 1566845) so that a big stack's first messages reach the
engine workers spread out rather than all at once. It makes a stack of N
independent resources take at least N seconds to start, whatever the
engines could take: 400 independent Kubernetes objects took 412 s.

``[kubernetes] leaf_trigger_interval`` sets that pause (default 1, Heat's
own). apply() gives ``heat.engine.stack`` a ``time`` module whose one-second
sleep is the option's value; every other use of ``time`` there is
unchanged. The upstream-ready change is a Heat option read at that line.
tests/unit/test_leafpace.py fails, naming the line, if Heat changes it.
"""

import time as _time

from heat.engine import stack as stack_mod
from oslo_config import cfg

from heat_k8s import config

# The one pause Heat's stack module takes with this argument.
HEAT_PAUSE = 1


class PacedTime(object):
    """The ``time`` module, with Heat's leaf pause read from the options."""

    paced = True

    def __init__(self, clock=_time, interval=None):
        self._clock = clock
        self._interval = interval or _configured_interval

    def sleep(self, seconds):
        if seconds == HEAT_PAUSE:
            seconds = self._interval()
        self._clock.sleep(seconds)

    def __getattr__(self, name):
        return getattr(self._clock, name)


def _configured_interval():
    return cfg.CONF[config.GROUP].leaf_trigger_interval


def apply():
    """Pace heat.engine.stack's leaf triggers by the option; idempotent."""
    if not getattr(stack_mod.time, 'paced', False):
        stack_mod.time = PacedTime()
