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

"""Readiness of live Kubernetes objects: pure functions over their JSON.

One rule per kind, registered in RULES, takes the object as the API server
returns it plus the related objects named in RELATED, and returns a
Verdict. Messages say what is not ready yet and why, in the cluster's own
words (container waiting reasons, exit codes, conditions); they never
include Secret data. Conditions spelled as for kubectl wait are in waitfor.
"""

import datetime

from heat_k8s.kinds import verdict
from heat_k8s.kinds import waitfor

# Re-exported: callers use readiness.READY, readiness.Verdict and the
# kubectl-wait conditions (now in waitfor) through this module.
READY, PROGRESSING, FAILED = verdict.READY, verdict.PROGRESSING, verdict.FAILED
Verdict = verdict.Verdict
WaitCondition = waitfor.WaitCondition
parse_wait_for = waitfor.parse_wait_for
wait_for = waitfor.wait_for

# Short names for the verdict vocabulary the rules below use throughout.
_ready, _progressing, _failed = (verdict.ready, verdict.progressing,
                                 verdict.failed)
_join, _clip, _reason = verdict.join, verdict.clip, verdict.reason

# Caps that keep a message readable when many pods or events are bad.
MAX_POD_PROBLEMS = 3
MAX_EVENTS = 3

# Waiting reasons that are normal steps of starting a container.
_STARTING = frozenset({'ContainerCreating', 'PodInitializing'})


def _name(obj):
    return (obj.get('metadata') or {}).get('name', '?')


def _spec(obj):
    return obj.get('spec') or {}


def _status(obj):
    return obj.get('status') or {}


def _conditions(obj):
    return {c.get('type'): c for c in _status(obj).get('conditions') or ()}


def _is_true(condition):
    return bool(condition) and condition.get('status') == 'True'


def _generation_pending(obj):
    """Why the status may be stale: the controller has not seen the spec."""
    generation = (obj.get('metadata') or {}).get('generation')
    observed = _status(obj).get('observedGeneration')
    if generation is None or (observed is not None and observed >= generation):
        return None
    return ('waiting for the controller to observe generation %s '
            '(observed: %s)' % (generation,
                                'none' if observed is None else observed))


# --- why pods are not ready ------------------------------------------------

def _exit(terminated):
    text = 'exit code %s' % terminated.get('exitCode')
    if terminated.get('reason') not in (None, '', 'Error', 'Completed'):
        text += ' (%s)' % terminated['reason']
    if terminated.get('message'):
        text += ': ' + _clip(terminated['message'])
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
        text = 'terminated with ' + _exit(terminated)
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
        text += ' (last %s)' % _exit(last)
    return rank, text


def _problems_of(pod):
    name = _name(pod)
    status = _status(pod)
    found = []
    if status.get('phase') == 'Failed' and status.get('reason'):
        found.append((0, 'pod %s failed: %s' % (name, _reason(status))))
    scheduled = _conditions(pod).get('PodScheduled')
    if scheduled and scheduled.get('status') == 'False':
        found.append((0, 'pod %s not scheduled: %s' % (name,
                                                       _reason(scheduled))))
    probes = {c.get('name'): probe_text(c.get('readinessProbe'))
              for c in _spec(pod).get('containers') or ()}
    for label, key in (('init container', 'initContainerStatuses'),
                       ('container', 'containerStatuses')):
        for container in status.get(key) or ():
            problem = _container_problem(
                container, label != 'container',
                probes.get(container.get('name'))
                if label == 'container' else None)
            if problem:
                found.append((problem[0], 'pod %s %s %s: %s' % (
                    name, label, container.get('name'), problem[1])))
    return found


def pod_problems(pods, limit=MAX_POD_PROBLEMS):
    """Why these pods are not ready or failed, worst first, at most limit."""
    found = []
    for pod in pods or ():
        if not (pod.get('metadata') or {}).get('deletionTimestamp'):
            found.extend(_problems_of(pod))
    texts = [text for _, text in sorted(found, key=lambda p: p[0])]
    if len(texts) > limit:
        texts = texts[:limit] + ['and %d more' % (len(texts) - limit)]
    return texts


def _failed_first(pods):
    return sorted(pods or (),
                  key=lambda pod: _status(pod).get('phase') != 'Failed')


def _replica_gaps(want, ready, available=None, updated=None, total=None,
                  noun='replicas'):
    """A phrase for every count that has not reached want."""
    gaps = []
    if updated is not None and updated < want:
        gaps.append('%d/%d %s updated' % (updated, want, noun))
    if ready < want:
        gaps.append('%d/%d %s ready' % (ready, want, noun))
    elif available is not None and available < want:
        gaps.append('%d/%d %s available' % (available, want, noun))
    if total is not None and total > want:
        gaps.append('old %s remaining: %d' % (noun, total - want))
    return gaps


def _condition_failure(obj, kind):
    condition = _conditions(obj).get(kind)
    return _reason(condition) if _is_true(condition) else ''


# --- rules, one per kind ---------------------------------------------------

def exists(obj, related=None):
    """Kinds with no status to wait for are ready once they exist."""
    return _ready()


def pod(obj, related=None):
    name, status = _name(obj), _status(obj)
    phase = status.get('phase') or 'Pending'
    if phase == 'Succeeded':
        return _ready('pod %s completed' % name)
    problems = pod_problems([obj])
    if phase == 'Failed':
        return _failed(_join('pod %s failed' % name, *problems))
    conditions = _conditions(obj)
    waiting = [t for t in ('PodScheduled', 'Initialized', 'Ready')
               if not _is_true(conditions.get(t))]
    if not waiting:
        return _ready()
    if problems:
        return _progressing(_join(*problems))
    detail = _reason(conditions.get(waiting[0]) or {})
    return _progressing('pod %s is %s, waiting for %s%s' % (
        name, phase, waiting[0], ': ' + detail if detail else ''))


def job(obj, related=None):
    name, spec, status = _name(obj), _spec(obj), _status(obj)
    pods = (related or {}).get('pods')
    conditions = _conditions(obj)
    succeeded = status.get('succeeded', 0)
    if _is_true(conditions.get('Complete')):
        return _ready('job %s completed (%d succeeded)' % (name, succeeded))
    for kind in ('Failed', 'FailureTarget'):
        if _is_true(conditions.get(kind)):
            return _failed(_join(
                'job %s failed: %s' % (name, _reason(conditions[kind])),
                *pod_problems(_failed_first(pods))))
    if spec.get('suspend'):
        return _progressing('job %s is suspended (spec.suspend is true)'
                            % name)
    completions = spec.get('completions')
    progress = '%d%s succeeded, %d active, %d failed (backoffLimit %s)' % (
        succeeded, '' if completions is None else '/%d' % completions,
        status.get('active', 0), status.get('failed', 0),
        spec.get('backoffLimit', 6))
    return _progressing(_join('job %s is running: %s' % (name, progress),
                              *pod_problems(pods)))


def cronjob(obj, related=None):
    # A CronJob is a schedule: it is ready once it exists; suspension is
    # whatever the applied spec asked for.
    name, spec = _name(obj), _spec(obj)
    if spec.get('suspend'):
        return _ready('cronjob %s is suspended' % name)
    return _ready('cronjob %s runs on schedule %r' % (name,
                                                      spec.get('schedule')))


def deployment(obj, related=None):
    name, spec, status = _name(obj), _spec(obj), _status(obj)
    pending = _generation_pending(obj)
    if pending:
        return _progressing(pending)
    problems = pod_problems((related or {}).get('pods'))
    progressing = _conditions(obj).get('Progressing') or {}
    if progressing.get('reason') == 'ProgressDeadlineExceeded':
        return _failed(_join('deployment %s rollout failed: %s'
                             % (name, _reason(progressing)), *problems))
    want = spec.get('replicas', 1)
    gaps = _replica_gaps(want, status.get('readyReplicas', 0),
                         available=status.get('availableReplicas', 0),
                         updated=status.get('updatedReplicas', 0),
                         total=status.get('replicas', 0))
    if not gaps:
        return _ready('%d/%d replicas ready' % (want, want))
    if spec.get('paused'):
        gaps.append('rollout is paused (spec.paused is true)')
    return _progressing(_join(', '.join(gaps),
                              _condition_failure(obj, 'ReplicaFailure'),
                              *problems))


def replicaset(obj, related=None):
    spec, status = _spec(obj), _status(obj)
    pending = _generation_pending(obj)
    if pending:
        return _progressing(pending)
    want = spec.get('replicas', 1)
    gaps = _replica_gaps(want, status.get('readyReplicas', 0),
                         available=status.get('availableReplicas', 0),
                         total=status.get('replicas', 0))
    if not gaps:
        return _ready('%d/%d replicas ready' % (want, want))
    return _progressing(_join(', '.join(gaps),
                              _condition_failure(obj, 'ReplicaFailure'),
                              *pod_problems((related or {}).get('pods'))))


def statefulset(obj, related=None):
    spec, status = _spec(obj), _status(obj)
    pending = _generation_pending(obj)
    if pending:
        return _progressing(pending)
    want = spec.get('replicas', 1)
    gaps = _replica_gaps(want, status.get('readyReplicas', 0),
                         available=status.get('availableReplicas'),
                         total=status.get('replicas', 0))
    strategy = spec.get('updateStrategy') or {}
    if strategy.get('type', 'RollingUpdate') == 'RollingUpdate':
        # Pods below the partition ordinal keep the old revision on purpose.
        partition = (strategy.get('rollingUpdate') or {}).get('partition', 0)
        target = max(want - partition, 0)
        updated = status.get('updatedReplicas', 0)
        revision = status.get('updateRevision')
        if updated < target:
            gaps.append('%d/%d replicas updated to revision %s'
                        % (updated, target, revision))
        elif not partition and status.get('currentRevision') != revision:
            gaps.append('revision %s not yet current (current: %s)'
                        % (revision, status.get('currentRevision')))
    if not gaps:
        return _ready('%d/%d replicas ready' % (want, want))
    return _progressing(_join(', '.join(gaps),
                              *pod_problems((related or {}).get('pods'))))


def daemonset(obj, related=None):
    name, spec, status = _name(obj), _spec(obj), _status(obj)
    pending = _generation_pending(obj)
    if pending:
        return _progressing(pending)
    desired = status.get('desiredNumberScheduled', 0)
    on_delete = (spec.get('updateStrategy') or {}).get('type') == 'OnDelete'
    gaps = _replica_gaps(
        desired, status.get('numberReady', 0),
        available=status.get('numberAvailable', 0),
        updated=None if on_delete else status.get('updatedNumberScheduled', 0),
        noun='pods')
    if not gaps:
        if not desired:
            return _ready('daemonset %s has no node to run on' % name)
        return _ready('%d/%d pods ready' % (desired, desired))
    return _progressing(_join(', '.join(gaps),
                              *pod_problems((related or {}).get('pods'))))


def _endpoint_counts(service_name, slices):
    ready = not_ready = 0
    for endpoint_slice in slices or ():
        labels = (endpoint_slice.get('metadata') or {}).get('labels') or {}
        if labels.get('kubernetes.io/service-name',
                      service_name) != service_name:
            continue
        for endpoint in endpoint_slice.get('endpoints') or ():
            # discovery.k8s.io/v1: an unset 'ready' means ready.
            if (endpoint.get('conditions') or {}).get('ready') is False:
                not_ready += 1
            else:
                ready += 1
    return ready, not_ready


def service(obj, related=None):
    name, spec, status = _name(obj), _spec(obj), _status(obj)
    service_type = spec.get('type', 'ClusterIP')
    if service_type == 'ExternalName':
        return _ready('service %s is an alias of %s'
                      % (name, spec.get('externalName')))
    gaps = []
    selector = spec.get('selector')
    if selector and spec.get('clusterIP') != 'None':
        ready, not_ready = _endpoint_counts(
            name, (related or {}).get('endpointslices'))
        if not ready:
            gaps.append('service %s has no ready endpoints%s for selector %s'
                        % (name,
                           ' (%d not ready)' % not_ready if not_ready else '',
                           ','.join('%s=%s' % kv
                                    for kv in sorted(selector.items()))))
    ingress = (status.get('loadBalancer') or {}).get('ingress')
    if service_type == 'LoadBalancer' and not ingress:
        gaps.append('service %s is waiting for a load balancer address '
                    '(status.loadBalancer.ingress is empty)' % name)
    return _progressing(_join(*gaps)) if gaps else _ready()


def persistentvolumeclaim(obj, related=None):
    name, spec = _name(obj), _spec(obj)
    phase = _status(obj).get('phase') or 'Pending'
    if phase == 'Bound':
        return _ready('claim %s is bound to volume %s'
                      % (name, spec.get('volumeName')))
    if phase == 'Lost':
        return _failed('claim %s lost its volume %s (the PersistentVolume '
                       'no longer exists)' % (name, spec.get('volumeName')))
    storage_class = (related or {}).get('storageclass') or {}
    class_name = spec.get('storageClassName')
    if storage_class.get('volumeBindingMode') == 'WaitForFirstConsumer':
        return _ready('claim %s will bind when a pod uses it (storage class '
                      '%s binds on first consumer)' % (name, class_name))
    if class_name == '':
        source = 'no storage class: needs a matching PersistentVolume'
    else:
        source = 'storage class %s' % (class_name or '(default)')
    return _progressing('claim %s is %s, waiting for a volume (%s)'
                        % (name, phase, source))


def namespace(obj, related=None):
    name = _name(obj)
    phase = _status(obj).get('phase')
    if phase == 'Active':
        return _ready()
    if phase == 'Terminating':
        details = ['%s: %s' % (c.get('type'), _reason(c))
                   for c in _status(obj).get('conditions') or ()
                   if c.get('status') == 'True']
        return _failed(_join('namespace %s is terminating' % name, *details))
    return _progressing('namespace %s is %s' % (name,
                                                phase or 'not active yet'))


RULES = {
    'Pod': pod,
    'Job': job,
    'CronJob': cronjob,
    'Deployment': deployment,
    'ReplicaSet': replicaset,
    'StatefulSet': statefulset,
    'DaemonSet': daemonset,
    'Service': service,
    'PersistentVolumeClaim': persistentvolumeclaim,
    'Namespace': namespace,
    'ConfigMap': exists,
    'Secret': exists,
}

# What each rule reads from `related` (the resource layer fetches these):
# DECIDES can change the verdict's state, so it is fetched on every poll;
# EXPLAINS only says why an object is not ready (pods of a workload), so
# it is fetched for a failure or a timeout message, not on every poll.
DECIDES = {kind: frozenset() for kind in RULES}
DECIDES.update({
    'Service': frozenset({'endpointslices'}),
    'PersistentVolumeClaim': frozenset({'storageclass'}),
})
EXPLAINS = {kind: frozenset() for kind in RULES}
EXPLAINS.update({
    'Job': frozenset({'pods'}),
    'Deployment': frozenset({'pods'}),
    'ReplicaSet': frozenset({'pods'}),
    'StatefulSet': frozenset({'pods'}),
    'DaemonSet': frozenset({'pods'}),
})
RELATED = {kind: DECIDES[kind] | EXPLAINS[kind] for kind in RULES}


def evaluate(obj, related=None):
    """The readiness of a live object; unknown kinds are ready if they exist.

    related: {'pods': [...], 'endpointslices': [...], 'storageclass': {...}}
    as listed in RELATED for the kind.
    """
    if not obj:
        return _failed('object not found')
    result = RULES.get(obj.get('kind'), exists)(obj, related or {})
    metadata = obj.get('metadata') or {}
    if result.state == PROGRESSING and metadata.get('deletionTimestamp'):
        # An object on its way out will never become ready.
        finalizers = metadata.get('finalizers')
        return _failed(_join('%s %s is being deleted%s' % (
            obj.get('kind'), _name(obj),
            ' (finalizers: %s)' % ', '.join(finalizers) if finalizers else ''),
            result.message))
    return result


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


def warning_events(events, limit=MAX_EVENTS):
    """Distinct Warning events as text, most recent first, at most limit."""
    seen = {}
    for event in sorted(events or (), key=_event_time, reverse=True):
        if event.get('type') != 'Warning':
            continue
        key = (event.get('reason'), event.get('message') or event.get('note'))
        seen[key] = seen.get(key, 0) + _event_count(event)
    texts = []
    for (reason, message), count in list(seen.items())[:limit]:
        text = _clip(': '.join(str(p) for p in (reason, message) if p))
        texts.append(text + (' (x%d)' % count if count > 1 else ''))
    return texts


def explain(result, events):
    """A verdict's message followed by recent Warning events."""
    found = warning_events(events)
    if not found:
        return result.message
    text = 'Warning events: ' + '; '.join(found)
    message = result.message.rstrip('. ')
    return '%s. %s' % (message, text) if message else text
