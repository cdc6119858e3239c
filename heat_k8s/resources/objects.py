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

"""OS::Kubernetes::Objects: many unordered objects behind one resource.

Heat's engine spends about a second on each resource it runs; objects that
need no order between them can share one resource instead. Each manifest
is handled as the OS::Kubernetes::Resource it would be (a members.Member:
same name and namespace rules, validation, ownership marks, claim of a
taken name, readiness and failure messages); this module applies them
together through a small pool of threads and waits for all. An update
creates, applies, replaces (alone) and deletes objects by identity
(objectset.plan). What exists is recorded in the resource data.
"""

import dataclasses

from heat.common import exception
from heat.engine import attributes
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s.client import kube as kube_mod
from heat_k8s.kinds import immutable
from heat_k8s.kinds import labels
from heat_k8s.kinds import naming
from heat_k8s.kinds import objectset
from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common
from heat_k8s.resources.shared import members
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import reporting

LOG = logging.getLogger(__name__)
CONF = cfg.CONF

PROPERTIES = (MANIFESTS, NAMESPACE, CLUSTER, WAIT, TIMEOUT) = (
    members.MANIFESTS, common.NAMESPACE, common.CLUSTER, common.WAIT,
    common.TIMEOUT)
ATTRIBUTES = (OBJECTS_ATTR, COUNT_ATTR) = ('objects', 'count')

RECORD_CHUNKS = 'objects.chunks'  # resource data: how many pieces
RECORD_KEY = 'objects.%d'

# What a task does first to its object.
CREATE, APPLY, REPLACE, DELETE = 'create', 'apply', 'replace', 'delete'


class Objects(base.KubernetesBase):
    """Many Kubernetes objects, applied together, each waited on.

    For objects that need no order between them: one Heat resource costs
    the engine about a second, whatever it holds. Each manifest is
    validated, written and waited on as OS::Kubernetes::Resource does it;
    one failed object fails the resource with that object's reason.
    Secrets are refused: OS::Kubernetes::Secret keeps their values out
    of Heat.
    """

    kind = None  # many kinds, as OS::Kubernetes::Resource
    sensitive_properties = ()  # Secrets are refused
    entity = None

    properties_schema = dict(
        {key: schema for key, schema in common.common_properties().items()
         if key in PROPERTIES},
        **{MANIFESTS: properties.Schema(
            properties.Schema.LIST,
            'The objects, each a whole manifest (apiVersion, kind, '
            'metadata.name, the rest as the Kubernetes API defines it); '
            'no order between them. A namespaced object without '
            'metadata.namespace goes to the namespace property.',
            required=True, update_allowed=True,
            schema=properties.Schema(properties.Schema.MAP),
            constraints=[constraints.Length(min=1)])})
    attributes_schema = {
        OBJECTS_ATTR: attributes.Schema(
            'The objects that exist: apiVersion, kind, namespace, name and '
            'uid of each.', type=attributes.Schema.LIST),
        COUNT_ATTR: attributes.Schema(
            'How many objects exist.', type=attributes.Schema.INTEGER),
    }

    # --- create -----------------------------------------------------------

    def handle_create(self):
        self.resource_id_set(self.uuid)
        work = members.Work(self.properties, {})
        self._begin(work, [(m, CREATE, None) for m in self._members(
            self.properties)])
        return work

    def check_create_complete(self, work):
        return self._check(work)

    # --- update -----------------------------------------------------------

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        props = json_snippet.properties(self.properties_schema, self.context)
        work = members.Work(props, self._load_record())
        if not set(prop_diff) - {WAIT, TIMEOUT}:
            return work
        old = {m.identity(): m for m in self._members(self.properties)}
        new = {m.identity(): m for m in self._members(props)}
        todo = objectset.plan(
            work.record, {i: m.comparable_manifest(m.properties)
                          for i, m in old.items()},
            {i: m.comparable_manifest(m.properties) for i, m in new.items()})
        LOG.info('%s: update creates %d, applies %d, replaces %d and '
                 'deletes %d objects', self.name, len(todo.create),
                 len(todo.apply), len(todo.replace), len(todo.delete))
        uid = {i: e['uid'] for i, e in work.record.items()}
        self._begin(work, [(new[i], CREATE, None) for i in todo.create] +
                    [(new[i], APPLY, uid[i]) for i in todo.apply] +
                    [(new[i], REPLACE, uid[i]) for i in todo.replace] +
                    [(self._recorded(props, work.record[i]), DELETE, uid[i])
                     for i in todo.delete])
        return work

    def check_update_complete(self, work):
        return self._check(work)

    # --- delete -----------------------------------------------------------

    def handle_delete(self):
        work = members.Work(self.properties, self._load_record())
        todo = [(self._recorded(self.properties, e), DELETE, e['uid'])
                for e in work.record.values()]
        # Objects of a create that died before recording them carry this
        # resource's UUID: _start finds them by name and checks it.
        todo += [(m, DELETE, None) for m in self._members(self.properties)
                 if m.identity() not in work.record]
        self._begin(work, todo)
        return work

    def check_delete_complete(self, work):
        return self._check(work, report=False)

    def delete(self):
        # Abandon retains the objects: drop their ownership marks, as the
        # single-object types do, so that another stack can adopt them.
        if self.abandon_in_progress and self.resource_id is not None:
            props = self.frozen_definition().properties(
                self.properties_schema, self.context)
            members.parallel(lambda m: self._release(m, props),
                           self._members(props))
        return (yield from super().delete())

    # --- check --------------------------------------------------------------

    def handle_check(self):
        problems = [p for p in members.parallel(self._problem, self._members(
            self.properties)) if p]
        if problems:
            raise exception.Error(members.joined(problems))

    # --- attributes ---------------------------------------------------------

    def _resolve_attribute(self, name):
        entries = list(self._load_record().values())
        if name == OBJECTS_ATTR:
            return entries
        if name == COUNT_ATTR:
            return len(entries)
        return None

    def _show_resource(self):
        # A List, as kubectl shows many objects: what the export reads.
        return {'apiVersion': 'v1', 'kind': 'List', 'items': [
            {'apiVersion': e['apiVersion'], 'kind': e['kind'],
             'metadata': {k: v for k, v in (
                 ('name', e['name']), ('namespace', e['namespace']),
                 ('uid', e['uid'])) if v}}
            for e in self._load_record().values()]}

    # --- validation ---------------------------------------------------------

    def validate_properties(self, props):
        self._validate_cluster(props)
        keys = []
        for index, manifest in enumerate(props[MANIFESTS] or ()):
            if manifest is None:  # not known yet (template validate)
                keys.append(None)
                continue
            self._validate_identity(index, manifest)
            member = members.Member.of(self, props, index, manifest)
            member.validate_properties(member.properties)
            keys.append(member.object_key(member.properties))
        for first, later, key in objectset.duplicates(keys):
            raise self._invalid(
                'manifests[%d] and manifests[%d] both name %s: give each '
                'object once' % (first, later, objectset.describe(
                    objectset.Identity(*key[:4]))), MANIFESTS)

    def _validate_identity(self, index, manifest):
        where = 'manifests[%d]' % index
        meta = manifest.get('metadata')
        for path, value in (('apiVersion', manifest.get('apiVersion')),
                            ('kind', manifest.get('kind')),
                            ('metadata.name', (meta or {}).get('name'))):
            if not value:
                raise self._invalid('%s.%s is required' % (where, path),
                                    MANIFESTS)
        namespace = meta.get('namespace')
        error = namespace and naming.validate(namespace, 'label')
        if error:
            raise self._invalid('%s.metadata.namespace %r: %s' % (
                where, namespace, error), MANIFESTS)

    def object_keys(self, props):
        """The identities of the objects (shared.checks' check of
        one object per stack compares them)."""
        views = (members.Member.of(self, props, index, m) for index, m in
                   enumerate(props[MANIFESTS] or ()) if m is not None)
        return [m.object_key(m.properties) for m in views]

    # --- the objects --------------------------------------------------------

    def _members(self, props):
        return [members.Member.of(self, props, index, manifest)
                for index, manifest in enumerate(props[MANIFESTS] or ())]

    def _recorded(self, props, entry):
        """A member for a recorded object (enough to read and delete it)."""
        return members.Member.of(self, props, None, {
            'apiVersion': entry['apiVersion'], 'kind': entry['kind'],
            'metadata': {'name': entry['name'],
                         'namespace': entry['namespace']}})

    def _begin(self, work, todo):
        """Write every object of todo [(member, mode, uid)], in parallel;
        the tasks left are waited on by _check."""
        proto = self.waits.start(work.props)
        work.tasks = [
            members.Task(member, mode, dataclasses.replace(proto), uid)
            for member, mode, uid in todo]
        work.total = len(work.tasks)
        self._round(work, self._start)

    def _check(self, work, report=True):
        """One look at every pending object; True once all are done."""
        polls = self._round(work, self._step)
        if not work.tasks:
            return True
        if report:
            reporting.Reporter(self.waits.show_progress,
                               CONF.kubernetes.progress_interval)(
                work, objectset.progress_text(
                    work.total - len(work.tasks), work.total,
                    [t.member.identity() for t in work.tasks]))
        raise resource.PollDelay(min(p.seconds for p in polls))

    def _round(self, work, step):
        """step(task) for every task, in parallel; keeps those that poll
        again, records what exists, fails with the objects that failed."""
        answers = members.parallel(lambda task: members.attempt(step, task),
                                 work.tasks)
        self._update_record(work)
        failures = [a for a in answers if isinstance(a, str)]
        if failures:
            raise exception.Error(members.joined(failures))
        polls = [a for a in answers if isinstance(a, awaiter.PollAgain)]
        work.tasks = [t for t, a in zip(work.tasks, answers)
                      if isinstance(a, awaiter.PollAgain)]
        return polls

    def _start(self, task):
        """The first write of a task's object; PollAgain to wait on it."""
        member = task.member
        desired = member.manifest(member.properties)
        if task.mode == CREATE:
            try:
                self._applied(task, kube_mod.create_only(desired))
            except kube_mod.ApiError as exc:
                if exc.status != 409:
                    raise
                existing = member.object.get(desired)
                task.gone_uid = existing and member._claim(existing)
                if not task.gone_uid:
                    self._applied(task, desired)
        elif task.mode == APPLY:
            try:
                self._applied(task, desired)
            except kube_mod.ApiError as exc:
                if exc.status != 422 or not immutable.is_immutable_error(
                        exc.status_body):
                    raise
                LOG.info('%s: replacing %s, the API refused an in-place '
                         'update: %s', self.name, member.describe(), exc)
                task.mode = REPLACE
        if task.mode in (REPLACE, DELETE):
            self._delete(task)
        return awaiter.PollAgain(1)

    def _step(self, task):
        """One check of a task: READY, PollAgain, or Failed raised."""
        member = task.member
        desired = member.manifest(member.properties)
        waiting = member.waits.awaiter(desired, member.properties,
                                        watched=False)
        if task.gone_uid:
            answer = waiting.gone(task.wait, task.gone_uid)
            if answer is not awaiter.READY:
                return answer
            task.gone_uid = task.uid = None
            if task.mode == DELETE:
                return awaiter.READY
            self._applied(task, desired)
        if task.mode == DELETE:
            return awaiter.READY
        return waiting.ready(task.wait)

    def _applied(self, task, desired):
        task.wait.live = task.member._kube().apply(desired)
        task.uid = task.wait.live['metadata']['uid']

    def _delete(self, task):
        """Delete the task's object (an unrecorded one only if it carries
        this resource's UUID); wait for it to go if there was one."""
        member = task.member
        meta = member.object.locator()
        if task.uid is None:
            live_obj = member.object.get(meta) or {}
            if labels.resource_uuid(live_obj) != self.uuid:
                return
            task.uid = live_obj['metadata']['uid']
        deleted = member._kube().delete(
            meta['apiVersion'], meta['kind'], meta['metadata']['name'],
            meta['metadata'].get('namespace'), uid=task.uid)
        task.gone_uid = task.uid if deleted else None
        if not deleted:
            task.uid = None

    def _release(self, member, props):
        try:
            member._kube().apply(member.manifest(props, owned=False))
        except Exception as exc:
            LOG.warning('%s: could not release %s on abandon: %s',
                        self.name, member.describe(), exc)

    def _problem(self, member):
        try:
            member.handle_check()
        except exception.Error as exc:
            return str(exc)
        return None

    # --- the record of what exists ------------------------------------------

    def _load_record(self):
        data = self.data()
        chunks = [data.get(RECORD_KEY % i, '')
                  for i in range(int(data.get(RECORD_CHUNKS) or 0))]
        return {objectset.entry_identity(e): e
                for e in objectset.decode(chunks)}

    def _update_record(self, work):
        record = dict(work.record)
        for task in work.tasks:
            ident = task.member.identity()
            if task.uid:
                record[ident] = objectset.entry(
                    ident, task.member.api_version(task.member.properties),
                    task.uid)
            else:
                record.pop(ident, None)
        if record == work.record:
            return
        work.record = record
        chunks = objectset.encode(list(record.values()))
        stored = int(self.data().get(RECORD_CHUNKS) or 0)
        for index, chunk in enumerate(chunks):
            self.data_set(RECORD_KEY % index, chunk)
        self.data_set(RECORD_CHUNKS, str(len(chunks)))
        for index in range(len(chunks), stored):
            self.data_delete(RECORD_KEY % index)
