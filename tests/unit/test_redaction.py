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

import base64
import hashlib
import json
import unittest
import urllib.parse

from heat_k8s.kinds import readiness
from heat_k8s.kinds import redaction
from heat_k8s.kinds import steadiness
from tests.unit.fixtures import load

PLAIN = 's3cr3t-Pa55w0rd'
ENCODED = 'czNjcjN0LVBhNTV3MHJk'  # base64 of PLAIN, as Secret data holds it


class ManifestTest(unittest.TestCase):

    def test_secret_values_are_replaced_and_keys_kept(self):
        secret = load('secret')
        redacted = redaction.manifest(secret)
        self.assertEqual({'password': redaction.REDACTED,
                          'username': redaction.REDACTED},
                         redacted['data'])
        self.assertEqual('Opaque', redacted['type'])
        self.assertEqual('db-credentials', redacted['metadata']['name'])
        text = json.dumps(redacted)
        for value in (PLAIN, ENCODED, 'keystone', 'a2V5c3RvbmU='):
            self.assertNotIn(value, text)

    def test_the_original_is_untouched(self):
        secret = load('secret')
        redaction.manifest(secret)
        self.assertEqual(load('secret'), secret)

    def test_string_data(self):
        secret = {'apiVersion': 'v1', 'kind': 'Secret',
                  'metadata': {'name': 'api-token'},
                  'stringData': {'token': 'gAAAAABl-keystone-trust-token'}}
        self.assertEqual({'token': redaction.REDACTED},
                         redaction.manifest(secret)['stringData'])

    def test_other_kinds_are_unchanged(self):
        for name in ('configmap', 'deployment_ready'):
            self.assertEqual(load(name), redaction.manifest(load(name)))

    def test_lists_of_secrets(self):
        listed = {'apiVersion': 'v1', 'kind': 'SecretList',
                  'items': [load('secret'), load('configmap')]}
        redacted = redaction.manifest(listed)
        self.assertNotIn(ENCODED, json.dumps(redacted))
        self.assertEqual(load('configmap'), redacted['items'][1])


class TextTest(unittest.TestCase):

    def test_plain_and_base64_forms_are_removed(self):
        msg = ('container env DB_PASSWORD=%s rejected; data.password: '
               'Invalid value: "%s"' % (PLAIN, ENCODED))
        self.assertEqual('container env DB_PASSWORD=<redacted> rejected; '
                         'data.password: Invalid value: "<redacted>"',
                         redaction.text(msg, [PLAIN]))
        self.assertEqual(redaction.text(msg, [PLAIN]),
                         redaction.text(msg, [ENCODED]))

    def test_secret_values_of_a_manifest(self):
        secret = load('secret')
        values = redaction.secret_values(secret)
        self.assertEqual(sorted(secret['data'].values()), sorted(values))
        msg = 'login as keystone with %s failed' % PLAIN
        self.assertEqual('login as <redacted> with <redacted> failed',
                         redaction.text(msg, values))
        self.assertEqual([], redaction.secret_values(load('configmap')))

    def test_dict_of_secrets_and_bytes(self):
        self.assertEqual('key <redacted>',
                         redaction.text('key %s' % PLAIN, {'pw': PLAIN}))
        self.assertEqual('key <redacted>',
                         redaction.text('key %s' % PLAIN, [PLAIN.encode()]))

    def test_json_escaped_values(self):
        secret = 'pa"ss\\word'
        msg = 'Invalid value: %s' % json.dumps({'password': secret})
        self.assertEqual('Invalid value: {"password": "<redacted>"}',
                         redaction.text(msg, [secret]))

    def test_longest_value_first(self):
        self.assertEqual('<redacted> and <redacted>',
                         redaction.text('abcdef and abc', ['abc', 'abcdef']))

    def test_nothing_to_redact(self):
        self.assertEqual('fine', redaction.text('fine', []))
        self.assertEqual('fine', redaction.text('fine', ['', None]))
        self.assertEqual('', redaction.text(None, [PLAIN]))


class SpellingsTest(unittest.TestCase):
    """What a program or an API may print of a value, changed or in part."""

    VALUE = 'Gen3rated/by+RandomSecret~ok?'

    def test_every_encoding_of_a_value_is_removed(self):
        raw = self.VALUE.encode()
        printed = {
            'as given': self.VALUE,
            'base64': base64.b64encode(raw).decode(),
            'base64, unpadded': base64.b64encode(raw).decode().rstrip('='),
            'base64url': base64.urlsafe_b64encode(raw).decode(),
            'base64url, unpadded': base64.urlsafe_b64encode(
                raw).decode().rstrip('='),
            'hex': raw.hex(),
            'hex, upper case': raw.hex().upper(),
            'URL-encoded': urllib.parse.quote(self.VALUE, safe=''),
            'URL-encoded, spaces as +': urllib.parse.quote_plus(
                self.VALUE, safe=''),
            'upper case': self.VALUE.upper(),
            'lower case': self.VALUE.lower(),
            'reversed': self.VALUE[::-1],
        }
        self.assertEqual(set(redaction.ENCODINGS), set(printed))
        for name, form in printed.items():
            for shown in (form, json.dumps(form)[1:-1]):
                msg = 'error: got %s, exit 1' % shown
                self.assertEqual('error: got <redacted>, exit 1',
                                 redaction.text(msg, [self.VALUE]), name)

    def test_a_value_given_base64_is_found_in_every_spelling(self):
        encoded = base64.b64encode(self.VALUE.encode()).decode()
        msg = 'token %s' % self.VALUE[::-1]
        self.assertEqual('token <redacted>', redaction.text(msg, [encoded]))

    def test_part_of_a_value_in_any_case_or_reversed(self):
        value = 'q8Zr2LmN4vTx7Kp'
        for shown in (value[:8], value[3:12], value[4:].upper(),
                      value[2:11][::-1], 'x' + value[5:] + 'y'):
            msg = 'login failed for %s (code 28000)' % shown
            out = redaction.text(msg, [value])
            self.assertNotIn(shown.strip('xy'), out)
            self.assertTrue(out.startswith('login failed for '), out)
            self.assertIn('<redacted>', out)
            self.assertTrue(out.endswith(' (code 28000)'), out)
        # Seven characters of it are not enough to say.
        self.assertEqual('id ' + value[:7],
                         redaction.text('id ' + value[:7], [value]))

    def test_an_ovsdb_endpoint_is_an_address_not_a_secret(self):
        # Hand-made, as templates/neutron/neutron.conf.j2 renders it: the
        # prefixed host names would otherwise look generated, and a
        # container named after its service lose its name in reasons.
        conf = ('[ovn]\n'
                'ovn_nb_connection = tcp:cc1c04ae-ovn-nb.de33.svc:6641\n'
                'ovn_sb_connection = ssl:10.0.0.7:6642\n'
                'socket = unix:/run/ovn/ovnnb_db.sock\n')
        self.assertEqual([], redaction.pieces(conf))
        self.assertEqual(
            'container cc1c04ae-neutron exited', redaction.text(
                'container cc1c04ae-neutron exited', [conf]))

    def test_a_short_value_is_removed_as_given_only(self):
        self.assertEqual('<redacted> 0IP ab', redaction.text(
            'pi0 0IP ab', ['pi0']))

    def test_a_files_generated_values_are_secrets_of_their_own(self):
        conf = ('[database]\n'
                '# the primary\n'
                'connection = mysql+pymysql://glance:Vq9-w2Lk@db/glance\n'
                'debug = false\n'
                'auth_type = password\n'
                'www_authenticate_uri = http://keystone:5000/v3\n'
                'password: "Zr7mQp2xWs"\n'
                'transport_url = rabbit://u:p%40ss-w0rd@mq:5672/\n'
                '-----BEGIN KEY-----\n'
                'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n')
        self.assertEqual([
            'Vq9-w2Lk', 'Zr7mQp2xWs', 'p%40ss-w0rd', 'p@ss-w0rd',
            'MIIEvQIBADANBgkqhkiG9w0BAQEFAASC'], redaction.pieces(conf))
        encoded = base64.b64encode(conf.encode()).decode()
        msg = ('OperationalError: connect to glance:Vq9-w2Lk@db refused; '
               'debug false; ' + base64.b64encode(b'Zr7mQp2xWs').decode())
        out = redaction.text(msg, [encoded])
        for part in ('Vq9-w2Lk', 'Zr7mQp2x', 'WnI3bVFwMnhXcw'):
            self.assertNotIn(part, out)
        self.assertIn('debug false;', out)
        self.assertIn('connect to glance:<redacted>@db refused', out)

    def test_words_of_the_message_stay(self):
        # What glance-manage says when its database password is wrong, and
        # the glance-api.conf it read (the values a file needs are words).
        conf = ('[database]\n'
                'connection = mysql+pymysql://glance:Wr0ng-Pw@10.96.0.20:'
                '3306/glance\n'
                '[keystone_authtoken]\n'
                'auth_url = http://keystone.svc:5000\n'
                'auth_type = password\n'
                'username = glance\n'
                'password = Gq4bT7yXo2LmZ8wKe1RcV5nHs3PdU6Af\n'
                '[paste_deploy]\n'
                'flavor = keystone\n')
        msg = ('(pymysql.err.OperationalError) (1045, "Access denied for '
               "user 'glance'@'10.85.0.12' (using password: YES)\")")
        self.assertEqual(msg, redaction.text(msg, [conf]))


    def test_the_objects_namespace_and_name_stay(self):
        # A file's host name holds the project id, which looks generated;
        # the reason names the object by it all the same.
        namespace = 'c9ced83c43c54a8d9511e27972af49f7'
        conf = ('[database]\nconnection = mysql+pymysql://keystone:'
                'Sg3kPq7wZx@mariadb.%s.svc:3306/keystone\n'
                'host = mariadb.%s.svc\n' % (namespace, namespace))
        msg = ('Job %s/app-keystone-db-sync is failed: Sg3kPq7wZx'
               % namespace)
        self.assertIn('<redacted>', redaction.text(msg, [conf]))
        self.assertNotIn(namespace, redaction.text(msg, [conf]))
        self.assertEqual(
            'Job %s/app-keystone-db-sync is failed: <redacted>' % namespace,
            redaction.text(msg, [conf], public=(
                namespace, 'app-keystone-db-sync')))


class BoundsTest(unittest.TestCase):

    def test_a_large_file_leaves_the_values_given_with_it_whole(self):
        # 800 kB of generated values: its pieces past the budget count
        # as given only; a password given after it keeps every spelling.
        lines = ['key%d = %s' % (i, hashlib.sha256(b'%d' % i).hexdigest()[:32])
                 for i in range(20000)]
        late = lines[-1].split(' = ')[1]
        password = 'Tq8-zK2pW5xN'
        msg = 'got %s and %s, then %s' % (
            late, late[3:15], password[::-1].upper())
        out = redaction.text(msg, ['\n'.join(lines) + '\n', password])
        self.assertEqual('got <redacted> and %s, then <redacted>'
                         % late[3:15], out)
        self.assertGreater(20000 * 40, redaction.PIECES_BUDGET)


class ConsumedSecretsTest(unittest.TestCase):
    """The Secrets whose values a workload's containers can print."""

    SPEC = {
        'imagePullSecrets': [{'name': 'registry'}],
        'volumes': [{'name': 'a', 'secret': {'secretName': 'files'}},
                    {'name': 'b', 'projected': {'sources': [
                        {'configMap': {'name': 'not-a-secret'}},
                        {'secret': {'name': 'projected'}}]}},
                    {'name': 'c', 'configMap': {'name': 'not-either'}}],
        'initContainers': [{'name': 'i', 'envFrom': [
            {'secretRef': {'name': 'all-of-it'}},
            {'configMapRef': {'name': 'no'}}]}],
        'containers': [{'name': 'c', 'env': [
            {'name': 'PW', 'valueFrom': {'secretKeyRef': {
                'name': 'db', 'key': 'password'}}},
            {'name': 'X', 'value': 'plain'}]}],
    }
    NAMES = {'registry', 'files', 'projected', 'all-of-it', 'db'}

    def test_every_place_a_pod_spec_names_a_secret(self):
        template = {'spec': self.SPEC}
        for obj in ({'kind': 'Pod', 'spec': self.SPEC},
                    {'kind': 'Deployment', 'spec': {'template': template}},
                    {'kind': 'Job', 'spec': {'template': template}},
                    {'kind': 'CronJob', 'spec': {'jobTemplate': {
                        'spec': {'template': template}}}}):
            self.assertEqual(self.NAMES, redaction.consumed_secrets(obj),
                             obj['kind'])

    def test_recorded_objects(self):
        for name in ('deployment_ready', 'job_failed', 'pod_crashloop',
                     'cronjob', 'statefulset_ready', 'daemonset_ready',
                     'configmap', 'secret', 'service_clusterip'):
            self.assertEqual(set(), redaction.consumed_secrets(load(name)),
                             name)
        self.assertEqual({'db-credentials'}, redaction.consumed_secrets(
            load('pod_crashloop_secret_synthetic')))


class TerminationMessageTest(unittest.TestCase):
    """A container that prints a secret before it exits: its termination
    message reaches the reason only redacted."""

    def _reasons(self):
        pod = load('pod_crashloop_secret_synthetic')
        failed = readiness.pod(pod)
        stays_up = steadiness.judge([pod], {}, {}, limit=1)
        return [failed.message, stays_up.message]

    def test_no_spelling_of_the_value_is_left(self):
        values = redaction.secret_values(load('secret'))
        for reason in self._reasons():
            self.assertIn(PLAIN, reason)   # what is at stake
            out = redaction.text(reason, values)
            for form in (PLAIN, ENCODED, PLAIN[:10].upper(),
                         PLAIN[7:][::-1], 'Pa55w0rd', 'dr0w55aP',
                         'S3CR3T-PA55'):
                self.assertNotIn(form, out)
            for kept in ('exit code 2', 'DB_PASSWORD=', ', rejected',
                         'retrying with', 'container app'):
                self.assertIn(kept, out)

    def test_what_the_containers_said(self):
        messages = redaction.container_messages([
            load('pod_crashloop_secret_synthetic'), load('job_failed_pod'),
            load('pod_ready')])
        self.assertEqual(6, len(messages))   # each, then each line
        self.assertIn(PLAIN, messages[0])
        self.assertEqual('auth: DB_PASSWORD=' + PLAIN, messages[1])
        self.assertEqual(['schema version 7 is newer than this code\n',
                          'schema version 7 is newer than this code'],
                         messages[-2:])
        # Unknown values: withholding what the containers said.
        for reason in self._reasons():
            out = redaction.text(reason, messages)
            self.assertNotIn('Pa55', out)
            self.assertNotIn('auth', out)
            self.assertIn('exit code 2', out)


class StructureTest(unittest.TestCase):

    def test_strings_are_redacted_numbers_untouched(self):
        status = load('status_required')
        status['message'] += ' (value %s)' % PLAIN
        redacted = redaction.structure(status, [PLAIN, '1', '42'])
        self.assertEqual(422, redacted['code'])
        self.assertNotIn(PLAIN, json.dumps(redacted))
        self.assertTrue(redacted['message'].endswith('(value <redacted>)'))
        self.assertEqual('Required value',
                         redacted['details']['causes'][0]['message'])
        self.assertNotIn(PLAIN, load('status_required')['message'])


if __name__ == '__main__':
    unittest.main()
