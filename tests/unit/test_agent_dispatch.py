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


"""The dispatcher, cleanup, notifier and installer: their pure parts."""

import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

from tests.unit import scripts
from tools.lc import docker_host

heat_config = scripts.load('agent_heat_config', 'agent', 'heat_config.py')
cleanup = scripts.load('agent_docker_cmd_cleanup', 'agent', 'hooks',
                       'docker_cmd.py')
files_cleanup = scripts.load('agent_files_cleanup', 'agent',
                             'heat_k8s_files_cleanup.py')
notify = scripts.load('agent_notify', 'agent', 'heat_config_notify.py')
install = scripts.load('agent_install', 'agent', 'install.py')


class DispatchTest(unittest.TestCase):

    def test_hook_path_first_dir_and_sanitised_group(self):
        with tempfile.TemporaryDirectory() as a, \
                tempfile.TemporaryDirectory() as b:
            open(os.path.join(b, 'docker-cmd'), 'w').close()
            open(os.path.join(a, 'script'), 'w').close()
            open(os.path.join(b, 'script'), 'w').close()
            self.assertEqual(os.path.join(b, 'docker-cmd'),
                             heat_config.hook_path('docker-cmd', [a, b]))
            self.assertEqual(os.path.join(a, 'script'),
                             heat_config.hook_path('../script', [a, b]))
            self.assertIsNone(heat_config.hook_path('puppet', [a, b]))

    def test_signal_data_from_json_or_raw_output(self):
        self.assertEqual({'deploy_status_code': 0},
                         heat_config.signal_data(0, '{"deploy_status_code": '
                                                 '0}', ''))
        self.assertEqual({'deploy_stdout': 'Traceback', 'deploy_stderr': 'e',
                          'deploy_status_code': 2},
                         heat_config.signal_data(2, 'Traceback', 'e'))
        self.assertEqual(1, heat_config.signal_data(
            0, '', 'crash')['deploy_status_code'])

    def test_component_picks_the_action_config(self):
        dep = {'id': 'c', 'group': 'component',
               'inputs': [{'name': 'deploy_action', 'value': 'UPDATE'}],
               'config': {'configs': [
                   {'actions': ['CREATE'], 'tool': 'script', 'config': '1'},
                   {'actions': ['UPDATE'], 'tool': 'script', 'config': '2'}]}}
        picked = heat_config.pick_component(dep)
        self.assertEqual(('script', '2'), (picked['group'],
                                           picked['config']))
        dep['inputs'][0]['value'] = 'DELETE'
        self.assertIsNone(heat_config.pick_component(dep))


# A hook that waits (10 s at most) for the other deployment's hook to
# start: run one after the other, the first gives up and reports 1.
BARRIER_HOOK = """#!/bin/sh
id=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
touch "$BARRIER_DIR/$id.started"
for i in $(seq 3); do echo "$id line $i" >&2; done
for i in $(seq 100); do
  if [ "$(ls "$BARRIER_DIR" | grep -c started)" -ge 2 ]; then
    for i in 4 5 6; do echo "$id line $i" >&2; done
    echo '{"deploy_status_code": 0}'; exit 0
  fi
  sleep 0.1
done
echo '{"deploy_status_code": 1}'
"""
NOTIFY_SCRIPT = """#!/bin/sh
cat > "$1.signal"
"""


class ParallelDispatchTest(unittest.TestCase):

    def _script(self, path, text):
        with open(path, 'w') as f:
            f.write(text)
        os.chmod(path, 0o700)

    def test_independent_deployments_run_at_once_and_signal_apart(self):
        with tempfile.TemporaryDirectory() as tmp:
            hooks, deployed = (os.path.join(tmp, d) for d in ('h', 'd'))
            os.makedirs(hooks)
            os.makedirs(deployed)
            self._script(os.path.join(hooks, 'barrier'), BARRIER_HOOK)
            self._script(os.path.join(tmp, 'notify'), NOTIFY_SCRIPT)
            deployments = [{'id': i, 'group': 'barrier', 'inputs': []}
                           for i in ('dep-a', 'dep-b')]
            env = dict(os.environ, HEAT_CONFIG_HOOKS=hooks,
                       BARRIER_DIR=os.path.join(tmp, 'd'))
            saved = (heat_config.DEPLOYED_DIR, heat_config.NOTIFY,
                     os.environ.copy())
            heat_config.DEPLOYED_DIR = deployed
            heat_config.NOTIFY = os.path.join(tmp, 'notify')
            os.environ.update(env)
            err = io.StringIO()
            try:
                with contextlib.redirect_stderr(err):
                    heat_config.dispatch(deployments, lambda msg: None)
            finally:
                heat_config.DEPLOYED_DIR, heat_config.NOTIFY = saved[:2]
                os.environ.clear()
                os.environ.update(saved[2])
            for dep in deployments:
                with open(os.path.join(deployed, '%s.json.signal'
                                       % dep['id'])) as f:
                    self.assertEqual({'deploy_status_code': 0},
                                     json.load(f))
            # Each hook's stderr in one piece, whatever the order.
            lines = [line.split()[0] for line in err.getvalue().splitlines()]
            self.assertEqual(12, len(lines))
            self.assertEqual(1, sum(a != b for a, b in zip(lines,
                                                           lines[1:])))

    def test_a_deployment_run_before_is_not_run_again(self):
        with tempfile.TemporaryDirectory() as tmp:
            saved = heat_config.DEPLOYED_DIR
            heat_config.DEPLOYED_DIR = tmp
            try:
                open(os.path.join(tmp, 'done.json'), 'w').close()
                self.assertIsNone(heat_config.prepare(
                    {'id': 'done', 'group': 'script', 'inputs': []},
                    lambda msg: None))
            finally:
                heat_config.DEPLOYED_DIR = saved


class CleanupTest(unittest.TestCase):

    def test_containers_of_gone_configs(self):
        wanted = cleanup.wanted_config_ids([
            {'id': 'c1', 'group': 'docker-cmd'},
            {'id': 'c2', 'group': 'script'}])
        self.assertEqual({'c1'}, wanted)
        self.assertEqual(['db', 'old-api'], cleanup.stale(
            [('api', 'c1'), ('old-api', 'c0'), ('db', 'c2'),
             ('unlabelled', '')], wanted))

    def test_renames_only_to_free_names(self):
        self.assertEqual([('api-ab12cd34', 'api')], cleanup.renames([
            ('api-ab12cd34', 'api'), ('db-11111111', 'db'), ('db', 'db'),
            ('x', '')]))


def files_deployment(stack, resource, base):
    return {'group': 'script',
            'inputs': [{'name': 'deploy_stack_id', 'value': stack},
                       {'name': 'deploy_resource_name', 'value': resource}],
            'config': '#!/usr/bin/env python3\nDATA = json.loads(r\"\"\"'
                      '%s\"\"\")\nrest\n' % json.dumps({'dir': base})}


class FilesCleanupTest(unittest.TestCase):

    def test_directories_of_gone_resources(self):
        kept = files_deployment('s/1', 'files_deployment', '/srv/h/api')
        updated = files_deployment('s/1', 'files_deployment', '/srv/h/api')
        gone = files_deployment('s/2', 'files_deployment', '/srv/h/db')
        other = {'group': 'script', 'config': 'echo', 'inputs': []}
        records = [('a.json', kept), ('b.json', gone), ('c.json', other)]
        self.assertEqual([('b.json', '/srv/h/db')],
                         files_cleanup.stale(records, [updated]))
        self.assertEqual([], files_cleanup.stale(records, [kept, gone]))

    def test_only_plain_deep_paths(self):
        for base in ('/', '/var', 'relative/dir', '/srv/../etc', None):
            self.assertIsNone(files_cleanup.files_dir(
                files_deployment('s', 'r', base)), base)
        self.assertIsNone(files_cleanup.files_dir(
            dict(files_deployment('s', 'r', '/srv/x'), group='docker-cmd')))


class NotifyTest(unittest.TestCase):

    def test_trim_cuts_logs_from_the_start(self):
        data = {'deploy_stdout': 'a' * 600 + 'END', 'deploy_stderr': 'b' * 50,
                'deploy_status_code': 0}
        trimmed = notify.trim(data, limit=400)
        self.assertLessEqual(len(notify.json.dumps(trimmed)), 400)
        self.assertTrue(trimmed['deploy_stdout'].endswith('END'))
        self.assertEqual(data, notify.trim(data))

    def test_catalog_and_signal_url(self):
        catalog = [{'type': 'identity', 'endpoints': []},
                   {'type': 'orchestration', 'endpoints': [
                       {'interface': 'internal', 'region_id': 'R1',
                        'url': 'http://i/v1/p'},
                       {'interface': 'public', 'region_id': 'R2',
                        'url': 'http://other/v1/p'},
                       {'interface': 'public', 'region_id': 'R1',
                        'url': 'http://h:8004/v1/p'}]}]
        url = notify.endpoint(catalog, 'orchestration', 'R1')
        self.assertEqual('http://h:8004/v1/p', url)
        self.assertRaises(LookupError, notify.endpoint, catalog, 'compute')
        self.assertEqual(
            'http://h:8004/v1/p/stacks/id-st/abc/resources/dep%201/signal',
            notify.signal_url(url + '/', 'id-st/abc', 'dep 1'))
        self.assertEqual('http://k/v3', notify.v3_url('http://k/'))
        self.assertEqual('http://k/v3', notify.v3_url('http://k/v3'))

    def test_token_request_is_scoped_to_the_project(self):
        body = notify.token_request({'deploy_user_id': 'u',
                                     'deploy_password': 'p',
                                     'deploy_project_id': 'pr'})
        self.assertEqual({'id': 'pr'}, body['auth']['scope']['project'])
        self.assertEqual({'id': 'u', 'password': 'p'},
                         body['auth']['identity']['password']['user'])


class HandleSignalTest(unittest.TestCase):

    def test_each_transport_as_deployment_inputs(self):
        # The maps Heat's signal_responder gives a WaitConditionHandle
        # (hand-made sample values).
        cfn = {'alarm_url':
               'http://cfn:8000/v1/waitcondition/arn?Signature=s'}
        self.assertEqual(
            {'id': 'wait-condition', 'inputs': [
                {'name': 'deploy_signal_id', 'value': cfn['alarm_url']},
                {'name': 'deploy_signal_verb', 'value': 'PUT'}]},
            notify.handle_deployment(cfn))
        heat = {'auth_url': 'http://k/v3', 'user_id': 'u', 'password': 'p',
                'project_id': 'pr', 'stack_id': 's', 'resource_name': 'h'}
        inputs = {i['name']: i['value']
                  for i in notify.handle_deployment(heat)['inputs']}
        self.assertEqual({'deploy_auth_url': 'http://k/v3',
                          'deploy_user_id': 'u', 'deploy_password': 'p',
                          'deploy_project_id': 'pr', 'deploy_stack_id': 's',
                          'deploy_resource_name': 'h'}, inputs)
        self.assertEqual([], notify.handle_deployment({})['inputs'])


# heat-api-cfn's /waitcondition/ route, as to its method: PUT only (a POST
# there is a 404). A process of its own: the older series' tests run under
# eventlet, whose hub a server thread in this process would wait on.
RECEIVER = """
import http.server, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def do_PUT(self):
        body = self.rfile.read(int(self.headers['Content-Length']))
        with open(sys.argv[1], 'ab') as f:
            f.write(body + b'\\n')
        self.send_response(200)
        self.end_headers()
    def do_POST(self):
        self.send_response(404)
        self.end_headers()
    def log_message(self, *args):
        pass
server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
print(server.server_port, flush=True)
server.serve_forever()
"""


class InstallTest(unittest.TestCase):

    def started_signal(self, root):
        """install.py's main with --started-signal at a loopback server
        standing in for heat-api-cfn: (the bodies it received, the error
        main raised)."""
        received = os.path.join(root, 'received')
        receiver = subprocess.Popen(
            [sys.executable, '-c', RECEIVER, received],
            stdout=subprocess.PIPE, text=True)
        self.addCleanup(receiver.wait)
        self.addCleanup(receiver.kill)
        port = int(receiver.stdout.readline())
        signal = os.path.join(root, 'signal.json')
        with open(signal, 'w') as f:
            json.dump({'alarm_url':
                       'http://127.0.0.1:%d/v1/waitcondition/x' % port}, f)
        error = None
        try:
            install.main(['--root', root, '--no-venv',
                          '--started-signal', signal])
        except Exception as exc:
            error = exc
        bodies = []
        if os.path.exists(received):
            with open(received) as f:
                bodies = [json.loads(line) for line in f]
        return bodies, error

    def test_the_agent_started_is_signalled(self):
        with tempfile.TemporaryDirectory() as root:
            bodies, error = self.started_signal(root)
        self.assertIsNone(error)
        self.assertEqual([{'status': 'SUCCESS', 'id': 'agent',
                           'reason': 'os-collect-config runs',
                           'data': ''}], bodies)

    def test_an_install_that_fails_is_signalled_with_its_error(self):
        with tempfile.TemporaryDirectory() as root:
            # A file where the hooks' directory goes: the install fails.
            os.makedirs(os.path.join(root, 'var', 'lib', 'heat-config'))
            open(os.path.join(root, 'var', 'lib', 'heat-config', 'hooks'),
                 'w').close()
            bodies, error = self.started_signal(root)
        self.assertIsNotNone(error)
        self.assertEqual(1, len(bodies))
        self.assertEqual('FAILURE', bodies[0]['status'])
        self.assertTrue(bodies[0]['reason'].startswith(
            'agent install failed: '), bodies[0]['reason'])
        self.assertIn('hooks', bodies[0]['reason'])

    def test_install_under_a_root(self):
        with tempfile.TemporaryDirectory() as root:
            env = install.install(root, venv=None, log=lambda m: None)
            hooks = env['HEAT_CONFIG_HOOKS']
            for hook in ('script', 'docker-cmd'):
                self.assertTrue(os.access(os.path.join(hooks, hook),
                                          os.X_OK))
            parts = sorted(os.listdir(os.path.join(
                env['OS_REFRESH_CONFIG_BASE_DIR'], 'configure.d')))
            self.assertEqual(['20-os-apply-config',
                              '50-heat-config-docker-cmd',
                              '51-heat-k8s-files', '55-heat-config'],
                             parts)
            self.assertTrue(env['HEAT_SHELL_CONFIG'].startswith(root))
            # The cleanup part runs the docker-cmd hook's cleanup: here a
            # docker CLI that lists one container of a configuration gone.
            fake = os.path.join(root, 'fake-docker')
            with open(fake, 'w') as f:
                f.write('#!/bin/sh\necho "$@" >> %s/calls\n'
                        'case "$1" in ps) echo c1;; inspect) echo \'[{"Name":'
                        ' "/db", "Config": {"Labels": {"config_id": "gone"}}}]'
                        '\';; esac\n' % root)
            os.chmod(fake, 0o700)
            deployments = os.path.join(root, 'deployments.json')
            with open(deployments, 'w') as f:
                json.dump([{'id': 'kept', 'group': 'docker-cmd'}], f)
            part = os.path.join(env['OS_REFRESH_CONFIG_BASE_DIR'],
                                'configure.d', '50-heat-config-docker-cmd')
            ran = subprocess.run([part], env=dict(
                os.environ, HEAT_DOCKER_CMD=fake,
                HEAT_SHELL_CONFIG=deployments), capture_output=True,
                text=True, timeout=60)
            self.assertEqual(0, ran.returncode, ran.stderr)
            self.assertIn('removing db (its configuration is gone)',
                          ran.stderr)
            with open(os.path.join(root, 'calls')) as f:
                self.assertIn('rm -f db', f.read())

    def test_defaults_on_a_real_server(self):
        env = install.environment('/', None)
        self.assertEqual('/var/lib/heat-config/hooks',
                         env['HEAT_CONFIG_HOOKS'])
        self.assertEqual('/var/run/heat-config/heat-config',
                         env['HEAT_SHELL_CONFIG'])
        self.assertEqual('/var/lib/heat-config/deployed',
                         env['HEAT_CONFIG_DEPLOYED'])

    def test_a_booted_server_configures_each_polling_transport(self):
        # os-apply-config renders os-collect-config.conf from the metadata
        # Heat gives a server: a section per collector, each of its keys.
        with open(os.path.join(scripts.REPO, 'agent', 'templates', 'etc',
                               'os-collect-config.conf')) as f:
            template = f.read()
        for collector, keys in docker_host.COLLECTORS.items():
            start = template.index('{{#%s}}\n[%s]\n' % (collector, collector))
            section = template[start:template.index('{{/%s}}' % collector)]
            for key in keys:
                self.assertIn('\n%s = {{%s}}\n' % (key, key), section)
