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

"""Every shell script in the tree is shellcheck-clean: CI's, the devstack
plugin, the images' entrypoints, the hosts' hook scripts (Python is
ruff's, tox -e pep8)."""

import os
import shutil
import subprocess
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SHEBANGS = (b'#!/bin/sh', b'#!/bin/bash', b'#!/usr/bin/env bash')
# Sourced, not run: no shebang, bash by devstack's rule.
SOURCED = ('devstack/settings', 'devstack/lib/checks')
SKIP_DIRS = {'.git', '.tox', 'doc', '__pycache__'}


def shell_scripts():
    found = list(SOURCED)
    for top, dirs, files in os.walk(REPO):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = os.path.join(top, name)
            with open(path, 'rb') as f:
                if f.readline().startswith(SHEBANGS):
                    found.append(os.path.relpath(path, REPO))
    return found


@unittest.skipUnless(shutil.which('shellcheck'), 'shellcheck not installed')
class ShellcheckTest(unittest.TestCase):

    def test_the_scan_finds_the_known_scripts(self):
        found = shell_scripts()
        for script in ('.ci/run', 'devstack/plugin.sh',
                       'templates/hosts/server-key.sh',
                       'tools/images/postgres/entrypoint'):
            self.assertIn(script, found)

    def test_every_shell_script_is_clean(self):
        out = subprocess.run(['shellcheck', '-x'] + shell_scripts(),
                             cwd=REPO, capture_output=True, text=True)
        self.assertEqual(0, out.returncode, out.stdout + out.stderr)
