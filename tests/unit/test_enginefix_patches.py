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

"""The upstream patches of the engine fixes, against the installed Heat.

Each patch must apply to every Heat release its header names (tox runs
this on each supported series), and the runtime fix must leave a Heat
that carries the patch alone: its probe, reading the patched source,
gives a reason not to apply.
"""

from tests.unit import heat_harness  # noqa: F401 (first: sets up Heat)

# isort: split

import glob
import inspect
import os
import re
import shutil

import fixtures
import testtools

from heat_k8s.enginefixes import fixlist
from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import release
from tests.unit.patchtree import HEAT_ROOT
from tests.unit.patchtree import function_source
from tests.unit.patchtree import patched_tree

# Heat's: those of fixlist.CLIENT_FIXES are heatclient's (their tests).
PATCHES = sorted(
    path for path in glob.glob(os.path.join(
        os.path.dirname(patching.__file__), 'patches', '*.patch'))
    if os.path.basename(path)[:-len('.patch')] not in fixlist.CLIENT_FIXES)


def first_release(text):
    """The oldest Heat major release the patch's header says it fits."""
    return int(re.search(r'to Heat\s+(\d+)\.\d+\.\d+ to', text).group(1))


class PatchTest(testtools.TestCase):

    def test_every_fix_but_astfix_has_a_patch(self):
        names = [os.path.basename(p)[:-len('.patch')] for p in PATCHES]
        self.assertEqual(sorted(set(fixlist.FIXES) - {'astfix'}), names)
        # astfix's upstream change is CPython's: the file names it.
        self.assertTrue(os.path.exists(os.path.join(
            os.path.dirname(PATCHES[0]), 'astfix.txt')))

    def _patched(self, patch):
        tree, files, out = patched_tree(patch)
        self.addCleanup(shutil.rmtree, tree)
        self.assertEqual(0, out.returncode, '%s does not apply to Heat %s: '
                         '%s%s' % (os.path.basename(patch),
                                   release.installed(), out.stdout,
                                   out.stderr))
        return tree, files

    def test_each_patch_applies_and_its_fix_leaves_patched_heat_alone(self):
        major = release.major(release.installed())
        for patch in PATCHES:
            name = os.path.basename(patch)[:-len('.patch')]
            with open(patch) as f:
                if major < first_release(f.read()):
                    continue  # the header says it is for newer releases
            tree, files = self._patched(patch)
            fix = fixlist.load(name)
            heats = patching.source

            def patched_source(owner, attr, tree=tree, files=files,
                               heats=heats):
                module = owner if inspect.ismodule(owner) else (
                    inspect.getmodule(owner))
                if module is None:  # what the probe asks for is not there
                    return heats(owner, attr)
                relative = os.path.relpath(module.__file__, HEAT_ROOT)
                if relative not in files:
                    return heats(owner, attr)
                return function_source(os.path.join(tree, relative),
                                       owner, attr)

            with fixtures.MonkeyPatch(
                    'heat_k8s.enginefixes.patching.source', patched_source):
                reason = fix.probe()
            self.assertIsNotNone(reason, '%s would apply on a Heat that '
                                 'carries %s' % (name, patch))
