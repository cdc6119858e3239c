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

"""templates/identity/keystone-register.py against an in-memory Keystone
(python-keystoneclient's managers as the script calls them): what it
creates, and that running it again changes only what differs."""

import os
import subprocess
import sys
import types
import unittest
from unittest import mock

import yaml

from tests.unit import scripts

register = scripts.load('keystone_register', 'templates', 'identity',
                        'keystone-register.py')
# templates/identity/task_failure.py, which it imports beside it.
failure = sys.modules[register.fail.__module__]


class Manager(object):
    def __init__(self, log):
        self.items, self.log = [], log

    def _new(self, **attrs):
        attrs.setdefault('id', 'id%d' % len(self.log))
        item = types.SimpleNamespace(**attrs)
        self.items.append(item)
        return item

    def _find(self, **filters):
        return [i for i in self.items
                if all(getattr(i, k) == v for k, v in filters.items()
                       if v is not None)]


class FakeKeystone(object):
    """Hand-made: python-keystoneclient's managers as the script calls
    them, over lists, with the attributes Keystone's answers carry
    (service_id, an endpoint's extra attributes)."""

    def __init__(self):
        self.log = []
        log = self.log
        ks = self

        class Projects(Manager):
            def list(self, domain, name):
                return self._find(name=name)

            def create(self, name, domain, description=''):
                log.append(('project', name))
                return self._new(name=name, description=description)

            def delete(self, project):
                log.append(('delete-project', project.name))
                self.items.remove(project)

        class Users(Manager):
            def list(self, domain, name):
                return self._find(name=name)

            def create(self, name, domain, password, default_project,
                       description=None):
                log.append(('user', name))
                return self._new(name=name, password=password,
                                 description=description)

            def delete(self, user):
                log.append(('delete-user', user.name))
                self.items.remove(user)
                ks.role_assignments.items[:] = [
                    a for a in ks.role_assignments.items if a.user != user]

            def update(self, user, password):
                log.append(('password', user.name))
                user.password = password

        class Roles(Manager):
            def list(self, name):
                return self._find(name=name)

            def create(self, name, **attrs):
                log.append(('role', name))
                return self._new(name=name, **attrs)

            def grant(self, role, user, project):
                log.append(('grant', role.name, user.name, project.name))
                ks.role_assignments._new(role=role, user=user,
                                         project=project)

            def delete(self, role):
                log.append(('delete-role', role.name))
                self.items.remove(role)

        class Assignments(Manager):
            def list(self, project=None, role=None):
                return self._find(project=project, role=role)

        class Services(Manager):
            def list(self, type):
                return self._find(type=type)

            def create(self, name, type, description):
                log.append(('service', name, type))
                return self._new(name=name, type=type,
                                 description=description)

            def delete(self, service):
                log.append(('delete-service', service.name))
                self.items.remove(service)

        class Endpoints(Manager):
            def list(self, service=None, interface=None, region=None):
                return self._find(
                    service_id=getattr(service, 'id', None),
                    interface=interface, region_id=region)

            def delete(self, endpoint):
                log.append(('delete-endpoint', endpoint.interface))
                self.items.remove(endpoint)

            def create(self, service, url, interface, region, **extra):
                log.append(('endpoint', interface, url))
                return self._new(service_id=service.id, url=url,
                                 interface=interface, region_id=region,
                                 **extra)

            def update(self, endpoint, url=None, **extra):
                if url:
                    log.append(('endpoint-url', endpoint.interface, url))
                    endpoint.url = url
                for key, value in extra.items():
                    log.append(('endpoint-' + key, endpoint.interface))
                    setattr(endpoint, key, value)

        class Regions(Manager):
            def list(self):
                return list(self.items)

            def create(self, id, description):
                log.append(('region', id))
                return self._new(id=id, description=description)

            def delete(self, region):
                log.append(('delete-region', region.id))
                self.items.remove(region)

        self.projects, self.users, self.roles = (
            Projects(log), Users(log), Roles(log))
        self.role_assignments = Assignments(log)
        self.services, self.endpoints = Services(log), Endpoints(log)
        self.regions = Regions(log)
        ks.roles._new(name='admin')   # keystone-manage bootstrap's


ENV = {'SERVICE_USER': 'glance', 'SERVICE_PASSWORD': 'pw1',
       'SERVICE_PROJECT': 'service', 'SERVICE_ROLES': 'service',
       'SERVICE_NAME': 'glance', 'SERVICE_TYPE': 'image',
       'OS_REGION_NAME': 'RegionOne',
       'ENDPOINT_PUBLIC': 'http://127.0.0.1:30292',
       'ENDPOINT_INTERNAL': 'http://glance.ns.svc:9292',
       'ENDPOINT_ADMIN': 'http://glance.ns.svc:9292'}


class RegisterTest(unittest.TestCase):

    def run_step(self, ks, step, **env):
        with mock.patch.dict(os.environ, dict(ENV, **env)):
            register.STEPS[step](ks)

    def test_user_then_again(self):
        ks = FakeKeystone()
        self.run_step(ks, 'user')
        self.assertEqual([
            ('project', 'service'), ('user', 'glance'), ('role', 'service'),
            ('grant', 'service', 'glance', 'service')], ks.log)
        del ks.log[:]
        self.run_step(ks, 'user', SERVICE_PASSWORD='pw2')
        self.assertEqual([
            ('password', 'glance'), ('grant', 'service', 'glance', 'service')],
            ks.log)
        self.assertEqual('pw2', ks.users.items[0].password)

    def test_a_project_and_role_made_meanwhile_by_another_service(self):
        # Glance's and Placement's tasks run at once: between this task's
        # look and its create, the other made the `service` project and
        # role, and Keystone answers 409.
        from keystoneauth1 import exceptions
        ks = FakeKeystone()

        def made_by_the_other(make):
            def create(name, *args, **kwargs):
                make(name)
                raise exceptions.Conflict('Conflict occurred attempting '
                                          'to store %s' % name)
            return create

        ks.projects.create = made_by_the_other(
            lambda name: ks.projects._new(name=name))
        ks.roles.create = made_by_the_other(
            lambda name: ks.roles._new(name=name))
        self.run_step(ks, 'user')
        self.assertEqual([
            ('user', 'glance'), ('grant', 'service', 'glance', 'service')],
            ks.log)

    def test_catalog_then_a_new_url(self):
        ks = FakeKeystone()
        self.run_step(ks, 'catalog')
        self.assertEqual([
            ('service', 'glance', 'image'),
            ('endpoint', 'public', 'http://127.0.0.1:30292'),
            ('endpoint', 'internal', 'http://glance.ns.svc:9292'),
            ('endpoint', 'admin', 'http://glance.ns.svc:9292')], ks.log)
        del ks.log[:]
        self.run_step(ks, 'catalog')
        self.assertEqual([], ks.log)
        self.run_step(ks, 'catalog', ENDPOINT_PUBLIC='http://10.0.0.5:9292')
        self.assertEqual([('endpoint-url', 'public', 'http://10.0.0.5:9292')],
                         ks.log)

    def test_a_missing_setting_fails_naming_it(self):
        ks = FakeKeystone()
        with mock.patch.dict(os.environ, {}, clear=True), \
                mock.patch.object(failure, 'TERMINATION_LOG', os.devnull):
            with self.assertRaises(SystemExit) as raised:
                register.ensure_catalog(ks)
        self.assertEqual(1, raised.exception.code)


OWNER = {'REGISTERED_BY': 'heat-k8s stack 1234 (region RegionTwo)',
         'OS_REGION_NAME': 'RegionTwo', 'SERVICE_USER': 'regiontwo-glance',
         'ENDPOINT_PUBLIC': 'https://glance.regiontwo.example'}


def refusal(test, ks, step, **env):
    """The reason `step` fails with; test fails if it changed anything."""
    with mock.patch.object(register, 'fail', side_effect=SystemExit) as f:
        with test.assertRaises(SystemExit):
            test.run_step(ks, step, **env)
    test.assertEqual([], ks.log)
    return f.call_args[0][0]


def the_clouds_own(ks, kind='image', name='glance', region='RegionOne',
                   **extra):
    """A service of the provider's cloud and its endpoints in region."""
    service = one(ks.services._find(name=name, type=kind)) or (
        ks.services._new(name=name, type=kind, description=''))
    for interface in register.INTERFACES:
        ks.endpoints._new(service_id=service.id, interface=interface,
                          region_id=region, url='https://%s.own' % name,
                          **extra)
    if not ks.regions._find(id=region):
        ks.regions._new(id=region, description='')
    return service


def one(found):
    return found[0] if found else None


def listing(ks):
    """The catalog as it stands: what a provider would see."""
    return sorted((e.service_id, e.interface, e.region_id, e.url)
                  for e in ks.endpoints.items)


class ExistingKeystoneTest(unittest.TestCase):
    """REGISTERED_BY: a Keystone the control plane does not deploy."""

    run_step = RegisterTest.run_step

    def assertNothingLeft(self, ks):  # noqa: N802 (unittest's style)
        self.assertEqual([], ks.endpoints.items)
        self.assertEqual([], ks.services.items)
        self.assertEqual([], ks.regions.items)

    def test_registered_then_removed_leaving_the_clouds_own(self):
        ks = FakeKeystone()
        own = the_clouds_own(ks)
        self.run_step(ks, 'user', **OWNER)
        self.run_step(ks, 'catalog', **OWNER)
        self.assertIn(('region', 'RegionTwo'), ks.log)
        self.assertNotIn(('service', 'glance', 'image'), ks.log)
        self.assertEqual(OWNER['REGISTERED_BY'],
                         ks.users._find(name='regiontwo-glance')[0]
                         .description)
        made = ks.endpoints._find(region_id='RegionTwo')
        self.assertEqual(3, len(made))
        self.assertEqual({OWNER['REGISTERED_BY']},
                         {e.registered_by for e in made})
        del ks.log[:]
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.run_step(ks, 'remove-user', **OWNER)
        self.assertEqual([('delete-endpoint', 'public'),
                          ('delete-endpoint', 'internal'),
                          ('delete-endpoint', 'admin'),
                          ('delete-region', 'RegionTwo'),
                          ('delete-user', 'regiontwo-glance'),
                          ('delete-project', 'service'),
                          ('delete-role', 'service')], ks.log)
        self.assertEqual([own], ks.services.items)
        self.assertEqual(3, len(ks.endpoints.items))
        self.assertEqual(['RegionOne'], [r.id for r in ks.regions.items])
        # Run again (a delete retried): nothing left to do.
        del ks.log[:]
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.run_step(ks, 'remove-user', **OWNER)
        self.assertEqual([], ks.log)

    def test_the_providers_endpoints_in_the_region_are_refused_and_kept(self):
        # The takeover: a region stack named after the provider's own
        # region, where its compute service answers.
        ks = FakeKeystone()
        the_clouds_own(ks, 'compute', 'nova')
        before = listing(ks)
        env = dict(OWNER, OS_REGION_NAME='RegionOne', SERVICE_NAME='nova',
                   SERVICE_TYPE='compute')
        reason = refusal(self, ks, 'catalog', **env)
        public = ks.endpoints._find(interface='public')[0]
        self.assertEqual('keystone-register: region RegionOne already lists '
                         'public compute endpoint %s (not marked as any '
                         "heat-k8s stack's): kept; name another region"
                         % public.id, reason)
        self.run_step(ks, 'remove-catalog', **env)
        self.assertEqual([], ks.log)
        self.assertEqual(before, listing(ks))

    def test_another_stacks_endpoints_are_refused_naming_it(self):
        ks = FakeKeystone()
        the_clouds_own(ks, region='RegionTwo',
                       registered_by='heat-k8s stack 99 (region RegionTwo)')
        before = listing(ks)
        reason = refusal(self, ks, 'catalog', **OWNER)
        self.assertIn('(registered by heat-k8s stack 99): kept', reason)
        # Heat shows a termination message's last 200 characters: with a
        # real endpoint id and stack id, all of it.
        real = reason.replace(ks.endpoints.items[0].id, 'e' * 32).replace(
            '99', 's' * 36)
        self.assertLessEqual(len(real), 200)
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.assertEqual(before, listing(ks))

    def test_a_service_of_the_same_type_under_another_name_is_refused(self):
        # Two image services in one region: clients would take either.
        ks = FakeKeystone()
        the_clouds_own(ks, name='glance-legacy', region='RegionTwo')
        self.assertIn('already lists public image endpoint',
                      refusal(self, ks, 'catalog', **OWNER))

    def test_an_earlier_releases_registration_is_adopted(self):
        # Before marks named their stack: the region (and service) said
        # LEGACY_MARK, the endpoints nothing.
        ks = FakeKeystone()
        service = ks.services._new(name='glance', type='image',
                                   description='; ' + register.LEGACY_MARK)
        ks.regions._new(id='RegionTwo', description=register.LEGACY_MARK)
        urls = {'public': OWNER['ENDPOINT_PUBLIC'],
                'internal': ENV['ENDPOINT_INTERNAL'],
                'admin': ENV['ENDPOINT_ADMIN']}
        for interface, url in urls.items():
            ks.endpoints._new(service_id=service.id, interface=interface,
                              region_id='RegionTwo', url=url)
        self.run_step(ks, 'catalog', **OWNER)
        self.assertEqual([('endpoint-registered_by', i) for i in urls],
                         ks.log)
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.assertNothingLeft(ks)

    def test_an_unmarked_endpoint_at_another_url_is_not_adopted(self):
        ks = FakeKeystone()
        the_clouds_own(ks, region='RegionTwo')
        ks.regions.items[0].description = register.LEGACY_MARK
        self.assertIn("(not marked as any heat-k8s stack's)",
                      refusal(self, ks, 'catalog', **OWNER))

    def test_a_clear_text_public_endpoint_needs_consent(self):
        ks = FakeKeystone()
        plain = dict(OWNER, ENDPOINT_PUBLIC='http://127.0.0.1:30292')
        reason = refusal(self, ks, 'catalog', **plain)
        self.assertIn('http://127.0.0.1:30292 is not https://', reason)
        self.assertIn('ExistingKeystonePublicHttp: true', reason)
        self.run_step(ks, 'catalog', PUBLIC_HTTP='true', **plain)
        self.assertIn(('endpoint', 'public', 'http://127.0.0.1:30292'),
                      ks.log)

    def test_the_region_has_no_default(self):
        ks = FakeKeystone()
        env = dict(ENV, **OWNER)
        del env['OS_REGION_NAME']
        with mock.patch.dict(os.environ, env, clear=True), \
                mock.patch.object(register, 'fail',
                                  side_effect=SystemExit) as f:
            with self.assertRaises(SystemExit):
                register.ensure_catalog(ks)
        self.assertEqual('keystone-register: OS_REGION_NAME is not set',
                         f.call_args[0][0])
        self.assertEqual([], ks.log)

    def test_a_service_it_made_goes_with_its_last_endpoint(self):
        ks = FakeKeystone()
        self.run_step(ks, 'catalog', **OWNER)
        self.assertTrue(ks.services.items[0].description.endswith(
            OWNER['REGISTERED_BY']))
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.assertEqual([], ks.services.items)
        self.assertEqual([], ks.endpoints.items)

    def test_a_service_it_made_stays_while_another_lists_it(self):
        ks = FakeKeystone()
        self.run_step(ks, 'catalog', **OWNER)
        other = dict(OWNER, OS_REGION_NAME='RegionThree',
                     REGISTERED_BY='heat-k8s stack 5 (region RegionThree)')
        self.run_step(ks, 'catalog', **other)
        del ks.log[:]
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.assertNotIn(('delete-service', 'glance'), ks.log)
        self.assertEqual({'RegionThree'},
                         {e.region_id for e in ks.endpoints.items})

    def test_a_delete_that_failed_half_way_is_finished_by_the_next(self):
        from keystoneauth1 import exceptions
        ks = FakeKeystone()
        self.run_step(ks, 'catalog', **OWNER)
        delete = ks.endpoints.delete
        calls = []

        def refused_once(endpoint):
            calls.append(endpoint)
            if len(calls) == 2:
                raise exceptions.ServiceUnavailable('try again')
            delete(endpoint)

        ks.endpoints.delete = refused_once
        with self.assertRaises(exceptions.ServiceUnavailable):
            self.run_step(ks, 'remove-catalog', **OWNER)
        self.assertEqual(2, len(ks.endpoints.items))
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.assertNothingLeft(ks)

    def test_a_project_and_role_it_made_stay_while_another_holds_them(self):
        ks = FakeKeystone()
        self.run_step(ks, 'user', **OWNER)
        nova = dict(OWNER, SERVICE_USER='regiontwo-nova')
        self.run_step(ks, 'user', **nova)
        del ks.log[:]
        self.run_step(ks, 'remove-user', **OWNER)
        self.assertEqual([('delete-user', 'regiontwo-glance')], ks.log)
        del ks.log[:]
        self.run_step(ks, 'remove-user', **nova)
        self.assertEqual([('delete-user', 'regiontwo-nova'),
                          ('delete-project', 'service'),
                          ('delete-role', 'service')], ks.log)

    def test_the_clouds_project_and_roles_are_never_removed(self):
        ks = FakeKeystone()
        ks.projects._new(name='service', description='Service users')
        ks.roles._new(name='service', description='')
        self.run_step(ks, 'user', **OWNER)
        del ks.log[:]
        self.run_step(ks, 'remove-user', **OWNER)
        self.assertEqual([('delete-user', 'regiontwo-glance')], ks.log)

    def test_a_user_it_did_not_make_is_refused_and_kept(self):
        ks = FakeKeystone()
        ks.users._new(name='regiontwo-glance', password='theirs',
                      description='')
        with mock.patch.object(failure, 'TERMINATION_LOG', os.devnull):
            with self.assertRaises(SystemExit):
                self.run_step(ks, 'user', **OWNER)
            self.run_step(ks, 'remove-user', **OWNER)
        self.assertEqual('theirs', ks.users.items[0].password)
        self.assertEqual([], ks.log)

    def test_its_own_keystone_removes_nothing(self):
        ks = FakeKeystone()
        self.run_step(ks, 'user')
        self.run_step(ks, 'catalog')
        del ks.log[:]
        self.run_step(ks, 'remove-catalog')
        self.run_step(ks, 'remove-user')
        self.assertEqual([], ks.log)


class LeastPrivilegeTest(unittest.TestCase):

    def test_no_service_user_is_granted_more_than_it_needs(self):
        # An admin of the whole Keystone in every service's configuration
        # (and on every compute node) would be an admin of every region.
        granted = {}
        for name in os.listdir(os.path.join(scripts.REPO, 'templates')):
            if name.endswith('.yaml'):
                with open(os.path.join(scripts.REPO, 'templates', name)) as f:
                    for line in f:
                        if 'SERVICE_ROLES:' in line:
                            granted[name] = line.split(':', 1)[1].strip()
        self.assertEqual({'glance.yaml': 'service',
                          'placement.yaml': 'service',
                          # Nova's external events, alone: templates/
                          # neutron.yaml says why.
                          'neutron.yaml': 'service,admin',
                          'nova.yaml': 'service'}, granted)


class SharedHelperTest(unittest.TestCase):
    """keystone-register.py and keystone-schema.py fail through one copy of
    task_failure.py, which reaches the container only as a config file
    beside them: every resource that ships a script ships it too."""

    DIR = '/var/lib/kolla/config_files/'

    def test_every_resource_that_ships_a_script_ships_the_helper(self):
        shipped = 0
        for name in os.listdir(os.path.join(scripts.REPO, 'templates')):
            if not name.endswith('.yaml'):
                continue
            with open(os.path.join(scripts.REPO, 'templates', name)) as f:
                resources = yaml.safe_load(f)['resources']
            for rsrc, res in resources.items():
                files = res.get('properties', {}).get('config_files', {})
                if {self.DIR + 'keystone-register.py',
                        self.DIR + 'keystone-schema.py'} & set(files):
                    shipped += 1
                    self.assertEqual(
                        {'get_file': 'identity/task_failure.py'},
                        files.get(self.DIR + 'task_failure.py'),
                        '%s %s' % (name, rsrc))
        self.assertGreater(shipped, 10)

    def test_a_script_run_as_the_container_runs_it_imports_it(self):
        for script in ('keystone-register.py', 'keystone-schema.py'):
            with self.subTest(script):
                proc = subprocess.run(
                    [sys.executable, os.path.join(
                        scripts.REPO, 'templates', 'identity', script)],
                    capture_output=True, text=True, check=False,
                    env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1'))
                self.assertIn('usage: ' + script, proc.stderr)
