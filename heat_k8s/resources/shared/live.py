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

"""What a resource's object is now: reads of the live object, and waits.

A mixin of KubernetesResource: the live object and its events, its
readiness verdict, what Heat shows of it (resource show, attributes,
observe reality) with Secret values redacted, and the edge to
heat_k8s.waiting: it is handed the object as an awaiter.Subject (read,
watch, judge, pods, events, describe), and its answers become Heat's
PollDelay and exception.Error, and what a wait waits on becomes the
resource's status reason.
"""

from heat.common import exception
from heat.engine import resource
from heat.objects import resource as resource_objects
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s import kinds
from heat_k8s.client import kube as kube_mod
from heat_k8s.kinds import drift
from heat_k8s.kinds import progress
from heat_k8s.kinds import projection
from heat_k8s.kinds import readiness
from heat_k8s.kinds import redaction
from heat_k8s.resources.shared import common
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import policy
from heat_k8s.waiting import reporting

LOG = logging.getLogger(__name__)
CONF = cfg.CONF
LABELS, ANNOTATIONS = (
    common.LABELS, common.ANNOTATIONS)


class Observed:
    """Reads of the object a resource manages, and waiting for it."""

    def _show_resource(self):
        obj = self._get(self.manifest(self.properties, owned=False,
                                      content=False))
        if obj is None:
            return None
        obj = redaction.manifest(obj)
        obj.get('metadata', {}).pop('managedFields', None)
        return obj

    def get_live_resource_data(self):
        obj = self._get(self.manifest(self.properties, owned=False,
                                      content=False))
        if obj is None:
            raise exception.EntityNotFound(entity=self.kind_of(
                self.properties), name=self.object_name(self.properties))
        return obj

    def parse_live_resource_data(self, resource_properties, resource_data):
        meta = resource_data.get('metadata') or {}
        live = {LABELS: projection.project(resource_properties[LABELS],
                                           meta.get('labels')),
                ANNOTATIONS: projection.project(
                    resource_properties[ANNOTATIONS],
                    meta.get('annotations'))}
        for prop, key in self.body_properties.items():
            if prop not in self.sensitive_properties:
                live[prop] = projection.project(resource_properties[prop],
                                                resource_data.get(key))
        return live

    def drift(self, obj, manifest):
        """The fields of obj that left manifest (heat_k8s.kinds.drift)."""
        return drift.findings(manifest, obj, CONF.kubernetes.field_manager)

    def check_drift(self, obj):
        """Raise the drift of obj from what Heat applies, if any; fields
        only others set are logged, never fought over."""
        if self.external_id:
            return  # never written by Heat
        manifest = self.manifest(self.applied_properties())
        manager = CONF.kubernetes.field_manager
        for path in drift.foreign(manifest, obj, manager):
            LOG.info('%s: %s is set outside Heat, left alone', self.name,
                     path)
        found = self.drift(obj, manifest)
        if found:
            prefix = 'Error: resources.%s: ' % self.name
            raise exception.Error(drift.message(
                self.describe(), found, drift.REASON_MAX - len(prefix)))

    def applied_properties(self):
        """The properties Heat applies: stored properties hold
        fingerprints in place of secret values, so those resolve from
        the template again."""
        if not self.sensitive_properties:
            return self.properties
        return self.t.properties(self.properties_schema, self.context)

    def get_reference_id(self):
        return self.data().get('name') or super().get_reference_id()

    def _resolve_attribute(self, name):
        attr = (self.extra_attributes.get(name) or
                common.COMMON_ATTRIBUTES.get(name))
        if attr is None or self.resource_id is None:
            return None
        if attr.source == 'data':
            return attr.get(self.data())
        obj = self._get(self.manifest(self.properties, owned=False,
                                      content=False))
        return None if obj is None else attr.get(obj)

    def _get(self, manifest):
        meta = manifest['metadata']
        return self._kube().get(manifest['apiVersion'], manifest['kind'],
                                meta['name'], meta.get('namespace'))

    def _events(self, obj):
        try:
            return self._kube().events_for(obj)
        except kube_mod.ApiError as exc:
            LOG.info('%s: events unavailable: %s', self.name, exc)
            return []

    def verdict(self, kube, obj, props, explain=True):
        """Readiness of a live object (generic resources add wait_for).

        Objects that only explain a verdict (a workload's pods) are fetched
        for a failure, or when explain is true for a verdict not READY.
        """
        kind = obj['kind']
        deciding = kinds.declared(kind).decides
        result = kinds.evaluate(obj, kube.related(obj, deciding))
        explaining = kinds.declared(kind).explains
        if explaining and (result.state == readiness.FAILED or (
                explain and result.state != readiness.READY)):
            result = kinds.evaluate(
                obj, kube.related(obj, deciding | explaining))
        return result

    def _check_ready(self, wait):
        manifest = self.manifest(wait.props, owned=False, content=False)
        return self._answer(self._awaiter(manifest, wait.props, wait).ready,
                            wait, manifest=manifest)

    def redacted(self, text, manifest):
        """text without the values of the Secrets this object's pods read,
        which a container may print before it exits (its termination
        message, a kubelet event): read now, with the caller's token, only
        for a text that leaves for Heat; never logged."""
        names = redaction.consumed_secrets(manifest)
        if not text or not names:
            return text
        namespace = manifest['metadata'].get('namespace')
        values, unread = [], []
        for name in sorted(names):
            try:
                secret = self._kube().get('v1', 'Secret', name, namespace)
            except kube_mod.ApiError:
                unread.append(name)
                continue
            values.extend(redaction.secret_values(secret))
        if unread:
            # Values it cannot know: what the containers said goes instead.
            try:
                values.extend(redaction.container_messages(
                    self._pods_now(manifest)))
            except kube_mod.ApiError:
                return ('%s: the reason is withheld: it may quote values of '
                        'Secrets (%s) that could not be read to redact it'
                        % (self.describe(), ', '.join(unread)))
        return redaction.text(text, values, public=(
            namespace or '', manifest['metadata'].get('name') or ''))

    def _pods_now(self, manifest):
        obj = self._get(manifest)
        if obj is None or obj.get('kind') == 'Pod':
            return [obj] if obj else []
        return self._kube().related(obj, kinds.PODS).get('pods') or []

    def _gone(self, manifest, uid, wait):
        """True once the incarnation uid of the object no longer exists."""
        return self._answer(self._awaiter(manifest, self.properties).gone,
                            wait, uid, manifest=manifest)

    def _awaiter(self, manifest, props, wait=None, watched=True):
        """The awaiter of this object; with `wait`, each judgment of it
        while it progresses is shown as this resource's status reason.
        watched=False polls only (many objects checked in one round)."""
        settings = policy.Settings.from_options(CONF.kubernetes, watched)
        return awaiter.Awaiter(
            _Subject(self, manifest, props, wait,
                     settings.progress_interval), settings, name=self.name)

    def _show_progress(self, text):
        """Store text as this waiting resource's status reason.

        Heat stores a reason, with an event, only at state changes. This
        writes that one column, as resource_id_set writes its own: the
        engine lock, the atomic key and the updated time stay Heat's, and
        no event is added. The state change ending the wait replaces it.
        """
        if self.id is None or self.status != self.IN_PROGRESS:
            return
        self.status_reason = text
        try:
            resource_objects.Resource.update_by_id(
                self.context, self.id,
                {'status_reason': text, 'updated_at': self.updated_time})
        except Exception as exc:  # progress is never worth failing for
            LOG.warning('%s: progress not stored: %s', self.name, exc)

    def _answer(self, check, *args, manifest):
        """A check's answer in Heat's terms: True when the wait is over,
        PollDelay to poll again, exception.Error when it failed."""
        try:
            answer = check(*args)
        except awaiter.Failed as exc:
            raise exception.Error(self.redacted(str(exc), manifest)) from None
        if isinstance(answer, awaiter.PollAgain):
            raise resource.PollDelay(answer.seconds)
        return True


class _Subject:
    """The object a resource waits for, as heat_k8s.waiting asks of it
    (awaiter.Subject): read, watched and judged through the resource's
    client, its judgments shown as the resource's status reason."""

    def __init__(self, resource, manifest, props, wait, progress_interval):
        self.resource, self.manifest = resource, manifest
        self.props, self.wait = props, wait
        self.kind = kinds.declared(manifest['kind'])
        self.seen = _RelatedSeen(resource._kube())
        self.report = reporting.Reporter(resource._show_progress,
                                         progress_interval)

    def read(self):
        return self.resource._get(self.manifest)

    def watch(self, obj, seconds):
        watcher = self.resource._kube().watcher_for(self.kind.watches)
        return watcher(obj, seconds)

    def judge(self, obj, explain):
        self.seen.judging()
        result = self.resource.verdict(self.seen, obj, self.props,
                                       explain=explain)
        if self.wait is not None and result.state == readiness.PROGRESSING:
            self.report(self.wait, progress.text(
                obj, result, self.seen.related_objects, awaiter.wall()))
        return result

    def pods(self, obj):
        """The pods that must stay up (kinds.steadiness): a Pod itself,
        or those a not-ready verdict just read to explain itself."""
        if not self.kind.holds:
            return None
        return [obj] if self.kind.name == 'Pod' else self.seen.pods(obj)

    def events(self, obj):
        return self.resource._events(obj)

    def describe(self):
        return self.resource.describe()


class _RelatedSeen:
    """The client a verdict reads related objects through: it remembers
    the last ones read, so that the progress text can name the pods
    without reading them again."""

    def __init__(self, kube):
        self.kube, self.related_objects = kube, {}
        self.this_judgment = {}  # read for the object judged last

    def judging(self):
        """A new judgment: what it reads is its own."""
        self.this_judgment = {}

    def related(self, obj, names):
        found = self.kube.related(obj, names)
        self.related_objects.update(found)
        self.this_judgment.update(found)
        return found

    def pods(self, obj):
        """The pods the last judgment of obj read, else read now."""
        if 'pods' not in self.this_judgment:
            self.related(obj, kinds.PODS)
        return self.this_judgment['pods']
