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

"""A key written twice: refused by Heat's parsers, with the key and its
lines, once dupkeyfix is applied (heat-engine and heat-api)."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import os
import shutil
import sys

import fixtures
from heat.api.openstack.v1 import stacks
from heat.common import environment_format
from heat.common import template_format
from heat.engine import service
from paste import deploy
import webob

from heat_k8s.cmd import configure
from heat_k8s.enginefixes import apistartup
from heat_k8s.enginefixes import dupkeyfix
from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import startup
from heat_k8s.rendering import inifile
from tests.unit.duplicate_keys import ENV_TWICE
from tests.unit.duplicate_keys import LEGAL
from tests.unit.duplicate_keys import MESSAGE
from tests.unit.duplicate_keys import TWICE
from tests.unit.duplicate_keys import TWICE_JSON

NESTED = '''heat_template_version: 2021-04-16
resources:
  nested: {type: nested.yaml}
'''


class HeatAsReleasedTest(heat_harness.KubernetesTestCase):

    def test_heat_keeps_the_last_value_in_silence(self):
        startup.restore_all()
        self.assertIsNone(dupkeyfix.probe())
        props = template_format.parse(TWICE)['resources']['web'][
            'properties']
        self.assertEqual('nginx:1.25', props['image'])
        self.assertEqual({'size': 2},
                         environment_format.parse(ENV_TWICE)['parameters'])


class DuplicateKeyTest(heat_harness.KubernetesTestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(dupkeyfix.restore)
        dupkeyfix.apply()

    def test_a_template_names_the_key_and_its_lines(self):
        error = self.assertRaises(ValueError, template_format.parse, TWICE)
        self.assertEqual(MESSAGE, str(error))

    def test_a_json_template_too(self):
        error = self.assertRaises(ValueError, template_format.parse,
                                  TWICE_JSON)
        self.assertIn("Duplicate key 'image' in one mapping (lines 3 and "
                      "4)", str(error))

    def test_an_environment_too(self):
        error = self.assertRaises(ValueError, environment_format.parse,
                                  ENV_TWICE)
        self.assertIn("Duplicate key 'parameters' in one mapping (lines 1 "
                      'and 4)', str(error))

    def test_merge_keys_and_keys_of_other_types_stay_legal(self):
        tpl = template_format.parse(LEGAL)
        self.assertEqual('b', tpl['parameters']['other']['default'])
        self.assertEqual('one', tpl['resources']['two']['properties']['1'])

    def test_applied_once_and_undone(self):
        dupkeyfix.apply()
        constructor = template_format.yaml_loader.yaml_constructors[
            dupkeyfix.MAP]
        self.assertTrue(getattr(constructor, patching.MARK))
        self.assertIs(template_format.yaml_loader.construct_yaml_map,
                      constructor.__wrapped__)
        self.assertIsNone(dupkeyfix.probe())  # ours: nothing to report
        dupkeyfix.restore()
        self.assertFalse(patching.patched(template_format, 'simple_parse'))
        self.assertEqual('nginx:1.25', template_format.parse(TWICE)[
            'resources']['web']['properties']['image'])


class ThroughHeatTest(heat_harness.KubernetesTestCase):
    """Where Heat parses: heat-api the request's text, heat-engine the
    nested templates of `files`."""

    def setUp(self):
        super().setUp()
        self.addCleanup(startup.restore_all)

    def test_heat_api_refuses_a_template_sent_as_text(self):
        # As api-paste.ini builds the filter when heat-api starts.
        apistartup.filter_factory({})
        data = stacks.InstantiationData({'template': TWICE})
        error = self.assertRaises(webob.exc.HTTPBadRequest, data.template)
        self.assertIn(MESSAGE, str(error))

    def test_heat_engine_refuses_a_nested_template_at_validate_and_create(
            self):
        startup.apply_all()
        ctx = self.context()
        tpl = template_format.parse(NESTED)
        answer = service.EngineService('host-a', 'topic-a').validate_template(
            ctx, tpl, {}, files={'nested.yaml': TWICE})
        self.assertIn(MESSAGE, answer['Error'])
        error = self.assertRaises(
            Exception, service.EngineService('host-a', 'topic-a')
            .create_stack, ctx, 'twice', tpl, {}, {'nested.yaml': TWICE},
            {})
        self.assertIn(MESSAGE, str(getattr(error, 'exc_info',
                                           (None, error))[1]))

    def test_configure_puts_the_filter_in_heat_apis_pipelines(self):
        # Heat's own api-paste.ini, as this Heat release installs it.
        path = os.path.join(self.useFixture(
            fixtures.TempDir()).path, 'api-paste.ini')
        shutil.copy(os.path.join(sys.prefix, 'etc', 'heat',
                                 'api-paste.ini'), path)
        args = ['--api-paste', path]
        self.assertEqual(0, configure.main(args))
        paste = inifile.IniFile.load(path)
        for flavor in configure.PASTE_FLAVORS:
            self.assertTrue(paste.get('composite:api', flavor).endswith(
                ' heat_k8s apiv1app'), flavor)
        before = paste.text()
        configure.main(args)
        self.assertEqual(before, inifile.IniFile.load(path).text())
        # What paste builds when heat-api loads a pipeline: the fix applied.
        startup.restore_all()
        deploy.loadfilter('config:' + path, name='heat_k8s')
        self.assertTrue(patching.patched(template_format, 'simple_parse'))
