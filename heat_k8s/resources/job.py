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

"""OS::Kubernetes::Job; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['Job']."""

from heat.common import exception
from heat.engine import attributes
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource

from heat_k8s import kinds
from heat_k8s.client import kube as kube_mod
from heat_k8s.kinds import fields
from heat_k8s.kinds import labels
from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common

RUN_AT = 'run_at'
RUN_AT_VALUES = (CREATE, DELETE) = ('create', 'delete')


class Job(base.KubernetesResource):
    """A Kubernetes Job.

    Ready when the Job's Complete condition is True; failed at once when
    its Failed (or FailureTarget) condition is, with the failed pods' exit
    codes and messages, and after [kubernetes] pending_grace when no node
    can take its pods, with the scheduler's message; a suspended Job
    waits. A change to spec.template,
    selector, completions, completionMode, podFailurePolicy,
    backoffLimitPerIndex, managedBy or successPolicy replaces the Job (it
    runs again); other fields update in place. Suspend sets spec.suspend.

    With run_at: delete the Job runs only when the resource is deleted (as
    an OS::Heat::SoftwareDeployment with actions [DELETE]), to undo what
    another step made outside Kubernetes: create and update only check
    the Job with the API server (a dry run), the delete creates it, waits
    for it as a create would (a failed Job fails the delete with its
    pods' reasons), then deletes it.
    """

    kind = 'Job'
    body_properties = {'spec': 'spec'}
    suspend_strategy = kinds.KINDS[kind].suspend
    extra_attributes = {
        'succeeded': common.Attr('Number of pods that succeeded.',
                                 attributes.Schema.INTEGER,
                                 lambda obj: fields.status_of(obj).get(
                                     'succeeded', 0)),
        'failed': common.Attr('Number of pods that failed.',
                              attributes.Schema.INTEGER,
                              lambda obj: fields.status_of(obj).get(
                                  'failed', 0)),
    }
    properties_schema = dict(
        common.common_properties(), spec=common.spec_property(),
        **{RUN_AT: properties.Schema(
            properties.Schema.STRING,
            'When the Job runs: create (at create, and again when a change '
            'replaces it) or delete (only when the resource is deleted; a '
            'change is checked and kept for then, never run). A change '
            'replaces the resource: a delete Job replaced runs.',
            default=CREATE,
            constraints=[constraints.AllowedValues(RUN_AT_VALUES)])})
    attributes_schema = common.attributes_schema(extra_attributes)

    # --- a Job run at delete: checked, kept, run when deleted ---

    def handle_create(self):
        if self.properties[RUN_AT] == CREATE:
            return super().handle_create()
        self._check_with_server(self.properties)
        return None

    def check_create_complete(self, wait):
        return wait is None or super().check_create_complete(wait)

    def needs_replace_with_prop_diff(self, changed_properties_set,
                                     after_props, before_props):
        if after_props[RUN_AT] == DELETE:
            return False  # nothing runs until the delete
        return super().needs_replace_with_prop_diff(
            changed_properties_set, after_props, before_props)

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        props = json_snippet.properties(self.properties_schema, self.context)
        if props[RUN_AT] == CREATE:
            return super().handle_update(json_snippet, tmpl_diff, prop_diff)
        self._check_with_server(props)
        return None

    def check_update_complete(self, wait):
        return wait is None or super().check_update_complete(wait)

    def handle_delete(self):
        if self.properties[RUN_AT] == CREATE:
            return super().handle_delete()
        manifest = self.manifest(self.properties)
        wait = self.waits.start(self.properties)
        try:
            wait.live = self.object.apply(kube_mod.create_only(manifest))
        except kube_mod.ApiError as exc:
            if exc.status != 409:
                raise exception.Error('Running %s failed: %s' % (
                    self.describe(), exc))
            # An interrupted delete's run: ours is waited for, not redone.
            wait.live = self._claimed_run(manifest)
        return wait

    def check_delete_complete(self, wait):
        if self.properties[RUN_AT] == CREATE or not wait:
            return super().check_delete_complete(wait)
        if wait.gone_uid is None:
            try:
                self.waits.ready(wait)
            except resource.PollDelay:
                raise  # still running: Heat polls again
            except Exception:
                # A failed run goes: deleting again runs the Job anew.
                with self.client_plugin().ignore_not_found:
                    self.object.delete(self.properties)
                raise
            wait.gone_uid = self.resource_id
            self.object.delete(self.properties)
        return self.waits.gone(self.object.locator(), wait.gone_uid, wait)

    def _check_with_server(self, props):
        """The Job as the API server would take it, not created."""
        manifest = self.manifest(props)
        self._record_name(manifest['metadata'])
        self.object.check_writable(manifest)
        self._kube(props).apply(manifest, dry_run=True)

    def _claimed_run(self, manifest):
        existing = self.object.get(manifest)
        if existing is None:  # gone meanwhile: run it now
            return self.object.apply(kube_mod.create_only(manifest))
        if (not labels.is_owned_by(existing, self.stack.id, self.name)
                or existing['metadata'].get('deletionTimestamp')):
            raise exception.Error(
                '%s exists and is not this resource\'s run (or is being '
                'deleted); delete the resource again' % self.describe())
        self.resource_id_set(existing['metadata']['uid'])
        return existing
