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

"""A resource's waits in Heat's terms: the edge to heat_k8s.waiting.

A resource holds a Waits (``self.waits``). It starts a wait (start: the
deadline from the stack's time left and the timeout property), checks
one (ready, gone) and turns the awaiter's answers into Heat's: True,
PollDelay, or exception.Error with Secret values redacted. The awaiter is
handed the object as an awaiter.Subject read and judged through the
resource, and what a wait waits on becomes the resource's status reason
(show_progress).
"""

from heat.common import exception
from heat.engine import resource as heat_resource
from heat.objects import resource as resource_objects
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s import kinds
from heat_k8s.kinds import progress
from heat_k8s.kinds import readiness
from heat_k8s.resources.shared import common
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import policy
from heat_k8s.waiting import reporting

LOG = logging.getLogger(__name__)
CONF = cfg.CONF

STOP_MARGIN = 10   # seconds kept before the stack timeout for our message


class Waits:
    """The waits of one Heat resource; ready() and gone() are for a
    KubernetesResource's own object."""

    def __init__(self, resource):
        self.resource = resource

    def start(self, props):
        """A new awaiter.Wait for these properties (during an update,
        resource.properties are still the old ones)."""
        stack = self.resource.stack
        try:
            seconds = stack.time_remaining() - STOP_MARGIN
        except TypeError:  # stack times not stored yet
            seconds = stack.timeout_secs() - STOP_MARGIN
        if props[common.TIMEOUT]:
            seconds = min(seconds, props[common.TIMEOUT])
        return awaiter.Wait.start(seconds, timeout=props[common.TIMEOUT],
                                  wait=props[common.WAIT], props=props)

    def ready(self, wait):
        """True once the object is ready; PollDelay, or Error."""
        manifest = self.resource.object.locator(wait.props)
        return self.answer(self.awaiter(manifest, wait.props, wait).ready,
                           wait, manifest=manifest)

    def gone(self, manifest, uid, wait):
        """True once the incarnation uid of the object no longer exists."""
        return self.answer(
            self.awaiter(manifest, self.resource.properties).gone,
            wait, uid, manifest=manifest)

    def awaiter(self, manifest, props, wait=None, watched=True):
        """The awaiter of this object; with `wait`, each judgment of it
        while it progresses is shown as the resource's status reason.
        watched=False polls only (many objects checked in one round)."""
        settings = policy.Settings.from_options(CONF.kubernetes, watched)
        return awaiter.Awaiter(
            _Subject(self.resource, manifest, props, wait,
                     reporting.Reporter(self.show_progress,
                                        settings.progress_interval)),
            settings, name=self.resource.name)

    def answer(self, check, *args, manifest):
        """A check's answer in Heat's terms: True when the wait is over,
        PollDelay to poll again, exception.Error when it failed."""
        try:
            answer = check(*args)
        except awaiter.Failed as exc:
            raise exception.Error(self.resource.object.redacted(
                str(exc), manifest)) from None
        if isinstance(answer, awaiter.PollAgain):
            raise heat_resource.PollDelay(answer.seconds)
        return True

    def show_progress(self, text):
        """Store text as the waiting resource's status reason.

        Heat stores a reason, with an event, only at state changes. This
        writes that one column, as resource_id_set writes its own: the
        engine lock, the atomic key and the updated time stay Heat's, and
        no event is added. The state change ending the wait replaces it.
        """
        rsrc = self.resource
        if rsrc.id is None or rsrc.status != rsrc.IN_PROGRESS:
            return
        rsrc.status_reason = text
        try:
            resource_objects.Resource.update_by_id(
                rsrc.context, rsrc.id,
                {'status_reason': text, 'updated_at': rsrc.updated_time})
        except Exception as exc:  # progress is never worth failing for
            LOG.warning('%s: progress not stored: %s', rsrc.name, exc)


class _Subject:
    """The object a resource waits for, as heat_k8s.waiting asks of it
    (awaiter.Subject): read, watched and judged through the resource's
    client, its judgments shown as the resource's status reason."""

    def __init__(self, resource, manifest, props, wait, report):
        self.resource, self.manifest = resource, manifest
        self.props, self.wait, self.report = props, wait, report
        self.kind = kinds.declared(manifest['kind'])
        self.seen = _RelatedSeen(resource._kube())

    def read(self):
        return self.resource.object.get(self.manifest)

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
        return self.resource.object.events(obj)

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
