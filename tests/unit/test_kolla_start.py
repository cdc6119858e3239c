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

"""The images' kolla_start (keystone, glance and placement share it):
config.json's copies on local files; the command it runs."""

import grp
import os
import pwd
import shutil
import stat
import tempfile
import unittest
from unittest import mock

from tests.unit import scripts

IMAGES_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'tools', 'images')
SCRIPT = os.path.join(IMAGES_DIR, 'kolla', 'kolla_start')


def _load():
    return scripts.load('kolla_start', 'tools', 'images', 'kolla',
                        'kolla_start')


kolla_start = _load()
# Whoever runs the tests owns what they copy.
OWNER = '%s:%s' % (pwd.getpwuid(os.getuid()).pw_name,
                   grp.getgrgid(os.getgid()).gr_name)


class CopyTest(unittest.TestCase):

    script = kolla_start

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.src = os.path.join(self.tmp, 'config_files')
        self.dst = os.path.join(self.tmp, 'etc')
        self.write('keystone.conf', '[DEFAULT]\n')
        self.write('fernet-keys/0', 'k0')
        self.write('fernet-keys/1', 'k1')
        self.write('conf.d/a.conf', 'a')
        self.write('conf.d/b.conf', 'b')

    def write(self, rel, text):
        path = os.path.join(self.src, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)

    def copy(self, source, dest, perm='0600', **extra):
        self.script.copy_config_file(dict(
            source=os.path.join(self.src, source),
            dest=os.path.join(self.dst, dest), owner=OWNER, perm=perm,
            **extra))

    def mode(self, rel):
        return stat.S_IMODE(os.stat(os.path.join(self.dst, rel)).st_mode)

    def test_file_with_perm_and_parents(self):
        self.copy('keystone.conf', 'keystone/keystone.conf', perm='0640')
        with open(os.path.join(self.dst, 'keystone/keystone.conf')) as f:
            self.assertEqual('[DEFAULT]\n', f.read())
        self.assertEqual(0o640, self.mode('keystone/keystone.conf'))

    def test_directory_gets_x_where_it_grants_r(self):
        self.copy('fernet-keys', 'keystone/fernet-keys')
        self.assertEqual(0o700, self.mode('keystone/fernet-keys'))
        self.assertEqual(0o600, self.mode('keystone/fernet-keys/0'))
        self.assertEqual(['0', '1'], sorted(os.listdir(
            os.path.join(self.dst, 'keystone/fernet-keys'))))

    def test_a_directory_copy_drops_files_gone_from_the_source(self):
        self.copy('fernet-keys', 'fernet-keys')
        os.unlink(os.path.join(self.src, 'fernet-keys/0'))
        self.copy('fernet-keys', 'fernet-keys')
        self.assertEqual(['1'], os.listdir(
            os.path.join(self.dst, 'fernet-keys')))

    def test_glob_into_a_directory(self):
        self.copy('conf.d/*.conf', 'apache2/conf-enabled/')
        self.assertEqual(['a.conf', 'b.conf'], sorted(os.listdir(
            os.path.join(self.dst, 'apache2/conf-enabled'))))

    def test_file_into_a_directory_named_with_a_slash(self):
        self.copy('keystone.conf', 'keystone/')
        self.assertTrue(os.path.isfile(
            os.path.join(self.dst, 'keystone/keystone.conf')))

    def test_missing_source(self):
        self.copy('nothing.conf', 'x.conf', optional=True)
        self.assertFalse(os.path.exists(self.dst))
        self.assertRaises(SystemExit, self.copy, 'nothing.conf', 'x.conf')

    def test_permissions_entry_recurses(self):
        self.copy('fernet-keys', 'keys', perm='0644')
        self.script.apply_permissions({
            'path': os.path.join(self.dst, 'keys'), 'owner': OWNER,
            'perm': '0600', 'recurse': True})
        self.assertEqual(0o700, self.mode('keys'))
        self.assertEqual(0o600, self.mode('keys/1'))


class CommandTest(unittest.TestCase):
    """What kolla_start runs: the service comes from the
    image's KOLLA_SERVICE_NAME."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp)
        self.config = os.path.join(self.tmp, 'config.json')
        with open(self.config, 'w') as f:
            f.write('{"command": "uwsgi --ini /etc/uwsgi/glance-api.ini"}')
        self.module = _load()
        self.module.CONFIG = self.config
        self.module.COPIED_MARK = os.path.join(self.tmp, 'copied')

    def run_main(self, **env):
        with mock.patch.dict(os.environ, env, clear=True), \
                mock.patch.object(os, 'execvp') as execvp:
            self.module.main()
            return execvp.call_args[0][1], dict(os.environ)

    def test_the_command(self):
        argv, env = self.run_main(KOLLA_SERVICE_NAME='glance')
        self.assertEqual(['uwsgi', '--ini', '/etc/uwsgi/glance-api.ini'],
                         argv)
        self.assertEqual('0.0.0.0', env['BIND_ADDRESS'])  # noqa: S104
        argv, env = self.run_main(KOLLA_SERVICE_NAME='keystone',
                                  BIND_ADDRESS='127.0.0.9')
        self.assertEqual('127.0.0.9', env['BIND_ADDRESS'])
        # keystone's Apache site reads its own name for the address.
        self.assertEqual('127.0.0.9', env['KEYSTONE_BIND_ADDRESS'])

    def test_bootstrap_is_the_schema_sync_as_the_service_user(self):
        for service, sync in (('keystone', ['keystone-manage', 'db_sync']),
                              ('glance', ['glance-manage', 'db', 'sync']),
                              ('placement',
                               ['placement-manage', 'db', 'sync'])):
            argv, _env = self.run_main(KOLLA_SERVICE_NAME=service,
                                       KOLLA_BOOTSTRAP='')
            self.assertEqual(['setpriv', '--reuid=' + service,
                              '--regid=' + service, '--init-groups'] + sync,
                             argv)

    def test_an_unknown_service_is_refused(self):
        for env in ({}, {'KOLLA_SERVICE_NAME': 'cinder'}):
            with mock.patch.dict(os.environ, env, clear=True), \
                    mock.patch.object(os, 'execvp') as execvp:
                self.assertRaises(SystemExit, self.module.main)
            execvp.assert_not_called()
