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

"""templates/hosts/nova-docker.yaml, validated as far as Heat goes offline.

The local cloud has no Nova, Glance or Neutron, so there Heat stops at
"service nova is not available" before it looks at the server's properties
(tests/e2e/test_templates.py pins that down). Here, in Heat's own harness,
the service check and the image, flavor, key pair and network lookups are
stubbed (an active image, a 2 GB flavor), and Heat's full validation of
OS::Nova::Server runs.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy
import filecmp
import json
import os
import subprocess
import sys
import tempfile
from unittest import mock

from heat.common import template_format
from heat.engine import environment
from heat.engine import resource
from heat.engine import stack as heat_stack
from heat.engine import template as heat_template
from heat.engine.clients.os import glance
from heat.engine.clients.os import nova
from heat.tests import utils

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HOST = os.path.join(REPO, 'templates', 'hosts', 'nova-docker.yaml')


def resolve_files(node, base, files):
    """What heatclient does before sending a template: get_file paths and
    template resource types become file: URLs and their contents (a
    nested template's resolved in turn) go into `files`."""
    if isinstance(node, dict):
        if list(node) == ['get_file'] and isinstance(node['get_file'], str):
            path = os.path.normpath(os.path.join(base, node['get_file']))
            url = 'file://' + path
            with open(path) as f:
                files[url] = f.read()
            return {'get_file': url}
        if str(node.get('type', '')).endswith('.yaml'):
            path = os.path.normpath(os.path.join(base, node['type']))
            with open(path) as f:
                nested = template_format.parse(f.read())
            files['file://' + path] = json.dumps(resolve_files(
                nested, os.path.dirname(path), files))
            node = dict(node, type='file://' + path)
        return {k: resolve_files(v, base, files) for k, v in node.items()}
    if isinstance(node, list):
        return [resolve_files(v, base, files) for v in node]
    return node


class NovaDockerHostTest(heat_harness.KubernetesTestCase):

    def setUp(self):
        super().setUp()
        with open(HOST) as f:
            self.template = template_format.parse(f.read())
        self.patchobject(resource.Resource, '_validate_service_availability')
        self.stub_ImageConstraint_validate()
        self.stub_FlavorConstraint_validate()
        self.stub_KeypairConstraint_validate()
        self.stub_NetworkConstraint_validate()
        # Server.validate() checks the image against the flavor.
        self.patchobject(glance.GlanceClientPlugin, 'get_image',
                         return_value=mock.Mock(status='active', min_ram=0,
                                                min_disk=0))
        self.patchobject(nova.NovaClientPlugin, 'get_flavor',
                         return_value=mock.Mock(ram=2048, disk=20))

    def parse(self, template, params=None, stack_name=None):
        files = {}
        template = resolve_files(template, os.path.dirname(HOST), files)
        ctx = utils.dummy_context(tenant_id=heat_harness.PROJECT_ID)
        tmpl = heat_template.Template(
            template, files=files, env=environment.Environment(params or {}))
        tmpl.store(ctx)
        stk = heat_stack.Stack(ctx, stack_name or utils.random_name(), tmpl)
        stk.store()
        self.stacks.append(stk)
        return stk

    def test_boot_script_installs_the_agent(self):
        """The server's user script, as Heat renders it, runs the image's
        agent/install.py as a service (here the repository's, into a
        directory): the same files as agent/install.py installs. It stays
        far below Nova's 64 KiB of boot data, which the agent's files
        embedded in it were not (Nova: 'Invalid input for field/attribute
        user_data')."""
        installer = os.path.join(REPO, 'agent', 'install.py')
        stack = self.parse(self.template, {'parameters': {
            'name': 'identity', 'ContainerHostDockerCommand': 'podman',
            'ContainerHostAgentInstaller': installer}})
        stack.validate()
        script = stack['agent_install'].properties['config']
        self.assertTrue(script.startswith('#!/bin/sh\n'))
        self.assertLess(len(script), 1024)
        with tempfile.TemporaryDirectory() as tmp:
            boot = os.path.join(tmp, 'cfn-userdata')
            with open(boot, 'w') as f:
                f.write(script.replace('exec python3 ', 'exec %s ' % (
                    sys.executable), 1))  # no python3 on a test's PATH
            for root, argv in ((os.path.join(tmp, 'booted'), ['sh', boot]),
                               (os.path.join(tmp, 'repo'), [
                                   sys.executable, installer, '--service'])):
                subprocess.run(argv + ['--root', root, '--no-venv'],
                               check=True)
            booted = os.path.join(tmp, 'booted')
            files = sorted(os.path.relpath(os.path.join(d, n), booted)
                           for d, _, names in os.walk(booted)
                           for n in names)
            self.assertIn('var/lib/heat-config/hooks/docker-cmd', files)
            self.assertIn('etc/systemd/system/os-collect-config.service',
                          files)
            # The generated parts name their root (20, 50).
            same = [f for f in files if f != 'etc/heat-config-agent.env' and
                    'os-refresh-config/configure.d/20' not in f and
                    'os-refresh-config/configure.d/50' not in f and
                    'systemd' not in f]
            match, mismatch, errors = filecmp.cmpfiles(
                booted, os.path.join(tmp, 'repo'), same, shallow=False)
            self.assertEqual(([], []), (mismatch, errors))
            self.assertEqual(len(same), len(match))
            self.assertGreaterEqual(len(match), 7)
            with open(os.path.join(booted, 'etc/heat-config-agent.env')) as f:
                self.assertIn('HEAT_DOCKER_CMD=podman\n', f.read())

    def test_server_validates(self):
        stack = self.parse(self.template, {'parameters': {
            'name': 'identity', 'ContainerHostKeyName': 'ops'}})
        stack.validate()
        server = stack['server']
        self.assertEqual('SOFTWARE_CONFIG',
                         server.properties['user_data_format'])
        self.assertEqual('POLL_SERVER_HEAT',
                         server.properties['software_config_transport'])

    def test_a_server_that_does_not_boot_fails_at_the_boot_timeout(self):
        # Nova calls a server ACTIVE whether or not its image boots: the
        # boot script signals agent_started, whose timeout is the grace,
        # and nothing waits on the agent before it.
        for transport, handle in (('CFN_SIGNAL', 'CFN_SIGNAL'),
                                  ('HEAT_SIGNAL', 'HEAT_SIGNAL'),
                                  ('TEMP_URL_SIGNAL', 'NO_SIGNAL'),
                                  ('NO_SIGNAL', 'NO_SIGNAL')):
            with self.subTest(transport=transport):
                stack = self.parse(self.template, {'parameters': {
                    'name': 'h', 'ContainerHostBootTimeout': 120,
                    'ContainerHostSignalTransport': transport}})
                stack.validate()
                self.assertEqual(handle, stack['agent_started_handle']
                                 .properties['signal_transport'])
                self.assertEqual(120, stack['agent_started']
                                 .properties['timeout'])
                self.assertIn('agent_started',
                              stack.t.resource_definitions(stack)[
                                  'server_key'].required_resource_names())
                self.assertIn("--started-signal - \"$@\" <<'SIGNAL'\n",
                              stack['agent_install'].properties['config'])

    def test_without_a_key_pair(self):
        self.parse(self.template, {'parameters': {'name': 'h'}}).validate()

    def test_the_validation_is_real(self):
        broken = copy.deepcopy(self.template)
        broken['resources']['server']['properties'][
            'user_data_format'] = 'CLOUD_INIT'
        message = self.validation_error(broken, {'parameters': {'name': 'h'}})
        self.assertIn('user_data_format', message)
        self.assertIn('CLOUD_INIT', message)

    def test_transport_choices_are_heats(self):
        self.parse(self.template, {'parameters': {
            'name': 'h',
            'ContainerHostConfigTransport': 'POLL_TEMP_URL'}}).validate()
        message = self.validation_error(self.template, {'parameters': {
            'name': 'h', 'ContainerHostSignalTransport': 'CARRIER_PIGEON'}})
        self.assertIn('ContainerHostSignalTransport', message)
