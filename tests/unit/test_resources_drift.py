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

"""Drift in Heat's terms: check fails on it, a CHECK_FAILED resource is
kept for it, and an update with no property change re-applies it."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

from heat.common import exception

from tests.unit import recovery

TAKEN = [{'manager': 'ops', 'operation': 'Apply', 'apiVersion': 'apps/v1',
          'fieldsType': 'FieldsV1',
          'fieldsV1': {'f:spec': {'f:replicas': {}}}}]


class DriftTest(recovery.Recovering, heat_harness.KubernetesTestCase):

    def drifted(self, ready=True):
        fake = recovery.NameHolder()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc, ready=ready)
        fake.obj['metadata']['managedFields'] = TAKEN
        fake.obj['spec'] = dict(fake.obj['spec'], replicas=5)
        rsrc.resource_id_set(recovery.UID)
        return rsrc, fake

    def test_check_names_the_drifted_field(self):
        rsrc, _fake = self.drifted()
        error = self.assertRaises(exception.Error, rsrc.handle_check)
        self.assertEqual('%s drifted from the template: spec.replicas '
                         '2 \u2192 5 (manager ops)' % rsrc.describe(),
                         str(error))

    def test_check_of_an_undrifted_ready_object_passes(self):
        fake = recovery.NameHolder()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc)
        rsrc.resource_id_set(recovery.UID)
        self.assertIsNone(rsrc.handle_check())

    def test_a_drifted_check_failure_is_kept_even_while_unready(self):
        rsrc, _fake = self.drifted(ready=False)
        rsrc.state_set(rsrc.CHECK, rsrc.FAILED, 'drifted')
        self.assertFalse(rsrc.needs_replace_failed())
        rsrc.state_set(rsrc.UPDATE, rsrc.FAILED, 'rollout failed')
        self.assertTrue(rsrc.needs_replace_failed())  # unready, as before

    def test_unchanged_update_reapplies_only_a_drifted_object(self):
        rsrc, fake = self.drifted()
        rsrc.handle_update(rsrc.t, {}, {})
        self.assertEqual(['GET', 'APPLY'], fake.requests)
        self.assertEqual(2, fake.obj['spec']['replicas'])
        fake.requests.clear()
        fake.obj['metadata']['managedFields'] = []
        rsrc.handle_update(rsrc.t, {}, {})
        self.assertEqual(['GET'], fake.requests)
