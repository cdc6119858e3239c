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
client plugin it cannot load, no Python warning; and it refuses a template
that writes a key twice before it asks Heat (clientdupkeyfix's hook).

It runs the clients of the virtualenvs that tools/versions.env pins
(built by ``tools/localcloud build`` or ``up``), the client's (first on
``localcloud env``'s PATH) and the cloud's, offline: ``help`` loads every
command plugin, as any command does, without asking a cloud.
"""

import os
import subprocess
import tempfile
import unittest

from tools.lc.builds import venv


def _client_env():
    # No cloud, and Python's default warning filters, as in a fresh shell.
    return {k: v for k, v in os.environ.items()
            if not k.startswith('OS_') and k not in (
                'PYTHONWARNINGS', 'PYTHONDEVMODE', 'PYTHONPATH')}


class ConsoleTest(unittest.TestCase):

    def _openstack(self, which):
        venv_dir = venv.path(which=which)
        # tox -e functional runs `tools/localcloud build` first.
        self.assertTrue(
            os.path.exists(os.path.join(venv_dir, venv.COMPLETE)),
            'no %s virtualenv for the current pins (%s); '
            '`tools/localcloud build` creates it' % (which, venv_dir))
        return os.path.join(venv.bin_dir(venv_dir), 'openstack')

    def _help(self, which, *command):
        """`openstack help COMMAND` of that virtualenv's client, offline."""
        return subprocess.run(
            [self._openstack(which), 'help'] + list(command),
            env=_client_env(), stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, timeout=120)

    def _assert_help_alone(self, which):
        out = self._help(which, 'stack', 'list')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn('usage: openstack stack list', out.stdout)
        self.assertEqual('', out.stderr)

    def test_help_of_a_heat_command_prints_nothing_else(self):
        # The client's, first on `localcloud env`'s PATH.
        self._assert_help_alone(venv.CLIENT)

    def test_the_cloud_virtualenvs_client_prints_nothing_else(self):
        # The one beside Heat, with every service client Heat installs.
        self._assert_help_alone(venv.CLOUD)

    def test_the_client_has_heat_k8s_export(self):
        out = self._help(venv.CLIENT, 'stack', 'kubernetes', 'export')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn('--include-secret-values', out.stdout)

    def test_a_key_written_twice_is_refused_before_heat_is_asked(self):
        # Hand-made; a token and an endpoint nothing listens on: the
        # parse fails first, and the cloud is never asked.
        with tempfile.NamedTemporaryFile('w', suffix='.yaml') as tpl:
            tpl.write('heat_template_version: 2021-04-16\nresources:\n'
                      '  a: {type: OS::Heat::None}\n'
                      '  a: {type: OS::Heat::None}\n')
            tpl.flush()
            out = subprocess.run(
                [self._openstack(venv.CLIENT), '--os-auth-type',
                 'admin_token', '--os-endpoint', 'http://127.0.0.1:9',
                 '--os-token', 'unused', 'orchestration', 'template',
                 'validate', '-t', tpl.name],
                env=_client_env(), stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, timeout=120)
        self.assertEqual(1, out.returncode, out.stderr)
        self.assertIn("Duplicate key 'a' in one mapping (lines 3 and 4): "
                      'Heat would keep only the last value', out.stderr)
