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

"""Why an object is not ready, in the cluster's words.

Its pods' problems (container waiting reasons, exit codes, termination
messages, probes not passing) and the Warning events about it. Readiness
rules add pod problems to their verdicts; the resource layer adds the
events to a failure or timeout message. Pure: lists of objects in, text
out, and never Secret data.
"""

import datetime

from heat_k8s.kinds import fields
from heat_k8s.kinds import verdict

# Caps that keep a message readable when many pods or events are bad.
MAX_POD_PROBLEMS = 3
MAX_EVENTS = 3
# Characters of an event's message that, found in a verdict, mean the
# verdict already says it (both may be clipped, at different places).
QUOTED = 60

# Waiting reasons that are normal steps of starting a container.
_STARTING = frozenset({'ContainerCreating', 'PodInitializing'})
# Waiting reasons of an image the kubelet cannot get: it retries, but a
# wrong name or a missing tag never heals.
IMAGE_UNAVAILABLE = frozenset({'ErrImagePull', 'ImagePullBackOff',
                               'InvalidImageName', 'ErrImageNeverPull'})

# The kubelet's waiting reason of a container whose ConfigMap or Secret
# (or a key of it) is missing: it retries until someone creates it.
CONFIG_MISSING = frozenset({'CreateContainerConfigError'})
# Reasons the volume controller gives on a claim it cannot bind: no
# volume matches and no class provisions one, or its class is missing.
CANNOT_BIND = frozenset({'FailedBinding', 'ProvisioningFailed'})
# A workload controller's event (and ReplicaFailure reason) when the API
# server refused a pod it created.
FAILED_CREATE = 'FailedCreate'

_clip, _reason = verdict.clip, verdict.reason


# --- pods ------------------------------------------------------------------

def exit_text(terminated):
    text = 'exit code %s' % terminated.get('exitCode')
    if terminated.get('reason') not in (None, '', 'Error', 'Completed'):
        text += ' (%s)' % terminated['reason']
    if terminated.get('message'):
        # A termination message may be the log's tail (FallbackToLogsOnError):
        # a traceback's last line is its error.
        text += ': ' + _clip(terminated['message'], keep_end=True)
    return text


def probe_text(probe):
    """A readiness probe in a few words, as the pod spec has it."""
    if not probe:
        return None
    if 'httpGet' in probe:
        get = probe['httpGet']
        return 'httpGet %s on port %s' % (get.get('path', '/'),
                                          get.get('port'))
    if 'exec' in probe:
        return 'exec %s' % _clip(' '.join(
            str(a) for a in (probe['exec'].get('command') or ())))
    if 'tcpSocket' in probe:
        return 'tcpSocket on port %s' % probe['tcpSocket'].get('port')
    if 'grpc' in probe:
        return 'grpc on port %s' % probe['grpc'].get('port')
    return None


def _container_problem(container, init, probe=None):
    """(rank, text) for a container that is not fine; rank 0 is worse."""
    state = container.get('state') or {}
    last = (container.get('lastState') or {}).get('terminated')
    if 'terminated' in state:
        terminated = state['terminated'] or {}
        if not terminated.get('exitCode'):
            return None
        text = 'terminated with ' + exit_text(terminated)
        restarts = container.get('restartCount') or 0
        if restarts:
            # A 1.36 kubelet reports a container in back-off as terminated,
            # not waiting in CrashLoopBackOff.
            text = 'crash loop, restarted %d times, %s' % (restarts, text)
        return 0, text
    if 'waiting' in state:
        waiting = state['waiting'] or {}
        rank = 1 if waiting.get('reason') in _STARTING else 0
        text = _reason(waiting) or 'waiting'
    elif init:
        rank, text = 1, 'still running'
    elif not container.get('ready'):
        rank, text = 1, 'running but not ready'
        if probe:
            text += ' (readiness probe %s not passing)' % probe
    else:
        return None
    if last:
        text += ' (last %s)' % exit_text(last)
    return rank, text


def _problems_of(pod):
    """[(rank, what)] of a pod: what is wrong, after 'pod <name> '."""
    status = fields.status_of(pod)
    found = []
    if status.get('phase') == 'Failed' and status.get('reason'):
        found.append((0, 'failed: %s' % _reason(status)))
    scheduled = fields.conditions_of(pod).get('PodScheduled')
    if scheduled and scheduled.get('status') == 'False':
        found.append((0, 'not scheduled: %s' % _reason(scheduled)))
    probes = {c.get('name'): probe_text(c.get('readinessProbe'))
              for c in fields.spec_of(pod).get('containers') or ()}
    for label, container in _container_statuses(status):
        problem = _container_problem(
            container, label != 'container',
            probes.get(container.get('name')) if label == 'container'
            else None)
        if problem:
            found.append((problem[0], '%s %s: %s' % (
                label, container.get('name'), problem[1])))
    return found


def pod_problems(pods, limit=MAX_POD_PROBLEMS):
    """Why these pods are not ready or failed, worst first, at most limit.
    Pods with the same problem (a Job's retries, a Deployment's replicas)
    are one entry, naming the first: the reason is said once."""
    same = {}
    for pod in _not_terminating(pods):
        for rank, what in _problems_of(pod):
            same.setdefault((rank, what), []).append(fields.name_of(pod))
    texts = ['pod %s %s%s' % (names[0], what, _also(len(names) - 1))
             for (_, what), names in sorted(same.items(),
                                            key=lambda p: p[0][0])]
    if len(texts) > limit:
        texts = texts[:limit] + ['and %d more' % (len(texts) - limit)]
    return texts


def _also(others):
    if not others:
        return ''
    return ' (and %d more pod%s the same)' % (others, 's' * (others > 1))


def image_unavailable(pods):
    """Whether a container of these (not terminating) pods waits for an
    image the kubelet cannot pull."""
    return _waiting_for(pods, IMAGE_UNAVAILABLE)


def config_missing(pods):
    """Whether a container of these (not terminating) pods cannot be
    created for a ConfigMap or Secret (key) it names that is not there."""
    return _waiting_for(pods, CONFIG_MISSING)


def _waiting_for(pods, reasons):
    return any(
        ((container.get('state') or {}).get('waiting') or {}).get('reason')
        in reasons
        for pod in _not_terminating(pods)
        for _, container in _container_statuses(fields.status_of(pod)))


def unschedulable(pods):
    """Whether the scheduler found no node for a (not terminating) pod of
    these, and none is being freed for it by preemption."""
    for pod in _not_terminating(pods):
        scheduled = fields.conditions_of(pod).get('PodScheduled') or {}
        if (scheduled.get('status') == 'False' and
                scheduled.get('reason') == 'Unschedulable' and
                not fields.status_of(pod).get('nominatedNodeName')):
            return True
    return False


def _not_terminating(pods):
    return [pod for pod in pods or ()
            if not (pod.get('metadata') or {}).get('deletionTimestamp')]


def _container_statuses(status):
    """(label, container status) of a pod's init containers, then its
    containers."""
    for label, key in (('init container', 'initContainerStatuses'),
                       ('container', 'containerStatuses')):
        for container in status.get(key) or ():
            yield label, container


def failed_first(pods):
    """Failed pods first: they say why a Job failed."""
    return sorted(pods or (), key=lambda pod: fields.status_of(
        pod).get('phase') != 'Failed')


# --- events ----------------------------------------------------------------

_EPOCH = datetime.datetime.min.replace(tzinfo=datetime.timezone.utc)


def _event_time(event):
    series = event.get('series') or {}
    for stamp in (series.get('lastObservedTime'), event.get('lastTimestamp'),
                  event.get('deprecatedLastTimestamp'), event.get('eventTime'),
                  event.get('firstTimestamp'),
                  (event.get('metadata') or {}).get('creationTimestamp')):
        if stamp:
            try:
                moment = datetime.datetime.fromisoformat(stamp)
            except (TypeError, ValueError):
                continue
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=datetime.timezone.utc)
            return moment
    return _EPOCH


def _event_count(event):
    series = event.get('series') or {}
    return (series.get('count') or event.get('count')
            or event.get('deprecatedCount') or 1)


def binding_failure(events):
    """'Reason: message' of a claim's latest event when it says the claim
    cannot be bound (CANNOT_BIND), else ''. A later event (a provisioner
    at work) means it is only slow."""
    latest = max(events or (), key=_event_time, default=None)
    if latest is None or latest.get('reason') not in CANNOT_BIND:
        return ''
    return _event_reason(latest)


def creation_refused(obj, events):
    """'Reason: message' when the controller of `obj` cannot create its
    pods (the API server refused them: an admission such as Pod Security,
    a quota), else ''. A ReplicaSet or Deployment says so in its
    ReplicaFailure condition; a StatefulSet, DaemonSet or Job only in its
    events, where a later SuccessfulCreate means it got through."""
    failure = fields.conditions_of(obj).get('ReplicaFailure') or {}
    if failure.get('status') == 'True' and (
            failure.get('reason') == FAILED_CREATE):
        return _reason(failure)
    creations = [e for e in events or ()
                 if e.get('reason') in (FAILED_CREATE, 'SuccessfulCreate')]
    latest = max(creations, key=_event_time, default=None)
    if latest is None or latest.get('reason') != FAILED_CREATE:
        return ''
    return _event_reason(latest)


def _event_message(event):
    # core/v1 events say `message`; events.k8s.io/v1 ones say `note`.
    return event.get('message') or event.get('note')


def _event_reason(event):
    """'Reason: message' of an event."""
    return _reason({'reason': event.get('reason'),
                    'message': _event_message(event)})


def warning_events(events, limit=MAX_EVENTS):
    """Distinct Warning events as text, most recent first, at most limit."""
    seen = {}
    for event in sorted(events or (), key=_event_time, reverse=True):
        if event.get('type') != 'Warning':
            continue
        key = (event.get('reason'), _event_message(event))
        seen[key] = seen.get(key, 0) + _event_count(event)
    texts = []
    for (reason, message), count in list(seen.items())[:limit]:
        text = _clip(': '.join(str(p) for p in (reason, message) if p))
        texts.append(text + (' (x%d)' % count if count > 1 else ''))
    return texts


def _quoted(event, message):
    """Whether message already says what the event says."""
    said = ' '.join(str(_event_message(event) or '').split())
    return bool(said) and said[:QUOTED] in message


def explain(result, events):
    """A verdict's message followed by recent Warning events it does not
    already quote (the scheduler's message is both a pod's condition and
    an event: Heat's events keep 255 characters)."""
    found = warning_events([event for event in events or ()
                            if not _quoted(event, result.message)])
    if not found:
        return result.message
    text = 'Warning events: ' + '; '.join(found)
    message = result.message.rstrip('. ')
    return '%s. %s' % (message, text) if message else text
