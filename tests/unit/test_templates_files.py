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

"""The Kubernetes service templates' files, as Heat resolves them.

A service's config_files and config_templates become ConfigMap and
Secret keys. Heat's yaql has a memory quota ([yaql] memory_quota, 10000
by default) that a file passed through an expression exceeds once it is
larger than that: keystone-register.py is. The templates' resources are
resolved here by Heat's own functions with the default quota.
"""

import json
import os

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

from heat.common import template_format
from heat.engine import environment
from heat.engine import stack
from heat.engine import template as heat_template
from heat.tests import utils
import yaml

TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'templates', 'services', 'kubernetes')
BIG = '# a script larger than yaql\'s memory quota\n' + 'x = 1\n' * 3000
SAMPLES = {'string': 'svc', 'json': {}, 'number': 1, 'boolean': False,
           'comma_delimited_list': ''}


class LargeFilesTest(heat_harness.KubernetesTestCase):

    def resolve(self, name, resource, prop):
        with open(os.path.join(TEMPLATES, name)) as f:
            template = f.read()
        params = {key: SAMPLES[p['type']]
                  for key, p in yaml.safe_load(template)[
                      'parameters'].items() if 'default' not in p}
        params.update(target={'namespace': 'ns'}, image='img:1',
                      config_files={'/etc/svc/register.py': BIG},
                      config_templates={'/etc/svc/svc.conf': BIG})
        stack = self.parse(template, {'parameters': params})
        return stack[resource].properties[prop]

    def test_a_large_file_becomes_a_configmap_key(self):
        self.assertGreater(len(BIG), 10000)
        for name in ('container-service.yaml', 'container-task.yaml',
                     'privileged-service.yaml'):
            with self.subTest(name):
                self.assertEqual({'etc_svc_register.py': BIG},
                                 self.resolve(name, 'config', 'data'))
                self.assertEqual({'file.etc_svc_svc.conf': BIG},
                                 self.resolve(name, 'secret', 'templates'))


class SharedFilesTest(heat_harness.KubernetesTestCase):
    """The three templates hold the same ConfigMap and Secret.

    They are repeated, not a nested template of their own: that would be
    one more nested stack per service for Heat to create, check and
    delete. This test keeps the copies from drifting apart. A privileged
    service takes no `secrets` or `secret_files`: its Secret has no
    string_data; nor `kolla_config`: its ConfigMap holds config_files as
    they are.
    """

    def test_the_config_and_secret_resources_are_the_same(self):
        resources = {}
        for name in ('container-service.yaml', 'container-task.yaml',
                     'privileged-service.yaml'):
            with open(os.path.join(TEMPLATES, name)) as f:
                defined = yaml.safe_load(f)['resources']
            resources[name] = {key: defined[key]
                               for key in ('config', 'secret')}
        first = resources.pop('container-service.yaml')
        self.assertIn('map_replace', first['config']['properties']['data'])
        privileged = resources['privileged-service.yaml']['secret']
        self.assertNotIn('string_data', privileged['properties'])
        privileged['properties']['string_data'] = first['secret'][
            'properties']['string_data']
        given = {'get_param': 'config_files'}
        files = first['config']['properties']['data']['map_replace'][0]
        self.assertEqual(given, files['map_merge'][0])
        data = resources['privileged-service.yaml']['config']['properties'][
            'data']['map_replace']
        self.assertEqual(given, data[0])
        self.assertEqual(given, data[1]['keys']['yaql']['data'])
        data[0] = data[1]['keys']['yaql']['data'] = files
        for name, defined in resources.items():
            with self.subTest(name):
                self.assertEqual(first, defined)


class KollaConfigTest(heat_harness.KubernetesTestCase):
    """kolla_config becomes the config.json kolla's images read, on both
    backends, with the copy strategy the files need."""

    KOLLA = {'command': 'glance-manage db sync',
             'config_files': [{'source': '/var/lib/kolla/config_files/a.conf',
                               'dest': '/etc/a/a.conf', 'owner': 'a',
                               'perm': '0600'}],
             'permissions': [{'path': '/var/lib/a', 'owner': 'a:a',
                              'recurse': True}]}
    JSON = json.dumps(KOLLA, sort_keys=True)
    PATH = '/var/lib/kolla/config_files/config.json'

    def parse_nested(self, backend, name, **params):
        directory = os.path.join(os.path.dirname(TEMPLATES), backend)
        with open(os.path.join(directory, name)) as f:
            template = template_format.parse(f.read())
        params = dict({key: SAMPLES[p['type']]
                       for key, p in template['parameters'].items()
                       if 'default' not in p}, **params)
        params.update(image='img:1', target={'namespace': 'ns',
                                             'address': '10.0.0.1'})
        tmpl = heat_template.Template(
            template, env=environment.Environment({'parameters': params}),
            files={'write-files.py': '@DATA@'})
        return stack.Stack(utils.dummy_context(), 'kolla', tmpl)

    def test_kubernetes(self):
        for name, env in (('container-service.yaml', ('pod', 'value')),
                          ('container-task.yaml', ('job', 'spec'))):
            with self.subTest(name):
                stk = self.parse_nested(
                    'kubernetes', name, kolla_config=self.KOLLA,
                    config_files={'/etc/b': 'b'},
                    environment={'DEBUG': 'yes'})
                self.assertEqual(
                    {'etc_b': 'b',
                     'var_lib_kolla_config_files_config.json': self.JSON},
                    stk['config'].properties['data'])
                self.assertIn('KOLLA_CONFIG_STRATEGY', json.dumps(
                    stk[env[0]].properties[env[1]]))

    def test_docker(self):
        for name in ('container-service.yaml', 'container-task.yaml'):
            with self.subTest(name):
                stk = self.parse_nested('docker', name,
                                        kolla_config=self.KOLLA)
                data = json.loads(stk['files'].properties['config'])
                self.assertEqual({self.PATH: self.JSON}, data['config_files'])

    def test_none_without_it(self):
        for backend, name in (('kubernetes', 'container-task.yaml'),
                              ('docker', 'container-task.yaml')):
            with self.subTest(backend):
                stk = self.parse_nested(backend, name,
                                        environment={'DEBUG': 'yes'})
                self.assertNotIn('KOLLA_CONFIG_STRATEGY', json.dumps(
                    {k: dict(r.properties) for k, r in stk.items()
                     if k in ('job', 'containers')}, default=str))
                self.assertNotIn('config.json', json.dumps(
                    {k: dict(r.properties) for k, r in stk.items()
                     if k in ('config', 'files')}, default=str))
