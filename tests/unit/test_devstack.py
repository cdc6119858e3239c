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

"""The devstack plugin's phases, run against devstack's functions: stubs
that print as devstack's do, and devstack's own functions-common when a
snapshot of openstack/devstack is here (tools/devstack/snapshots.py). The
cluster is a loopback TLS server (curl checks it for real) and a fake
kubectl. tests/devstack runs the plugin in a real devstack."""

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

from heat_k8s import manifests
from tools.devstack import snapshots

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEVSTACK = os.path.join(REPO, 'devstack')
SETTINGS = os.path.join(DEVSTACK, 'settings')
PLUGIN = os.path.join(DEVSTACK, 'plugin.sh')
# Sourced by plugin.sh: where its checks live.
SOURCES = (PLUGIN, os.path.join(DEVSTACK, 'lib', 'checks'))

# What the tests log: calls that would change the host (or that devstack
# defines outside functions-common: inc/python, stack.sh).
COMMON = r'''
set -o errexit  # as stack.sh
function _log { echo "$*" >> "$CALLS"; }
function setup_develop { _log setup_develop "$@"; }
function get_python_exec_prefix { echo "$FAKE_BIN"; }
function echo_summary { :; }
function restart_service { _log restart_service "$@"; }
function systemctl { return 3; }
'''
# Just enough of devstack's functions-common to source settings and
# plugin.sh as stack.sh does, printing as devstack's do: warn its second
# argument only, die all of them (then it exits).
STUBS = r'''
function define_plugin { _log define_plugin "$@"; }
function plugin_requires { _log plugin_requires "$@"; }
function enable_service { _log enable_service "$@"; }
function is_service_enabled {
    local s
    for s in "$@"; do
        [[ ,$ENABLED_SERVICES, == *,$s,* ]] && return 0
    done
    return 1
}
function trueorfalse {
    local v=${!2:-$1}
    case $v in
        [Tt]rue|TRUE|1|[Yy]es|YES|[Oo]n) echo True ;;
        *) echo False ;;
    esac
}
function warn { echo "[WARNING] ${BASH_SOURCE[2]}:$1 $2"; }
function die {
    local line=$1
    shift
    echo "[Call Trace]"
    echo "[ERROR] ${BASH_SOURCE[1]}:$line $*" >&2
    exit 1
}
''' + COMMON
SNAPSHOT_SKIP = snapshots.missing(projects=('devstack',))


def functions_common():
    """devstack's functions-common, as its snapshot's HEAD has it."""
    return subprocess.run(
        ['git', '--git-dir=' + snapshots.find('devstack'), 'show',
         'HEAD:functions-common'], check=True, capture_output=True,
        text=True).stdout


# An API server's anonymous answer over TLS, in a process of its own: in
# the older series' units Heat's eventlet patching makes a server thread
# of this process block the whole run.
TLS_SERVER = """
import http.server, ssl, sys

class Version(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(403)
        self.end_headers()

    def log_message(self, *args):
        pass

server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Version)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_port, flush=True)
server.serve_forever()
"""


def _certificate(directory):
    """A self-signed certificate for 127.0.0.1: (its file, its key's)."""
    cert = os.path.join(directory, 'server.crt')
    key = os.path.join(directory, 'server.key')
    subprocess.run(['openssl', 'req', '-x509', '-newkey', 'rsa:2048',
                    '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
                    '-addext', 'subjectAltName=IP:127.0.0.1',
                    '-keyout', key, '-out', cert],
                   check=True, capture_output=True)
    return cert, key


def _tls_server(directory):
    """A server answering with a certificate of its own: (the server's
    process, its port, the CA file)."""
    cert, key = _certificate(directory)
    server = subprocess.Popen([sys.executable, '-c', TLS_SERVER, cert, key],
                              stdout=subprocess.PIPE, text=True)
    return server, int(server.stdout.readline()), cert


def _closed_port():
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        return s.getsockname()[1]


@unittest.skipUnless(shutil.which('bash') and shutil.which('curl'),
                     'no bash or curl')
class PhasesTest(unittest.TestCase):
    """The phases, under PRELUDE's devstack functions."""

    PRELUDE = STUBS

    @classmethod
    def setUpClass(cls):
        cls.tls_dir = tempfile.mkdtemp()
        cls.server, port, cls.ca_file = _tls_server(cls.tls_dir)
        cls.api_url = 'https://127.0.0.1:%d' % port

    @classmethod
    def tearDownClass(cls):
        cls.server.kill()
        cls.server.wait()
        cls.server.stdout.close()
        shutil.rmtree(cls.tls_dir)

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.dir)
        self.conf = os.path.join(self.dir, 'heat.conf')
        self.heat_conf_text = ('[DEFAULT]\n# written by Heat\'s plugin\n'
                               'debug = True\n')
        with open(self.conf, 'w') as f:
            f.write(self.heat_conf_text)
        self.paste = os.path.join(self.dir, 'api-paste.ini')
        self.paste_text = '[composite:api]\ndefault = cors context apiv1app\n'
        with open(self.paste, 'w') as f:  # hand-made: Heat's shape
            f.write(self.paste_text)
        self.calls = os.path.join(self.dir, 'calls')
        self.bin = os.path.join(self.dir, 'bin')
        os.mkdir(self.bin)
        self.argv_log = os.path.join(self.dir, 'argv')
        self.fake_configure(real=False)
        self.fake_kubectl()
        self.fake_openstack()

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

    def fake_kubectl(self, status=0, discovery='isolation', existing=()):
        """kubectl in PATH, against a cluster with the namespaces
        `existing`. `get --raw` answers the discovery of the policy's API
        group as a cluster with the BaselineAdminNetworkPolicy API
        ('isolation'), the group without it ('group'), none ('none') or no
        access ('denied'), unlogged: it changes nothing. Any other call
        logs its argv as a line, and what an `apply -f -` reads into a
        file named after that line's number."""
        answers = {
            'isolation': 'echo \'{"kind":"APIResourceList","resources":'
                         '[{"name":"baselineadminnetworkpolicies"}]}\'',
            'group': 'echo \'{"kind":"APIResourceList","resources":[]}\'',
            'none': 'echo "Error from server (NotFound): the server could '
                    'not find the requested resource" >&2; exit 1',
            'denied': 'echo "error: You must be logged in to the server '
                      '(Unauthorized)" >&2; exit 1',
        }
        script = os.path.join(self.bin, 'kubectl')
        log = shlex.quote(self.argv_log + '.kubectl')
        with open(script, 'w') as f:
            f.write('#!/bin/bash\n'
                    'if [[ $3 == get && $4 == --raw ]]; then %s; exit; fi\n'
                    'echo "$*" >> %s\n'
                    'if [[ $* == *" apply -f -" ]]; then\n'
                    '    cat > %s.$(wc -l < %s)\nfi\n'
                    'if [[ $* == *" get namespace "* ]]; then\n'
                    '    [[ " %s " == *" ${*: -1} "* ]]; exit\nfi\n'
                    'exit %d\n' % (
                        answers[discovery], log,
                        shlex.quote(self.argv_log + '.applied'), log,
                        ' '.join(existing), status))
        os.chmod(script, 0o700)

    def fake_openstack(self):
        """openstack in PATH: Keystone's projects, as devstack makes them."""
        script = os.path.join(self.bin, 'openstack')
        with open(script, 'w') as f:
            f.write('#!/bin/bash\necho "$*" > %s\n'
                    'printf "%%s\\n" "p-admin admin" "p-service service" '
                    '"p-demo demo"\n' % shlex.quote(self.argv_log + '.os'))
        os.chmod(script, 0o700)

    def stack(self, phase, **env):
        script = '%s\nsource %s\nsource %s stack %s\n' % (
            self.PRELUDE, shlex.quote(SETTINGS), shlex.quote(PLUGIN), phase)
        env.setdefault('HEAT_K8S_API_URL', self.api_url)
        env.setdefault('HEAT_K8S_CA_FILE', self.ca_file)
        environ = dict(os.environ, CALLS=self.calls, FAKE_BIN=self.bin,
                       DEST='/opt/stack', HEAT_CONF=self.conf,
                       HEAT_API_PASTE_FILE=self.paste,
                       REGION_NAME='RegionTwo', HEAT_K8S_DIR=REPO,
                       KEYSTONE_SERVICE_URI='http://10.0.2.2/identity',
                       ENABLED_SERVICES='key,mysql,rabbit,h-eng,h-api,'
                                        'h-api-cfn,heat-k8s',
                       DEVSTACK_PLUGINS=',heat,heat-k8s',
                       PATH=self.bin + os.pathsep + os.environ['PATH'],
                       PYTHONPATH=REPO)
        environ.update(env)
        environ.pop('HEAT_BIN_DIR', None)
        return subprocess.run(['bash', '-c', script], env=environ,
                              capture_output=True, text=True, cwd=REPO)

    def argv(self):
        with open(self.argv_log) as f:
            return f.read().splitlines()

    def logged(self):
        try:
            with open(self.calls) as f:
                return f.read().splitlines()
        except FileNotFoundError:
            return []

    def warnings(self, out):
        return [line for line in out.stdout.splitlines()
                if line.startswith('[WARNING]')]

    def one_warning(self, phase, **env):
        """The one warning of a phase that completes."""
        out = self.stack(phase, **env)
        self.assertEqual(0, out.returncode, out.stderr)
        [warning] = self.warnings(out)
        return warning

    def kubectl_calls(self):
        with open(self.argv_log + '.kubectl') as f:
            return f.read().splitlines()

    def applied(self, call):
        """What the `call`th kubectl call (from 1) applied."""
        with open('%s.applied.%d' % (self.argv_log, call)) as f:
            return f.read()

    def assertStopped(self, out, *names):
        """devstack stopped with one error line, naming each of `names`;
        Heat's files are as Heat wrote them and nothing ran."""
        self.assertNotEqual(0, out.returncode)
        errors = [line for line in out.stderr.splitlines()
                  if line.startswith('[ERROR]')]
        self.assertEqual(1, len(errors), out.stderr)
        for name in names:
            self.assertIn(name, errors[0])
        with open(self.conf) as f, open(self.paste) as g:
            self.assertEqual((self.heat_conf_text, self.paste_text),
                             (f.read(), g.read()))
        self.assertFalse(os.path.exists(self.argv_log), 'configure ran')
        self.assertFalse(os.path.exists(self.argv_log + '.kubectl'),
                         'kubectl applied')
        self.assertNotIn('setup_develop', ' '.join(self.logged()))
        return errors[0]

    # -- the phases ------------------------------------------------------

    def test_pre_install_accepts_good_settings(self):
        out = self.stack('pre-install')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual('', out.stdout)

    def test_install_develops_the_checkout(self):
        out = self.stack('install')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn('setup_develop %s' % REPO, self.logged())

    def test_post_config_registers_the_endpoint(self):
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual(
            ['--config-file', self.conf,
             '--api-paste', self.paste,
             '--default-namespace', '%(project_id)s',
             '--ca-file', self.ca_file,
             '--catalog', '--register-endpoint', self.api_url,
             '--region', 'RegionTwo', '--os-cloud', 'devstack-admin',
             '--kubeconfig', ''], self.argv())
        self.assertIn('--keystone-url http://10.0.2.2/identity/v3',
                      out.stdout)
        # The one warning: what a project added later needs.
        [warning] = self.warnings(out)
        self.assertIn('for a project added later', warning)

    def test_post_config_writes_heat_conf(self):
        self.fake_configure(real=True)
        out = self.stack('post-config', HEAT_K8S_REGISTER_ENDPOINT='False',
                         HEAT_K8S_INSECURE='True', HEAT_K8S_CA_FILE='',
                         HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertEqual(0, out.returncode, out.stderr)
        with open(self.paste) as f:
            self.assertIn('default = cors context heat_k8s apiv1app\n',
                          f.read())
        with open(self.conf) as f:
            text = f.read()
        self.assertTrue(text.startswith(self.heat_conf_text +
                                        'plugin_dirs = /usr/lib64/heat,'))
        self.assertIn('heat_k8s/plugin\n', text)
        self.assertIn('[kubernetes]\napi_url = %s\n'
                      'default_namespace = %%(project_id)s\n' % self.api_url,
                      text)
        self.assertIn('[clients_kubernetes]\ninsecure = true\n', text)

    def test_missing_heat_conf_names_the_plugin_order(self):
        os.unlink(self.conf)
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertNotEqual(0, out.returncode)
        self.assertIn("'enable_plugin heat' before", out.stderr)

    def test_post_config_applies_the_project_isolation(self):
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual('--kubeconfig /k/admin apply -f -',
                         self.kubectl_calls()[0])
        # What the installed package ships, as it ships it.
        self.assertEqual(manifests.text('isolation'), self.applied(1))

    def test_each_projects_namespace_admits_its_own_pods(self):
        # A baseline has no "same namespace" peer: the namespaces of the
        # projects devstack made get the own-pods policy, made bare when
        # the syncer has not made them yet; the services' project none.
        self.fake_kubectl(existing=['p-admin'])
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertEqual(0, out.returncode, out.stderr)
        with open(self.argv_log + '.os') as f:
            self.assertEqual('--os-cloud devstack-admin project list -f '
                             'value -c ID -c Name\n', f.read())
        admin = '--kubeconfig /k/admin '
        self.assertEqual([admin + call for call in (
            'apply -f -',
            'get namespace p-admin', '-n p-admin apply -f -',
            'get namespace p-demo', 'create namespace p-demo',
            '-n p-demo apply -f -')], self.kubectl_calls())
        self.assertEqual(manifests.text('own-pods'), self.applied(3))
        self.assertEqual(self.applied(3), self.applied(6))
        # and says what a later project needs
        [warning] = self.warnings(out)
        self.assertIn('manifests own-pods | kubectl -n <namespace> '
                      'apply -f -', warning)

    def test_namespaces_not_named_by_project_get_no_guess(self):
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin',
                         HEAT_K8S_DEFAULT_NAMESPACE='heat-%(project)s')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertEqual(['--kubeconfig /k/admin apply -f -'],
                         self.kubectl_calls())
        self.assertFalse(os.path.exists(self.argv_log + '.os'))
        [warning] = self.warnings(out)
        self.assertIn('is not the project ID', warning)

    def test_a_cluster_refusing_the_isolation_stops_before_heat_conf(self):
        self.fake_kubectl(status=1)
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertNotEqual(0, out.returncode)
        self.assertIn('BaselineAdminNetworkPolicy', out.stderr)
        self.assertFalse(os.path.exists(self.argv_log), 'configure ran')
        self.assertFalse(os.path.exists(self.argv_log + '.os'),
                         'own-pods applied')

    def test_isolation_off_applies_nothing(self):
        self.fake_kubectl(discovery='none')
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin',
                         HEAT_K8S_PROJECT_ISOLATION='False')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertFalse(os.path.exists(self.argv_log + '.kubectl'))

    # -- warnings arrive whole ---------------------------------------------

    def test_without_an_admin_kubeconfig_it_says_what_to_apply(self):
        out = self.stack('post-config')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertFalse(os.path.exists(self.argv_log + '.kubectl'))
        [warning] = self.warnings(out)
        self.assertRegex(warning, r'plugin.sh:\d+ HEAT_K8S_ADMIN_KUBECONFIG '
                         r'is not set: a cluster administrator must apply '
                         r"'heat-k8s-configure manifests isolation', and "
                         r'give each project namespace a NetworkPolicy '
                         r'admitting its own pods \(see the install '
                         r'guide\); until then projects reach each other$')

    LATER = ("for a project added later, run 'heat-k8s-configure manifests "
             "own-pods | kubectl -n <namespace> apply -f -'")

    def test_own_pods_it_says_what_a_later_project_needs(self):
        warning = self.one_warning('post-config',
                                   HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertRegex(warning, r'plugin.sh:\d+ the namespaces of '
                         r"today's projects admit their own pods; " +
                         re.escape(self.LATER) + '$')

    def test_namespaces_not_by_project_it_says_what_is_left(self):
        warning = self.one_warning(
            'post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin',
            HEAT_K8S_DEFAULT_NAMESPACE='heat-%(project)s')
        self.assertRegex(warning, r'plugin.sh:\d+ HEAT_K8S_DEFAULT_NAMESPACE '
                         r'is not the project ID: project namespaces get no '
                         r'NetworkPolicy admitting their own pods here; ' +
                         re.escape(self.LATER) + '$')

    def test_without_an_endpoint_it_says_what_is_missing(self):
        warning = self.one_warning('post-config', HEAT_K8S_API_URL='',
                                   HEAT_K8S_PROJECT_ISOLATION='False')
        self.assertTrue(warning.endswith(
            ' HEAT_K8S_API_URL is not set: no Kubernetes endpoint is '
            'configured or registered; OS::Kubernetes::* resources need '
            'one (or a cluster property naming a Magnum cluster)'), warning)

    # -- bad input: devstack stops, naming the setting -------------------

    def test_without_heat_it_stops_before_installing(self):
        out = self.stack('pre-install', ENABLED_SERVICES='key,heat-k8s',
                         DEVSTACK_PLUGINS=',heat-k8s')
        self.assertIn("'enable_plugin heat https://opendev.org/openstack/"
                      "heat' before 'enable_plugin heat-k8s'",
                      self.assertStopped(out, 'h-eng'))

    def test_heat_listed_after_it_stops(self):
        out = self.stack('pre-install', DEVSTACK_PLUGINS=',heat-k8s,heat')
        self.assertStopped(out, "list 'enable_plugin heat' before")

    def test_an_http_endpoint_stops(self):
        out = self.stack('pre-install', HEAT_K8S_API_URL='http://k8s:6443')
        self.assertIn('is not https://',
                      self.assertStopped(out, 'HEAT_K8S_API_URL='
                                         'http://k8s:6443'))

    def test_without_keystone_auth_a_kubeconfig_is_required(self):
        out = self.stack('pre-install', HEAT_K8S_KEYSTONE_AUTH='False')
        self.assertStopped(out, 'HEAT_K8S_KEYSTONE_AUTH=False',
                           'HEAT_K8S_KUBECONFIG')

    def test_an_unreachable_endpoint_stops_heat_conf_untouched(self):
        url = 'https://127.0.0.1:%d' % _closed_port()
        out = self.stack('post-config', HEAT_K8S_API_URL=url,
                         HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertIn('does not answer',
                      self.assertStopped(out, 'HEAT_K8S_API_URL=' + url))

    def test_a_certificate_the_ca_does_not_sign_stops(self):
        other_ca, _key = _certificate(self.dir)
        out = self.stack('post-config', HEAT_K8S_CA_FILE=other_ca,
                         HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertStopped(out, 'HEAT_K8S_API_URL=' + self.api_url,
                           'verified by HEAT_K8S_CA_FILE')

    def test_isolation_on_a_cluster_without_its_api_stops(self):
        for discovery in ('none', 'group'):
            with self.subTest(discovery=discovery):
                self.fake_kubectl(discovery=discovery)
                out = self.stack('post-config',
                                 HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
                self.assertIn('set HEAT_K8S_PROJECT_ISOLATION=False',
                              self.assertStopped(
                                  out, 'HEAT_K8S_PROJECT_ISOLATION=True',
                                  'BaselineAdminNetworkPolicy'))

    def test_an_admin_kubeconfig_without_access_stops(self):
        self.fake_kubectl(discovery='denied')
        out = self.stack('post-config', HEAT_K8S_ADMIN_KUBECONFIG='/k/admin')
        self.assertIn('Unauthorized', self.assertStopped(
            out, 'HEAT_K8S_ADMIN_KUBECONFIG=/k/admin'))


class StubbedPhasesTest(PhasesTest):

    def test_settings_declare_the_heat_dependency(self):
        out = self.stack('install')
        self.assertEqual(0, out.returncode, out.stderr)
        self.assertIn('plugin_requires heat-k8s heat', self.logged())


@unittest.skipIf(SNAPSHOT_SKIP, SNAPSHOT_SKIP)
class DevstackPhasesTest(PhasesTest):
    """The same phases under devstack's own functions-common."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.PRELUDE = functions_common() + COMMON


del PhasesTest  # only its two flavours run


class WarnTest(unittest.TestCase):

    def test_every_warning_is_one_message(self):
        # devstack's warn prints its second argument only: the plugin's
        # warnings go through heat_k8s_warn, which joins them.
        calls = []
        for path in SOURCES:
            with open(path) as f:
                calls += [line.strip() for line in f
                          if re.match(r'\s*warn\b', line)]
        self.assertEqual(['warn "$line" "$*"'], calls)

    @unittest.skipIf(SNAPSHOT_SKIP, SNAPSHOT_SKIP)
    def test_the_stubs_print_as_devstack_does(self):
        script = ('%s\nfunction f { warn 7 "a b" c; die 8 "x y" z; }\nf\n')
        outs = []
        for prelude in (STUBS, functions_common() + COMMON):
            out = subprocess.run(['bash', '-c', script % prelude],
                                 capture_output=True, text=True)
            outs.append((out.returncode, out.stdout.splitlines()[0],
                         out.stderr.splitlines()[-1]))
        self.assertEqual(outs[0], outs[1])
        self.assertEqual((1, '[WARNING] :7 a b',
                          '[ERROR] environment:8 x y z'), outs[0])
