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

"""After heat-engine died in the middle of a create (tests/e2e runs it)."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy

from heat.common import exception
from heat.engine import resource
from heat.engine import scheduler
from oslo_config import cfg

from heat_k8s.client import kube
from heat_k8s.kinds import labels
from heat_k8s.resources.shared import handle
from tests.unit import recovery
from tests.unit.heat_harness import deployment
from tests.unit.heat_harness import template
from tests.unit.recovery import UID
from tests.unit.recovery import FakeKube
from tests.unit.recovery import NameHolder


class RecoveryTest(recovery.Recovering, heat_harness.KubernetesTestCase):

    # -- a FAILED resource at the next stack update --------------------

    def test_ready_object_of_a_failed_resource_is_kept(self):
        fake = FakeKube()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc)
        rsrc.resource_id_set(UID)
        self.assertFalse(rsrc.needs_replace_failed())

    def test_unready_object_is_replaced(self):
        fake = FakeKube()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc, ready=False)
        rsrc.resource_id_set(UID)
        self.assertTrue(rsrc.needs_replace_failed())

    def test_missing_or_other_object_is_replaced(self):
        fake = FakeKube()
        rsrc = self._resource(fake)
        self.assertTrue(rsrc.needs_replace_failed())  # no resource id
        rsrc.resource_id_set(UID)
        self.assertTrue(rsrc.needs_replace_failed())  # no object
        fake.obj = self._object(rsrc, uid='another-incarnation')
        self.assertTrue(rsrc.needs_replace_failed())

    def test_unrecorded_object_of_a_failed_resource_is_recorded(self):
        # The worker died between the API's answer and resource_id_set():
        # a ready object is kept, an unready one goes with the replaced
        # resource (by its uid), none is left behind.
        for ready, replace in ((True, False), (False, True)):
            fake = FakeKube()
            rsrc = self._resource(fake)
            fake.obj = self._object(rsrc, ready=ready)
            rsrc.data_set('name', fake.obj['metadata']['name'])
            rsrc.data_set('namespace', fake.obj['metadata']['namespace'])
            self.assertEqual(replace, rsrc.needs_replace_failed())
            self.assertEqual(UID, rsrc.resource_id)

    def test_unreadable_object_is_replaced(self):
        fake = FakeKube(error=kube.ApiError(503, 'Unavailable', 'down'))
        rsrc = self._resource(fake)
        rsrc.resource_id_set(UID)
        self.assertTrue(rsrc.needs_replace_failed())

    # -- delete of a resource whose create never recorded its object ---

    def test_unrecorded_object_of_this_resource_is_deleted(self):
        fake = FakeKube()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc)
        rsrc.data_set('name', fake.obj['metadata']['name'])
        rsrc.data_set('namespace', fake.obj['metadata']['namespace'])
        self.assertIsNone(rsrc.resource_id)
        self.assertIsNotNone(rsrc.handle_delete())
        self.assertEqual(UID, rsrc.resource_id)
        self.assertEqual([('Deployment', fake.obj['metadata']['namespace'],
                           fake.obj['metadata']['name'], UID)],
                         fake.deleted)

    def test_object_of_another_resource_is_left_alone(self):
        fake = FakeKube()
        rsrc = self._resource(fake)
        # e.g. the previous incarnation of a fixed-name resource
        fake.obj = self._object(rsrc, owner='another-resource-uuid')
        rsrc.data_set('name', fake.obj['metadata']['name'])
        self.assertIsNone(rsrc.handle_delete())
        self.assertIsNone(rsrc.resource_id)
        self.assertEqual([], fake.deleted)

    def test_create_that_never_started_deletes_nothing(self):
        fake = FakeKube(error=AssertionError('no request expected'))
        rsrc = self._resource(fake)
        self.assertIsNone(rsrc.handle_delete())

    def test_unreadable_namespace_deletes_nothing(self):
        # The create was refused (forbidden): so is the lookup.
        fake = FakeKube(error=kube.ApiError(403, 'Forbidden', 'forbidden'))
        rsrc = self._resource(fake)
        rsrc.data_set('name', 'web-x')
        self.assertIsNone(rsrc.handle_delete())
        self.assertEqual([], fake.deleted)

    # -- the waiting, answered in Heat's terms -------------------------

    def test_an_object_still_there_asks_heat_to_poll_again(self):
        fake = FakeKube()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc)
        rsrc.resource_id_set(UID)
        wait = rsrc.handle_delete()
        delay = self.assertRaises(resource.PollDelay,
                                  rsrc.check_delete_complete, wait)
        self.assertEqual(1, delay.period)  # a watch just ended
        fake.obj = None
        self.assertTrue(rsrc.check_delete_complete(wait))

    def test_an_unready_object_at_the_deadline_fails_the_resource(self):
        fake = FakeKube()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc, ready=False)
        wait = rsrc.handle_update(rsrc.t, {}, {'wait': True})
        self.assertRaises(resource.PollDelay, rsrc.check_update_complete,
                          wait)
        wait.deadline = 0
        error = self.assertRaises(exception.Error,
                                  rsrc.check_update_complete, wait)
        self.assertEqual('%s not ready after the stack timeout: 0/2 '
                         'replicas ready' % rsrc.describe(), str(error))

class CreateTest(recovery.Recovering, heat_harness.KubernetesTestCase):
    """handle_create: one create-only apply; only a taken name is read and
    claimed."""

    def test_a_free_name_is_one_request(self):
        fake = NameHolder()
        rsrc = self._resource(fake)
        wait = rsrc.handle_create()
        self.assertEqual(['APPLY create-only'], fake.requests)
        self.assertEqual(UID, rsrc.resource_id)
        self.assertEqual(UID, wait.live['metadata']['uid'])
        self.assertIsNone(wait.gone_uid)

    def test_object_of_an_interrupted_create_is_taken_over(self):
        fake = NameHolder()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc, uid='left-by-the-crash')
        rsrc.handle_create()
        self.assertEqual(['APPLY create-only', 'GET', 'APPLY'],
                         fake.requests)
        self.assertEqual('left-by-the-crash', rsrc.resource_id)
        self.assertEqual([], fake.deleted)

    def test_previous_incarnation_goes_first(self):
        fake = NameHolder()
        rsrc = self._resource(fake)
        fake.obj = self._object(rsrc, uid='old', owner='another-incarnation')
        fake.obj['metadata']['annotations'][labels.RESOURCE_UUID] = 'other'
        wait = rsrc.handle_create()
        self.assertEqual(['APPLY create-only', 'GET'], fake.requests)
        self.assertEqual('old', wait.gone_uid)
        self.assertEqual([('Deployment', fake.obj['metadata']['namespace'],
                           fake.obj['metadata']['name'], 'old')],
                         fake.deleted)

    def test_object_of_someone_else_is_refused_and_untouched(self):
        fake = NameHolder()
        rsrc = self._resource(fake)
        theirs = self._object(rsrc, uid='theirs')
        theirs['metadata']['labels'] = {}
        theirs['metadata']['annotations'] = {}
        fake.obj = copy.deepcopy(theirs)
        error = self.assertRaises(exception.Error, rsrc.handle_create)
        self.assertIn('belongs to nothing managed by Heat', str(error))
        self.assertEqual(['APPLY create-only', 'GET'], fake.requests)
        self.assertEqual(theirs, fake.obj)

    def test_other_api_errors_are_not_claims(self):
        fake = NameHolder()
        rsrc = self._resource(fake)

        def refuse(manifest):
            raise kube.ApiError(422, 'Invalid', 'spec.replicas: Invalid')
        fake.apply = refuse
        error = self.assertRaises(kube.ApiError, rsrc.handle_create)
        self.assertEqual(422, error.status)
        self.assertEqual([], fake.requests)


class AbandonTest(heat_harness.KubernetesTestCase):
    """`stack export` changes nothing; abandon releases the object."""

    def _resource(self):
        stack = self.parse(template({'web': deployment()}))
        rsrc = stack['web']
        rsrc.store()
        rsrc.resource_id_set(UID)
        rsrc.applied = []
        # Records what would be written.
        self.patchobject(handle.ObjectHandle, 'apply', autospec=True,
                         side_effect=lambda _, manifest:
                         rsrc.applied.append(manifest))
        return rsrc

    def test_export_writes_nothing(self):
        rsrc = self._resource()
        data = rsrc.prepare_abandon()   # what `stack export` calls
        self.assertEqual(UID, data['resource_id'])
        self.assertEqual([], rsrc.applied)

    def test_abandon_writes_the_object_without_ownership(self):
        rsrc = self._resource()
        rsrc._update_stored_properties()
        rsrc.prepare_abandon()
        rsrc.abandon_in_progress = True   # as Heat's abandon delete sets it
        scheduler.TaskRunner(rsrc.delete)()
        [written] = rsrc.applied
        self.assertNotIn(labels.STACK_ID,
                         written['metadata'].get('labels') or {})
        self.assertEqual(rsrc.properties['spec'], written['spec'])


class WaitSettingsTest(heat_harness.KubernetesTestCase):
    """The [kubernetes] options a resource's wait follows."""

    _resource = RecoveryTest._resource

    def test_the_options_reach_the_awaiter(self):
        for name, value in (('pending_grace', 42), ('image_pull_grace', 7),
                            ('ready_hold_seconds', 3),
                            ('crash_restarts', 4), ('watch_seconds', 2)):
            cfg.CONF.set_override(name, value, group='kubernetes')
        rsrc = self._resource(FakeKube())
        manifest = rsrc.manifest(rsrc.properties)
        settings = rsrc.waits.awaiter(manifest, rsrc.properties).settings
        self.assertEqual((42, 7, 3, 4, 2),
                         (settings.pending_grace, settings.image_pull_grace,
                          settings.ready_hold_seconds,
                          settings.crash_restarts, settings.watch_seconds))
        self.assertEqual(0, rsrc.waits.awaiter(manifest, rsrc.properties,
                                          watched=False).settings
                         .watch_seconds)
