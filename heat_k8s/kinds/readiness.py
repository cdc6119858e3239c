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

One rule per kind, named after it and referenced by the kind's declaration
(kinds.KINDS, ready=...), takes the object as the API server returns it
plus the related objects the kind declares, and returns a Verdict.
Messages say what is not ready yet and why, in the cluster's own words
(container waiting reasons, exit codes, conditions); they never include
Secret data. Why pods are not ready is worded in diagnosis, conditions
spelled as for kubectl wait are in waitfor.
"""

import dataclasses

from heat_k8s.kinds import diagnosis
from heat_k8s.kinds import fields
from heat_k8s.kinds import verdict
from heat_k8s.kinds import waitfor

# Re-exported: callers use readiness.READY, readiness.Verdict, the
# kubectl-wait conditions (waitfor) and explain (diagnosis) through here.
READY, PROGRESSING, FAILED = verdict.READY, verdict.PROGRESSING, verdict.FAILED
IMAGE_PULL, PENDING = verdict.IMAGE_PULL, verdict.PENDING
Verdict = verdict.Verdict
explain = diagnosis.explain
WaitCondition = waitfor.WaitCondition
parse_wait_for = waitfor.parse_wait_for
wait_for = waitfor.wait_for

# Short names for the verdict vocabulary the rules below use throughout.
_ready, _progressing, _failed = (verdict.ready, verdict.progressing,
                                 verdict.failed)
_join, _reason = verdict.join, verdict.reason
_name, _spec, _status = fields.name_of, fields.spec_of, fields.status_of
_conditions, _is_true = fields.conditions_of, fields.is_true
_pod_problems = diagnosis.pod_problems


def _generation_pending(obj):
    """Why the status may be stale: the controller has not seen the spec."""
    generation = (obj.get('metadata') or {}).get('generation')
    observed = _status(obj).get('observedGeneration')
    if generation is None or (observed is not None and observed >= generation):
        return None
    return ('waiting for the controller to observe generation %s '
            '(observed: %s)' % (generation,
                                'none' if observed is None else observed))


def _replica_gaps(want, ready, available=None, updated=None, total=None,
                  noun='replicas', terminating=None):
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
    if terminating:
        gaps.append('%s terminating: %d' % (noun, terminating))
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
    problems = _pod_problems([obj])
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
            # The pods' reasons first: the condition's is a generic
            # "backoff limit", and an event keeps 255 characters.
            why = _pod_problems(diagnosis.failed_first(pods)) + [
                _reason(conditions[kind])]
            return _failed('job %s failed: %s' % (name, _join(*why)))
    if spec.get('suspend'):
        return _progressing('job %s is suspended (spec.suspend is true)'
                            % name)
    completions = spec.get('completions')
    progress = '%d%s succeeded, %d active, %d failed (backoffLimit %s)' % (
        succeeded, '' if completions is None else '/%d' % completions,
        status.get('active', 0), status.get('failed', 0),
        spec.get('backoffLimit', 6))
    return _progressing(_join('job %s is %s: %s' % (
        name, 'running' if _job_running(pods) else 'pending',
        progress), *_pod_problems(pods)))


def _job_running(pods):
    """False when the Job's pods were read and none of them runs (all
    Pending: unscheduled, pulling, or between retries)."""
    if pods is None:
        return True
    return any(_status(p).get('phase') == 'Running' for p in pods
               if not (p.get('metadata') or {}).get('deletionTimestamp'))


def cronjob(obj, related=None):
    # A CronJob is a schedule: it is ready once it exists; suspension is
    # whatever the applied spec asked for.
    name, spec = _name(obj), _spec(obj)
    if spec.get('suspend'):
        return _ready('cronjob %s is suspended' % name)
    return _ready('cronjob %s runs on schedule %r' % (name,
                                                      spec.get('schedule')))


def _replicas_rolled_out(obj, related, updated=False, note=''):
    """Deployment and ReplicaSet: every replica ready and available, and
    with updated=True also of the newest revision. Replicas still
    terminating (status.terminatingReplicas, Kubernetes 1.33 on) may still
    serve the old revision: what depends on the rollout (a schema
    contract) waits for them too."""
    spec, status = _spec(obj), _status(obj)
    pending = _generation_pending(obj)
    if pending:
        return _progressing(pending)
    want = spec.get('replicas', 1)
    gaps = _replica_gaps(
        want, status.get('readyReplicas', 0),
        available=status.get('availableReplicas', 0),
        updated=status.get('updatedReplicas', 0) if updated else None,
        total=status.get('replicas', 0),
        terminating=status.get('terminatingReplicas'))
    if not gaps:
        return _ready('%d/%d replicas ready' % (want, want))
    return _progressing(_join(', '.join(gaps + [note] if note else gaps),
                              _condition_failure(obj, 'ReplicaFailure'),
                              *_pod_problems((related or {}).get('pods'))))


def deployment(obj, related=None):
    progressing = _conditions(obj).get('Progressing') or {}
    if not _generation_pending(obj) and (
            progressing.get('reason') == 'ProgressDeadlineExceeded'):
        return _failed(_join('deployment %s rollout failed: %s' % (
            _name(obj), _reason(progressing)),
            *_pod_problems((related or {}).get('pods'))))
    paused = _spec(obj).get('paused')
    return _replicas_rolled_out(
        obj, related, updated=True,
        note='rollout is paused (spec.paused is true)' if paused else '')


def replicaset(obj, related=None):
    return _replicas_rolled_out(obj, related)


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
                              *_pod_problems((related or {}).get('pods'))))


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
                              *_pod_problems((related or {}).get('pods'))))


def endpoint_counts(service_name, slices):
    """(ready, not ready) endpoints of a Service in its EndpointSlices."""
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
        ready, not_ready = endpoint_counts(
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
    text = 'claim %s is %s, waiting for a volume (%s)' % (name, phase, source)
    # The volume controller's own words, read with its events.
    cannot = diagnosis.binding_failure((related or {}).get('events'))
    if cannot:
        return Verdict(PROGRESSING, _join(text, cannot), stuck=PENDING)
    return _progressing(text)


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


# Pods that the cluster retries for but that rarely heal by themselves,
# and the grace each gets (verdict.Verdict.stuck); the first match wins.
STUCK_PODS = ((IMAGE_PULL, diagnosis.image_unavailable),
              (PENDING, diagnosis.unschedulable),
              (PENDING, diagnosis.config_missing))


def judged(obj, rule, related=None):
    """The readiness of a live object by rule, its kind's (kinds.evaluate),
    failed when the object is gone or being deleted, stuck (with the grace
    STUCK_PODS gives) when its pods cannot start.

    related: {'pods': [...], 'endpointslices': [...], 'storageclass': {...},
    'events': [...]} as the kind declares them (decides, explains).
    """
    if not obj:
        return _failed('object not found')
    result = rule(obj, related or {})
    metadata = obj.get('metadata') or {}
    if result.state == PROGRESSING and metadata.get('deletionTimestamp'):
        # An object on its way out will never become ready.
        finalizers = metadata.get('finalizers')
        return _failed(_join('%s %s is being deleted%s' % (
            obj.get('kind'), _name(obj),
            ' (finalizers: %s)' % ', '.join(finalizers) if finalizers else ''),
            result.message))
    if result.state == PROGRESSING and not result.stuck:
        pods = ([obj] if obj.get('kind') == 'Pod' else
                (related or {}).get('pods'))
        for grace, stuck in STUCK_PODS:
            if stuck(pods):
                return dataclasses.replace(result, stuck=grace)
        # Pods the API server refuses to its controller do not exist to be
        # stuck: the controller retries, the refusal stands.
        refused = diagnosis.creation_refused(obj, (related or {}).get(
            'events'))
        if refused:
            return dataclasses.replace(
                result, stuck=PENDING,
                message=_join(result.message, '' if refused in
                              result.message else refused))
    return result
