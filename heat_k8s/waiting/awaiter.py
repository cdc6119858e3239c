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
it happens. Between watches the polls back off: the next one comes after
a quarter of the time waited so far, so readiness is noticed at most ~25%
late. Transient API errors are retried at the next poll until the
deadline; at the deadline the failure says what was not ready.
"""

import dataclasses
import math
import time

from oslo_log import log as logging

from heat_k8s.client import apierrors
from heat_k8s.kinds import readiness
from heat_k8s.kinds import steadiness

LOG = logging.getLogger(__name__)

POLL_LATENESS = 0.25  # next poll after this fraction of the time waited
# Seconds waited before polls also read what explains the object (a
# workload's pods), to see whether it is stuck.
LOOK_CLOSER_AFTER = 10
# Retried at the next poll, not per request: the deadline bounds retries.
TRANSIENT = (0, 429, 500, 502, 503, 504)
# A restarted kube-apiserver answers before its RBAC caches are filled, and
# denies for those seconds what the same user did a moment ago (create the
# object waited for); a 403 is retried this long before it stands.
FORBIDDEN_GRACE = 30
READY = True  # what a check answers once the wait is over

CLOCK = time.monotonic  # seconds; deadlines live only in engine memory


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
    # when last seen, and since when it has been ready and steady.
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


class Awaiter:
    """The checks of one object, told how to read, watch and judge it.

    read() -> the live object or None; watch(obj, seconds) -> its versions
    as it changes (or as what decides its readiness changes), None when it
    is deleted (None: poll only); judge(obj, explain) -> Verdict;
    events(obj) -> Events explaining a failure; describe() -> 'Kind ns/name'
    for messages; name: who waits, for the log. watch_seconds and
    poll_interval_max are the [kubernetes] options of the same names;
    stuck_grace ([kubernetes] image_pull_grace) how long a stuck verdict
    (an image that cannot be pulled) may last before the wait fails.
    pods(obj) -> the pods of a workload that must stay up (None: the kind
    has none): once its rule reads READY, it is ready only after
    hold_seconds without a container exiting or restarting
    ([kubernetes] ready_hold_seconds), and fails once a container
    restarted crash_restarts times while Heat waited.
    """

    def __init__(self, read, judge, events, describe, watch_seconds,
                 poll_interval_max, watch=None, name='', clock=CLOCK,
                 stuck_grace=60, pods=None, hold_seconds=0,
                 crash_restarts=2):
        self.read, self.judge, self.events = read, judge, events
        self.describe, self.watch, self.name = describe, watch, name
        self.watch_seconds = watch_seconds
        self.poll_interval_max = poll_interval_max
        self.clock = clock
        self.stuck_grace = stuck_grace
        self.pods = pods
        self.hold_seconds = hold_seconds
        self.crash_restarts = crash_restarts

    def ready(self, wait):
        """READY, PollAgain, or Failed raised with what was not ready."""
        if not wait.wait:
            return READY
        watched = False
        try:
            # The first poll reads the object the apply just returned, a
            # later one the last version a watch saw (watching on from it
            # delivers what changed since); a timeout reads it afresh.
            live, wait.live = wait.live, None
            obj = (live if live is not None and not self._expired(wait)
                   else self.read())
            if obj is None:
                raise self._deleted_while_waiting()
            closer = self._expired(wait) or (
                self.clock() - wait.started >= LOOK_CLOSER_AFTER)
            verdict = self.judge(obj, explain=closer)
            if closer:
                self._fail_if_stuck_too_long(wait, verdict, obj)
            if verdict.state == readiness.PROGRESSING and self._watchable(
                    wait):
                obj, verdict = self._watch_verdict(obj, wait, verdict)
                watched = True
            if self.pods is not None and (
                    closer or verdict.state == readiness.READY):
                verdict = self._steadiness(wait, obj, verdict)
        except apierrors.ApiError as exc:
            if not self._retryable(exc, wait):
                raise
            LOG.info('%s: will retry after: %s', self.name, exc)
            return self._delay(wait)
        wait.forbidden_since = None
        if verdict.state == readiness.READY:
            return self._held(wait) or READY
        wait.steady_since = None  # the hold starts again at the next READY
        if verdict.state == readiness.FAILED:
            raise Failed(self._failure(verdict, obj))
        # A watch that ran into the deadline leaves the message to the next
        # poll, which reads the object afresh with what explains it.
        if self._expired(wait) and not watched:
            raise Failed('%s not ready after %s: %s' % (
                self.describe(), wait.waited(), self._explain(verdict, obj)))
        return self._delay(wait, watched)

    def gone(self, wait, uid):
        """READY once the incarnation `uid` no longer exists, or PollAgain;
        Failed at the deadline, naming the finalizers holding it.  API
        errors are retried as ready() retries them."""
        try:
            obj = self.read()
        except apierrors.ApiError as exc:
            if not self._retryable(exc, wait):
                raise
            LOG.info('%s: will retry after: %s', self.name, exc)
            return self._delay(wait)
        wait.forbidden_since = None
        if obj is None or obj['metadata'].get('uid') != uid:
            return READY
        if self._expired(wait):
            finalizers = obj['metadata'].get('finalizers') or []
            raise Failed('%s still exists after %s%s' % (
                self.describe(), wait.waited(),
                '; finalizers holding it: ' + ', '.join(finalizers)
                if finalizers else ''))
        watched = self._watchable(wait)
        if watched and any(changed is None
                           for changed in self._watch(obj, wait)):
            return READY
        return self._delay(wait, watched)

    # --- helpers ------------------------------------------------------------

    def _expired(self, wait):
        return self.clock() > wait.deadline

    def _retryable(self, exc, wait):
        """Whether a poll's API error is retried at the next poll: a
        transient one until the deadline, a 403 for FORBIDDEN_GRACE."""
        if self._expired(wait):
            return False
        if exc.status != 403:
            return exc.status in TRANSIENT
        now = self.clock()
        if wait.forbidden_since is None:
            wait.forbidden_since = now
        return now - wait.forbidden_since < FORBIDDEN_GRACE

    def _delay(self, wait, watched=False):
        """Poll again after a quarter of the time waited so far (at least
        one second, at most poll_interval_max, not past the deadline);
        after a watch the next poll (and watch) comes at once, a second
        later."""
        if watched:
            return PollAgain(1)
        now = self.clock()
        backoff = min(self.poll_interval_max,
                      int((now - wait.started) * POLL_LATENESS),
                      int(wait.deadline - now) + 1)
        return PollAgain(max(1, backoff))

    def _watchable(self, wait):
        return (self.watch is not None and self.watch_seconds > 0 and
                wait.deadline - self.clock() >= 1)

    def _watch(self, obj, wait):
        """The object's versions as it changes (watch_seconds, at most
        until the deadline); None if it is deleted."""
        seconds = min(self.watch_seconds, wait.deadline - self.clock())
        return self.watch(obj, seconds)

    def _watch_verdict(self, obj, wait, verdict):
        """(object, verdict) once it stops progressing or the watch ends."""
        for changed in self._watch(obj, wait):
            if changed is None:
                raise self._deleted_while_waiting()
            obj = changed
            verdict = self.judge(obj, explain=False)
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
        pods = self.pods(obj)
        counts = steadiness.restart_counts(pods)
        if wait.restarts_first is None:
            wait.restarts_first = wait.restarts_last = counts
        unsteady = steadiness.judge(pods, wait.restarts_first,
                                    wait.restarts_last, self.crash_restarts)
        wait.restarts_last = counts
        if unsteady is None:
            return verdict
        if unsteady.state == readiness.FAILED:
            return unsteady
        return verdict if verdict.state != readiness.READY else unsteady

    def _held(self, wait):
        """PollAgain until a workload has been ready and steady for
        hold_seconds; None once it has (or when it has no pods to hold)."""
        if self.pods is None or self.hold_seconds <= 0:
            return None
        now = self.clock()
        if wait.steady_since is None:
            wait.steady_since = now
        left = self.hold_seconds - (now - wait.steady_since)
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
        if now - wait.stuck_since >= self.stuck_grace:
            raise Failed('%s failed: no progress for %ds: %s' % (
                self.describe(), now - wait.stuck_since,
                self._explain(verdict, obj)))

    def _explain(self, verdict, obj):
        return readiness.explain(verdict, self.events(obj))

    def _failure(self, verdict, obj):
        """'Kind ns/name failed: why'. A verdict names its object too
        ('job migrate failed: ...'); once is enough in Heat's 255
        characters of event reason."""
        message = self._explain(verdict, obj)
        own = '%s %s ' % (obj.get('kind', '').lower(),
                          obj.get('metadata', {}).get('name'))
        if message.startswith(own):
            return '%s %s' % (self.describe(), message[len(own):])
        return '%s failed: %s' % (self.describe(), message)

    def _deleted_while_waiting(self):
        return Failed('%s was deleted while Heat waited for it'
                      % self.describe())
