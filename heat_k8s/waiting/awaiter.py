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

"""Waiting for one object: poll, watch between polls, give up at a deadline.

Heat calls check_*_complete(wait) until it returns True; in between it
sleeps as long as the check asks. Each check here reads the object (or
takes the version a watch last delivered), judges it, and while it is
progressing watches it for a few seconds, so that readiness is noticed as
it happens; between watches the polls back off. The rules and their
figures (the back-off, the hold, the stuck graces, the crash limit, which
API errors are retried) are heat_k8s.waiting.policy's; this module keeps
what one wait remembers and applies them. At the deadline the failure
says what was not ready.
"""

import dataclasses
import datetime
import math
import time
import typing

from oslo_log import log as logging

from heat_k8s.client import apierrors
from heat_k8s.kinds import readiness
from heat_k8s.kinds import steadiness
from heat_k8s.waiting import policy

LOG = logging.getLogger(__name__)

READY = True  # what a check answers once the wait is over

CLOCK = time.monotonic  # seconds; deadlines live only in engine memory


def wall():
    """The wall clock, which the cluster's timestamps are on."""
    return datetime.datetime.now(datetime.timezone.utc)


class Failed(Exception):
    """The wait is over and the object did not get there; str() says why."""


@dataclasses.dataclass(frozen=True)
class PollAgain:
    """Not there yet: check again after this many seconds."""

    seconds: int


@dataclasses.dataclass
class Wait:
    """What one wait remembers from one check to the next.

    Heat keeps a handler's return value in memory and hands it to every
    check_*_complete call, so any object does.
    """

    deadline: float              # clock() value after which it fails
    started: float               # clock() value when it began
    timeout: int | None = None   # the timeout property, if one was given
    wait: bool = True            # False: ready as soon as written
    props: object = None         # the properties waited for (opaque here)
    live: dict | None = None     # the last version read, to watch on from
    gone_uid: str | None = None  # an incarnation to see disappear first
    stuck_since: float | None = None  # clock() value it was first stuck at
    forbidden_since: float | None = None  # clock() value of the first 403
    shown: str | None = None     # the progress text last stored
    shown_at: float | None = None  # clock() value it was stored at
    # A workload's pods (steadiness): restart counts when first seen and
    # when last seen, and since when it has been ready and steady (a
    # clock() value its own clock dates back: steadiness.up_for).
    restarts_first: dict | None = None
    restarts_last: dict | None = None
    steady_since: float | None = None

    @classmethod
    def start(cls, seconds, timeout=None, wait=True, props=None,
              clock=CLOCK):
        """A wait of `seconds` (at least one) from now."""
        now = clock()
        return cls(deadline=now + max(seconds, 1), started=now,
                   timeout=timeout, wait=wait, props=props)

    def waited(self):
        """How long the wait lasted, as the messages name it."""
        if self.timeout:
            return '%ss (timeout property)' % self.timeout
        return 'the stack timeout'


class Subject(typing.Protocol):
    """The object one wait is for: all the awaiter asks of it."""

    def read(self):
        """The live object, or None once it is deleted."""

    def watch(self, obj, seconds):
        """Its versions for up to `seconds` as it changes (or as what
        decides its readiness changes); None once it is deleted."""

    def judge(self, obj, explain):
        """Its readiness Verdict; explain: also read what explains one
        that is not ready (a workload's pods, a claim's events)."""

    def pods(self, obj):
        """The pods that must stay up for it to be ready, or None: its
        kind has none (kinds.Kind.holds)."""

    def events(self, obj):
        """Events that explain a failure."""

    def describe(self):
        """'Kind namespace/name', as messages name it."""


class Awaiter:
    """The checks of one object (a Subject), on the terms of its
    policy.Settings.

    Time comes from `clock` (monotonic seconds), the cluster's timestamps
    are compared to `now` (an aware datetime); name says who waits, for
    the log.
    """

    def __init__(self, subject, settings=policy.Settings(), name='',
                 clock=CLOCK,
                 now=wall):
        self.subject, self.settings, self.name = subject, settings, name
        self.clock, self.now = clock, now

    def ready(self, wait):
        """READY, PollAgain, or Failed raised with what was not ready."""
        if not wait.wait:
            return READY
        return self._retrying(wait, self._ready, wait)

    def gone(self, wait, uid):
        """READY once the incarnation `uid` no longer exists, or PollAgain;
        Failed at the deadline, naming the finalizers holding it.  API
        errors are retried as ready() retries them."""
        return self._retrying(wait, self._gone, wait, uid)

    # --- one look -----------------------------------------------------------

    def _ready(self, wait):
        subject = self.subject
        # The first poll reads the object the apply just returned, a later
        # one the last version a watch saw (watching on from it delivers
        # what changed since); a timeout reads it afresh.
        live, wait.live = wait.live, None
        obj = (live if live is not None and not self._expired(wait)
               else subject.read())
        if obj is None:
            raise self._deleted_while_waiting()
        closer = self._expired(wait) or policy.looks_closer(
            self.clock() - wait.started)
        verdict = subject.judge(obj, explain=closer)
        if closer:
            self._fail_if_stuck_too_long(wait, verdict, obj)
        watched = False
        if verdict.state == readiness.PROGRESSING and self._watchable(wait):
            obj, verdict = self._watch_verdict(obj, wait, verdict)
            watched = True
        if closer or verdict.state == readiness.READY:
            verdict = self._steadiness(wait, obj, verdict)
        if verdict.state == readiness.READY:
            return self._held(wait, obj) or READY
        wait.steady_since = None  # the hold starts again at the next READY
        if verdict.state == readiness.FAILED:
            raise Failed(self._failure(verdict, obj))
        # A watch that ran into the deadline leaves the message to the next
        # poll, which reads the object afresh with what explains it.
        if self._expired(wait) and not watched:
            raise Failed('%s not ready after %s: %s' % (
                subject.describe(), wait.waited(),
                self._explain(verdict, obj)))
        return self._delay(wait, watched)

    def _gone(self, wait, uid):
        obj = self.subject.read()
        if obj is None or obj['metadata'].get('uid') != uid:
            return READY
        if self._expired(wait):
            finalizers = obj['metadata'].get('finalizers') or []
            raise Failed('%s still exists after %s%s' % (
                self.subject.describe(), wait.waited(),
                '; finalizers holding it: ' + ', '.join(finalizers)
                if finalizers else ''))
        watched = self._watchable(wait)
        if watched and any(changed is None
                           for changed in self._watch(obj, wait)):
            return READY
        return self._delay(wait, watched)

    # --- helpers ------------------------------------------------------------

    def _retrying(self, wait, look, *args):
        """look(*args)'s answer; PollAgain when it met an API error that
        is retried at the next poll (_retryable)."""
        try:
            answer = look(*args)
        except apierrors.ApiError as exc:
            if not self._retryable(exc, wait):
                raise
            LOG.info('%s: will retry after: %s', self.name, exc)
            return self._delay(wait)
        wait.forbidden_since = None
        return answer

    def _expired(self, wait):
        return self.clock() > wait.deadline

    def _retryable(self, exc, wait):
        """Whether a poll's API error is retried at the next poll
        (policy.retried), never past the deadline."""
        if self._expired(wait):
            return False
        forbidden_for = 0
        if exc.status == 403:
            now = self.clock()
            if wait.forbidden_since is None:
                wait.forbidden_since = now
            forbidden_for = now - wait.forbidden_since
        return policy.retried(exc.status, forbidden_for)

    def _delay(self, wait, watched=False):
        """Poll again when policy.next_poll says; after a watch the next
        poll (and watch) comes at once, a second later."""
        if watched:
            return PollAgain(1)
        now = self.clock()
        return PollAgain(policy.next_poll(self.settings, now - wait.started,
                                          wait.deadline - now))

    def _watchable(self, wait):
        return policy.watches(self.settings, wait.deadline - self.clock())

    def _watch(self, obj, wait):
        """The object's versions as it changes (policy.watch_length);
        None if it is deleted."""
        return self.subject.watch(obj, policy.watch_length(
            self.settings, wait.deadline - self.clock()))

    def _watch_verdict(self, obj, wait, verdict):
        """(object, verdict) once it stops progressing or the watch ends."""
        for changed in self._watch(obj, wait):
            if changed is None:
                raise self._deleted_while_waiting()
            obj = changed
            verdict = self.subject.judge(obj, explain=False)
            # The next watch can start from a version a watch delivered; a
            # watch that delivered nothing may have been refused (a version
            # too old), so the next poll reads the object again.
            wait.live = obj
            if verdict.state != readiness.PROGRESSING:
                break
        return obj, verdict

    def _steadiness(self, wait, obj, verdict):
        """The verdict, unless a container of the workload's pods exited
        or restarted since the last look (PROGRESSING: the hold starts
        again) or restarted crash_restarts times in this wait (FAILED)."""
        if verdict.state == readiness.FAILED:
            return verdict
        pods = self.subject.pods(obj)
        if pods is None:
            return verdict
        counts = steadiness.restart_counts(pods)
        if wait.restarts_first is None:
            wait.restarts_first = wait.restarts_last = counts
        unsteady = steadiness.judge(pods, wait.restarts_first,
                                    wait.restarts_last,
                                    self.settings.crash_restarts)
        wait.restarts_last = counts
        if unsteady is None:
            return verdict
        if unsteady.state == readiness.FAILED:
            return unsteady
        return verdict if verdict.state != readiness.READY else unsteady

    def _held(self, wait, obj):
        """PollAgain until a workload has been ready and steady for
        ready_hold_seconds, counted from when its own clock says it got
        there; None once it has (or when it has no pods to hold)."""
        if self.settings.ready_hold_seconds <= 0:
            return None  # 0 takes the first ready reading
        now = self.clock()
        if wait.steady_since is None:
            pods = self.subject.pods(obj)
            if pods is None:
                return None
            wait.steady_since = now - steadiness.up_for(obj, pods,
                                                        self.now())
        left = policy.hold_left(self.settings, now - wait.steady_since)
        if left <= 0:
            return None
        # The next look reads the object afresh: the version a watch
        # delivered is what made it ready, not what it is now.
        wait.live = None
        return PollAgain(max(1, math.ceil(left)))

    def _fail_if_stuck_too_long(self, wait, verdict, obj):
        if not verdict.stuck:
            wait.stuck_since = None
            return
        now = self.clock()
        if wait.stuck_since is None:
            wait.stuck_since = now
        if policy.stuck_too_long(self.settings, verdict.stuck,
                                 now - wait.stuck_since):
            raise Failed('%s failed: no progress for %ds: %s' % (
                self.subject.describe(), now - wait.stuck_since,
                self._explain(verdict, obj)))

    def _explain(self, verdict, obj):
        return readiness.explain(verdict, self.subject.events(obj))

    def _failure(self, verdict, obj):
        """'Kind ns/name failed: why'. A verdict names its object too
        ('job migrate failed: ...'); once is enough in Heat's 255
        characters of event reason."""
        message = self._explain(verdict, obj)
        own = '%s %s ' % (obj.get('kind', '').lower(),
                          obj.get('metadata', {}).get('name'))
        if message.startswith(own):
            return '%s %s' % (self.subject.describe(), message[len(own):])
        return '%s failed: %s' % (self.subject.describe(), message)

    def _deleted_while_waiting(self):
        return Failed('%s was deleted while Heat waited for it'
                      % self.subject.describe())
