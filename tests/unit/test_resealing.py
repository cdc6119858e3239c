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

"""Resealing a project's references (heat_k8s.secrecy.resealing) in Heat's own
database code (sqlite), after a key rotation."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

from heat.common import context
from heat.db import api as db_api
from heat.db import models
from heat.engine import environment
from heat.engine import scheduler
from heat.engine import stack as heat_stack
from heat.engine import template as heat_template
from heat.objects import stack as stack_object
from heat.tests import utils
from oslo_config import cfg

from heat_k8s.cmd import keys
from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import keyring
from heat_k8s.secrecy import resealing
from heat_k8s.secrecy import sealing
from tests.unit.heat_harness import template

PROJECT = heat_harness.PROJECT_ID
NEW_KEY = keyring.generate()
SECRET = {'type': 'OS::HeatK8s::RandomSecret'}


class ResealTest(heat_harness.KubernetesTestCase):

    def _create(self, stack):
        for rsrc in stack.values():
            scheduler.TaskRunner(rsrc.create)()
            self.assertEqual('CREATE_COMPLETE', '_'.join(rsrc.state))
        self._set_state(stack, stack.CREATE, stack.COMPLETE)
        return stack

    @staticmethod
    def _set_state(stack, action, status):
        stack_object.Stack.update_by_id(stack.context, stack.id, {
            'action': action, 'status': status})

    def _stack(self, tmpl, params=None, project=PROJECT):
        # Stored as heat-engine stores it: hidden parameters encrypted.
        ctx = utils.dummy_context(tenant_id=project)
        tmpl = heat_template.Template(
            tmpl, env=environment.Environment(params or {}))
        stk = heat_stack.Stack(ctx, utils.random_name(), tmpl)
        stk.store()
        self.stacks.append(stk)
        return self._create(stk)

    def _rotate(self, *keys):
        cfg.CONF.set_override('sealing_keys', list(keys), group='heat_k8s')
        return sensitive.keyring()

    def test_every_reference_moves_to_the_newest_key(self):
        cfg.CONF.set_override('encrypt_parameters_and_properties', True)
        passed = sealing.seal('from another stack', PROJECT,
                              sensitive.keyring())
        stack = self._stack(template(
            {'pw': SECRET,
             'files': {'type': 'OS::HeatK8s::RenderedFiles',
                       'properties': {'secrets': {
                           'PW': {'get_attr': ['pw', 'reference']},
                           'PASSED': {'get_param': 'passed'}}}}},
            parameters={'passed': {'type': 'string', 'hidden': True}}),
            params={'parameters': {'passed': passed}})
        value = sealing.open_text(stack['pw'].FnGetAtt('reference'),
                                  PROJECT, sensitive.keyring())
        theirs_stack = self._stack(template({'pw': SECRET}),
                                   project='another-project')
        theirs = theirs_stack['pw'].FnGetAtt('reference')

        rotated = self._rotate(NEW_KEY, heat_harness.SEALING_KEY)
        counts = resealing.reseal_project(context.get_admin_context(),
                                          PROJECT, rotated)
        self.assertEqual((1, 2, 0, []), counts)   # data and parameter

        retired = self._rotate(NEW_KEY)
        again = heat_stack.Stack.load(stack.context, stack_id=stack.id)
        reference = again['pw'].FnGetAtt('reference')
        self.assertEqual(retired.key_ids[0], sealing.key_id_of(reference))
        self.assertEqual(value, sealing.open_text(reference, PROJECT,
                                                  retired))
        self.assertEqual('from another stack', sealing.open_text(
            again.env.params['passed'], PROJECT, retired))
        # The hidden parameter is still stored encrypted.
        with db_api.context_manager.reader.using(stack.context):
            row = stack.context.session.get(models.RawTemplate,
                                            stack.t.id).environment
        self.assertIn('passed', row['encrypted_param_names'])
        self.assertNotIn(sealing.PREFIX, str(row['parameters']['passed']))
        # Another project's reference was not touched.
        other = heat_stack.Stack.load(theirs_stack.context,
                                      stack_id=theirs_stack.id)
        self.assertEqual(theirs, other['pw'].FnGetAtt('reference'))

    def test_a_stack_in_progress_is_left_and_named(self):
        stack = self._stack(template({'pw': SECRET}))
        self._set_state(stack, stack.UPDATE, stack.IN_PROGRESS)
        rotated = self._rotate(NEW_KEY, heat_harness.SEALING_KEY)
        self.assertEqual((0, 0, 0, [stack.name]), resealing.reseal_project(
            context.get_admin_context(), PROJECT, rotated))

    def test_a_second_run_reseals_nothing(self):
        self._create(self.parse(template({'pw': SECRET})))
        rotated = self._rotate(NEW_KEY, heat_harness.SEALING_KEY)
        admin = context.get_admin_context()
        self.assertEqual(1, resealing.reseal_project(admin, PROJECT,
                                                     rotated).resealed)
        self.assertEqual(0, resealing.reseal_project(admin, PROJECT,
                                                     rotated).resealed)


class CommandTest(heat_harness.KubernetesTestCase):

    def test_generate_prints_a_key_that_sealing_accepts(self):
        printed = self._run('generate')
        self.assertEqual(32, len(keyring.parse(printed.strip())))

    def test_check_names_key_ids_and_refuses_a_sample_key(self):
        ring = sensitive.keyring()
        self.assertIn(ring.key_ids[0], self._run('check', config=True))
        self._rotate_to('notgood but just long enough i t')
        self.assertEqual(1, keys.main(['check']))

    def _rotate_to(self, key):
        cfg.CONF.set_override('sealing_keys', [key], group='heat_k8s')

    def _run(self, *argv, config=False):
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(0, keys.main(list(argv)))
        return out.getvalue()
