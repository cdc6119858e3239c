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

"""heat-engine's start: each fix applied, or skipped with the reason.

Nothing here may stop heat-engine: Heat's plugin loader lets only an
ImportError through, and any other exception would end the engine before
it serves. A fix that cannot be applied is logged and left out.
"""

import collections

from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s.enginefixes import fixlist
from heat_k8s.enginefixes import options
from heat_k8s.enginefixes import release

LOG = logging.getLogger(__name__)

Outcome = collections.namedtuple('Outcome', 'name applied reason')


def refusal(name, releases, version, switched_on):
    """Why fix `name` is not for this engine before probing, or None."""
    if not switched_on:
        return 'switched off ([%s] %s = false)' % (options.GROUP, name)
    first, last = releases
    found = release.major(version)
    if found is None:
        return 'the installed Heat release is unknown (%s)' % version
    if not first <= found <= last:
        return '%s is not a release it applies to (Heat %d to %d)' % (
            release.describe(version), first, last)
    return None


def apply_fix(name, version, conf=cfg.CONF):
    """Probe and apply one fix; its Outcome, logged when not applied."""
    reason, level = _why_not(name, version, conf)
    if reason is None:
        try:
            fixlist.load(name).apply()
        except Exception as exc:
            reason, level = _failed('applying it', exc), 'warning'
    if reason is not None:
        getattr(LOG, level)('heat-k8s engine fix %s not applied: %s', name,
                            reason)
    return Outcome(name, reason is None, reason)


def apply_all(conf=cfg.CONF, version=None, fixes=fixlist.FIXES):
    """Every fix this Heat needs and the operator allows; the Outcomes,
    summed up in one log line."""
    version = version or release.installed()
    if not release.supported(version):
        LOG.warning('heat-k8s supports Heat %s; this is %s: its resource '
                    'types load, and engine fixes checked only against '
                    'other releases are skipped',
                    release.supported_range(), release.describe(version))
    outcomes = [apply_fix(name, version, conf) for name in fixes]
    LOG.info('heat-k8s engine fixes on %s: applied %s; skipped %s',
             release.describe(version),
             ', '.join(o.name for o in outcomes if o.applied) or 'none',
             ', '.join(o.name for o in outcomes if not o.applied) or 'none')
    return outcomes


def restore_all(fixes=fixlist.FIXES):
    """Undo every fix (for tests: Heat as it was)."""
    for name in fixes:
        try:
            fix = fixlist.load(name)
        except Exception as exc:
            LOG.debug('%s never loaded, so never applied: %s', name, exc)
            continue
        fix.restore()


def _why_not(name, version, conf):
    """(why fix `name` is not applied, log level); (None, _) to apply."""
    try:
        fix = fixlist.load(name)
    except Exception as exc:
        # An ImportError would skip the whole plugin, anything else stop
        # heat-engine: a Heat without what the fix imports keeps both.
        return 'Heat lacks what it patches: %s' % exc, 'warning'
    reason = refusal(name, fix.RELEASES, version, options.enabled(name, conf))
    if reason is not None:
        return reason, 'info'  # expected: nothing to say about Heat
    try:
        return fix.probe(), 'warning'
    except Exception as exc:
        return _failed('its probe', exc), 'warning'


def _failed(what, exc):
    return '%s failed: %s: %s' % (what, type(exc).__name__, exc)
