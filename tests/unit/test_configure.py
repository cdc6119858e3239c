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

"""heat-k8s-configure: the INI editor, plugin_dirs, the catalog, the
cluster manifests it prints."""

import io
import os
import stat
import tempfile
import unittest
from unittest import mock

from oslo_config import iniparser
import yaml

from heat_k8s import manifests
from heat_k8s.cmd import configure
from heat_k8s.rendering import inifile

OURS = '/opt/heat/lib/python3.11/site-packages/heat_k8s/plugin'
DEFAULTS = ','.join(configure.DEFAULT_PLUGIN_DIRS)

# The shape of Heat's sample configuration and of a devstack heat.conf:
# a license header, commented-out option templates, a multi-line value,
# options in several sections.
SAMPLE = """\
# heat.conf written by the operator; keep this comment
[DEFAULT]

#
# From heat.common.config
#

# List of directories to search for plug-ins. (list value)
#plugin_dirs = /usr/lib64/heat,/usr/lib/heat,/usr/local/lib/heat

debug = True
transport_url = rabbit://stackrabbit:secret@10.0.0.2:5672/

[database]
# the database
connection = mysql+pymysql://root:secret@127.0.0.1/heat?charset=utf8
extra: value with: colons

[keystone_authtoken]
memcached_servers = localhost:11211
# a multi-line value (oslo.config continuation lines)
auth_url = http://10.0.0.2/identity
    more
cafile = /opt/stack/data/ca-bundle.pem
"""


class _Parsed(iniparser.BaseParser):
    """oslo.config's own parser, collecting {section: {key: [values]}}."""

    def __init__(self):
        super().__init__()
        self.sections = {}
        self.section = None

    def new_section(self, section):
        self.section = section
        self.sections.setdefault(section, {})

    def assignment(self, key, value):
        self.sections[self.section].setdefault(key, []).extend(value)

    def parse_exc(self, msg, lineno, line=None):
        return AssertionError('%s at %d: %r' % (msg, lineno, line))


def oslo_parse(text):
    p = _Parsed()
    p.parse(io.StringIO(text))
    return p.sections


def args(*argv):
    return configure.parser().parse_args(
        ['--plugin-dir', OURS] + list(argv))


class IniFileTest(unittest.TestCase):

    def test_get_reads_as_oslo_config(self):
        conf = inifile.IniFile(SAMPLE)
        parsed = oslo_parse(SAMPLE)
        self.assertIsNone(conf.get('DEFAULT', 'plugin_dirs'))
        self.assertEqual('True', conf.get('DEFAULT', 'debug'))
        self.assertEqual('value with: colons',
                         conf.get('database', 'extra'))
        self.assertEqual(parsed['database']['extra'][-1],
                         conf.get('database', 'extra'))
        self.assertEqual('http://10.0.0.2/identity\nmore',
                         conf.get('keystone_authtoken', 'auth_url'))

    def test_set_existing_key_rewrites_only_its_line(self):
        conf = inifile.IniFile(SAMPLE)
        self.assertTrue(conf.set('DEFAULT', 'debug', 'False'))
        self.assertEqual(SAMPLE.replace('debug = True', 'debug = False'),
                         conf.text())

    def test_set_same_value_is_no_change(self):
        conf = inifile.IniFile(SAMPLE)
        conf.set('DEFAULT', 'debug', 'False')
        self.assertFalse(conf.set('DEFAULT', 'debug', 'False'))

    def test_set_replaces_continuation_lines(self):
        conf = inifile.IniFile(SAMPLE)
        conf.set('keystone_authtoken', 'auth_url', 'http://k/identity')
        text = conf.text()
        self.assertNotIn('    more', text)
        self.assertEqual(['http://k/identity'],
                         oslo_parse(text)['keystone_authtoken']['auth_url'])
        self.assertIn('cafile = /opt/stack/data/ca-bundle.pem', text)

    def test_new_key_goes_after_its_commented_template(self):
        conf = inifile.IniFile(SAMPLE)
        conf.set('DEFAULT', 'plugin_dirs', '/a,/b')
        lines = conf.text().splitlines()
        at = lines.index('plugin_dirs = /a,/b')
        self.assertTrue(lines[at - 1].startswith('#plugin_dirs = '))

    def test_new_key_without_template_goes_after_last_option(self):
        conf = inifile.IniFile(SAMPLE)
        conf.set('database', 'max_pool_size', '10')
        self.assertIn('extra: value with: colons\nmax_pool_size = 10\n\n'
                      '[keystone_authtoken]', conf.text())

    def test_new_section_is_appended(self):
        conf = inifile.IniFile(SAMPLE)
        conf.set('kubernetes', 'api_url', 'https://k8s:6443')
        self.assertTrue(conf.text().startswith(SAMPLE))
        self.assertTrue(conf.text().endswith(
            '\n\n[kubernetes]\napi_url = https://k8s:6443\n'))

    def test_missing_default_goes_before_first_section(self):
        conf = inifile.IniFile('# header\n[database]\nconnection = x\n')
        conf.set('DEFAULT', 'plugin_dirs', '/p')
        self.assertEqual('# header\n[DEFAULT]\nplugin_dirs = /p\n\n'
                         '[database]\nconnection = x\n', conf.text())

    def test_empty_file(self):
        conf = inifile.IniFile('')
        conf.set('DEFAULT', 'a', '1')
        self.assertEqual('[DEFAULT]\na = 1\n', conf.text())

    def test_last_assignment_wins_and_is_the_one_set(self):
        text = '[DEFAULT]\nx = 1\ny = 2\nx = 3\n'
        conf = inifile.IniFile(text)
        self.assertEqual('3', conf.get('DEFAULT', 'x'))
        conf.set('DEFAULT', 'x', '4')
        self.assertEqual('[DEFAULT]\nx = 1\ny = 2\nx = 4\n', conf.text())
        self.assertEqual(['1', '4'], oslo_parse(conf.text())['DEFAULT']['x'])

    def test_repeated_section_uses_last_block(self):
        text = '[a]\nx = 1\n\n[b]\ny = 1\n\n[a]\nz = 1\n'
        conf = inifile.IniFile(text)
        conf.set('a', 'w', '2')
        self.assertEqual('[a]\nx = 1\n\n[b]\ny = 1\n\n[a]\nz = 1\nw = 2\n',
                         conf.text())

    def test_remove_every_assignment(self):
        text = ('[kubernetes]\napi_url = https://a\n  cont\n'
                'region_name = R\napi_url = https://b\n')
        conf = inifile.IniFile(text)
        self.assertTrue(conf.remove('kubernetes', 'api_url'))
        self.assertEqual('[kubernetes]\nregion_name = R\n', conf.text())
        self.assertFalse(conf.remove('kubernetes', 'api_url'))

    def test_missing_final_newline(self):
        conf = inifile.IniFile('[DEFAULT]\nx = 1')
        conf.set('DEFAULT', 'y', '2')
        self.assertEqual('[DEFAULT]\nx = 1\ny = 2\n', conf.text())

    def test_crlf_lines_are_kept(self):
        conf = inifile.IniFile('[DEFAULT]\r\nx = 1\r\n')
        conf.set('DEFAULT', 'y', '2')
        self.assertEqual('[DEFAULT]\r\nx = 1\r\ny = 2\n', conf.text())

    def test_option_outside_section_is_an_error(self):
        with self.assertRaises(inifile.ParseError):
            inifile.IniFile('x = 1\n').get('DEFAULT', 'x')

    def test_quotes_stripped_like_oslo(self):
        conf = inifile.IniFile('[DEFAULT]\nx = "a b"\n')
        self.assertEqual('a b', conf.get('DEFAULT', 'x'))


class PluginDirsTest(unittest.TestCase):

    def test_unset_gets_heat_defaults_plus_ours(self):
        self.assertEqual(DEFAULTS + ',' + OURS,
                         configure.merge_plugin_dirs(None, OURS))

    def test_custom_value_is_kept(self):
        self.assertEqual('/srv/heat-plugins,' + OURS,
                         configure.merge_plugin_dirs('/srv/heat-plugins',
                                                     OURS))

    def test_explicitly_empty_stays_without_defaults(self):
        self.assertEqual(OURS, configure.merge_plugin_dirs('', OURS))

    def test_idempotent(self):
        once = configure.merge_plugin_dirs(None, OURS)
        self.assertEqual(once, configure.merge_plugin_dirs(once, OURS))
        self.assertEqual(once, configure.merge_plugin_dirs(once + '/', OURS))

    def test_other_heat_k8s_installation_is_replaced(self):
        old = '/usr/lib/python3/dist-packages/heat_k8s/plugin'
        self.assertEqual('/srv/p,' + OURS, configure.merge_plugin_dirs(
            '/srv/p, %s ,/srv/p' % old, OURS))


class ConfigureFileTest(unittest.TestCase):

    def setUp(self):
        fd, self.path = tempfile.mkstemp(suffix='.conf')
        with os.fdopen(fd, 'w') as f:
            f.write(SAMPLE)
        os.chmod(self.path, 0o640)
        self.addCleanup(os.unlink, self.path)

    def run_configure(self, *argv):
        a = args('--config-file', self.path, *argv)
        out = io.StringIO()
        changed = configure.configure_file(a, out=out)
        with open(self.path) as f:
            return changed, f.read(), out.getvalue()

    def test_writes_settings_and_keeps_everything_else(self):
        changed, text, out = self.run_configure(
            '--api-url', 'https://k8s.example.com:6443',
            '--ca-file', '/etc/heat/k8s-ca.pem', '--insecure',
            '--default-namespace', 'heat-%(project_id)s')
        self.assertTrue(changed)
        parsed = oslo_parse(text)
        self.assertEqual([DEFAULTS + ',' + OURS],
                         parsed['DEFAULT']['plugin_dirs'])
        self.assertEqual(['https://k8s.example.com:6443'],
                         parsed['kubernetes']['api_url'])
        self.assertEqual(['heat-%(project_id)s'],
                         parsed['kubernetes']['default_namespace'])
        self.assertEqual({'ca_file': ['/etc/heat/k8s-ca.pem'],
                          'insecure': ['true']},
                         parsed['clients_kubernetes'])
        # Every original line is still there, in order.
        new_lines = iter(text.splitlines())
        for line in SAMPLE.splitlines():
            self.assertIn(line, new_lines)
        self.assertIn('[kubernetes] api_url = https://k8s.example.com',
                      out)
        self.assertEqual(0o640, stat.S_IMODE(os.stat(self.path).st_mode))

    def test_second_run_changes_nothing(self):
        self.run_configure('--catalog', '--ca-file', '/ca.pem')
        before = os.stat(self.path)
        changed, text, out = self.run_configure('--catalog', '--ca-file',
                                                '/ca.pem')
        self.assertFalse(changed)
        self.assertIn('unchanged', out)
        self.assertEqual(before.st_ino, os.stat(self.path).st_ino)
        self.assertEqual(1, text.count(OURS))

    def test_catalog_removes_api_url(self):
        self.run_configure('--api-url', 'https://a:6443')
        changed, text, _ = self.run_configure('--catalog')
        self.assertTrue(changed)
        self.assertNotIn('api_url', text)

    def test_options_not_given_are_left_alone(self):
        self.run_configure('--ca-file', '/ca.pem', '--insecure')
        _, text, _ = self.run_configure('--no-insecure')
        parsed = oslo_parse(text)
        self.assertEqual({'ca_file': ['/ca.pem'], 'insecure': ['false']},
                         parsed['clients_kubernetes'])

    def test_kubeconfig_set_and_removed(self):
        _, text, _ = self.run_configure('--kubeconfig', '/etc/heat/kube')
        self.assertEqual(['/etc/heat/kube'],
                         oslo_parse(text)['kubernetes']['kubeconfig'])
        _, text, _ = self.run_configure('--kubeconfig', '')
        self.assertNotIn('kubeconfig', text)

    def test_custom_plugin_dirs_kept(self):
        with open(self.path, 'a') as f:
            f.write('[DEFAULT]\nplugin_dirs = /srv/mine\n')
        _, text, _ = self.run_configure()
        self.assertEqual(['/srv/mine,' + OURS],
                         oslo_parse(text)['DEFAULT']['plugin_dirs'])

    def test_missing_file_is_an_error(self):
        with self.assertRaises(SystemExit):
            configure.configure_file(args('--config-file', self.path + 'x'),
                                     out=io.StringIO())

    def test_bad_namespace_format(self):
        with self.assertRaises(SystemExit):
            configure.main(['--config-file', self.path,
                            '--default-namespace', '%(tenant)s'])

    def test_nothing_to_do_is_a_usage_error(self):
        with mock.patch('sys.stderr', io.StringIO()), \
                self.assertRaises(SystemExit):
            configure.main([])

    def test_api_url_and_catalog_exclude_each_other(self):
        with mock.patch('sys.stderr', io.StringIO()), \
                self.assertRaises(SystemExit):
            args('--api-url', 'https://a', '--catalog')


class _Endpoint(object):
    def __init__(self, interface, url):
        self.interface, self.url = interface, url


class EnsureServiceTest(unittest.TestCase):

    def conn(self, services=(), endpoints=()):
        conn = mock.Mock()
        conn.identity.services.return_value = list(services)
        conn.identity.endpoints.return_value = list(endpoints)
        conn.identity.create_service.return_value = mock.Mock(id='svc')
        return conn

    def test_creates_service_and_both_endpoints(self):
        conn = self.conn()
        configure.ensure_service(conn, 'kubernetes', 'kubernetes',
                                 {'public': 'https://k:6443',
                                  'internal': 'https://k:6443'}, 'R1')
        conn.identity.create_service.assert_called_once_with(
            type='kubernetes', name='kubernetes', enabled=True,
            description='')
        self.assertEqual(
            [mock.call(service_id='svc', interface=i, url='https://k:6443',
                       region_id='R1', enabled=True)
             for i in ('internal', 'public')],
            conn.identity.create_endpoint.call_args_list)

    def test_existing_is_kept_and_wrong_url_corrected(self):
        public = _Endpoint('public', 'https://old:6443')
        internal = _Endpoint('internal', 'https://k:6443')
        conn = self.conn([mock.Mock(id='svc')], [public, internal])
        log = []
        configure.ensure_service(conn, 'kubernetes', 'kubernetes',
                                 {'public': 'https://k:6443',
                                  'internal': 'https://k:6443'}, 'R1',
                                 log=log.append)
        conn.identity.create_service.assert_not_called()
        conn.identity.create_endpoint.assert_not_called()
        conn.identity.update_endpoint.assert_called_once_with(
            public, url='https://k:6443')
        conn.identity.endpoints.assert_called_once_with(service_id='svc',
                                                        region_id='R1')
        self.assertEqual(['kubernetes endpoint internal unchanged in R1: '
                          'https://k:6443',
                          'kubernetes endpoint public updated in R1: '
                          'https://k:6443'], log)

    def test_register_uses_cloud_and_region(self):
        conn = self.conn([mock.Mock(id='svc')])
        with mock.patch.object(configure, 'connect',
                               return_value=conn) as connect:
            configure.main(['--register-endpoint', 'https://k:6443',
                            '--region', 'R2', '--os-cloud', 'devstack-admin',
                            '--interface', 'public'])
        connect.assert_called_once_with('devstack-admin', 'R2')
        conn.identity.create_endpoint.assert_called_once_with(
            service_id='svc', interface='public', url='https://k:6443',
            region_id='R2', enabled=True)


class ManifestsTest(unittest.TestCase):
    """`heat-k8s-configure manifests NAME...`: what the package ships, on
    stdout for `kubectl apply -f -`."""

    def run_main(self, *argv):
        out, err = io.StringIO(), io.StringIO()
        with mock.patch('sys.stdout', out), mock.patch('sys.stderr', err):
            try:
                code = configure.main(['manifests', *argv])
            except SystemExit as e:
                code = e.code
        return code, out.getvalue(), err.getvalue()

    def test_prints_the_shipped_manifest(self):
        for name in manifests.FILES:
            self.assertEqual((0, manifests.text(name), ''),
                             self.run_main(name))

    def test_several_are_one_stream(self):
        code, out, _ = self.run_main('isolation', 'hardening')
        self.assertEqual(0, code)
        kinds = [d['kind'] for d in yaml.safe_load_all(out) if d]
        self.assertEqual(
            [d['kind'] for name in ('isolation', 'hardening')
             for d in yaml.safe_load_all(manifests.text(name)) if d],
            kinds)

    def test_an_unknown_name_is_a_usage_error(self):
        code, out, err = self.run_main('firewall')
        self.assertEqual((2, ''), (code, out))
        self.assertIn("invalid choice: 'firewall'", err)
        self.assertEqual(2, self.run_main()[0])

    def test_the_other_options_are_unchanged(self):
        # `manifests` only as the first word: heat.conf's command is as it
        # was, and says where the manifests are.
        with mock.patch('sys.stdout', io.StringIO()) as out, \
                self.assertRaises(SystemExit):
            configure.main(['--help'])
        self.assertIn('heat-k8s-configure manifests NAME',
                      ' '.join(out.getvalue().split()))
        with mock.patch('sys.stderr', io.StringIO()) as err, \
                self.assertRaises(SystemExit):
            configure.main(['--config-file', self.id(), 'manifests'])
        self.assertIn('unrecognized arguments: manifests', err.getvalue())
