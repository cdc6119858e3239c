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

"""The resource types Heat loads, and how operators point Heat at them."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import contextlib
import importlib
import io
import os

from heat.engine import resources

from heat_k8s import plugin
from heat_k8s.enginefixes import startup
from heat_k8s.resources.registry import KUBERNETES_TYPES
from heat_k8s.resources.registry import available_resource_mapping

KINDS_WITH_SPEC = ('Pod', 'Job', 'CronJob', 'Deployment', 'StatefulSet',
                   'DaemonSet', 'Service', 'PersistentVolumeClaim')


class ResourceTypesTest(heat_harness.KubernetesTestCase):

    def test_every_type_is_registered_with_heat(self):
        env = resources.global_env()
        for name, cls in available_resource_mapping().items():
            self.assertIs(cls, env.get_class(name), name)

    def test_spec_kinds_take_a_required_spec(self):
        mapping = available_resource_mapping()
        for kind in KINDS_WITH_SPEC:
            schema = mapping['OS::Kubernetes::' + kind].properties_schema
            self.assertTrue(schema['spec'].required, kind)
            self.assertTrue(schema['spec'].update_allowed, kind)

    def test_identity_properties_replace_and_others_update(self):
        for name, cls in KUBERNETES_TYPES.items():
            schema = cls.properties_schema
            for prop in ('name', 'namespace', 'cluster'):
                if prop in schema:
                    self.assertFalse(schema[prop].update_allowed,
                                     (name, prop))
            for prop in ('labels', 'annotations', 'wait', 'timeout'):
                self.assertTrue(schema[prop].update_allowed, (name, prop))

    def test_namespace_is_cluster_scoped(self):
        cls = available_resource_mapping()['OS::Kubernetes::Namespace']
        self.assertNotIn('namespace', cls.properties_schema)

    def test_every_type_has_the_common_attributes(self):
        for name, cls in KUBERNETES_TYPES.items():
            for attr in ('name', 'namespace', 'uid', 'status'):
                self.assertIn(attr, cls.attributes_schema, name)

    def test_kind_attributes(self):
        mapping = available_resource_mapping()
        expected = {
            'Service': {'cluster_ip', 'ports', 'endpoint'},
            'Pod': {'pod_ip', 'node_name', 'phase'},
            'Job': {'succeeded', 'failed'},
            'Deployment': {'ready_replicas'},
            'StatefulSet': {'ready_replicas'},
            'DaemonSet': {'ready_replicas'},
            'ConfigMap': {'checksum'},
            'Secret': {'checksum'},
        }
        for kind, attrs in expected.items():
            schema = mapping['OS::Kubernetes::' + kind].attributes_schema
            self.assertTrue(attrs <= set(schema), kind)

    def test_secret_data_is_never_an_attribute(self):
        cls = available_resource_mapping()['OS::Kubernetes::Secret']
        for attr in ('data', 'string_data', 'stringData'):
            self.assertNotIn(attr, cls.attributes_schema)


class PluginDirTest(heat_harness.KubernetesTestCase):

    def test_plugin_dir_holds_only_the_shim(self):
        modules = sorted(f for f in os.listdir(plugin.path())
                         if f.endswith('.py'))
        self.assertEqual(['__init__.py', 'heat_k8s_plugin.py'], modules)

    def test_shim_exposes_the_mapping(self):
        # Importing the shim applies the engine fixes, as heat-engine's
        # plugin loader does; give Heat's code back.
        self.addCleanup(startup.restore_all)
        shim = importlib.import_module('heat_k8s.plugin.heat_k8s_plugin')
        self.assertEqual(available_resource_mapping(),
                         shim.available_resource_mapping())

    def test_console_script_prints_the_directory(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            plugin.main()
        self.assertEqual(plugin.path(), out.getvalue().strip())
        self.assertTrue(os.path.isabs(plugin.path()))
