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

"""heat_k8s.enginefixes: each fix asked for, applied or skipped, logged."""

from tests.unit import heat_harness  # noqa: F401 (first: sets up Heat)

# isort: split

import importlib
import logging
import os
import tempfile
import types
import unittest

import fixtures
from oslo_config import cfg
import testtools

from heat_k8s.enginefixes import fixlist
from heat_k8s.enginefixes import options
from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import release
from heat_k8s.enginefixes import startup

INSTALLED = release.installed()


def switched(name, on):
    """A config whose [heat_k8s_engine_fixes] <name> is `on`."""
    conf = cfg.ConfigOpts()
    conf.register_opts(options.engine_fix_opts, group=options.GROUP)
    conf([])
    conf.set_override(name, on, group=options.GROUP)
    return conf


class RefusalTest(unittest.TestCase):

    def test_a_fix_in_range_and_switched_on_is_probed(self):
        self.assertIsNone(startup.refusal('threadfix', (25, 27), '26.0.2',
                                          True))

    def test_switched_off_names_the_option(self):
        self.assertEqual(
            'switched off ([heat_k8s_engine_fixes] strandfix = false)',
            startup.refusal('strandfix', (24, 27), '27.0.1', False))

    def test_an_older_heat_names_the_release_and_the_range(self):
        self.assertEqual(
            'Heat 24.1.2 (2025.1) is not a release it applies to (Heat 25 '
            'to 27)', startup.refusal('threadfix', (25, 27), '24.1.2', True))

    def test_a_newer_heat_than_checked_is_left_alone(self):
        self.assertEqual(
            'Heat 28.0.0 is not a release it applies to (Heat 24 to 27)',
            startup.refusal('purgefix', (24, 27), '28.0.0', True))

    def test_an_unknown_release_is_left_alone(self):
        self.assertIn('unknown', startup.refusal('purgefix', (24, 27), None,
                                                 True))


class InstalledHeatTest(testtools.TestCase):
    """The fixes against the Heat this environment installed (tox runs
    this on every supported series)."""

    def setUp(self):
        super().setUp()
        self.addCleanup(startup.restore_all)
        startup.restore_all()  # Heat as released, whatever ran before
        self.log = self.useFixture(fixtures.FakeLogger(
            name=startup.__name__, level=logging.INFO))

    def test_this_heat_is_supported(self):
        self.assertTrue(release.supported(INSTALLED), INSTALLED)

    def test_every_fix_for_this_release_finds_the_code_it_replaces(self):
        for name in fixlist.FIXES:
            fix = fixlist.load(name)
            first, last = fix.RELEASES
            if name == 'astfix' or not (
                    first <= release.major(INSTALLED) <= last):
                continue
            self.assertIsNone(fix.probe(), (
                'Heat %s changed what %s replaces; review '
                'heat_k8s/enginefixes/%s.py' % (INSTALLED, name, name)))

    def test_start_applies_the_fixes_and_logs_one_line_of_outcomes(self):
        outcomes = startup.apply_all()
        applied = [o.name for o in outcomes if o.applied]
        major = release.major(INSTALLED)
        expected = [name for name in fixlist.FIXES
                    if fixlist.load(name).RELEASES[0] <= major
                    and name not in ('strandfix', 'astfix')]
        self.assertEqual(expected, [n for n in applied if n != 'astfix'])
        skipped = {o.name: o.reason for o in outcomes if not o.applied}
        self.assertEqual('switched off ([heat_k8s_engine_fixes] strandfix '
                         '= false)', skipped['strandfix'])
        self.assertIn('heat-k8s engine fixes on %s: applied %s; skipped' % (
            release.describe(INSTALLED), ', '.join(applied)), self.log.output)
        self.assertIn('heat-k8s engine fix strandfix not applied: switched '
                      'off', self.log.output)

    def test_a_fix_switched_on_by_the_operator_is_applied(self):
        outcome = startup.apply_fix('strandfix', INSTALLED,
                                    switched('strandfix', True))
        self.assertEqual(('strandfix', True, None), tuple(outcome))

    def test_a_fix_switched_off_is_not_applied(self):
        outcome = startup.apply_fix('purgefix', INSTALLED,
                                    switched('purgefix', False))
        self.assertFalse(outcome.applied)
        from heat.engine import stack
        self.assertFalse(getattr(stack.Stack.purge_db, 'heat_k8s_patched',
                                 False))

    def test_each_fix_applies_once_and_restores_heats_code(self):
        for name in fixlist.FIXES:
            fix = fixlist.load(name)
            if fix.probe() is not None:
                continue   # not this release's: nothing to apply
            with self.subTest(fix=name):
                heats = _targets(fix)
                fix.apply()
                patched = _targets(fix)
                self.assertNotEqual(heats, patched)
                fix.apply()
                self.assertEqual(patched, _targets(fix))
                fix.restore()
                self.assertEqual(heats, _targets(fix))

    def test_restore_gives_heats_own_code_back(self):
        from heat.engine import stack
        heats = stack.Stack.purge_db
        startup.apply_all()
        self.assertIsNot(heats, stack.Stack.purge_db)
        startup.restore_all()
        self.assertIs(heats, stack.Stack.purge_db)

    def test_the_plugin_shim_applies_them_when_heat_loads_it(self):
        shim = importlib.import_module('heat_k8s.plugin.heat_k8s_plugin')
        startup.restore_all()
        importlib.reload(shim)  # as heat-engine's plugin loader runs it
        self.assertIn('heat-k8s engine fixes on', self.log.output)
        from heat.engine import stack
        self.assertTrue(getattr(stack.Stack.purge_db, 'heat_k8s_patched',
                                False))


class BrokenFixTest(testtools.TestCase):
    """A fix whose probe or apply raises: logged, and the engine goes on.
    The fixes are hand-made stand-ins (a real one never raises here)."""

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name=startup.__name__, level=logging.INFO))

    def _with_fix(self, **fix):
        module = types.SimpleNamespace(RELEASES=(0, 999), **fix)
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.enginefixes.fixlist.load', lambda name: module))

    def test_a_probe_that_raises_skips_the_fix(self):
        def probe():
            raise AttributeError('no attribute ThreadGroup')
        self._with_fix(probe=probe, apply=None)
        outcome = startup.apply_fix('threadfix', '24.1.2')
        self.assertEqual(('threadfix', False, 'its probe failed: '
                          'AttributeError: no attribute ThreadGroup'),
                         tuple(outcome))
        self.assertIn('heat-k8s engine fix threadfix not applied: its probe '
                      'failed', self.log.output)

    def test_a_probe_that_finds_other_code_skips_the_fix(self):
        self._with_fix(probe=lambda: 'Stack.purge_db already keeps it',
                       apply=None)
        self.assertEqual('Stack.purge_db already keeps it',
                         startup.apply_fix('purgefix', '27.0.1').reason)

    def test_an_apply_that_raises_is_logged(self):
        def apply():
            raise RuntimeError('boom')
        self._with_fix(probe=lambda: None, apply=apply)
        outcome = startup.apply_fix('purgefix', '27.0.1')
        self.assertEqual('applying it failed: RuntimeError: boom',
                         outcome.reason)

    def test_a_heat_without_the_patched_module_skips_the_fix(self):
        def load(name):
            raise ImportError('No module named heat.engine.check_resource')
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.enginefixes.fixlist.load', load))
        self.assertEqual('Heat lacks what it patches: No module named '
                         'heat.engine.check_resource',
                         startup.apply_fix('preemptfix', '27.0.1').reason)

    def test_a_heat_outside_the_range_is_named_at_start(self):
        self._with_fix(probe=lambda: 'not this Heat', apply=None)
        startup.apply_all(version='23.0.0', fixes=('purgefix',))
        self.assertIn('heat-k8s supports Heat 24 (2025.1) to 27 (2026.2); '
                      'this is Heat 23.0.0', self.log.output)


class DeprecatedOptionsTest(unittest.TestCase):

    def test_the_old_kubernetes_group_names_still_set_the_pacing(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, 'heat.conf')
            with open(path, 'w') as f:
                f.write('[kubernetes]\nleaf_trigger_interval = 0\n'
                        'stranded_check_interval = 7\n')
            conf = cfg.ConfigOpts()
            conf.register_opts(options.engine_fix_opts, group=options.GROUP)
            conf(['--config-file', path])
        self.assertEqual(0, conf[options.GROUP].leaf_trigger_interval)
        self.assertEqual(7, conf[options.GROUP].stranded_check_interval)

    def test_only_strandfix_is_off_by_default(self):
        conf = switched('astfix', True)
        self.assertEqual(['strandfix'], [
            name for name in fixlist.FIXES if not options.enabled(name,
                                                                   conf)])


def _targets(fix):
    """What fix replaces, as it stands (identities, not equality; as
    stored, since a classmethod binds anew on every access)."""
    return [id(patching.held(owner, name) if owner is not None else None)
            for owner, name in fix.TARGETS]
