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

    def fake_kubectl(self, status=0, existing=()):
        """kubectl in PATH, against a cluster with the namespaces
        `existing`: logs each call's argv as a line, and what an `apply -f
        -` reads into a file named after that line's number."""
        script = os.path.join(self.bin, 'kubectl')
        log = shlex.quote(self.argv_log + '.kubectl')
        with open(script, 'w') as f:
            f.write('#!/bin/bash\necho "$*" >> %s\n'
                    'if [[ $* == *" apply -f -" ]]; then\n'
                    '    cat > %s.$(wc -l < %s)\nfi\n'
                    'if [[ $* == *" get namespace "* ]]; then\n'
                    '    [[ " %s " == *" ${*: -1} "* ]]; exit\nfi\n'
                    'exit %d\n' % (log, shlex.quote(self.argv_log +
                                                     '.applied'),
                                    log, ' '.join(existing), status))
        os.chmod(script, 0o700)

    def fake_openstack(self):
        """openstack in PATH: Keystone's projects, as devstack makes them."""
        script = os.path.join(self.bin, 'openstack')
        with open(script, 'w') as f:
            f.write('#!/bin/bash\necho "$*" > %s\n'
                    'printf "%%s\\n" "p-admin admin" "p-service service" '
                    '"p-demo demo"\n' % shlex.quote(self.argv_log + '.os'))
        os.chmod(script, 0o700)

    def kubectl_calls(self):
        with open(self.argv_log + '.kubectl') as f:
            return f.read().splitlines()

    def applied(self, call):
        """What the `call`th kubectl call (from 1) applied."""
        with open('%s.applied.%d' % (self.argv_log, call)) as f:
            return f.read()

    def post_config(self, **env):
        self.fake_configure(real=False)
        self.fake_openstack()
        return self.stack(
            'post-config', HEAT_K8S_API_URL='https://k8s:6443',
            HEAT_K8S_DIR=REPO,
            PATH=self.bin + os.pathsep + os.environ['PATH'], **env)

    def test_post_config_applies_the_project_isolation(self):
        self.fake_kubectl()
        out = self.post_config(HEAT_K8S_ADMIN_KUBECONFIG='/etc/k8s/admin')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual('--kubeconfig /etc/k8s/admin apply -f -',
                         self.kubectl_calls()[0])
        # What the installed package ships, as it ships it.
        self.assertEqual(manifests.text('isolation'), self.applied(1))

    def test_each_projects_namespace_admits_its_own_pods(self):
        # A baseline has no "same namespace" peer: the namespaces of the
        # projects devstack made get the own-pods policy, made bare when
        # the syncer has not made them yet; the services' project none.
        self.fake_kubectl(existing=['p-admin'])
        out = self.post_config(HEAT_K8S_ADMIN_KUBECONFIG='/etc/k8s/admin')
        self.assertEqual(0, out.returncode, out.stderr)
        with open(self.argv_log + '.os') as f:
            self.assertEqual('--os-cloud devstack-admin project list -f '
                             'value -c ID -c Name\n', f.read())
        admin = '--kubeconfig /etc/k8s/admin '
        self.assertEqual([admin + call for call in (
            'apply -f -',
            'get namespace p-admin', '-n p-admin apply -f -',
            'get namespace p-demo', 'create namespace p-demo',
            '-n p-demo apply -f -')], self.kubectl_calls())
        self.assertEqual(manifests.text('own-pods'),
                         self.applied(3))
        self.assertEqual(self.applied(3), self.applied(6))
        with open(self.calls) as f:   # and says what a later project needs
            self.assertIn('manifests own-pods | kubectl -n <namespace> '
                          'apply -f -', f.read())

    def test_namespaces_not_named_by_project_get_no_guess(self):
        self.fake_kubectl()
        out = self.post_config(HEAT_K8S_ADMIN_KUBECONFIG='/etc/k8s/admin',
                               HEAT_K8S_DEFAULT_NAMESPACE='heat-%(project)s')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual(['--kubeconfig /etc/k8s/admin apply -f -'],
                         self.kubectl_calls())
        with open(self.calls) as f:
            self.assertIn('is not the project ID', f.read())

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
            warned = f.read()
        self.assertIn('heat-k8s-configure manifests isolation', warned)
        self.assertIn('NetworkPolicy admitting its own pods', warned)

    def test_isolation_off_applies_nothing(self):
        self.fake_kubectl()
        out = self.post_config(HEAT_K8S_ADMIN_KUBECONFIG='/etc/k8s/admin',
                               HEAT_K8S_PROJECT_ISOLATION='False')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertFalse(os.path.exists(self.argv_log + '.kubectl'))
