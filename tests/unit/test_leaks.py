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

"""The secret-leak search of tests/e2e/leaks.py: what it calls a leak, what
it allows, and that it never shows a value."""

import base64
import json
import os
import tempfile
import unittest
import urllib.parse

from tests.e2e import leaks

ROOT = 'RootPw0123456789abcdefghijklmnop'
KEY = 'FernetKey0123456789abcdefghijklmnopqrstuvwx'
ADMIN = 'e2e-Admin-0123456789ab'
NEEDLES = {ROOT: 'database root password', KEY: 'Fernet key keystone/0',
           ADMIN: 'admin password'}


def place(source, content, detail='d'):
    return leaks.Place(source, detail, content)


class SearchTest(unittest.TestCase):

    def test_a_value_outside_its_place_is_a_leak_named_not_shown(self):
        event = json.dumps({'resource_properties': {
            'secrets': {'MYSQL_PWD': ROOT}, 'key': KEY + '='}})
        problems = leaks.check(
            [place('stack event show', event),
             place(leaks.SECRET_DATA, ROOT + KEY),
             place(leaks.EXPORT_PARAMETERS, ADMIN)],
            NEEDLES, {'stack event show'})
        self.assertIn('1 places show secret values', problems)
        self.assertIn('stack event show: d: Fernet key keystone/0, '
                      'database root password', problems)
        self.assertIn('"MYSQL_PWD": "<database root password>"', problems)
        for value in NEEDLES:
            self.assertNotIn(value, problems)

    def test_a_value_is_found_base64_json_or_url_encoded(self):
        value = 'pa"ss/word-0123456789abcdef'
        embedded = 'mysql://u:%s@db/x' % value
        for spelling in (base64.b64encode(embedded.encode()).decode(),
                         base64.b64encode(value.encode()).decode(),
                         json.dumps({'v': value}),
                         urllib.parse.quote(embedded, '')):
            hits = leaks.where([place('podman inspect', spelling)],
                               {value: 'db password'})
            self.assertEqual(['db password'], [
                n for names in hits.values() for n in names], spelling)

    def test_podman_inspect_may_show_secret_variables_only(self):
        hits = leaks.where([place(leaks.PODMAN_INSPECT, json.dumps(
            {'Env': ['MYSQL_PWD=' + ROOT], 'Labels': {'k': KEY}}))],
            NEEDLES)
        self.assertEqual({(leaks.PODMAN_INSPECT, 'd'): [
            'Fernet key keystone/0']},
            {p: sorted(n) for p, n in leaks.leaks(hits).items()})
        self.assertEqual({'database root password'}, set(leaks.kept(hits)))
        # Another service's secret variable (its task's env file) too.
        other = {'Gl4nce-db-pass': 'glance-db-create SERVICE_DB_PASSWORD'}
        hits = leaks.where([place(leaks.PODMAN_INSPECT, json.dumps(
            {'Env': ['SERVICE_DB_PASSWORD=Gl4nce-db-pass']}))], other)
        self.assertEqual({}, leaks.leaks(hits))

    def test_a_context_cut_never_shows_part_of_a_value(self):
        content = ADMIN + 'x' * 10 + ROOT + 'y' * 10 + KEY
        [names] = leaks.where([place('heat-engine.log', content)],
                              NEEDLES).values()
        for excerpt in names.values():
            for value in NEEDLES:
                self.assertNotIn(value[:8], excerpt)
                self.assertNotIn(value[-8:], excerpt)

    def test_the_admin_password_belongs_only_in_the_export_parameters(self):
        hits = leaks.where([place(leaks.EXPORT_PARAMETERS, ADMIN + ROOT),
                            place('stack export', ADMIN),
                            place(leaks.HEAT_DATABASE, ADMIN)], NEEDLES)
        self.assertEqual({('stack export', 'd'): ['admin password'],
                          (leaks.HEAT_DATABASE, 'd'): ['admin password'],
                          (leaks.EXPORT_PARAMETERS, 'd'): [
                              'database root password']},
                         {p: sorted(n) for p, n in leaks.leaks(hits).items()})
        self.assertEqual({'admin password'}, set(leaks.kept(hits)))

    def test_reading_nothing_fails(self):
        problems = leaks.check([place('stack show', ''),
                                place(leaks.SECRET_DATA, ROOT)],
                               NEEDLES, {'stack show', 'event list'})
        self.assertIn('nothing read from: event list, stack show', problems)
        self.assertIn('not found where they belong: Fernet key keystone/0, '
                      'admin password', problems)
        self.assertEqual('', leaks.check(
            [place('stack show', '{}'), place(leaks.SECRET_DATA, ROOT + KEY),
             place(leaks.EXPORT_PARAMETERS, ADMIN)],
            NEEDLES, {'stack show'}))


class NeedlesTest(unittest.TestCase):

    def test_kubernetes_secrets_of_the_stacks_services(self):
        def secret(app, data):
            return {'metadata': {'labels': {'app.kubernetes.io/name': app}},
                    'data': {k: base64.b64encode(v.encode()).decode()
                             for k, v in data.items()}}
        found = leaks.kube_needles([
            secret('p-mariadb', {'env.MARIADB_ROOT_PASSWORD': ROOT}),
            secret('p-keystone', {
                'file.var_lib_kolla_config_files_fernet-keys_0': KEY + '=',
                'file.var_lib_kolla_config_files_keystone.conf': 'x'}),
            secret('other-mariadb', {'env.MARIADB_ROOT_PASSWORD': 'no'})],
            'p-')
        self.assertEqual({ROOT: 'database root password',
                          KEY: 'Fernet key keystone/0'}, found)

    def test_docker_host_files_of_the_stacks_services(self):
        with tempfile.TemporaryDirectory() as root:
            files = {'p-mariadb/secrets.env': 'MARIADB_ROOT_PASSWORD=%s\n'
                     % ROOT,
                     'p-keystone/secret-files/var/lib/kolla/config_files/'
                     'fernet-keys/0': KEY + '=\n',
                     'p-keystone/files/etc/x.conf': ADMIN,
                     'p-mariadb/data/ibdata1': ADMIN,
                     'q-mariadb/secrets.env': 'MARIADB_ROOT_PASSWORD=no\n'}
            for path, content in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, path)),
                            exist_ok=True)
                with open(os.path.join(root, path), 'w') as f:
                    f.write(content)
            self.assertEqual({ROOT: 'database root password',
                              KEY: 'Fernet key keystone/0'},
                             leaks.host_needles(root, 'p-'))
            self.assertEqual(
                ['p-keystone/files/etc/x.conf',
                 'p-keystone/secret-files/var/lib/kolla/config_files/'
                 'fernet-keys/0', 'p-mariadb/secrets.env'],
                sorted(os.path.relpath(path, root)
                       for path, _ in leaks.host_files(root, 'p-')))
