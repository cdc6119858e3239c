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

"""Every unit test leaves Heat's code as it found it.

A test that applies an engine fix and does not restore it fails in its
own teardown, naming what it left patched; a later test would otherwise
fail in its place, in some orders only (pytest-randomly).
"""

import pytest

from heat_k8s.enginefixes import fixlist
from heat_k8s.enginefixes import startup

# heatclient's fixes too: a test that leaves one applied changes its parse.
ALL = fixlist.FIXES + fixlist.CLIENT_FIXES


def _heats_code():
    """What each fix's TARGETS hold now, by (fix, owner, attribute)."""
    held = {}
    for name in ALL:
        try:
            fix = fixlist.load(name)
        except ImportError:
            continue  # this Heat lacks what the fix replaces
        for owner, attr in fix.TARGETS:
            if owner is not None:
                held[(name, getattr(owner, '__name__', owner), attr)] = (
                    vars(owner).get(attr))
    return held


@pytest.fixture(autouse=True)
def heats_code_given_back():
    before = _heats_code()
    yield
    after = _heats_code()
    left = sorted('%s (%s.%s)' % key for key in before
                  if after[key] is not before[key])
    if left:
        startup.restore_all(fixes=ALL)
        pytest.fail('the test left engine fixes applied: %s' % ', '.join(
            left))
