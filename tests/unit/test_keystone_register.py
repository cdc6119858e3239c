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
import types
import unittest
from unittest import mock

from tests.unit import scripts

register = scripts.load('keystone_register', 'templates', 'identity',
                        'keystone-register.py')


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
    def __init__(self):
        self.log = []
        log = self.log
        ks = self

        class Projects(Manager):
            def list(self, domain, name):
                return self._find(name=name)

            def create(self, name, domain, description=''):
                log.append(('project', name))
                return self._new(name=name)

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

            def update(self, user, password):
                log.append(('password', user.name))
                user.password = password

        class Roles(Manager):
            def list(self, name):
                return self._find(name=name)

            def create(self, name):
                log.append(('role', name))
                return self._new(name=name)

            def grant(self, role, user, project):
                log.append(('grant', role.name, user.name, project.name))

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
                return self._find(service=service, interface=interface,
                                  region=region)

            def delete(self, endpoint):
                log.append(('delete-endpoint', endpoint.interface))
                self.items.remove(endpoint)

            def create(self, service, url, interface, region):
                log.append(('endpoint', interface, url))
                return self._new(service=service, url=url,
                                 interface=interface, region=region)

            def update(self, endpoint, url):
                log.append(('endpoint-url', endpoint.interface, url))
                endpoint.url = url

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
        self.services, self.endpoints = Services(log), Endpoints(log)
        self.regions = Regions(log)
        ks.roles._new(name='admin')   # keystone-manage bootstrap's


ENV = {'SERVICE_USER': 'glance', 'SERVICE_PASSWORD': 'pw1',
       'SERVICE_PROJECT': 'service', 'SERVICE_ROLES': 'service,admin',
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
            ('grant', 'service', 'glance', 'service'),
            ('grant', 'admin', 'glance', 'service')], ks.log)
        del ks.log[:]
        self.run_step(ks, 'user', SERVICE_PASSWORD='pw2')
        self.assertEqual([
            ('password', 'glance'), ('grant', 'service', 'glance', 'service'),
            ('grant', 'admin', 'glance', 'service')], ks.log)
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
            ('user', 'glance'), ('grant', 'service', 'glance', 'service'),
            ('grant', 'admin', 'glance', 'service')], ks.log)

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
                mock.patch.object(register, 'TERMINATION_LOG', os.devnull):
            with self.assertRaises(SystemExit) as raised:
                register.ensure_catalog(ks)
        self.assertEqual(1, raised.exception.code)


OWNER = {'REGISTERED_BY': 'heat-k8s stack 1234 (RegionTwo)',
         'OS_REGION_NAME': 'RegionTwo', 'SERVICE_USER': 'regiontwo-glance'}


class ExistingKeystoneTest(unittest.TestCase):
    """REGISTERED_BY: a Keystone the control plane does not deploy."""

    run_step = RegisterTest.run_step

    def test_registered_then_removed_leaving_the_clouds_own(self):
        ks = FakeKeystone()
        # The cloud's own Glance and its region, before the control plane.
        own = ks.services._new(name='glance', type='image', description='')
        ks.endpoints._new(service=own, url='http://own:9292',
                          interface='public', region='RegionOne')
        ks.regions._new(id='RegionOne', description='')
        self.run_step(ks, 'user', **OWNER)
        self.run_step(ks, 'catalog', **OWNER)
        self.assertIn(('region', 'RegionTwo'), ks.log)
        self.assertNotIn(('service', 'glance', 'image'), ks.log)
        self.assertEqual(OWNER['REGISTERED_BY'],
                         ks.users._find(name='regiontwo-glance')[0]
                         .description)
        del ks.log[:]
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.run_step(ks, 'remove-user', **OWNER)
        self.assertEqual([('delete-endpoint', 'public'),
                          ('delete-endpoint', 'internal'),
                          ('delete-endpoint', 'admin'),
                          ('delete-region', 'RegionTwo'),
                          ('delete-user', 'regiontwo-glance')], ks.log)
        self.assertEqual([own], ks.services.items)
        self.assertEqual(['RegionOne'], [r.id for r in ks.regions.items])
        # Run again (a delete retried): nothing left to do.
        del ks.log[:]
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.run_step(ks, 'remove-user', **OWNER)
        self.assertEqual([], ks.log)

    def test_a_service_it_made_goes_with_its_last_endpoint(self):
        ks = FakeKeystone()
        self.run_step(ks, 'catalog', **OWNER)
        self.assertTrue(ks.services.items[0].description.endswith(
            register.MADE_HERE))
        self.run_step(ks, 'remove-catalog', **OWNER)
        self.assertEqual([], ks.services.items)
        self.assertEqual([], ks.endpoints.items)

    def test_a_user_it_did_not_make_is_refused_and_kept(self):
        ks = FakeKeystone()
        ks.users._new(name='regiontwo-glance', password='theirs',
                      description='')
        with mock.patch.object(register, 'TERMINATION_LOG', os.devnull):
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
