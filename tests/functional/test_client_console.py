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

"""The local cloud's ``openstack`` prints its answer and nothing else: no
client plugin it cannot load, no Python warning.

It runs the client of the cloud virtualenv that tools/versions.env pins
(built by ``tools/localcloud build`` or ``up``), offline: ``help`` loads
every command plugin, as any command does, without asking a cloud.
"""

import os
import subprocess
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(REPO, 'tools'))

from lc.builds import venv  # noqa: E402


def _client_env():
    # No cloud, and Python's default warning filters, as in a fresh shell.
    return {k: v for k, v in os.environ.items()
            if not k.startswith('OS_') and k not in (
                'PYTHONWARNINGS', 'PYTHONDEVMODE', 'PYTHONPATH')}


class ConsoleTest(unittest.TestCase):

    def setUp(self):
        self.venv = venv.path()
        # tox -e functional runs `tools/localcloud build` first.
        self.assertTrue(
            os.path.exists(os.path.join(self.venv, venv.COMPLETE)),
            'no cloud virtualenv for the current pins (%s); '
            '`tools/localcloud build` creates it' % self.venv)

    def test_help_of_a_heat_command_prints_nothing_else(self):
        out = subprocess.run(
            [os.path.join(venv.bin_dir(self.venv), 'openstack'), 'help',
             'stack', 'list'],
            env=_client_env(), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn('usage: openstack stack list', out.stdout)
        self.assertEqual('', out.stderr)
