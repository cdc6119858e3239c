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

"""heat_k8s.enginefixes.cryptfix: hidden parameters of any type encrypted
in Heat's database, and read back as they were."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import json
import unittest

from heat.common import environment_format as env_fmt
from heat.db import api as db_api
from heat.engine import environment
from heat.engine import stack as stack_mod
from heat.engine import template as heat_template
from heat.objects import raw_template
from heat.tests import utils
from oslo_config import cfg
import yaml

from heat_k8s.enginefixes import cryptfix
from heat_k8s.enginefixes import patching
from tests.unit.heat_harness import template

heat_harness.skip_unless_fix_applies('cryptfix')

PASSWORD = 'typed-password-7f3a'
REFERENCE = '<heat-k8s-secret:k1.not-a-real-token>'
# A hidden parameter of each type, with a value of the type Heat is given
# (an environment file's, or a nested stack's from its parent property).
HIDDEN = {
    'password': ('string', PASSWORD),
    'values': ('json', {'db': {'password': REFERENCE}, 'n': [1, 2.5, None]}),
    'files': ('json', [REFERENCE, {'mode': '0600'}]),
    'port': ('number', 5432),
    'debug': ('boolean', True),
    'hosts': ('comma_delimited_list', ['a', 'b,c']),
    'as_text': ('json', '{"typed": "as JSON text"}'),
}
VALUES = {name: value for name, (kind, value) in HIDDEN.items()}


def hidden_template():
    return template({'nothing': {'type': 'OS::Heat::None'}}, {
        name: {'type': kind, 'hidden': True}
        for name, (kind, value) in HIDDEN.items()})


def encrypting(test, on=True):
    test.addCleanup(cfg.CONF.clear_override,
                    'encrypt_parameters_and_properties')
    cfg.CONF.set_override('encrypt_parameters_and_properties', on)


class RulesTest(unittest.TestCase):

    def test_text_null_and_heats_own_pairs_are_left_to_heat(self):
        for value, json_text in (('text', False), (None, False),
                                 (('cryptography_decrypt_v1', 'x'), False),
                                 ({}, True), ([], True), (0, True),
                                 (False, True), (2.5, True)):
            self.assertEqual(json_text, cryptfix.as_json(value), value)

    def test_names_stay_json_until_encrypted_as_text(self):
        self.assertEqual(['a', 'c', 'd'], cryptfix.still_json(
            ['a', 'b', 'c'], as_text=['b'], encoded=['c', 'd']))

    def test_only_values_heat_decrypted_are_read_as_json(self):
        stored = {
            env_fmt.PARAMETERS: {'a': ['m', 't'], 'b': {'clear': 1},
                                 'c': ['m', 't'], 'd': ['m', 't']},
            env_fmt.ENCRYPTED_PARAM_NAMES: ['a', 'b', 'd'],
            cryptfix.JSON_NAMES: ['a', 'b', 'c']}
        self.assertEqual(['a'], cryptfix.json_names(stored))
        self.assertEqual([], cryptfix.json_names(None))
        self.assertEqual([], cryptfix.json_names({env_fmt.PARAMETERS: {}}))


class HeatsEncryptionTest(heat_harness.KubernetesTestCase):
    """What the fix replaces and relies on, in the installed Heat."""

    def test_heat_alone_cannot_encrypt_a_json_value(self):
        encrypting(self)
        tmpl = heat_template.Template(hidden_template(), env=(
            environment.Environment({'parameters': dict(VALUES)})))
        error = self.assertRaises(
            TypeError, raw_template.RawTemplate.encrypt_hidden_parameters,
            tmpl)
        self.assertIn("can't be encoded", str(error))

    def test_heat_encrypts_resource_properties_as_json_text(self):
        from heat.objects import resource_properties_data as rpd
        encrypting(self)
        stored = rpd.ResourcePropertiesData.create(
            utils.dummy_context(), {'spec': VALUES['values']})
        row = db_api.resource_prop_data_get(utils.dummy_context(),
                                            stored.id)
        self.assertTrue(row.encrypted)
        self.assertNotIn(REFERENCE, json.dumps(row.data))
        self.assertEqual({'spec': VALUES['values']}, rpd.ResourcePropertiesData
                         .get_by_id(utils.dummy_context(), stored.id).data)


class RoundTripTest(heat_harness.KubernetesTestCase):
    """Templates stored and read back through Heat's own objects."""

    def setUp(self):
        super().setUp()
        self.ctx = utils.dummy_context()
        self.addCleanup(cryptfix.restore)

    def store(self, params):
        """Encrypt and store as Stack.store does: the template's id."""
        tmpl = heat_template.Template(hidden_template(), env=(
            environment.Environment({'parameters': dict(params)})))
        raw_template.RawTemplate.encrypt_hidden_parameters(tmpl)
        return tmpl.store(self.ctx)

    def stored(self, template_id):
        """The environment as the database holds it."""
        return db_api.raw_template_get(self.ctx, template_id).environment

    def read(self, template_id):
        return raw_template.RawTemplate.get_by_id(
            self.ctx, template_id).environment[env_fmt.PARAMETERS]

    def test_every_hidden_value_round_trips_exactly(self):
        encrypting(self)
        cryptfix.apply()
        template_id = self.store(VALUES)
        stored = self.stored(template_id)
        self.assertEqual(sorted(HIDDEN), sorted(
            stored[env_fmt.ENCRYPTED_PARAM_NAMES]))
        self.assertEqual(['debug', 'files', 'hosts', 'port', 'values'],
                         sorted(stored[cryptfix.JSON_NAMES]))
        text = json.dumps(stored)
        for clear in (PASSWORD, REFERENCE, 'as JSON text', 'b,c', '5432'):
            self.assertNotIn(clear, text)
        read = self.read(template_id)
        self.assertEqual(VALUES, read)
        self.assertEqual({name: type(v) for name, v in VALUES.items()},
                         {name: type(v) for name, v in read.items()})
        # And as a stack uses them: each parameter's value.
        loaded = heat_template.Template.load(self.ctx, template_id)
        stk = stack_mod.Stack(self.ctx, 's', loaded)
        self.assertEqual(VALUES['values'], stk.parameters['values'])
        self.assertEqual(['a', 'b,c'], stk.parameters['hosts'])

    def test_what_heat_encrypted_reads_as_before(self):
        encrypting(self)
        text_only = {'password': PASSWORD, 'as_text': VALUES['as_text']}
        template_id = self.store(text_only)  # by Heat alone
        cryptfix.apply()
        self.assertEqual(text_only, self.read(template_id))

    def test_encryption_off_changes_nothing(self):
        encrypting(self, on=False)
        cryptfix.apply()
        template_id = self.store(VALUES)
        stored = self.stored(template_id)
        self.assertEqual(VALUES, stored[env_fmt.PARAMETERS])
        self.assertNotIn(cryptfix.JSON_NAMES, stored)
        self.assertEqual([], stored[env_fmt.ENCRYPTED_PARAM_NAMES])
        self.assertEqual(VALUES, self.read(template_id))

    def test_heat_without_the_fix_reads_json_text_its_parameters_take(self):
        encrypting(self)
        cryptfix.apply()
        template_id = self.store(VALUES)
        cryptfix.restore()
        read = self.read(template_id)
        self.assertEqual(VALUES['values'], json.loads(read['values']))
        stk = stack_mod.Stack(self.ctx, 's', heat_template.Template.load(
            self.ctx, template_id))
        for name in ('values', 'files', 'port', 'debug', 'password'):
            self.assertEqual(VALUES[name], stk.parameters[name], name)

    def test_a_value_encrypted_again_as_text_is_read_as_text(self):
        encrypting(self)
        cryptfix.apply()
        tmpl = heat_template.Template(hidden_template(), env=(
            environment.Environment({'parameters': {'port': 5432}})))
        raw_template.RawTemplate.encrypt_hidden_parameters(tmpl)
        tmpl.env.params['port'] = '5433'
        tmpl.id = None
        raw_template.RawTemplate.encrypt_hidden_parameters(tmpl)
        template_id = tmpl.store(self.ctx)
        self.assertEqual({'port': '5433'}, self.read(template_id))

    def test_apply_wraps_each_target_once_and_keeps_its_kind(self):
        cryptfix.apply()
        wrapped = [patching.held(*target) for target in cryptfix.TARGETS]
        cryptfix.apply()
        self.assertEqual(wrapped, [patching.held(*target)
                                   for target in cryptfix.TARGETS])
        rt = vars(raw_template.RawTemplate)
        self.assertIsInstance(rt['encrypt_hidden_parameters'], classmethod)
        self.assertIsInstance(rt['from_db_object'], staticmethod)
        for owner, name in cryptfix.TARGETS:
            self.assertTrue(patching.patched(owner, name), name)


NESTED = {
    'heat_template_version': '2021-04-16',
    'parameters': {'values': {'type': 'json', 'hidden': True}},
    'resources': {'kept': {'type': 'OS::Heat::Value', 'properties': {
        'type': 'json', 'value': {'get_param': 'values'}}}},
}


def parent(values):
    return template({
        'inner': {'type': 'nested.yaml', 'properties': {'values': values}},
        'sealed': {'type': 'OS::Heat::Value', 'properties': {
            'value': {'get_param': 'password'}}}},
        {'password': {'type': 'string', 'hidden': True}})


class EngineTest(heat_harness.EngineTestCase):
    """A nested stack's hidden json parameter, as the service templates
    pass them, through heat-engine with encryption on."""

    def test_create_update_and_delete_with_encryption(self):
        encrypting(self)
        files = {'nested.yaml': yaml.safe_dump(NESTED)}
        env = {'parameters': {'password': PASSWORD}}
        first = {'db': {'password': REFERENCE}, 'port': 5432}
        stack = self.create(parent(first), env=env, files=files)
        self.assertEqual(('CREATE', 'COMPLETE'), stack.state,
                         stack.status_reason)
        second = dict(first, port=5433)
        stack = self.update(stack, parent(second), env=env, files=files)
        self.assertEqual(('UPDATE', 'COMPLETE'), stack.state,
                         stack.status_reason)
        # As the nested stack reads its parameter back from the database.
        nested = stack['inner'].nested()
        self.assertEqual(second, nested.parameters['values'])
        self.assertEqual(second, nested.t.env.params['values'])
        self.assertNoClearValue()
        stack = self.delete(stack)
        self.assertEqual(('DELETE', 'COMPLETE'), stack.state,
                         stack.status_reason)

    def assertNoClearValue(self):
        """No stored template or property holds the typed password."""
        from heat.db import models
        with db_api.context_manager.reader.using(self.context()) as session:
            stored = [row.environment for row in
                      session.query(models.RawTemplate).all()] + [
                row.data for row in
                session.query(models.ResourcePropertiesData).all()]
        self.assertNotIn(PASSWORD, json.dumps(stored))
