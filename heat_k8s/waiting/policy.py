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

"""The waiting policy: every rule a wait follows, and its figures, once.

The rules, as the pure functions below apply them:

* **Polls** back off: the next comes after a quarter of the time waited
  so far (POLL_LATENESS), so readiness is noticed at most ~25% late; at
  least 1 s, at most ``poll_interval_max``, never past the deadline. While
  an object progresses, each poll also watches it for ``watch_seconds``.
* **A closer look**: after LOOK_CLOSER_AFTER seconds, polls also read what
  explains an object (a workload's pods) to see whether it is stuck.
* **Stuck grace**: a verdict stuck on an image no node can pull fails
  after ``image_pull_grace``, one stuck Pending after ``pending_grace``
  (Settings.grace).
* **Hold**: a workload whose kind holds (kinds.Kind.holds) is ready once
  steady for ``ready_hold_seconds``, counted by its own clock
  (kinds.steadiness.up_for).
* **Crash**: it fails once a container restarted ``crash_restarts``
  times while Heat waited (the limit of kinds.steadiness.judge).
* **API errors**: a transient one (TRANSIENT) is retried at the next poll
  until the deadline; a 403 for FORBIDDEN_GRACE seconds.

Settings holds the figures an operator sets: each field is a
``[kubernetes]`` option of the same name, with its default, bounds and
help here. heat_k8s.config declares the options from this table
(options()), and the resource layer builds a wait's Settings from them
(Settings.from_options). The defaults live here rather than in config.py
because this layer imports no Heat and no heat_k8s.config, and its tests
replay recorded objects with Settings() meaning what an operator gets by
default; with the figures in config.py, either Settings would repeat
them (as it did, with a hold of 0 against the configured 5) or the
waiting layer would have to load Heat's configuration to know them.
"""

import dataclasses

from heat_k8s import kinds
from heat_k8s.kinds import readiness

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

# Named in the hold's help, read from the kinds so that it stays true.
_HOLDING_KINDS = ', '.join(kind.name for kind in kinds.DECLARATIONS
                           if kind.holds)


@dataclasses.dataclass(frozen=True)
class Bounds:
    """What oslo.config checks of an option, and its help."""

    minimum: int | None
    maximum: int | None
    help: str


def _option(default, help, minimum=None, maximum=None):
    """A Settings field that is the [kubernetes] option of its name."""
    return dataclasses.field(default=default, metadata={
        Bounds: Bounds(minimum, maximum, help)})


@dataclasses.dataclass(frozen=True)
class Settings:
    """The [kubernetes] options a wait follows; the defaults are theirs."""

    poll_interval_max: int = _option(
        20, minimum=1,
        help='Longest interval in seconds between two readiness polls of '
             'one object; polls start at one second and back off.')
    image_pull_grace: int = _option(
        60, minimum=1, maximum=3600,
        help='Seconds a workload (Pod, Job, Deployment, StatefulSet, '
             'DaemonSet) may wait for an image that its node cannot pull '
             '(ErrImagePull, ImagePullBackOff, InvalidImageName) before '
             'the resource fails with the kubelet\'s reason, rather than '
             'at its timeout. The kubelet keeps retrying meanwhile, so a '
             'registry that is briefly unavailable does not fail a stack. '
             'At most an hour: a longer wait is the timeout property\'s.')
    pending_grace: int = _option(
        120, minimum=1, maximum=3600,
        help='Seconds a pod that no node can take (the scheduler\'s '
             'FailedScheduling: "0/3 nodes are available: ..."), a '
             'container whose ConfigMap or Secret is missing '
             '(CreateContainerConfigError) or a PersistentVolumeClaim '
             'that nothing can bind (its FailedBinding or '
             'ProvisioningFailed event) may stay Pending '
             'before the resource waiting for it (the Pod, Job, workload '
             'or claim) fails with Kubernetes\' own words, rather than at '
             'its timeout. A pod that is scheduled and only slow to start '
             '(pulling its image) is never failed by this. Raise it where '
             'a cluster autoscaler adds nodes for Pending pods: that takes '
             'minutes. At most an hour.')
    ready_hold_seconds: int = _option(
        5, minimum=0, maximum=600,
        help='Seconds a workload (' + _HOLDING_KINDS + ') must stay ready, '
             'none of its containers exiting or restarting, before the '
             'resource is complete. A container that exits at once runs '
             'for a moment, and its pod reads Ready until the kubelet sees '
             'it exit. 0 takes the first ready reading (containers that '
             'exit are still caught while Heat waits). At most ten '
             'minutes, and shorter than every waiting resource\'s timeout '
             '(template validate refuses a timeout that is not longer).')
    crash_restarts: int = _option(
        2, minimum=1,
        help='Restarts of one container while Heat waits for its workload '
             'after which the resource fails, with the container\'s exit '
             'code and the last lines it wrote (its termination message), '
             'rather than at its timeout.')
    watch_seconds: int = _option(
        5, minimum=0,
        help='While an object is not ready yet, watch it for up to this '
             'many seconds at each poll, so that readiness is noticed as it '
             'happens rather than at the next poll (a Service is watched '
             'through its EndpointSlices, which decide its readiness). A '
             'watch holds an engine thread, and a stack cancel waits for it '
             'to end. 0 disables watching.')
    progress_interval: int = _option(
        5, minimum=0,
        help='While a resource waits for its object, its status reason '
             '(openstack stack resource list / show) says what it waits '
             'on, e.g. "Deployment web: 2/3 replicas ready; pod web-7d4 '
             'in ContainerCreating". It is stored when it changes, at most '
             'once in this many seconds per resource, and adds no event. '
             '0 stores every change.')

    @classmethod
    def from_options(cls, options, watched=True):
        """The settings the [kubernetes] options (cfg.CONF.kubernetes)
        give; watched=False polls only (many objects checked in one
        round)."""
        settings = cls(**{field.name: getattr(options, field.name)
                          for field in dataclasses.fields(cls)})
        return settings if watched else dataclasses.replace(
            settings, watch_seconds=0)

    def grace(self, stuck):
        """Seconds a verdict stuck on `stuck` (verdict.Verdict.stuck) may
        last before the wait fails."""
        return {readiness.IMAGE_PULL: self.image_pull_grace,
                readiness.PENDING: self.pending_grace}[stuck]


def options():
    """(name, default, Bounds) of every option Settings reads, in the
    order heat_k8s.config declares them."""
    return [(field.name, field.default, field.metadata[Bounds])
            for field in dataclasses.fields(Settings)]


# --- the rules ---------------------------------------------------------------

def next_poll(settings, waited, left):
    """Seconds until the next poll, after `waited` seconds of a wait
    with `left` seconds to its deadline."""
    return max(1, min(settings.poll_interval_max,
                      int(waited * POLL_LATENESS), int(left) + 1))


def watches(settings, left):
    """Whether a poll with `left` seconds to the deadline watches."""
    return settings.watch_seconds > 0 and left >= 1


def watch_length(settings, left):
    """Seconds a watch lasts with `left` seconds to the deadline."""
    return min(settings.watch_seconds, left)


def looks_closer(waited):
    """Whether a poll after `waited` seconds also reads what explains
    the object."""
    return waited >= LOOK_CLOSER_AFTER


def stuck_too_long(settings, stuck, seconds):
    """Whether a verdict stuck on `stuck` for `seconds` fails the wait."""
    return seconds >= settings.grace(stuck)


def hold_left(settings, steady_for):
    """Seconds a workload steady for `steady_for` seconds still waits;
    0 or less: held long enough."""
    return settings.ready_hold_seconds - steady_for


def retried(status, forbidden_for):
    """Whether a poll's API error of `status` is retried at the next poll;
    forbidden_for: seconds since the first 403 of this run of them."""
    if status == 403:
        return forbidden_for < FORBIDDEN_GRACE
    return status in TRANSIENT
