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

"""The OpenStack side of the local cloud, wired to the Kubernetes cluster.

`up` order: MariaDB and RabbitMQ start; the webhook's files and the
apiserver's flags are written; Kubernetes comes up while Keystone and Heat
sync their schemas; Keystone starts and is populated (projects ``demo`` and
``other`` with member users, Heat's service user and stack domain, the
catalog, the ``kubernetes`` endpoint registered by heat-k8s's
``heat-k8s-configure``, which also wrote heat-k8s's part of heat.conf);
k8s-keystone-auth starts; Heat's API and engine start. Each project's
namespace and RoleBindings are made by authenticating once as its user.
`down` stops everything in reverse.
"""

import functools
import hashlib
import json
import os
import threading
import time

from tools.lc import daemons
from tools.lc import procs
from tools.lc.openstack import heat
from tools.lc.openstack import keystone
from tools.lc.openstack import keystone_auth
from tools.lc.openstack import mariadb
from tools.lc.openstack import rabbitmq

# Keystone user -> the project it is a `member` of (same name).
TENANTS = ('demo', 'other')
CLOUDS_FILE = 'clouds.yaml'
# Process -> the attribute of its service, in the order `down` stops them
# (`up` starts them the other way).
SERVICE_OF = {heat.API: 'heat', heat.API_CFN: 'heat', heat.ENGINE: 'heat',
              keystone_auth.NAME: 'keystone_auth', keystone.NAME: 'keystone',
              rabbitmq.NAME: 'rabbitmq', rabbitmq.EPMD: 'rabbitmq',
              mariadb.NAME: 'mariadb'}
PROCESSES = tuple(SERVICE_OF)
# The first of them, stopped together by `down`.
API_PROCESSES = 5
PORTS = (mariadb.NAME, 'rabbitmq', 'rabbitmq-dist', 'epmd', keystone.NAME,
         keystone_auth.NAME, heat.API, heat.API_CFN)


def _in_thread(fn):
    """Run `fn` in a thread; the returned join() re-raises its error."""
    errors = []

    def run():
        try:
            fn()
        except BaseException as e:  # re-raised by join()
            errors.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()

    def join():
        t.join()
        if errors:
            raise errors[0]
    return join


class OpenStack(object):

    def __init__(self, cluster, venv, log=print):
        self.cluster = cluster
        self.state_dir = cluster.state_dir
        self.venv = venv
        self.log = log
        self.mariadb = mariadb.MariaDB(cluster, log)
        self.rabbitmq = rabbitmq.RabbitMQ(cluster, log)
        self.keystone = keystone.Keystone(
            cluster, venv, log,
            token_expiration=self.info.get('token_expiration', 3600))
        self.keystone_auth = keystone_auth.KeystoneAuth(cluster,
                                                        self.keystone, log)
        self.heat = heat.Heat(cluster, venv, self.keystone, self.mariadb,
                              log)

    @property
    def info(self):
        return self.cluster.info.setdefault('openstack', {})

    @property
    def clouds_file(self):
        return os.path.join(self.state_dir, CLOUDS_FILE)

    def _step(self, what, started):
        self.log('%-36s %5.1fs' % (what, time.monotonic() - started))

    def keystone_spec(self):
        spec = self.heat.keystone_spec()
        spec['roles'] = ['member', 'reader', 'service'] + spec['roles']
        spec['projects'] = [{'name': t} for t in TENANTS] + spec['projects']
        spec['users'] = [
            {'name': t, 'project': t, 'roles': ['member'],
             'password': self.keystone.password(t)} for t in TENANTS
        ] + spec['users']
        return spec

    def up(self, start_kubernetes):
        """Bring everything up; `start_kubernetes()` starts the cluster."""
        t0 = time.monotonic()
        for name in PORTS:  # allocate now: threads below only read them
            self.cluster.port(name)
        self.mariadb.start()
        self.rabbitmq.start()
        self.keystone_auth.configure()  # before the apiserver starts

        def databases():
            self.mariadb.wait()
            self._step('mariadb ready', t0)
            self.keystone.configure(self.mariadb.ensure_database('keystone'))
            heat_db = self.mariadb.ensure_database('heat')
            self.heat.configure(heat_db, self.rabbitmq.transport_url)
            heat_sync = _in_thread(self.heat.db_sync)
            self.keystone.bootstrap()
            self._step('keystone db_sync and bootstrap', t0)
            heat_sync()
            self._step('heat db_sync', t0)
            self.keystone.start()
            self.keystone.wait()
            self._step('keystone serving', t0)

        join_databases = _in_thread(databases)
        start_kubernetes()
        self._step('kubernetes ready', t0)
        join_databases()
        self._populate_keystone()
        self._step('keystone populated', t0)
        self.keystone_auth.start()
        self.keystone_auth.wait()
        self.keystone_auth.apply_cluster_roles()
        self._step('k8s-keystone-auth serving', t0)
        self.rabbitmq.wait()
        self._step('rabbitmq ready', t0)
        self.heat.start()
        for tenant in TENANTS:
            self.keystone_auth.sync(tenant, tenant,
                                    self.info['projects'][tenant])
        self._step('project namespaces synced', t0)
        token, body = self.keystone.token('admin', 'admin')
        self.heat.wait_listed(token, body['project']['id'])
        self._step('heat api and %d engines up' % heat.ENGINE_WORKERS, t0)
        self.write_clouds_yaml()

    def _populate_keystone(self):
        """Run keystone_setup.py, then register the Kubernetes API with
        heat-k8s-configure (as devstack does), unless this very spec was
        applied."""
        spec = self.keystone_spec()
        digest = hashlib.sha256(json.dumps(
            [spec, self.cluster.api_url],
            sort_keys=True).encode()).hexdigest()
        if self.info.get('spec_digest') == digest:
            return
        answer = self.keystone.setup(spec)
        self.heat.register_kubernetes(self.cluster.api_url)
        self.info.update(projects=answer['projects'], users=answer['users'],
                         spec_digest=digest)
        self.cluster.save()

    def write_clouds_yaml(self):
        clouds = {}
        for user in ('admin',) + TENANTS:
            clouds[user] = {
                'auth': {'auth_url': self.keystone.auth_url,
                         'username': user,
                         'password': self.keystone.password(user),
                         'project_name': user,
                         'user_domain_name': 'Default',
                         'project_domain_name': 'Default'},
                'region_name': keystone.REGION,
                'identity_api_version': 3,
                'interface': 'public',
                'cacert': self.cluster.ca_file,
            }
        daemons.write_files({  # JSON is YAML
            self.clouds_file: json.dumps({'clouds': clouds}, indent=2)})

    def status(self):
        return {name: procs.running(self.state_dir, name)
                for name in reversed(PROCESSES)}

    def endpoints(self):
        """Service -> (URL, healthy) for `status`."""
        return {
            'keystone': (self.keystone.auth_url, self.keystone.healthy()),
            'heat-api': (self.heat.url, self.heat.healthy()),
            'heat-api-cfn': (self.heat.servers_cfn_url, daemons.ready(
                self.heat.process(heat.API_CFN))),
        }

    def restart(self, name):
        getattr(self, SERVICE_OF[name]).restart(name)

    def down(self):
        # The API services first, together (heat-engine takes seconds to
        # shut down gracefully), then the broker and the database.
        joins = [_in_thread(functools.partial(
            procs.stop, self.state_dir, name, timeout=30))
            for name in PROCESSES[:API_PROCESSES]]
        for join in joins:
            join()
        for name in PROCESSES[API_PROCESSES:]:
            procs.stop(self.state_dir, name, timeout=30)
