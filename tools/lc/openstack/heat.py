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

"""Heat as a real deployment: heat-api under uWSGI and heat-engine.

heat.conf is generated in ``<state>/heat``: MariaDB database, RabbitMQ
transport, Keystone middleware, trusts for deferred auth, the stack user
domain. heat-k8s's own settings (``plugin_dirs`` = Heat's defaults plus
its plugin directory, ``[clients_kubernetes] ca_file``, the Kubernetes
endpoint from the catalog, heat-api's paste filter in a copy of Heat's
``api-paste.ini``) are then written by the package's
``heat-k8s-configure``, as an operator or devstack would. The engine runs
``num_engine_workers`` worker processes.
"""

import datetime
import json
import os
import subprocess

from tools.lc import daemons
from tools.lc import fetch
from tools.lc import procs
from tools.lc.kubernetes import node_host
from tools.lc.openstack import keystone
from tools.lc.openstack import passwords

API = 'heat-api'
API_CFN = 'heat-api-cfn'
ENGINE = 'heat-engine'
ENGINE_WORKERS = 2
STACK_DOMAIN = 'heat'
STACK_DOMAIN_ADMIN = 'heat_domain_admin'
SERVICE_USER = 'heat'
CONF = """\
[DEFAULT]
use_stderr = true
transport_url = {transport_url}
num_engine_workers = {workers}
# plugin_dirs: written by heat-k8s-configure
environment_dir = {venv}/etc/heat/environment.d
template_dir = {venv}/etc/heat/templates
auth_encryption_key = {auth_encryption_key}
# Deferred auth uses trusts: deferred_auth_method's default and only
# working value (the option is deprecated, so it is not set here).
# Long operations outlive the user's token: the engine re-authenticates
# with its trust (needs the Keystone policy of keystone.py).
reauthentication_auth_method = trusts
stack_user_domain_name = {stack_domain}
stack_domain_admin = {stack_domain_admin}
stack_domain_admin_password = {stack_domain_admin_password}
region_name_for_services = {region}
# Servers (a Nova server's agent, a docker host's) reach Heat's CFN API
# where they route to, not at the loopback address clients use: their
# deployments (POLL_SERVER_CFN) and signals (CFN_SIGNAL) go there.
heat_metadata_server_url = {servers_cfn}
heat_waitcondition_server_url = {servers_cfn}/v1/waitcondition
graceful_shutdown_timeout = 2
# `stack export` (and abandon) for the secret-leak tests: what it shows of
# a stack is part of what must hold no secret value.
enable_stack_abandon = true
# Hidden parameters (a typed password) and resource properties are stored
# encrypted, as the install guide recommends; the engine fix cryptfix
# (on by default) lets the service templates' hidden json parameters be
# encrypted too. The leak tests read the database.
encrypt_parameters_and_properties = true
# oslo.messaging's 64 executor threads per worker (its default), not
# fewer: in convergence a parent resource holds a thread until its nested
# stack is complete, and with 8 the three control planes of the e2e run
# held every thread while their children's checks queued, until the
# stacks timed out (install guide, executor_thread_pool_size).
# A liveness answer a busy worker can give:
engine_life_check_timeout = 10

[database]
connection = {db}
max_pool_size = 10
max_overflow = 20

[oslo_messaging_rabbit]
# The engine_worker queue and its check_resource messages outlive a
# RabbitMQ restart: with transient queues a restart lost them, and the
# stack stayed IN_PROGRESS (tests/e2e/test_faults.py).
amqp_durable_queues = true

[heat_k8s]
# The keys of secret references and of the digests that stand in for
# secret values, generated for this cloud (heat_k8s.secrecy.keyring).
sealing_keys = {sealing_key}
digest_key = {digest_key}
# Every reference in this cloud was made with key ids.
open_legacy_references = false

[heat_k8s_engine_fixes]
# heat-engine logs at start which engine fixes it applied and why it
# skipped the others (heat_k8s/enginefixes). Those that repair Heat bugs
# are on by default; this cloud also turns on:
# - strandfix: the fault tests kill engines, and a convergence stack left
#   IN_PROGRESS by a dead engine must end FAILED (tests/e2e/test_faults.py);
#   off by default because it changes what Heat does for every stack.
strandfix = true
# No pause between a traversal's first messages (leafpace).
leaf_trigger_interval = 0

[keystone_authtoken]
www_authenticate_uri = {keystone}
auth_url = {keystone}
auth_type = password
username = {service_user}
password = {service_password}
project_name = service
user_domain_name = Default
project_domain_name = Default
region_name = {region}

[trustee]
auth_url = {keystone}
auth_type = password
username = {service_user}
password = {service_password}
user_domain_name = Default

[clients_keystone]
auth_uri = {keystone}

[ec2authtoken]
# heat-api-cfn checks a server's EC2 signature with Keystone: Heat 24 and
# 25 read auth_uri, 26 and later a keystoneauth adapter, which logs in as
# Heat's service user (Keystone answers ec2tokens to a service only).
auth_uri = {keystone}/v3
endpoint_override = {keystone}
auth_type = password
auth_url = {keystone}
username = {service_user}
password = {service_password}
project_name = service
user_domain_name = Default
project_domain_name = Default

[paste_deploy]
api_paste_config = {dir}/api-paste.ini

[oslo_concurrency]
lock_path = {dir}/lock
"""

# Heat 22 and later check the CFN API's DescribeStackResource (a server's
# metadata poll, POLL_SERVER_CFN) against `project_id:%(project_id)s`
# with no target, which denies every caller; the stack is looked up in the
# caller's own project, so the roles Heat names decide alone.
POLICY = {'cloudformation:DescribeStackResource':
          'role:reader or role:heat_stack_user'}


def _parse_time(text):
    return datetime.datetime.fromisoformat(text.split('.')[0])


def utcnow():
    """Now as heat-api shows times: naive UTC, whole seconds."""
    return datetime.datetime.now(datetime.timezone.utc).replace(
        tzinfo=None, microsecond=0)


class Heat(daemons.Service):

    PORT = API
    DIR = 'heat'

    def __init__(self, cluster, venv, identity, db, log=print):
        super().__init__(cluster, log, venv)
        self.identity = identity
        self.db = db
        self.conf = os.path.join(self.dir, 'heat.conf')
        # When this start's engine workers started; None: they were
        # running already (and registered long ago).
        self.engines_since = None

    @property
    def cfn_url(self):
        return 'http://127.0.0.1:%d' % self.cluster.port(API_CFN)

    @property
    def servers_cfn_url(self):
        """The CFN API as servers reach it: at the pods' gateway when the
        cloud has its real node (node_host.guard_rules: pods, the servers
        behind a compute node's uplink and this host), else loopback."""
        if self.cluster.info.get('node'):
            return node_host.host_url(self.cluster.port(API_CFN))
        return self.cfn_url

    @property
    def endpoint(self):
        """The catalog URL; keystoneauth substitutes the project ID."""
        return self.url + '/v1/%(project_id)s'

    def keystone_spec(self):
        """What Heat needs in Keystone (see keystone_setup.py)."""
        return {
            'roles': ['heat_stack_user'],
            'domains': [STACK_DOMAIN],
            'projects': [{'name': 'service'}],
            'users': [
                {'name': SERVICE_USER, 'project': 'service',
                 'password': self.identity.password(SERVICE_USER),
                 'roles': ['admin', 'service']},
                {'name': STACK_DOMAIN_ADMIN, 'domain': STACK_DOMAIN,
                 'password': self.identity.password(STACK_DOMAIN_ADMIN),
                 'domain_roles': ['admin']}],
            'services': [{'type': 'orchestration', 'name': 'heat',
                          'description': 'Heat Orchestration',
                          'urls': {'public': self.endpoint,
                                   'internal': self.endpoint}}],
        }

    def configure(self, db_url, transport_url):
        os.makedirs(os.path.join(self.dir, 'lock'), exist_ok=True)
        text = CONF.format(
            transport_url=transport_url, workers=ENGINE_WORKERS,
            venv=self.venv,
            auth_encryption_key=passwords.get(
                self.state_dir, 'heat-auth-encryption-key', 32),
            sealing_key=passwords.key(self.state_dir, 'heat-k8s-sealing-key'),
            digest_key=passwords.key(self.state_dir, 'heat-k8s-digest-key'),
            stack_domain=STACK_DOMAIN, stack_domain_admin=STACK_DOMAIN_ADMIN,
            stack_domain_admin_password=self.identity.password(
                STACK_DOMAIN_ADMIN),
            region=keystone.REGION, db=db_url,
            keystone=self.identity.url, service_user=SERVICE_USER,
            servers_cfn=self.servers_cfn_url,
            service_password=self.identity.password(SERVICE_USER),
            dir=self.dir)
        paste = os.path.join(self.dir, 'api-paste.ini')
        with open(os.path.join(self.venv, 'etc', 'heat',
                               'api-paste.ini')) as released:
            daemons.write_files({
                self.conf: text, paste: released.read(),
                # oslo.policy finds policy.yaml beside heat.conf.
                os.path.join(self.dir, 'policy.yaml'): json.dumps(
                    POLICY, indent=2)})  # JSON is YAML
        # heat-k8s's settings, by its helper: the endpoint from the
        # catalog (registered by register_kubernetes()), the cluster's CA.
        self.configure_tool('--config-file', self.conf, '--catalog',
                            '--ca-file', self.cluster.ca_file,
                            '--api-paste', paste)

    def configure_tool(self, *args, env=None):
        """Run heat-k8s-configure (installed with the package)."""
        out = subprocess.run([self.bin('heat-k8s-configure')] + list(args),
                             capture_output=True, text=True, env=env)
        if out.returncode:
            raise RuntimeError('heat-k8s-configure failed:\n%s%s'
                               % (out.stdout, out.stderr))
        return out.stdout

    def register_kubernetes(self, api_url):
        """The `kubernetes` service and its public and internal endpoints
        in the catalog, through heat-k8s-configure as admin."""
        env = {k: v for k, v in os.environ.items()
               if not k.startswith('OS_')}
        env.update(self.identity.admin_env())
        return self.configure_tool('--register-endpoint', api_url,
                                   '--region', keystone.REGION, env=env)

    def db_sync(self):
        stamp = os.path.join(self.dir, '.db-synced')
        if os.path.exists(stamp):
            return
        out = subprocess.run([self.bin('heat-manage'), '--config-file',
                              self.conf, 'db_sync'], capture_output=True,
                             text=True)
        if out.returncode:
            raise RuntimeError('heat-manage db_sync failed:\n' + out.stderr)
        open(stamp, 'w').close()

    def processes(self):
        workers = '%d heat-engine workers to register' % ENGINE_WORKERS
        return (
            daemons.Process(ENGINE, [self.bin('python'),
                                     self.bin('heat-engine'),
                                     '--config-file', self.conf],
                            ready=self._registered, what=workers,
                            ready_timeout=120, stop_timeout=20),
            # The API servers' agents use (heat_metadata_server_url).
            daemons.Process(API_CFN, self.uwsgi(
                'heat.wsgi.cfn:application', 1, 2,
                '--pyargv', '--config-file ' + self.conf, procname=API_CFN,
                port=self.cluster.port(API_CFN)),
                ready=daemons.answers(self.cfn_url + '/', (200, 300)),
                what='heat-api-cfn at ' + self.cfn_url,
                ready_timeout=120, stop_timeout=20),
            daemons.Process(API, self.uwsgi(
                'heat.wsgi.api:application', 2, 1,
                '--pyargv', '--config-file ' + self.conf, procname=API),
                # The versions document.
                ready=daemons.answers(self.url + '/', (200, 300)),
                what='heat-api at ' + self.url,
                ready_timeout=120, stop_timeout=20))

    def prepare(self):
        self.engines_since = (None if procs.running(self.state_dir, ENGINE)
                              else utcnow())

    def engines(self, token, project_id, since=None):
        """heat-engine workers whose service record says "up" (and, with
        `since`, a naive UTC datetime, that registered after it)."""
        req = fetch.request(
            '%s/v1/%s/services' % (self.url, project_id),
            headers={'X-Auth-Token': token, 'Accept': 'application/json'})
        # An RPC call: heat-api waits up to rpc_response_timeout (60 s).
        with fetch.urlopen(req, timeout=70) as resp:
            services = json.loads(resp.read())['services']
        return [s for s in services if s['binary'] == ENGINE
                and s['status'] == 'up' and (
                    since is None or _parse_time(s['created_at']) >= since)]

    def _registered(self):
        """Engine workers of this start that wrote their service record
        (each starts its RPC server before that)."""
        if self.engines_since is None:
            return True
        # A constant and a datetime, never input.
        out = self.db.sql(
            "SELECT COUNT(*) FROM service WHERE deleted_at IS NULL"  # noqa: S608
            " AND `binary` = '%s' AND created_at >= '%s';"
            % (ENGINE, self.engines_since.isoformat(' ')), database='heat')
        return int(out.strip()) >= ENGINE_WORKERS

    def wait_listed(self, admin_token, admin_project_id, timeout=120):
        """Wait for this start's engine workers to register and the API
        to answer, then for the API to list them (API -> RabbitMQ ->
        engine -> MariaDB and back)."""
        self.wait()
        procs.wait_for(
            lambda: len(self.engines(admin_token, admin_project_id,
                                     self.engines_since))
            >= ENGINE_WORKERS,
            'heat-api to list %d engines' % ENGINE_WORKERS,
            timeout, API, self.state_dir)
