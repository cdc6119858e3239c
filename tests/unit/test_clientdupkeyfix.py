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

"""A key written twice: refused by python-heatclient's parse, as
``openstack`` reads a template or an environment file, once
clientdupkeyfix is applied (clientstartup's cliff hook)."""

import configparser
import importlib.metadata
import importlib.util
import logging
import os
import shutil
import types

import fixtures
from heatclient import client as heat_client
from heatclient import exc
from heatclient.common import template_format
from heatclient.common import template_utils
from heatclient.osc.v1 import template as osc_template
from openstackclient import shell
from stevedore import extension
import testtools

from heat_k8s.enginefixes import clientdupkeyfix
from heat_k8s.enginefixes import clientstartup
from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import uniquekeys
from tests.unit import duplicate_keys as server
from tests.unit import patchtree as heat_patches

SETUP_CFG = os.path.join(os.path.dirname(__file__), '..', '..',
                         'setup.cfg')
PATCH = os.path.join(os.path.dirname(patching.__file__), 'patches',
                     'clientdupkeyfix.patch')
# Where heatclient is installed: its patch is relative to it.
CLIENT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    template_format.__file__)))


def hooks():
    """setup.cfg's cliff hook groups: {group: entry point}."""
    setup = configparser.ConfigParser()
    setup.read(SETUP_CFG)
    return {group: importlib.metadata.EntryPoint(
        *setup['entry_points'][group].strip().split(' = '), group)
        for group in setup['entry_points']
        if group.startswith('openstack.cli.')}


class ClientTestCase(testtools.TestCase):

    def setUp(self):
        super().setUp()
        self.addCleanup(clientdupkeyfix.restore)
        self.useFixture(fixtures.EnvironmentVariable(clientstartup.SWITCH))
        self.dir = self.useFixture(fixtures.TempDir()).path

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, 'w') as f:
            f.write(text)
        return path


class HeatclientAsReleasedTest(ClientTestCase):

    def test_heatclient_keeps_the_last_value_in_silence(self):
        self.assertIsNone(clientdupkeyfix.probe())
        self.assertIsNone(clientdupkeyfix.refusal(clientdupkeyfix.version()))
        _, tpl = template_utils.get_template_contents(
            template_file=self.write('t.yaml', server.TWICE))
        self.assertEqual('nginx:1.25',
                         tpl['resources']['web']['properties']['image'])


class DuplicateKeyTest(ClientTestCase):

    def setUp(self):
        super().setUp()
        self.assertIsNone(clientstartup.start())

    def test_a_template_file_names_the_key_and_its_lines(self):
        error = self.assertRaises(
            exc.CommandError, template_utils.get_template_contents,
            template_file=self.write('t.yaml', server.TWICE))
        self.assertIn(server.MESSAGE, str(error))

    def test_a_json_template_too(self):
        error = self.assertRaises(ValueError, template_format.parse,
                                  server.TWICE_JSON)
        self.assertIn("Duplicate key 'image' in one mapping (lines 3 and "
                      "4)", str(error))

    def test_an_environment_file_too(self):
        error = self.assertRaises(
            ValueError, template_utils.process_environment_and_files,
            env_path=self.write('e.yaml', server.ENV_TWICE))
        self.assertIn("Duplicate key 'parameters' in one mapping (lines 1 "
                      'and 4)', str(error))

    def test_merge_keys_and_keys_of_other_types_stay_legal(self):
        tpl = template_format.parse(server.LEGAL)
        self.assertEqual('b', tpl['parameters']['other']['default'])
        self.assertEqual('one', tpl['resources']['two']['properties']['1'])

    def test_applied_once_and_undone(self):
        clientstartup.start()
        loader = template_format.yaml_loader
        self.assertTrue(getattr(loader.yaml_constructors[uniquekeys.MAP],
                                patching.MARK))
        self.assertIs(template_format.parse.__wrapped__,
                      patching.original(template_format, 'parse'))
        self.assertIsNone(clientdupkeyfix.probe())  # ours: nothing to say
        clientdupkeyfix.restore()
        self.assertFalse(patching.patched(template_format, 'parse'))
        self.assertEqual('nginx:1.25', template_format.parse(server.TWICE)[
            'resources']['web']['properties']['image'])


class OpenstackCommandTest(ClientTestCase):
    """What cliff does for `openstack orchestration template validate`:
    the hooks setup.cfg registers for it run before it reads the file."""

    def test_each_hook_group_is_a_heatclient_command_of_openstack(self):
        commands = {point.name for point in importlib.metadata.entry_points(
            group='openstack.orchestration.v1')}
        namespace = shell.OpenStackShell().command_manager.namespace
        self.assertEqual(
            sorted('%s.%s' % (namespace, name)
                   for name in clientstartup.COMMANDS),
            sorted(hooks()))
        self.assertLessEqual(set(clientstartup.COMMANDS), commands)
        for point in hooks().values():
            self.assertIs(clientstartup.RefuseDuplicateKeys, point.load())

    def test_validate_refuses_the_file_before_asking_heat(self):
        # Port 9 (discard) is never asked: the parse fails first.
        orchestration = heat_client.Client(
            '1', endpoint='http://127.0.0.1:9', token='unused')
        app = types.SimpleNamespace(client_manager=types.SimpleNamespace(
            orchestration=orchestration))
        command = osc_template.Validate(app, None)
        point = hooks()['openstack.cli.orchestration_template_validate']
        command._hooks = extension.ExtensionManager.make_test_instance([
            extension.Extension(point.name, point, point.load(),
                                point.load()(command))])
        args = command.get_parser('openstack orchestration template '
                                  'validate').parse_args(
            ['-t', self.write('t.yaml', server.TWICE)])
        error = self.assertRaises(exc.CommandError, command.run, args)
        self.assertIn(server.MESSAGE, str(error))


class WhenItCannotApplyTest(ClientTestCase):

    def _assert_left_alone(self, expected):
        log = self.useFixture(fixtures.FakeLogger(level=logging.INFO))
        reason = clientstartup.start()
        self.assertIn(expected, reason)
        self.assertIn('heat-k8s client fix clientdupkeyfix not applied: '
                      + reason, log.output)
        self.assertFalse(patching.patched(template_format, 'parse'))
        self.assertEqual('nginx:1.25', template_format.parse(server.TWICE)[
            'resources']['web']['properties']['image'])

    def test_switched_off(self):
        self.useFixture(fixtures.EnvironmentVariable(clientstartup.SWITCH,
                                                     'false'))
        self._assert_left_alone('switched off (HEAT_K8S_CLIENT_DUPKEYFIX='
                                'false)')

    def test_a_heatclient_release_it_was_not_checked_against(self):
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.enginefixes.clientdupkeyfix.version', lambda: '6.0.0'))
        self._assert_left_alone('python-heatclient 6.0.0 is not a release')

    def test_a_heatclient_that_carries_the_upstream_patch(self):
        tree, files, out = heat_patches.patched_tree(PATCH, CLIENT_ROOT)
        self.addCleanup(shutil.rmtree, tree)
        self.assertEqual(0, out.returncode, out.stdout + out.stderr)
        self.assertEqual(['heatclient/common/template_format.py'], files)
        path = os.path.join(tree, files[0])
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.enginefixes.patching.source',
            lambda owner, name: heat_patches.function_source(
                path, owner, name)))
        self._assert_left_alone("template_format.parse already has "
                                "'object_pairs_hook'")

    def test_the_patched_heatclient_refuses_on_its_own(self):
        tree, files, _ = heat_patches.patched_tree(PATCH, CLIENT_ROOT)
        self.addCleanup(shutil.rmtree, tree)
        spec = importlib.util.spec_from_file_location(
            'patched_template_format', os.path.join(tree, files[0]))
        patched = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(patched)
        error = self.assertRaises(ValueError, patched.parse, server.TWICE)
        self.assertEqual("Duplicate key 'image' in one mapping (lines 6 and "
                         "8): only the last value would be kept", str(error))

    def test_a_heatclient_without_what_it_patches_runs_the_command(self):
        def load(name):
            raise ImportError("cannot import name 'template_format'")

        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.enginefixes.fixlist.load', load))
        args = object()
        self.assertIs(args, clientstartup.RefuseDuplicateKeys(None).before(
            args))
        self._assert_left_alone("it failed: ImportError: cannot import")
