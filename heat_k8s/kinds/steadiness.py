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

"""Whether a workload that reads ready stays up: pure functions over its
pods.

A container that exits at once is Running for a moment, so its pod is
Ready and its Deployment available before the kubelet sees it exit. A
workload's rule (readiness) answers for that moment; these answer for
the wait: a container of the workload's pods that exited or restarted
since the waiter last looked is not ready, and one that restarted
`limit` times while Heat waited has failed, with its exit code and the
last lines it wrote (its termination message; with
terminationMessagePolicy FallbackToLogsOnError the kubelet puts the log
tail there).

How long a workload has been steady is read from its own clock (up_for):
a workload that was already up for the waiter's hold when it first reads
ready needs no hold.
"""

from heat_k8s.kinds import diagnosis
from heat_k8s.kinds import fields
from heat_k8s.kinds import verdict


def restart_counts(pods):
    """{'pod/container': restartCount} of the pods' containers."""
    return {key: container.get('restartCount') or 0
            for key, _, container in _containers(pods)}


def judge(pods, baseline, previous, limit):
    """None when the pods stay up; else a PROGRESSING Verdict (a container
    exited or restarted since `previous`, the counts the waiter saw last)
    or a FAILED one (a container restarted `limit` times since
    `baseline`, the counts when the wait first saw the pods)."""
    worst, changed = None, []
    for key, pod, container in _containers(pods):
        count = container.get('restartCount') or 0
        since_start = count - baseline.get(key, 0)
        exited = (container.get('state') or {}).get('terminated')
        if exited is None and count <= previous.get(key, 0):
            continue
        text = _what_happened(pod, container, exited, since_start)
        if since_start >= limit:
            worst = worst or text
        changed.append(text)
    if worst:
        return verdict.failed('%s: keeps exiting while Heat waits for it to '
                              'stay up' % worst)
    if changed:
        return verdict.progressing(verdict.join(*changed) + '; waiting for '
                                   'it to stay up')
    return None


def up_for(obj, pods, now):
    """Seconds the workload has been ready and steady by its own clock at
    `now` (an aware datetime): the least time any of its pods has been
    Ready with every container running since its last start, or the
    object's spec.minReadySeconds (its controller counts a pod available
    only after that), whichever is longer. 0 when a pod is not up."""
    ages = [_seconds_up(pod, now) for pod in _live(pods)]
    return max(fields.spec_of(obj).get('minReadySeconds') or 0,
               min(ages, default=0))


def _seconds_up(pod, now):
    """Seconds since the pod last became Ready or a container of it last
    started, less the second the cluster's timestamps are truncated to."""
    ready = fields.conditions_of(pod).get('Ready')
    if not fields.is_true(ready):
        return 0
    stamps = [ready.get('lastTransitionTime')] + [
        ((container.get('state') or {}).get('running') or {}).get(
            'startedAt')
        for _, _, container in _containers([pod])]
    moments = [fields.moment(stamp) for stamp in stamps]
    if None in moments:
        return 0  # a container not running, or a stamp unread
    return max(0, (now - max(moments)).total_seconds() - 1)


def _what_happened(pod, container, exited, restarts):
    last = exited or (container.get('lastState') or {}).get('terminated')
    text = 'pod %s container %s' % (fields.name_of(pod),
                                    container.get('name'))
    if restarts > 0:
        text += ' restarted %d time%s' % (restarts, 's' * (restarts > 1))
    elif exited is not None:
        text += ' exited'
    if last:
        text += ', last exited with ' + diagnosis.exit_text(last)
    return text


def _containers(pods):
    """('pod/container', pod, status) of the pods' containers (init
    containers run to completion: not theirs)."""
    for pod in _live(pods):
        for container in fields.status_of(pod).get('containerStatuses') or ():
            yield ('%s/%s' % (fields.name_of(pod), container.get('name')),
                   pod, container)


def _live(pods):
    """Pods that are meant to keep running: not terminating, not of a
    finished run (a Job's pods are judged by the Job's own rule)."""
    return [pod for pod in pods or ()
            if not (pod.get('metadata') or {}).get('deletionTimestamp')
            and fields.spec_of(pod).get('restartPolicy', 'Always') == 'Always'
            and fields.status_of(pod).get('phase') not in ('Succeeded',
                                                           'Failed')]
