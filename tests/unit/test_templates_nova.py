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

import copy
import os
from unittest import mock

from heat.common import template_format
from heat.engine.clients.os import glance
from heat.engine.clients.os import nova
from heat.engine import resource

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
HOST = os.path.join(REPO, 'templates', 'hosts', 'nova-docker.yaml')


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

    def test_server_validates(self):
        stack = self.parse(self.template, {'parameters': {
            'name': 'identity', 'ContainerHostKeyName': 'ops'}})
        stack.validate()
        server = stack['server']
        self.assertEqual('SOFTWARE_CONFIG',
                         server.properties['user_data_format'])
        self.assertEqual('POLL_SERVER_HEAT',
                         server.properties['software_config_transport'])

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
