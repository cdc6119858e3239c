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


"""The docker-cmd hook's pure parts: ordering, labels, run/exec flags."""

import base64
import io
import os
import tempfile
import unittest

from tests.unit import scripts

docker_cmd = scripts.load('agent_docker_cmd', 'agent', 'hooks',
                          'docker_cmd.py')


class OrderTest(unittest.TestCase):

    def test_start_order_then_map_order(self):
        config = {'api': {'start_order': 1}, 'db-sync': {},
                  'ready': {'start_order': 2}, 'db': {'start_order': 0}}
        self.assertEqual(['db-sync', 'db', 'api', 'ready'],
                         docker_cmd.ordered(config))

    def test_text_config_is_json_or_yaml(self):
        self.assertEqual({'a': {'image': 'x'}},
                         docker_cmd.load_config('{"a": {"image": "x"}}'))
        self.assertEqual({}, docker_cmd.load_config(''))


class ArgumentsTest(unittest.TestCase):

    def test_run_flags_in_contract_order(self):
        args = docker_cmd.run_args({
            'image': 'img:1', 'command': ['sh', '-c', 'echo a b'],
            'env_file': ['/a.env', ''], 'environment': ['A=1', '', 'B=2'],
            'net': 'host', 'pid': 'host', 'privileged': True,
            'restart': 'always', 'user': 'root',
            'volumes': ['/h:/c:ro'], 'volumes_from': ['other']})
        self.assertEqual([
            '--detach=true', '--env-file=/a.env', '--env=A=1', '--env=B=2',
            '--net=host', '--pid=host', '--privileged=true',
            '--restart=always', '--user=root', '--volume=/h:/c:ro',
            '--volumes-from=other', 'img:1', 'sh', '-c', 'echo a b'], args)

    def test_run_to_completion_and_string_command(self):
        args = docker_cmd.run_args({'image': 'img', 'detach': False,
                                    'env_file': '/s.env',
                                    'privileged': False,
                                    'command': 'keystone-manage db_sync'})
        self.assertEqual(['--env-file=/s.env', '--privileged=false', 'img',
                          'keystone-manage', 'db_sync'], args)

    def test_labels(self):
        self.assertEqual(
            ['--label', 'deploy_stack_id=s/1',
             '--label', 'deploy_resource_name=dep',
             '--label', 'config_id=c1', '--label', 'container_name=api',
             '--label', 'managed_by=docker-cmd'],
            docker_cmd.label_args('api', 'c1', {
                'deploy_stack_id': 's/1', 'deploy_resource_name': 'dep'}))

    def test_exec_replaces_container_word(self):
        self.assertEqual(
            ['--user=root', 'api-x1', 'curl', '-f', 'http://h/'],
            docker_cmd.exec_args({'user': 'root', 'command': [
                'api', 'curl', '-f', 'http://h/']}, 'api-x1'))
        self.assertRaises(ValueError, docker_cmd.exec_args, {}, 'x')


class DeployTest(unittest.TestCase):

    def test_delete_is_a_noop(self):
        out = docker_cmd.deploy({'id': 'c', 'config': {'a': {'image': 'x'}},
                                 'inputs': [{'name': 'deploy_action',
                                             'value': 'DELETE'}]})
        self.assertEqual(0, out['deploy_status_code'])
        self.assertNotIn('failure_reason', out)

    def test_unknown_action_fails_with_reason(self):
        out = docker_cmd.deploy({'id': 'c', 'inputs': [],
                                 'config': {'a': {'action': 'build'}}})
        self.assertEqual(1, out['deploy_status_code'])
        self.assertIn("unknown action 'build'", out['failure_reason'])

    def test_failure_reason_keeps_the_end(self):
        out = docker_cmd.response([], [], 3, 'x' * 5000 + 'the cause')
        self.assertEqual(docker_cmd.REASON_CHARS,
                         len(out['failure_reason']))
        self.assertTrue(out['failure_reason'].endswith('the cause'))


# A hand-made stand-in for docker (docker cannot run here): `inspect`
# finds no container; `run` prints what a crashing service prints of
# its secrets (as given, upper-cased, in part, base64, reversed, the
# generated word of a secret file) and exits 3.
STAND_IN = """#!/bin/sh
[ "$1" = inspect ] && exit 1
pw=$(sed -n 's/^DB_PASSWORD=//p' "$SECRETS_ENV")
key=$(sed -n 's/^key = //p' "$SECRET_FILE")
echo "connecting with $pw" >&2
echo "$pw" | tr a-z A-Z >&2
echo "part: $(echo "$pw" | cut -c3-14)" >&2
printf %s "$pw" | base64 >&2
echo "$pw" | rev >&2
echo "key $key; could not connect, using password: YES" >&2
exit 3
"""


class SecretOutputTest(unittest.TestCase):
    """What the containers print of their secrets never reaches Heat."""

    def test_no_spelling_of_a_secret_in_the_answer(self):
        password, key = 'Gen3ratedPassw0rdValue42', 'c2VjcmV0LWtleS0xMjM0NTY3'
        with tempfile.TemporaryDirectory() as tmp:
            env_file = os.path.join(tmp, 'secrets.env')
            os.makedirs(os.path.join(tmp, 'secret-files', 'etc'))
            secret_file = os.path.join(tmp, 'secret-files', 'etc', 'a.conf')
            docker = os.path.join(tmp, 'docker')
            for path, text in ((env_file, 'DB_PASSWORD=%s\n' % password),
                               (secret_file, '[x]\nkey = %s\n' % key),
                               (docker, STAND_IN)):
                with open(path, 'w') as f:
                    f.write(text)
                os.chmod(path, 0o700)
            saved = os.environ.copy()
            os.environ.update(HEAT_DOCKER_CMD=docker, SECRETS_ENV=env_file,
                              SECRET_FILE=secret_file)
            try:
                out = docker_cmd.deploy({'id': 'c', 'inputs': [], 'config': {
                    'db-sync': {'image': 'x', 'env_file': env_file,
                                'volumes': ['%s:/etc/a.conf:ro'
                                            % secret_file]}}},
                    log=io.StringIO())
            finally:
                os.environ.clear()
                os.environ.update(saved)
        said = json_text(out)
        self.assertEqual(3, out['deploy_status_code'])
        # The words around the values stay: they say why.
        self.assertIn('could not connect, using password: YES', said)
        for form in (password, password.upper(), password[2:14],
                     base64.b64encode(password.encode()).decode(),
                     password[::-1], key):
            self.assertNotIn(form, said)

    def test_short_values_and_words_stay(self):
        self.assertEqual('user: root, flavor keystone', docker_cmd.redact(
            'user: root, flavor keystone', ['root']))


def json_text(out):
    return ' '.join(str(v) for v in out.values())
