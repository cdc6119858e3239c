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

"""templates/controlplane.yaml and its services, offline.

`openstack orchestration template validate` as the CLI sends it: heatclient
reads the template and the environment files and gathers every file they
name (the services' templates, the backends' templates, get_file), and
Heat's engine (EngineService.validate_template, in-process) answers. With
every backend's environment, with a service switched off, and Glance
without Keystone, which must be refused naming the dependency.

Plus what `template validate` does not reach: the Jinja2 templates the
services' configuration is rendered from, rendered here with heat-k8s's
own renderer and the values the service templates give them; and
templates/identity.yaml as Keystone alone and as a service of the control
plane.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import configparser
import json
import os

from heat.common import template_format
from heat.engine import environment
from heat.engine import function
from heat.engine import stack
from heat.engine import template as heat_template
from heatclient.common import template_utils
import yaml

from heat_k8s import rendering

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TEMPLATES = os.path.join(REPO, 'templates')
CONTROLPLANE = os.path.join(TEMPLATES, 'controlplane.yaml')
BACKENDS = ('kubernetes', 'deployed-server-docker', 'nova-docker')
SERVICES = {'OS::HeatK8s::Services::Keystone': 'identity.yaml',
            'OS::HeatK8s::Services::Glance': 'glance.yaml',
            'OS::HeatK8s::Services::Placement': 'placement.yaml',
            'OS::HeatK8s::Services::Neutron': 'neutron.yaml',
            'OS::HeatK8s::Services::Nova': 'nova.yaml'}
PARAMS = {'admin_password': 'unit-Admin-0123'}
# What the control plane gives identity.yaml (hand-made sample values).
INFRASTRUCTURE = {'target': {'namespace': ''}, 'database_host': 'db',
                  'database_port': 3306, 'database_root_password': 'ref',
                  'memcached_servers': ['mc:11211']}


def env_path(name):
    return os.path.join(REPO, 'environments', name + '.yaml')


def cli_request(template_path, envs=(), params=None):
    """(template, files, environment) as `openstack ... -t -e` sends
    them: heatclient's own gathering of the files."""
    files, template = template_utils.process_template_path(template_path)
    env_files, env = template_utils.process_multiple_environments_and_files(
        env_paths=[env_path(e) for e in envs], template=template)
    files.update(env_files)
    env.setdefault('parameters', {}).update(params or {})
    return template, files, env


class ControlPlaneValidateTest(heat_harness.KubernetesTestCase):

    def validate(self, template_path, envs, params=PARAMS):
        template, files, env = cli_request(template_path, envs, params)
        return self.engine().validate_template(
            self.context(), template, env, files=files)

    def assertValid(self, envs, template_path=CONTROLPLANE, params=PARAMS):
        answer = self.validate(template_path, envs, params)
        self.assertNotIn('Error', answer, answer.get('Error'))
        return answer

    def assertRefused(self, envs, *fragments):
        answer = self.validate(CONTROLPLANE, envs)
        self.assertIn('Error', answer, 'template validate accepted it')
        for fragment in fragments:
            self.assertIn(fragment, answer['Error'])
        return answer['Error']

    def test_every_backend(self):
        for backend in BACKENDS:
            with self.subTest(backend=backend):
                answer = self.assertValid([backend])
                self.assertEqual('true', answer['Parameters'][
                    'admin_password']['NoEcho'])
                registry = answer['Environment']['resource_registry']
                for service, template in SERVICES.items():
                    self.assertTrue(registry[service].endswith(
                        '/templates/' + template), registry)

    def test_with_the_local_cloud_images(self):
        self.assertValid(['deployed-server-docker', 'localcloud-images',
                          'localcloud-controlplane-images',
                          'localcloud-docker-host'])
        self.assertValid(['kubernetes', 'localcloud-images',
                          'localcloud-controlplane-images',
                          'localcloud-kubernetes'])

    def test_compute_nodes_on_kubernetes_only(self):
        self.assertValid(['kubernetes'], params=dict(PARAMS, compute_count=1))
        # A docker host's refuses a replica when its nested stack is made,
        # before it makes anything (`template validate` checks no nested
        # stack's parameter values).
        docker = os.path.join('services', 'docker', 'privileged-service.yaml')
        params = {'name': 'nova-compute', 'image': 'nova-compute:1',
                  'processes': [], 'target': {}}
        self.assertIsNone(_refusal(docker, dict(params, replicas=0)))
        self.assertIn('Compute nodes run on Kubernetes only',
                      _refusal(docker, dict(params, replicas=1)))

    def test_a_service_switched_off(self):
        # Nova needs Glance, Placement and Neutron: off with them.
        for backend in BACKENDS:
            for off, also in (('glance', ['disable-nova']),
                              ('placement', ['disable-nova']),
                              ('neutron', ['disable-nova']),
                              ('nova', []), ('memcached', [])):
                with self.subTest(backend=backend, off=off):
                    answer = self.assertValid(
                        [backend, 'disable-' + off] + also)
                    registry = answer['Environment']['resource_registry']
                    self.assertEqual('OS::Heat::None', registry[
                        'OS::HeatK8s::Services::' + off.capitalize()])
            with self.subTest(backend=backend, off='both'):
                self.assertValid([backend, 'disable-glance',
                                  'disable-placement', 'disable-compute'])
            with self.subTest(backend=backend, off='compute'):
                registry = self.assertValid([backend, 'disable-compute'])[
                    'Environment']['resource_registry']
                for service in ('Nova', 'Neutron', 'RabbitMQ'):
                    self.assertEqual('OS::Heat::None', registry[
                        'OS::HeatK8s::Services::' + service])

    def test_nova_without_neutron_is_refused(self):
        self.assertRefused(
            ['kubernetes', 'disable-neutron'],
            "resources.nova_requires.properties: nova needs neutron (the "
            "servers' ports), which is switched off: "
            "OS::HeatK8s::Services::Neutron is OS::Heat::None in the "
            "environment. Switch nova off too, or neutron on.")

    def test_compute_without_rabbitmq_is_refused(self):
        # Only RabbitMQ off, as an environment mapping it alone would.
        template, files, environ = cli_request(CONTROLPLANE, ['kubernetes'],
                                               PARAMS)
        environ['resource_registry']['OS::HeatK8s::Services::RabbitMQ'] = (
            'OS::Heat::None')
        answer = self.engine().validate_template(self.context(), template,
                                                 environ, files=files)
        self.assertRegex(answer.get('Error', ''),
                         r'(neutron|nova) needs rabbitmq')

    def test_glance_without_keystone_is_refused(self):
        for backend in BACKENDS:
            with self.subTest(backend=backend):
                message = self.assertRefused(
                    [backend, 'disable-keystone', 'disable-placement',
                     'disable-compute'],
                    'resources.glance_requires.properties: glance needs '
                    'keystone (token validation, its service user and '
                    'catalog entry), which is switched off: '
                    'OS::HeatK8s::Services::Keystone is OS::Heat::None in '
                    'the environment. Switch glance off too, or keystone '
                    'on.')
                self.assertNotIn('placement', message)

    def test_every_service_that_needs_keystone_is_named(self):
        message = self.assertRefused(['kubernetes', 'disable-keystone'],
                                     'needs keystone')
        self.assertRegex(message,
                         r'(glance|placement|neutron|nova) needs keystone')

    def test_keystone_off_with_what_needs_it(self):
        # The infrastructure alone: nothing needs what is switched off.
        self.assertValid(['kubernetes', 'disable-keystone', 'disable-glance',
                          'disable-placement', 'disable-compute'])

    def test_refused_by_stack_create_too(self):
        template, files, env = cli_request(
            CONTROLPLANE, ['kubernetes', 'disable-keystone',
                           'disable-placement', 'disable-compute'], PARAMS)
        error = self.create_error(self.context(), 'refused-controlplane',
                                  template, env, files)
        self.assertIn('glance needs keystone', str(error))

    def test_an_existing_keystone_has_no_default_region(self):
        # A region stack must never fall into the provider's RegionOne.
        # The control plane's region is '' unless named, and refused when
        # Keystone's nested stack is made, before it makes anything.
        self.assertEqual('', self.assertValid(['kubernetes'])[
            'Parameters']['region']['Default'])
        params = {'admin_password': 'ref', 'infrastructure': {},
                  'ExistingKeystoneEndpoint': 'https://keystone.example'}
        self.assertIn('a Keystone the control plane does not deploy has no '
                      'default region',
                      _refusal('keystone-existing.yaml',
                               dict(params, region='')))
        self.assertIsNone(_refusal('keystone-existing.yaml',
                                   dict(params, region='RegionTwo')))

    def test_the_services_templates_are_read(self):
        # A provider resource's properties are checked against its
        # template's parameters: a property Glance's template lacks.
        template, files, env = cli_request(CONTROLPLANE, ['kubernetes'],
                                           PARAMS)
        template['resources']['glance']['properties']['glance_colour'] = 1
        answer = self.engine().validate_template(self.context(), template,
                                                 env, files=files)
        self.assertIn('glance_colour', answer.get('Error', ''))

    def test_the_service_templates_alone(self):
        # Each service's template validates on its own too (its inputs as
        # parameters), as a provider template is checked at create.
        keystone = {'auth_url': 'http://keystone:5000/v3',
                    'public_auth_url': 'http://keystone:5000/v3',
                    'region': 'RegionOne'}
        common = {'target': {'namespace': ''}, 'database_host': 'db',
                  'database_root_password': 'ref', 'mariadb_image': 'm:1',
                  'admin_password': 'ref'}
        messaging = {'host': 'rabbitmq', 'port': 5672, 'user': 'openstack',
                     'password': 'ref'}
        for name, params in (
                ('identity', dict(PARAMS, infrastructure=INFRASTRUCTURE)),
                ('glance', dict(common, keystone=keystone)),
                ('placement', dict(common, keystone=keystone)),
                ('neutron', dict(common, keystone=keystone,
                                 messaging=messaging)),
                ('nova', dict(common, keystone=keystone,
                              messaging=messaging))):
            for backend in BACKENDS:
                with self.subTest(service=name, backend=backend):
                    self.assertValid([backend], os.path.join(
                        TEMPLATES, name + '.yaml'), params)

    def test_a_role_per_service(self):
        template, files, env = cli_request(CONTROLPLANE, ['kubernetes'], dict(
            PARAMS, service_roles={'glance': 'storage', 'database': 'db'}))
        stack = self.parse(template, env)
        roles = stack['roles']
        roles.validate()
        resolved = roles.properties['value']
        self.assertEqual({'database': 'db', 'memcached': 'controller',
                          'rabbitmq': 'controller',
                          'keystone': 'controller', 'glance': 'storage',
                          'placement': 'controller', 'neutron': 'controller',
                          'nova': 'controller', 'nova_compute': 'controller'},
                         resolved)


    def tags(self, envs, **params):
        template, files, env = cli_request(CONTROLPLANE, envs,
                                           dict(PARAMS, **params))
        tags = self.parse(template, env)['tags']
        tags.validate()
        return tags.properties['value']

    def test_a_release_sets_every_service_tag(self):
        local = ['kubernetes', 'localcloud-images',
                 'localcloud-controlplane-images']
        # '': each service's own *_version.
        self.assertEqual({'keystone': '30.0.0', 'glance': '33.0.0',
                          'placement': '16.0.0', 'neutron': '29.0.0',
                          'nova': '34.0.0'}, self.tags(local))
        self.assertEqual(self.tags(local), self.tags(local, release='2026.2'))
        self.assertEqual({'keystone': '29.1.0', 'glance': '32.0.0',
                          'placement': '15.0.0', 'neutron': '28.0.2',
                          'nova': '33.0.2'},
                         self.tags(local, release='2026.1'))
        # A release release_tags does not name is every service's tag
        # (kolla's tags name the release).
        kolla = '2025.2-ubuntu-noble'
        self.assertEqual(dict.fromkeys(('keystone', 'glance', 'placement',
                                        'neutron', 'nova'), kolla),
                         self.tags(['kubernetes'], release=kolla))



class UpgradeOrderTest(heat_harness.KubernetesTestCase):
    """A release raise changes every service's image at once; Heat updates
    a resource only after those it depends on, so the graph is the
    upgrade's order. Each pair is (earlier, later), checked transitively
    on the graph Heat builds from the templates (the services' own alone,
    with their inputs as parameters, as test_the_service_templates_alone
    gives them)."""

    def before(self, template_path, envs, params):
        template, files, env = cli_request(template_path, envs, params)
        deps = self.parse(template, env).dependencies
        earlier = {}

        def requires(rsrc):
            if rsrc.name not in earlier:
                found = set()
                for req in deps.requires(rsrc):
                    found |= {req.name} | requires(req)
                earlier[rsrc.name] = found
            return earlier[rsrc.name]

        for rsrc in list(deps):
            requires(rsrc)
        return earlier

    def assertOrder(self, earlier, pairs):
        for first, then in pairs:
            with self.subTest(first=first, then=then):
                self.assertIn(first, earlier[then])
                self.assertNotIn(then, earlier[first])

    def service(self, name, **more):
        keystone = {'auth_url': 'http://keystone:5000/v3',
                    'public_auth_url': 'http://keystone:5000/v3',
                    'region': 'RegionOne'}
        params = dict({'target': {'namespace': ''}, 'database_host': 'db',
                       'database_root_password': 'ref',
                       'mariadb_image': 'm:1', 'admin_password': 'ref',
                       'keystone': keystone,
                       'messaging': {'host': 'rabbitmq', 'port': 5672,
                                     'user': 'openstack',
                                     'password': 'ref'}}, **more)
        return self.before(os.path.join(TEMPLATES, name + '.yaml'),
                           ['kubernetes'], params)

    def test_the_services_after_keystone_glance_and_placement(self):
        earlier = self.before(CONTROLPLANE, ['kubernetes'], PARAMS)
        self.assertOrder(earlier, [
            ('keystone', 'glance'), ('keystone', 'placement'),
            ('glance', 'neutron'), ('placement', 'neutron'),
            ('neutron', 'nova'), ('glance', 'nova'), ('placement', 'nova')])

    def test_nova_in_its_upgrade_guides_order(self):
        for count in (1, 0):
            with self.subTest(compute_count=count):
                earlier = self.service('nova', compute_count=count)
                pairs = [
                    ('nova_api_db_sync', 'nova_cells'),
                    ('nova_cells', 'nova_conductor'),
                    ('nova_conductor', 'nova_scheduler'),
                    ('nova_conductor', 'nova_api'),
                    ('nova_conductor', 'nova_metadata'),
                    ('nova_api', 'nova_online_data_migrations'),
                    ('nova_scheduler', 'nova_online_data_migrations'),
                    ('nova_metadata', 'nova_online_data_migrations')]
                if count:
                    pairs += [('nova_conductor', 'nova_compute'),
                              ('nova_compute', 'nova_online_data_migrations')]
                else:
                    self.assertNotIn('nova_compute', earlier)
                self.assertOrder(earlier, pairs)

    def test_neutron_in_its_upgrade_guides_order(self):
        earlier = self.service('neutron')
        self.assertOrder(earlier, [('neutron_db_expand', 'neutron'),
                                   ('neutron', 'neutron_db_contract'),
                                   ('ovn_northd', 'neutron')])

    def test_glance_in_its_upgrade_guides_order(self):
        earlier = self.service('glance')
        self.assertOrder(earlier, [('glance_db_expand', 'glance_db_migrate'),
                                   ('glance_db_migrate', 'glance'),
                                   ('glance', 'glance_db_contract')])

    def test_nova_services_keep_their_host_across_rollouts(self):
        # A Deployment's pods are new names at each rollout: the conductor
        # and the scheduler are hosts named after their service instead.
        template, files, env = cli_request(
            os.path.join(TEMPLATES, 'nova.yaml'), ['kubernetes'], {
                'target': {'namespace': ''}, 'prefix': 'cp-',
                'database_host': 'db', 'database_root_password': 'ref',
                'mariadb_image': 'm:1', 'admin_password': 'ref',
                'keystone': {}, 'messaging': {'port': 5672}})
        stack = self.parse(template, env)

        def prop(name, key):
            return function.resolve(stack[name].t._properties[key])

        for name in ('nova_conductor', 'nova_scheduler'):
            self.assertEqual({'OS_DEFAULT__HOST': prop(name, 'name')},
                             prop(name, 'environment'))
        self.assertEqual('cp-nova-conductor', prop('nova_conductor', 'name'))
        self.assertNotIn('environment', stack['nova_api'].t._properties)

    def test_a_build_is_retried_only_where_another_node_may_take_it(self):
        # One node: its failure's own reason is the server's fault.
        for count, attempts in ((0, '3'), (1, '1'), (2, '2'), (3, '3'),
                                (7, '3'), ('1', '1')):
            conf, _ = _render('nova.yaml', 'nova/nova.conf.j2',
                              'nova_values', compute_count=count)
            self.assertEqual(attempts, conf['scheduler']['max_attempts'],
                             count)

    def test_a_servers_console_log_is_the_file_nova_reads(self):
        # A serial console's log is virtlogd's file in the shared
        # /var/lib/nova; its socket on the pod's loopback only.
        conf, _ = _render('nova.yaml', 'nova/nova.conf.j2', 'nova_values')
        console = conf['serial_console']
        self.assertEqual(('true', '127.0.0.1'), (
            console['enabled'], console['proxyclient_address']))

    def test_nova_speaks_the_oldest_computes_rpc_meanwhile(self):
        conf, _ = _render('nova.yaml', 'nova/nova.conf.j2', 'nova_values')
        self.assertEqual('auto', conf['upgrade_levels']['compute'])


def _refusal(name, values):
    """Why Heat refuses a nested template's parameter values when it
    makes the nested stack (`template validate` checks none), or None."""
    with open(os.path.join(TEMPLATES, name)) as f:
        parsed = template_format.parse(f.read())
    tmpl = heat_template.Template(parsed, env=environment.Environment(
        {'parameters': values}))
    try:
        tmpl.parameters(None, values).validate(validate_value=True)
    except Exception as refused:
        return str(refused)
    return None


def _load(name):
    with open(os.path.join(TEMPLATES, name)) as f:
        return yaml.safe_load(f)


def _sample(values):
    """A service template's config values with its intrinsic functions
    replaced by sample values (a reference by a password-like text)."""
    samples = {
        'debug': False, 'prefix': '', 'database_host': 'mariadb.ns.svc',
        'database_port': 3306, 'memcached_servers': [
            'memcached.ns.svc:11211'],
        'messaging': {'host': 'rabbitmq.ns.svc', 'port': 5672,
                      'user': 'openstack',
                      'password': 'Secret-messaging_password-0123456789'},
        'compute_virt_type': 'kvm', 'compute_count': 1,
    }

    def resolve(node):
        if isinstance(node, dict):
            if list(node) == ['get_param']:
                path = node['get_param']
                if isinstance(path, list):
                    if path[0] == 'keystone':
                        return {'auth_url': 'http://keystone.ns.svc:5000/v3',
                                'public_auth_url':
                                    'http://127.0.0.1:30500/v3',
                                'region': 'RegionOne', 'user_prefix': '',
                                'registered_by': ''}[path[1]]
                    path = path[0]
                return samples[path]
            if list(node) == ['get_attr']:
                return 'Secret-%s-0123456789' % node['get_attr'][0]
            if list(node) == ['list_join']:
                separator, items = node['list_join']
                return separator.join(str(resolve(i)) for i in items)
            return {k: resolve(v) for k, v in node.items()}
        if isinstance(node, list):
            return [resolve(v) for v in node]
        return node
    return resolve(values)


def _controlplane_messaging(service):
    """What controlplane.yaml gives a service as `messaging`: RabbitMQ's
    address (sample values) merged with the service's own user."""
    resources = _load('controlplane.yaml')['resources']
    assert resources[service]['properties']['messaging'] == {'map_merge': [
        {'get_attr': ['shared', 'value', 'messaging']},
        {'get_attr': ['messaging_users', 'value', service]}]}
    users = _sample(resources['messaging_users']['properties']['value'])
    return dict({'host': 'rabbitmq.ns.svc', 'port': 5672}, **users[service])


def _render(template, conf, values_resource, **overrides):
    tmpl = _load(template)
    values = _sample(tmpl['resources'][values_resource]['properties'][
        'value'])
    values.update(overrides)
    with open(os.path.join(TEMPLATES, conf)) as f:
        source = f.read()
    files = rendering.render({'service.conf': source}, values)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(files['service.conf'])
    return parser, values


class RenderedConfigurationTest(heat_harness.KubernetesTestCase):

    def check_common(self, conf, values, database):
        self.assertEqual(
            'mysql+pymysql://%s:Secret-database_password-0123456789@'
            'mariadb.ns.svc:3306/%s' % (database, database),
            conf[{'placement': 'placement_database'}.get(
                database, 'database')]['connection'])
        auth = conf['keystone_authtoken']
        self.assertEqual('http://keystone.ns.svc:5000/v3', auth['auth_url'])
        self.assertEqual('http://127.0.0.1:30500/v3',
                         auth['www_authenticate_uri'])
        self.assertEqual(database, auth['username'])
        self.assertEqual('Secret-service_password-0123456789',
                         auth['password'])
        self.assertEqual('service', auth['project_name'])
        self.assertEqual('password', auth['auth_type'])
        self.assertEqual('memcached.ns.svc:11211', auth['memcached_servers'])
        self.assertEqual('false', conf['DEFAULT']['debug'])

    def test_every_client_of_a_peer_names_its_region(self):
        # A section that finds a peer (or Keystone) through the catalog:
        # in a cloud of several regions it must take this one's.
        for template, conf_file, values, extra in (
                ('glance.yaml', 'glance/glance-api.conf.j2',
                 'glance_values', {}),
                ('placement.yaml', 'placement/placement.conf.j2',
                 'placement_values', {}),
                ('neutron.yaml', 'neutron/neutron.conf.j2',
                 'neutron_values', {'ovn': {'nb_connection': 'tcp:nb:6641',
                                            'sb_connection': 'tcp:sb:6642'}}),
                ('nova.yaml', 'nova/nova.conf.j2', 'nova_values', {})):
            conf, _ = _render(template, conf_file, values, **extra)
            clients = [name for name in conf.sections() if {
                'valid_interfaces', 'auth_url', 'endpoint_type'} & set(
                    conf[name])]
            self.assertIn('keystone_authtoken', clients)
            for name in clients:
                self.assertEqual('RegionOne', conf[name].get('region_name'),
                                 '%s [%s]' % (conf_file, name))
        nova, _ = _render('nova.yaml', 'nova/nova.conf.j2', 'nova_values')
        self.assertIn('glance', [n for n in nova.sections()
                                 if 'region_name' in nova[n]])

    def test_a_compute_node_holds_no_database_password(self):
        # nova-compute asks the conductor: its node, which hosts tenants'
        # guests, gets nova.conf without the databases.
        compute = _load('nova.yaml')['resources']['nova_compute'][
            'properties']['config_values']
        self.assertEqual({'map_merge': [{'get_attr': ['nova_values',
                                                      'value']},
                                        {'database': {}}]}, compute)
        conf, values = _render('nova.yaml', 'nova/nova.conf.j2',
                               'nova_values', database={})
        self.assertNotIn('database', conf)
        self.assertNotIn('api_database', conf)
        text = '\n'.join('%s=%s' % item for name in conf.sections()
                          for item in conf[name].items())
        self.assertNotIn('database_password', text)
        self.assertIn('Secret-service_password', conf['neutron']['password'])

    def test_glance_api_conf(self):
        conf, values = _render('glance.yaml', 'glance/glance-api.conf.j2',
                               'glance_values')
        self.check_common(conf, values, 'glance')
        self.assertEqual('keystone', conf['paste_deploy']['flavor'])
        self.assertEqual('file:file', conf['DEFAULT']['enabled_backends'])
        self.assertEqual('file', conf['glance_store']['default_backend'])
        # The file store is where the API's volume is mounted.
        store = conf['file']['filesystem_store_datadir']
        api = _load('glance.yaml')['resources']['glance']['properties']
        self.assertEqual(api['storage']['path'] + '/', store)

    def test_placement_conf(self):
        conf, values = _render('placement.yaml',
                               'placement/placement.conf.j2',
                               'placement_values')
        self.check_common(conf, values, 'placement')
        self.assertEqual('keystone', conf['api']['auth_strategy'])

    def test_neutron_conf(self):
        conf, values = _render(
            'neutron.yaml', 'neutron/neutron.conf.j2', 'neutron_values',
            ovn={'nb_connection': 'tcp:ovn-nb.ns.svc:6641',
                 'sb_connection': 'tcp:ovn-sb.ns.svc:6642'},
            messaging=_controlplane_messaging('neutron'))
        self.check_common(conf, values, 'neutron')
        # Neutron's own RabbitMQ user, on its own vhost.
        self.assertEqual('rabbit://neutron:Secret-neutron_messaging_password-'
                         '0123456789@rabbitmq.ns.svc:5672/neutron',
                         conf['DEFAULT']['transport_url'])
        self.assertEqual('ovn', conf['ml2']['mechanism_drivers'])
        self.assertEqual('ovn-router', conf['DEFAULT']['service_plugins'])
        self.assertEqual('tcp:ovn-nb.ns.svc:6641',
                         conf['ovn']['ovn_nb_connection'])
        self.assertEqual('tcp:ovn-sb.ns.svc:6642',
                         conf['ovn']['ovn_sb_connection'])
        # A booting server's port events reach Nova, sent as Neutron's
        # service user.
        self.assertEqual('true',
                         conf['DEFAULT']['notify_nova_on_port_status_changes'])
        self.assertEqual('neutron', conf['nova']['username'])
        self.assertEqual('Secret-service_password-0123456789',
                         conf['nova']['password'])
        self.assertEqual('http://keystone.ns.svc:5000/v3',
                         conf['nova']['auth_url'])

    def test_a_rabbitmq_cluster_in_every_transport_with_quorum_queues(self):
        shared = _load('controlplane.yaml')['resources']['shared'][
            'properties']['value']['messaging']
        # Unset unless clustered: the configuration of a control plane
        # made before renders as it did.
        self.assertEqual({'if': ['clustered_backends', {
            'get_attr': ['rabbitmq', 'members']}]}, shared['hosts'])
        self.assertEqual({'if': ['clustered_backends', True]},
                         shared['quorum_queues'])
        members = ['rabbitmq-%d.rabbitmq-members.ns.svc' % i
                   for i in range(3)]
        for service, conf_file, values in (
                ('nova', 'nova/nova.conf.j2', 'nova_values'),
                ('neutron', 'neutron/neutron.conf.j2', 'neutron_values')):
            messaging = _controlplane_messaging(service)
            single, _ = _render(service + '.yaml', conf_file, values,
                                messaging=messaging)
            self.assertFalse(single.has_section('oslo_messaging_rabbit'))
            conf, _ = _render(
                service + '.yaml', conf_file, values, messaging=dict(
                    messaging, hosts=members, quorum_queues=True))
            credentials = '%s:Secret-%s_messaging_password-0123456789@' % (
                service, service)
            self.assertEqual(
                'rabbit://' + ','.join(credentials + m + ':5672'
                                       for m in members) + '/' + service,
                conf['DEFAULT']['transport_url'])
            self.assertEqual(
                'true', conf['oslo_messaging_rabbit']['rabbit_quorum_queue'])

    def test_nova_conf(self):
        conf, values = _render('nova.yaml', 'nova/nova.conf.j2',
                               'nova_values',
                               messaging=_controlplane_messaging('nova'))
        self.check_common(conf, values, 'nova')
        self.assertEqual(
            'mysql+pymysql://nova:Secret-database_password-0123456789@'
            'mariadb.ns.svc:3306/nova_api',
            conf['api_database']['connection'])
        # Nova's own RabbitMQ user, on its own vhost: what the compute
        # nodes hold reaches no other service's queues.
        self.assertEqual('rabbit://nova:Secret-nova_messaging_password-'
                         '0123456789@rabbitmq.ns.svc:5672/nova',
                         conf['DEFAULT']['transport_url'])
        # Nova calls Placement and Neutron as its service user.
        for section in ('placement', 'neutron', 'service_user'):
            self.assertEqual('nova', conf[section]['username'], section)
            self.assertEqual('Secret-service_password-0123456789',
                             conf[section]['password'], section)
            self.assertEqual('http://keystone.ns.svc:5000/v3',
                             conf[section]['auth_url'], section)
        self.assertEqual('true',
                         conf['service_user']['send_service_user_token'])
        # The compute node's: libvirt with KVM, os-vif through the node's
        # OVS socket, privileged helpers started without sudo (none in the
        # image; nova-compute runs as root).
        self.assertEqual('libvirt.LibvirtDriver',
                         conf['DEFAULT']['compute_driver'])
        self.assertEqual('kvm', conf['libvirt']['virt_type'])
        emulated, _ = _render('nova.yaml', 'nova/nova.conf.j2',
                              'nova_values', virt_type='qemu')
        self.assertEqual('qemu', emulated['libvirt']['virt_type'])
        # No metadata agent on the servers' networks: a config drive.
        self.assertEqual('true', conf['DEFAULT']['force_config_drive'])
        self.assertEqual('unix:/run/openvswitch/db.sock',
                         conf['os_vif_ovs']['ovsdb_connection'])
        for section in ('nova_sys_admin', 'vif_plug_ovs_privileged',
                        'vif_plug_linux_bridge_privileged',
                        'privsep_osbrick'):
            self.assertEqual(
                'privsep-helper --config-file /etc/nova/nova.conf',
                conf[section]['helper_command'], section)

    def test_keystones_cache_misses_a_member_that_does_not_answer(self):
        with open(os.path.join(TEMPLATES, 'identity',
                               'keystone.conf.j2')) as f:
            source = f.read()
        # Hand-made: what identity.yaml's config_values give.
        values = {'debug': False, 'fernet_keys': 3,
                  'token': {'provider': 'fernet', 'expiration': 3600},
                  'database': {'user': 'keystone', 'password': 'pw',
                               'host': 'mariadb.ns.svc', 'port': 3306,
                               'name': 'keystone'}}
        servers = ['memcached-%d.memcached-members.ns.svc:11211' % i
                   for i in range(3)]
        for members, cache in (
                (servers, {'enabled': 'true',
                           'backend': 'oslo_cache.memcache_pool',
                           'memcache_servers': ','.join(servers),
                           'memcache_socket_timeout': '1',
                           'memcache_dead_retry': '60'}),
                ([], {'enabled': 'false'})):
            files = rendering.render({'keystone.conf': source},
                                     dict(values, memcached_servers=members))
            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(files['keystone.conf'])
            own = set(parser['cache']) - set(parser.defaults())
            self.assertEqual(cache, {k: parser['cache'][k] for k in own})

    def test_without_memcached(self):
        for template, conf, values in (
                ('glance.yaml', 'glance/glance-api.conf.j2',
                 'glance_values'),
                ('placement.yaml', 'placement/placement.conf.j2',
                 'placement_values'),
                ('nova.yaml', 'nova/nova.conf.j2', 'nova_values')):
            parsed, _ = _render(template, conf, values, memcached_servers=[])
            self.assertNotIn('memcached_servers',
                             parsed['keystone_authtoken'])

    def test_each_rpc_service_is_alone_on_its_rabbitmq_vhost(self):
        props = _load('controlplane.yaml')['resources']['rabbitmq'][
            'properties']
        with open(os.path.join(TEMPLATES, 'rabbitmq',
                               'definitions.json.j2')) as f:
            source = f.read()
        self.assertEqual({'get_attr': ['messaging_users', 'value']},
                         props['config_values']['services'])
        values = _sample(props['config_values'])
        values['services'] = _sample(_load('controlplane.yaml')[
            'resources']['messaging_users']['properties']['value'])
        definitions = json.loads(rendering.render(
            {'definitions.json': source}, values,
            sensitive=True)['definitions.json'])
        path = props['config_templates']['/etc/rabbitmq/definitions.json']
        self.assertEqual({'get_file': 'rabbitmq/definitions.json.j2'}, path)
        self.assertIn('load_definitions = /etc/rabbitmq/definitions.json',
                      props['config_files'][
                          '/etc/rabbitmq/conf.d/60-heat-k8s-definitions.conf'])
        # Who may do what where: the administrator on / alone, each
        # service on its own vhost alone.
        self.assertEqual(
            [('neutron', 'neutron'), ('nova', 'nova'), ('openstack', '/')],
            sorted((p['user'], p['vhost'])
                   for p in definitions['permissions']))
        self.assertEqual(
            {'openstack': ('Secret-messaging_password-0123456789',
                           ['administrator']),
             'nova': ('Secret-nova_messaging_password-0123456789', []),
             'neutron': ('Secret-neutron_messaging_password-0123456789',
                         [])},
            {u['name']: (u['password'], u['tags'])
             for u in definitions['users']})
        self.assertEqual(['/', 'neutron', 'nova'],
                         sorted(v['name'] for v in definitions['vhosts']))

    def test_the_rendered_file_is_the_one_kolla_start_copies(self):
        for template, path in (
                ('glance.yaml', '/etc/glance/glance-api.conf'),
                ('placement.yaml', '/etc/placement/placement.conf'),
                ('neutron.yaml', '/etc/neutron/neutron.conf'),
                ('nova.yaml', '/etc/nova/nova.conf')):
            for name, res in _load(template)['resources'].items():
                props = res.get('properties', {})
                # The compute nodes' daemons read theirs where it is
                # mounted: no kolla_start.
                if res['type'] == 'OS::HeatK8s::PrivilegedService':
                    self.assertEqual([path], list(props['config_templates']))
                elif 'config_templates' in props:
                    copies = props['kolla_config']['config_files']
                    self.assertEqual([path], [c['dest'] for c in copies])
                    self.assertEqual([c['source'] for c in copies],
                                     list(props['config_templates']), name)


# What templates/identity.yaml makes only when it deploys Keystone alone.
OWN_INFRASTRUCTURE = {'host', 'database_root_password', 'database',
                      'memcached'}


class IdentityAsAServiceTest(heat_harness.KubernetesTestCase):
    """identity.yaml is the control plane's Keystone too: given the shared
    infrastructure it makes none of its own (and alone it keeps every
    resource its stacks have, so that an update replaces nothing)."""

    def resources(self, params):
        template, files, env = cli_request(
            os.path.join(TEMPLATES, 'identity.yaml'), ['kubernetes'],
            dict(PARAMS, **params))
        tmpl = heat_template.Template(
            template, env=environment.Environment(env), files=files)
        stk = stack.Stack(self.context(), 'identity', tmpl)
        return set(tmpl.resource_definitions(stk))

    def test_alone_it_makes_its_own(self):
        self.assertLessEqual(OWN_INFRASTRUCTURE, self.resources({}))

    def test_in_a_control_plane_it_takes_them(self):
        alone = self.resources({})
        served = self.resources({'infrastructure': INFRASTRUCTURE})
        self.assertEqual(alone - OWN_INFRASTRUCTURE, served)
