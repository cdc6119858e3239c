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

"""Heat's own test harness, set up for an installed (wheel) Heat.

Import this module before any heat.engine module: heat.tests.common selects
the oslo.service backend, which may happen only once.

EngineTestCase drives whole stacks as production does: through
heat-engine's RPC API, to an EngineService and its WorkerService running
in the test process, on Heat's convergence path.
"""

import os
import sys
import time

import fixtures
from heat.tests import common  # first: it selects the oslo.service backend

# isort: split

from heat.common import exception
from heat.common import identifier
from heat.common import template_format
from heat.db import api as db_api
from heat.db import models
from heat.engine import environment
from heat.engine import resource
from heat.engine import resources
from heat.engine import service
from heat.engine import stack
from heat.engine import template as heat_template
from heat.objects import stack as stack_object
from heat.rpc import api as rpc_api
from heat.rpc import client as rpc_client
from heat.tests import utils
from oslo_config import cfg
from oslo_db.sqlalchemy import engines
from oslo_messaging import opts as messaging_opts
import pytest
import sqlalchemy

from heat_k8s import config
from heat_k8s.enginefixes import fixlist
from heat_k8s.enginefixes import options as fix_options
from heat_k8s.enginefixes import release
from heat_k8s.enginefixes import startup
from heat_k8s.resources.registry import available_resource_mapping

# A wheel installs Heat's environment.d under the prefix, not next to the
# package where HeatTestCase looks for it.
ENVIRONMENT_DIR = os.path.join(sys.prefix, 'etc', 'heat', 'environment.d')
API_URL = 'https://k8s.example.invalid:6443'
PROJECT_ID = '5f1c0a8e2b7d4c6f9e3a1b2c3d4e5f60'
# Hand-made test keys, printed once by `heat-k8s-keys generate`.
SEALING_KEY = 'sK-HybJ3RHEoM_dalfk1CM8hTj1PuoRQtSQFRm3jVj4='
DIGEST_KEY = 'ED8DTGO85TmZt6rPf-k-enO5LwwtO_-jv_235ZRfgPo='
# Heat's own key, as a cloud sets it (32 random URL-safe characters).
AUTH_ENCRYPTION_KEY = 'TGdNh5-KRbs-pKfgx1N5qIOfVsSMQihn'


def fix_applies(name):
    """Whether engine fix `name` is for the installed Heat release (its
    tests of Heat's code run only there; test_enginefixes checks that
    the others are skipped at start)."""
    first, last = fixlist.load(name).RELEASES
    return first <= release.major(release.installed()) <= last


def skip_unless_fix_applies(name):
    """Skip a whole test module written against the code fix `name`
    replaces, on a Heat release that does not have that code."""
    if not fix_applies(name):
        pytest.skip('%s is not for Heat %s; heat-engine skips it there '
                    '(tests/unit/test_enginefixes.py)' % (
                        name, release.installed()), allow_module_level=True)


def _no_network(sock, address):
    raise OSError('unit tests must not use the network (%s)' % (address,))


def _initialise_once():
    cfg.CONF.set_default('environment_dir', ENVIRONMENT_DIR)
    resources.initialise()


class KubernetesTestCase(common.HeatTestCase):
    """A HeatTestCase with the OS::Kubernetes::* types registered.

    [kubernetes] api_url is set, so no Keystone catalog (and no network)
    is needed to validate templates.
    """

    offline = True  # functional subclasses talk to a real cluster

    def setUp(self):
        _initialise_once()
        super().setUp()
        if self.offline:
            # Unit tests never reach a cluster: any connection fails.
            self.useFixture(fixtures.MonkeyPatch('socket.socket.connect',
                                                 _no_network))
        for name, cls in available_resource_mapping().items():
            resource._register_class(name, cls)
        cfg.CONF.set_override('api_url', API_URL, group='kubernetes')
        # Scripted clusters answer a fixed number of polls; the hold's
        # own tests set it (test_steadiness).
        cfg.CONF.set_override('ready_hold_seconds', 0, group='kubernetes')
        cfg.CONF.set_override('sealing_keys', [SEALING_KEY],
                              group=config.KEYS_GROUP)
        cfg.CONF.set_override('digest_key', DIGEST_KEY,
                              group=config.KEYS_GROUP)
        cfg.CONF.set_override('auth_encryption_key', AUTH_ENCRYPTION_KEY)
        self.stacks = []

    def parse(self, template, params=None, stack_name=None):
        """A stored Stack, as utils.parse_stack, for PROJECT_ID."""
        if isinstance(template, str):
            template = template_format.parse(template)
        ctx = utils.dummy_context(tenant_id=PROJECT_ID)
        tmpl = heat_template.Template(
            template, env=environment.Environment(params or {}))
        tmpl.store(ctx)
        stk = stack.Stack(ctx, stack_name or utils.random_name(), tmpl)
        stk.store()
        # Resources hold only weak references to their stack.
        self.stacks.append(stk)
        return stk

    def validation_error(self, template, params=None):
        """The message of the StackValidationFailed validate() raises."""
        stack = self.parse(template, params)
        error = self.assertRaises(exception.StackValidationFailed,
                                  stack.validate)
        return str(error)

    def assertInvalid(self, tmpl, *fragments, params=None):
        """validate() refuses tmpl with a message holding each fragment;
        the message."""
        message = self.validation_error(tmpl, params)
        for fragment in fragments:
            self.assertIn(fragment, message)
        return message

    def stored_secret(self, props, password):
        """A stored OS::Kubernetes::Secret `s` of props, in a stack whose
        hidden parameter pw is password."""
        stack = self.parse(template({'s': {
            'type': 'OS::Kubernetes::Secret', 'properties': props}},
            parameters={'pw': {'type': 'string', 'hidden': True}}),
            params={'pw': password})
        rsrc = stack['s']
        rsrc.store()
        return rsrc

    def engine(self):
        """Heat's engine service, called in-process as the API calls it."""
        return service.EngineService('host-a', 'topic-a')

    def context(self):
        return utils.dummy_context(tenant_id=PROJECT_ID)

    def template_validate(self, template, params=None):
        """`openstack orchestration template validate`: Heat's answer, a
        dict with 'Error' when the template is refused."""
        return self.engine().validate_template(
            self.context(), template, {'parameters': params or {}})

    def create_error(self, ctx, name, template, env, files=None):
        """What `openstack stack create` of template raises, as the engine
        raised it; the test fails if the stack is accepted."""
        try:
            self.engine().create_stack(ctx, name, template, env,
                                       files or {}, {})
        except Exception as raised:  # the RPC layer's ExpectedException
            return getattr(raised, 'exc_info', (None, raised))[1]
        self.fail('stack create of %s was accepted' % name)

    def create_refused(self, template, params=None):
        """`openstack stack create` refused: the message; no stack stored.

        Heat validates before it stores the stack; nothing exists
        afterwards, so no resource can have made an object.
        """
        ctx, name = self.context(), utils.random_name()
        error = self.create_error(ctx, name, template,
                                  {'parameters': params or {}})
        self.assertIsInstance(error, exception.StackValidationFailed)
        self.assertIsNone(stack_object.Stack.get_by_name(ctx, name))
        return str(error)


ENGINE_HOST = 'heat-engine-0'
# What `--wait` waits for: the stack's own event ending the action.
DONE = ('COMPLETE', 'FAILED')


def _wait_for_lock(dbapi_connection, record):
    # A transaction waits for another's to end, as on MariaDB's row locks.
    dbapi_connection.execute('PRAGMA busy_timeout = 30000')


def _begin_immediate(connection, cursor, statement, parameters, *args):
    # oslo.db's BEGIN takes the write lock at once: a reader turning writer
    # would otherwise fail at once ("database is locked"), never waiting.
    return ('BEGIN IMMEDIATE' if statement == 'BEGIN' else statement,
            parameters)


class Engine(fixtures.Fixture):
    """heat-engine in the test process, as one production worker runs.

    A real EngineService with its WorkerService and RPC servers, on
    oslo.messaging's in-process transport (HeatTestCase sets up fake://):
    a stack create sends check_resource messages to the worker, which
    creates resources on its threads and meets at sync points in the
    database. The engine fixes are applied as the plugin applies them when
    heat-engine loads it (and undone after), and the engine is tuned as
    doc/source/install.rst recommends.
    """

    def _setUp(self):
        cfg.CONF.set_override('convergence_engine', True)
        # oslo.messaging registers its pool option when a server starts.
        cfg.CONF.register_opts(dict(messaging_opts.list_opts())[None])
        cfg.CONF.set_override('executor_thread_pool_size', 8)
        cfg.CONF.set_override('leaf_trigger_interval', 0,
                              group=fix_options.GROUP)
        if release.major(release.installed()) < 26:
            # Its stack update asks Keystone (there is none here) about the
            # stored trust (Stack._check_refresh_cred): no trust then.
            cfg.CONF.set_override('deferred_auth_method', 'password')
        self.addCleanup(startup.restore_all)
        startup.apply_all()
        self._database_for_threads()
        self.service = service.EngineService(ENGINE_HOST,
                                             rpc_api.ENGINE_TOPIC)
        self.service.start()
        self.addCleanup(self.service.stop)
        self.client = rpc_client.EngineClient()

    def _database_for_threads(self):
        """Heat's tables in a sqlite file, a connection per thread.

        HeatTestCase's in-memory database is one connection that every
        thread (or, on Heat 24, green thread) would share: one's commit or
        rollback would end another's transaction.
        """
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'heat.sqlite')
        engine = engines.create_engine('sqlite:///' + path,
                                       sqlite_synchronous=False)
        sqlalchemy.event.listen(engine, 'connect', _wait_for_lock)
        sqlalchemy.event.listen(engine, 'before_cursor_execute',
                                _begin_immediate, retval=True)
        models.BASE.metadata.create_all(engine)
        self.addCleanup(engine.dispose)
        self.addCleanup(db_api.context_manager.patch_engine(engine))


class EngineTestCase(KubernetesTestCase):
    """Whole stacks through heat-engine's RPC API, as heat-api sends them.

    Each helper makes the call `openstack stack <action>` makes, waits as
    its --wait does, for the stack's own event that ends the action, and
    returns the stack loaded from the database.
    """

    def setUp(self):
        super().setUp()
        self.heat = self.useFixture(Engine())

    def create(self, template, env=None, files=None, name=None):
        """`stack create`; env is an environment (parameters, ...)."""
        identity = self.heat.client.create_stack(
            self.context(), name or utils.random_name(), template,
            env or {}, files or {}, {})
        return self.wait_for_stack(identity, 'CREATE')

    def update(self, stack, template=None, env=None, files=None,
               existing=False, converge=False):
        """`stack update`, with --existing and --converge as asked."""
        args = {rpc_api.PARAM_EXISTING: existing,
                rpc_api.PARAM_CONVERGE: converge}
        return self._act(stack, 'UPDATE', self.heat.client.update_stack,
                         template, env or {}, files or {}, args)

    def delete(self, stack):
        return self._act(stack, 'DELETE', self.heat.client.delete_stack)

    def check(self, stack):
        return self._act(stack, 'CHECK', self.heat.client.stack_check)

    def suspend(self, stack):
        return self._act(stack, 'SUSPEND', self.heat.client.stack_suspend)

    def resume(self, stack):
        return self._act(stack, 'RESUME', self.heat.client.stack_resume)

    def output(self, stack, key):
        """`stack output show`: the value the engine resolves."""
        return self.heat.client.show_output(
            self.context(), dict(stack.identifier()), key)['output_value']

    def _act(self, stack, action, call, *args):
        identity = dict(stack.identifier())
        last = self.heat.client.list_events(self.context(), identity,
                                            limit=1, sort_dir='desc')
        call(self.context(), identity, *args)
        return self.wait_for_stack(identity, action,
                                   _event_id(last[0]) if last else None)

    def wait_for_stack(self, identity, action, marker=None, timeout=600):
        """The stack once an event of its own after marker ends action,
        and its stored state says so too."""
        deadline = time.monotonic() + timeout
        ended = None
        while time.monotonic() < deadline:
            for event in self.heat.client.list_events(
                    self.context(), identity, marker=marker,
                    sort_dir='asc'):
                marker = _event_id(event)
                if (event['physical_resource_id'] == identity['stack_id']
                        and event['resource_action'] == action
                        and event['resource_status'] in DONE):
                    ended = ended or event['resource_status']
            if ended:
                # The event can be read a moment before the stack's row
                # (seen on Heat 24): wait for the row to agree.
                stk = self.load(identity)
                if stk.state == (action, ended):
                    return stk
            time.sleep(0.2)
        stk = self.load(identity)
        self.fail('%s %s not done after %ss: %s' % (
            stk.name, action, timeout, stk.status_reason))

    def load(self, identity):
        return stack.Stack.load(self.context(),
                                stack_id=identity['stack_id'],
                                show_deleted=True)


def _event_id(event):
    return identifier.EventIdentifier(**event['event_identity']).event_id


def template(resources, parameters=None):
    """A HOT template dict around a resources section."""
    tmpl = {'heat_template_version': '2021-04-16', 'resources': resources}
    if parameters:
        tmpl['parameters'] = parameters
    return tmpl


def deployment(spec=None, **props):
    """OS::Kubernetes::Deployment properties with a valid default spec."""
    props['spec'] = spec if spec is not None else {
        'replicas': 2,
        'selector': {'matchLabels': {'app': 'web'}},
        'template': {
            'metadata': {'labels': {'app': 'web'}},
            'spec': {'containers': [{'name': 'web', 'image': 'nginx:1.27'}]},
        },
    }
    return {'type': 'OS::Kubernetes::Deployment', 'properties': props}
