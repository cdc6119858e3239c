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

"""The devstack plugin: shellcheck-clean, and its phases run against stubs
of devstack's functions (devstack itself cannot run here)."""

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import unittest

from heat_k8s import manifests

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEVSTACK = os.path.join(REPO, 'devstack')
SCRIPTS = [os.path.join(DEVSTACK, n) for n in ('plugin.sh', 'settings')]

# Just enough of devstack's functions (functions-common, inc/python) to
# source settings and plugin.sh as stack.sh does; each logs its call.
STUBS = r'''
set -e
function _log { echo "$*" >> "$CALLS"; }
function define_plugin { _log define_plugin "$@"; }
function plugin_requires { _log plugin_requires "$@"; }
function enable_service { _log enable_service "$@"; }
function is_service_enabled { return 0; }
function trueorfalse {
    local v=${!2:-$1}
    case $v in
        [Tt]rue|TRUE|1|[Yy]es|YES|[Oo]n) echo True ;;
        *) echo False ;;
    esac
}
function setup_develop { _log setup_develop "$@"; }
function get_python_exec_prefix { echo "$FAKE_BIN"; }
function echo_summary { :; }
function warn { shift; _log warn "$@"; }
function die { shift; echo "die: $*" >&2; exit 1; }
function restart_service { _log restart_service "$@"; }
function systemctl { return 3; }
'''


@unittest.skipUnless(shutil.which('bash'), 'no bash')
class PhasesTest(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.conf = os.path.join(self.dir, 'heat.conf')
        with open(self.conf, 'w') as f:
            f.write('[DEFAULT]\n# written by Heat\'s plugin\n'
                    'debug = True\n')
        self.calls = os.path.join(self.dir, 'calls')
        self.bin = os.path.join(self.dir, 'bin')
        os.mkdir(self.bin)
        self.argv_log = os.path.join(self.dir, 'argv')

    def fake_configure(self, real):
        """heat-k8s-configure in FAKE_BIN: logs its argv, then runs the
        real helper (with --register-endpoint dropped: no Keystone here);
        `manifests` is always the real one (it only prints)."""
        script = os.path.join(self.bin, 'heat-k8s-configure')
        real_helper = 'exec %s -m heat_k8s.cmd.configure "$@"' % (
            shlex.quote(sys.executable))
        lines = ['#!/bin/bash',
                 'if [[ $1 == manifests ]]; then %s; fi' % real_helper,
                 'printf "%%s\\n" "$@" > %s' % shlex.quote(self.argv_log)]
        if real:
            lines.append(real_helper)
        with open(script, 'w') as f:
            f.write('\n'.join(lines) + '\n')
        os.chmod(script, 0o700)

    def stack(self, phase, **env):
        script = STUBS + '\nsource %s\nsource %s stack %s\n' % (
            shlex.quote(SCRIPTS[1]), shlex.quote(SCRIPTS[0]), phase)
        environ = dict(os.environ, CALLS=self.calls, FAKE_BIN=self.bin,
                       DEST='/opt/stack', HEAT_CONF=self.conf,
                       REGION_NAME='RegionTwo',
                       KEYSTONE_SERVICE_URI='http://10.0.0.2/identity',
                       PYTHONPATH=REPO, **env)
        environ.pop('HEAT_BIN_DIR', None)
        return subprocess.run(['bash', '-c', script], env=environ,
                              capture_output=True, text=True, cwd=REPO)

    def argv(self):
        with open(self.argv_log) as f:
            return f.read().splitlines()

    def test_install_develops_the_checkout(self):
        out = self.stack('install')
        self.assertEqual(0, out.returncode, out.stderr)
        with open(self.calls) as f:
            calls = f.read().splitlines()
        self.assertIn('plugin_requires heat-k8s heat', calls)
        self.assertIn('setup_develop /opt/stack/heat-k8s', calls)

    def test_post_config_registers_the_endpoint(self):
        self.fake_configure(real=False)
        out = self.stack('post-config',
                         HEAT_K8S_API_URL='https://k8s:6443',
                         HEAT_K8S_CA_FILE='/etc/k8s/ca.crt')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual(
            ['--config-file', self.conf,
             '--api-paste', '/etc/heat/api-paste.ini',
             '--default-namespace', '%(project_id)s',
             '--ca-file', '/etc/k8s/ca.crt',
             '--catalog', '--register-endpoint', 'https://k8s:6443',
             '--region', 'RegionTwo', '--os-cloud', 'devstack-admin',
             '--kubeconfig', ''], self.argv())
        self.assertIn('--keystone-url http://10.0.0.2/identity/v3',
                      out.stdout)

    def test_post_config_writes_heat_conf(self):
        self.fake_configure(real=True)
        paste = os.path.join(self.dir, 'api-paste.ini')
        with open(paste, 'w') as f:  # hand-made: Heat's shape, one flavor
            f.write('[composite:api]\ndefault = cors context apiv1app\n')
        out = self.stack('post-config',
                         HEAT_K8S_API_URL='https://k8s:6443',
                         HEAT_K8S_REGISTER_ENDPOINT='False',
                         HEAT_K8S_INSECURE='True',
                         HEAT_API_PASTE_FILE=paste)
        self.assertEqual(0, out.returncode, out.stderr)
        with open(paste) as f:
            self.assertIn('default = cors context heat_k8s apiv1app\n',
                          f.read())
        with open(self.conf) as f:
            text = f.read()
        self.assertTrue(text.startswith(
            "[DEFAULT]\n# written by Heat's plugin\ndebug = True\n"
            'plugin_dirs = /usr/lib64/heat,'))
        self.assertIn('heat_k8s/plugin\n', text)
        self.assertIn('[kubernetes]\napi_url = https://k8s:6443\n'
                      'default_namespace = %(project_id)s\n', text)
        self.assertIn('[clients_kubernetes]\ninsecure = true\n', text)

    def test_without_keystone_auth_a_kubeconfig_is_required(self):
        self.fake_configure(real=False)
        out = self.stack('post-config', HEAT_K8S_API_URL='https://k8s:6443',
                         HEAT_K8S_KEYSTONE_AUTH='False')
        self.assertNotEqual(0, out.returncode)
        self.assertIn('HEAT_K8S_KUBECONFIG', out.stderr)

    def test_missing_heat_conf_names_the_plugin_order(self):
        os.unlink(self.conf)
        out = self.stack('post-config', HEAT_K8S_API_URL='https://k8s:6443')
        self.assertNotEqual(0, out.returncode)
        self.assertIn("'enable_plugin heat' before", out.stderr)

    def fake_kubectl(self, status=0):
        """kubectl in PATH: logs its argv and what it reads on stdin."""
        script = os.path.join(self.bin, 'kubectl')
        with open(script, 'w') as f:
            f.write('#!/bin/bash\nprintf "%%s\\n" "$@" > %s\n'
                    'cat > %s\nexit %d\n' % (
                        shlex.quote(self.argv_log + '.kubectl'),
                        shlex.quote(self.argv_log + '.applied'), status))
        os.chmod(script, 0o700)

    def post_config(self, **env):
        self.fake_configure(real=False)
        return self.stack(
            'post-config', HEAT_K8S_API_URL='https://k8s:6443',
            HEAT_K8S_DIR=REPO,
            PATH=self.bin + os.pathsep + os.environ['PATH'], **env)

    def test_post_config_applies_the_project_isolation(self):
        self.fake_kubectl()
        out = self.post_config(HEAT_K8S_ADMIN_KUBECONFIG='/etc/k8s/admin')
        self.assertEqual(0, out.returncode, out.stderr)
        with open(self.argv_log + '.kubectl') as f:
            self.assertEqual(['--kubeconfig', '/etc/k8s/admin', 'apply',
                              '-f', '-'], f.read().splitlines())
        # What the installed package ships, as it ships it.
        with open(self.argv_log + '.applied') as f:
            self.assertEqual(manifests.text('isolation'), f.read())

    def test_a_cluster_refusing_the_isolation_stops_the_stack(self):
        self.fake_kubectl(status=1)
        out = self.post_config(HEAT_K8S_ADMIN_KUBECONFIG='/etc/k8s/admin')
        self.assertNotEqual(0, out.returncode)
        self.assertIn('BaselineAdminNetworkPolicy', out.stderr)

    def test_without_an_admin_kubeconfig_it_says_what_to_apply(self):
        self.fake_kubectl()
        out = self.post_config()
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertFalse(os.path.exists(self.argv_log + '.kubectl'))
        with open(self.calls) as f:
            self.assertIn('heat-k8s-configure manifests isolation', f.read())

    def test_isolation_off_applies_nothing(self):
        self.fake_kubectl()
        out = self.post_config(HEAT_K8S_ADMIN_KUBECONFIG='/etc/k8s/admin',
                               HEAT_K8S_PROJECT_ISOLATION='False')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertFalse(os.path.exists(self.argv_log + '.kubectl'))
