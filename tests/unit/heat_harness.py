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
"""

import os
import sys

import fixtures
from heat.tests import common  # first: it selects the oslo.service backend

# isort: split

from heat.common import exception
from heat.common import template_format
from heat.engine import environment
from heat.engine import resource
from heat.engine import resources
from heat.engine import service
from heat.engine import stack
from heat.engine import template as heat_template
from heat.objects import stack as stack_object
from heat.tests import utils
from oslo_config import cfg
import pytest

from heat_k8s import config  # noqa: F401
from heat_k8s.enginefixes import registry as enginefixes
from heat_k8s.enginefixes import release
from heat_k8s.resources.registry import available_resource_mapping

# A wheel installs Heat's environment.d under the prefix, not next to the
# package where HeatTestCase looks for it.
ENVIRONMENT_DIR = os.path.join(sys.prefix, 'etc', 'heat', 'environment.d')
API_URL = 'https://k8s.example.invalid:6443'
PROJECT_ID = '5f1c0a8e2b7d4c6f9e3a1b2c3d4e5f60'


def fix_applies(name):
    """Whether engine fix `name` is for the installed Heat release (its
    tests of Heat's code run only there; test_enginefixes checks that
    the others are skipped at start)."""
    first, last = enginefixes.load(name).RELEASES
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

    def create_refused(self, template, params=None):
        """`openstack stack create` refused: the message; no stack stored.

        Heat validates before it stores the stack; nothing exists
        afterwards, so no resource can have made an object.
        """
        ctx, name = self.context(), utils.random_name()
        try:
            self.engine().create_stack(ctx, name, template,
                                       {'parameters': params or {}}, {}, {})
        except Exception as raised:  # the RPC layer's ExpectedException
            error = getattr(raised, 'exc_info', (None, raised))[1]
        else:
            self.fail('stack create of %s was accepted' % name)
        self.assertIsInstance(error, exception.StackValidationFailed)
        self.assertIsNone(stack_object.Stack.get_by_name(ctx, name))
        return str(error)


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
