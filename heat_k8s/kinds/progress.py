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

"""What a resource waits on, in one line, while it waits.

A resource that is not ready yet shows this as its status reason, e.g.
"Deployment web: 2/3 replicas ready; pod web-7d4 in ContainerCreating".
It is a headline per kind (the counts that tell how far it got, from the
table below) followed by the state of the pods still on their way, when
the pods were read. Pure: objects and the current time in, text out. Only
counts, names, phases and the kubelet's reasons: never a message or a
value, so never Secret data. Kinds without a headline show their
verdict's message (a custom resource's conditions).
"""

import dataclasses

from heat_k8s.kinds import fields
from heat_k8s.kinds import readiness
from heat_k8s.kinds import verdict

MAX_PODS = 2      # pods named in one text; the others are counted
MAX_TEXT = 250    # a status reason, as `stack resource list` shows it

_name, _spec, _status = fields.name_of, fields.spec_of, fields.status_of
_conditions, _is_true = fields.conditions_of, fields.is_true


@dataclasses.dataclass(frozen=True)
class Shown:
    """What the text of a kind says: a headline from the object and its
    related objects, and which of its pods are still on their way."""

    headline: object            # (obj, related) -> text
    pods_in_progress: object    # (pod) -> bool


# --- headlines -------------------------------------------------------------

def _observed(obj):
    """False while the controller has not seen the latest spec."""
    generation = (obj.get('metadata') or {}).get('generation')
    observed = _status(obj).get('observedGeneration')
    return generation is None or (observed or 0) >= generation


def _replicas(ready_key, want_key=None, noun='replicas'):
    """'ready/wanted noun ready', and how many are updated if fewer."""
    def headline(obj, related):
        status = _status(obj)
        if not _observed(obj):
            return 'waiting for the controller to see the new spec'
        want = (status.get(want_key, 0) if want_key
                else _spec(obj).get('replicas', 1))
        text = '%d/%d %s ready' % (status.get(ready_key, 0), want, noun)
        updated = status.get('updatedReplicas')
        if updated is not None and updated < want:
            text += ', %d/%d updated' % (updated, want)
        return text
    return headline


def _job(obj, related):
    spec, status = _spec(obj), _status(obj)
    if spec.get('suspend'):
        return 'suspended'
    parts = ['%d active' % status.get('active', 0)]
    completions = spec.get('completions') or 1
    if completions > 1:
        parts.append('%d/%d succeeded' % (status.get('succeeded', 0),
                                          completions))
    if status.get('failed'):
        parts.append('%d failed (backoffLimit %d)' % (
            status['failed'], spec.get('backoffLimit', 6)))
    return ', '.join(parts)


def _service(obj, related):
    spec = _spec(obj)
    parts = []
    if spec.get('selector') and spec.get('clusterIP') != 'None':
        ready, not_ready = readiness.endpoint_counts(
            _name(obj), related.get('endpointslices'))
        parts.append('%d ready endpoints%s' % (
            ready, ' (%d not ready)' % not_ready if not_ready else ''))
    if spec.get('type') == 'LoadBalancer' and not (
            _status(obj).get('loadBalancer') or {}).get('ingress'):
        parts.append('waiting for a load balancer address')
    return ', '.join(parts)


def _phase(obj, related):
    return _status(obj).get('phase') or 'Pending'


# --- which pods are still on their way -----------------------------------

def _not_ready(pod):
    return not _is_true(_conditions(pod).get('Ready'))


def _not_done(pod):
    """A Job's pod: ready or not, it is on its way until it succeeds."""
    return _status(pod).get('phase') not in ('Succeeded', 'Failed')


HEADLINES = {
    'Deployment': Shown(_replicas('readyReplicas'), _not_ready),
    'StatefulSet': Shown(_replicas('readyReplicas'), _not_ready),
    'ReplicaSet': Shown(_replicas('readyReplicas'), _not_ready),
    'DaemonSet': Shown(_replicas('numberReady', 'desiredNumberScheduled',
                                 noun='pods'), _not_ready),
    'Job': Shown(_job, _not_done),
    'Service': Shown(_service, None),
    'PersistentVolumeClaim': Shown(_phase, None),
    'Namespace': Shown(_phase, None),
}


# --- a pod's state ---------------------------------------------------------

def _seconds_since(stamp, now):
    moment = fields.moment(stamp)
    return None if moment is None else max(0, (now - moment).total_seconds())


def age(seconds):
    """A duration coarse enough to change only every ten seconds."""
    if seconds < 10:
        return 'less than 10 s'
    if seconds < 120:
        return '%d s' % (seconds // 10 * 10)
    return '%d min' % (seconds // 60)


def _started(status):
    """When the pod's containers last started, else the pod."""
    starts = [((c.get('state') or {}).get('running') or {}).get('startedAt')
              for c in status.get('containerStatuses') or ()]
    starts = [s for s in starts if s]
    return max(starts) if starts else status.get('startTime')


def pod_state(pod, now):
    """What a pod is doing, in kubectl's words where it has them:
    'in ContainerCreating', 'in Init:0/1', 'running for 40 s, not ready'."""
    status = _status(pod)
    phase = status.get('phase') or 'Pending'
    scheduled = _conditions(pod).get('PodScheduled')
    if scheduled and scheduled.get('status') == 'False':
        return 'not scheduled (%s)' % (scheduled.get('reason') or 'Pending')
    inits = status.get('initContainerStatuses') or ()
    for position, container in enumerate(inits):
        state = container.get('state') or {}
        if 'terminated' in state and not (state['terminated'] or {}).get(
                'exitCode'):
            continue
        reason = (state.get('waiting') or state.get('terminated') or {}).get(
            'reason')
        return 'in Init:%s' % (reason or '%d/%d' % (position, len(inits)))
    for container in status.get('containerStatuses') or ():
        state = container.get('state') or {}
        if 'waiting' in state:
            return 'in %s' % ((state['waiting'] or {}).get('reason')
                              or 'Waiting')
        terminated = state.get('terminated') or {}
        if terminated.get('exitCode'):
            return 'restarted %d times (exit code %s)' % (
                container.get('restartCount') or 0, terminated['exitCode'])
    if phase != 'Running':
        return phase if phase != 'Failed' else 'Failed (%s)' % (
            status.get('reason') or 'see its events')
    since = _seconds_since(_started(status), now)
    text = 'running' if since is None else 'running for ' + age(since)
    return text if _is_true(_conditions(pod).get('Ready')) else (
        text + ', not ready')


def _pods(pods, in_progress, now):
    waiting = [pod for pod in pods or ()
               if not (pod.get('metadata') or {}).get('deletionTimestamp')
               and in_progress(pod)]
    waiting.sort(key=_name)
    texts = ['pod %s %s' % (_name(pod), pod_state(pod, now))
             for pod in waiting[:MAX_PODS]]
    if len(waiting) > MAX_PODS:
        texts.append('%d more pods' % (len(waiting) - MAX_PODS))
    return texts


# --- the text --------------------------------------------------------------

def text(obj, result, related, now):
    """'Kind name: headline; pod states' of an object not ready yet.

    result: its readiness Verdict; related: the objects its verdict read
    ({'pods': [...], 'endpointslices': [...]}); now: an aware datetime,
    the time pods' ages are measured to.
    """
    related = related or {}
    kind = obj.get('kind')
    label = '%s %s' % (kind, _name(obj))
    if kind == 'Pod':
        return verdict.clip('%s: %s' % (label, pod_state(obj, now)),
                            MAX_TEXT)
    shown = HEADLINES.get(kind)
    if shown is None:
        return verdict.clip('%s: %s' % (label, result.message)
                            if result.message else label, MAX_TEXT)
    pods = (_pods(related.get('pods'), shown.pods_in_progress, now)
            if shown.pods_in_progress else [])
    return verdict.clip('%s: %s' % (label, verdict.join(
        shown.headline(obj, related), *pods)), MAX_TEXT)
