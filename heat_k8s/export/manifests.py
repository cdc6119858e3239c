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

"""Live objects made plain manifests: what to drop, redact and rename.

What the API server fills in or manages (uid, resourceVersion, status,
managedFields, a Service's cluster IPs, a claim's volume, a Job's generated
selector, defaults equal to the API's own) and Heat's ownership marks are
dropped, so that ``kubectl apply`` of the result makes the same objects in
another namespace or cluster and Heat does not take them for its own.
Pure: dicts in, dicts and YAML text out.
"""

import copy

import yaml

from heat_k8s.kinds import labels
from heat_k8s.kinds import redaction

SERVER_METADATA = (
    'uid', 'resourceVersion', 'generation', 'creationTimestamp',
    'managedFields', 'selfLink', 'deletionTimestamp',
    'deletionGracePeriodSeconds',
    # Owners get new uids where the export is applied; a reference to an
    # old uid makes the garbage collector delete the object.
    'ownerReferences',
)
# Marks the API server, controllers or kubectl set; Heat's ownership marks
# would make Heat (and its sweeps) take the copy for the stack's object.
DROPPED_ANNOTATIONS = labels.OWNERSHIP_KEYS + (
    labels.RESOURCE_UUID, redaction.LAST_APPLIED,
    'deployment.kubernetes.io/revision',
    'pv.kubernetes.io/bind-completed',
    'pv.kubernetes.io/bound-by-controller',
    'volume.beta.kubernetes.io/storage-provisioner',
    'volume.kubernetes.io/storage-provisioner',
    'volume.kubernetes.io/selected-node',
)
DROPPED_LABELS = labels.OWNERSHIP_KEYS
# Finalizers the API server adds back to every new object of the kind.
SERVER_FINALIZERS = ('kubernetes.io/pvc-protection', 'kubernetes')
JOB_GENERATED_LABELS = ('controller-uid', 'batch.kubernetes.io/controller-uid',
                        'job-name', 'batch.kubernetes.io/job-name')

VALUES_OMITTED = 'heat.openstack.org/secret-values'
VALUES_OMITTED_TEXT = 'omitted by the export: fill in before applying'

# Where a kind keeps its pod spec.
POD_SPEC = {
    'Pod': 'spec',
    'Deployment': 'spec.template.spec',
    'StatefulSet': 'spec.template.spec',
    'DaemonSet': 'spec.template.spec',
    'ReplicaSet': 'spec.template.spec',
    'Job': 'spec.template.spec',
    'CronJob': 'spec.jobTemplate.spec.template.spec',
}

# (path, value): dropped when the object has exactly the API's default
# there, as the API server fills the same default in again. 'a[]' is every
# item of list a.
POD_DEFAULTS = (
    ('restartPolicy', 'Always'),
    ('terminationGracePeriodSeconds', 30),
    ('dnsPolicy', 'ClusterFirst'),
    ('schedulerName', 'default-scheduler'),
    ('securityContext', {}),
    ('containers[].terminationMessagePath', '/dev/termination-log'),
    ('containers[].terminationMessagePolicy', 'File'),
    ('containers[].resources', {}),
    ('containers[].ports[].protocol', 'TCP'),
    ('initContainers[].terminationMessagePath', '/dev/termination-log'),
    ('initContainers[].terminationMessagePolicy', 'File'),
    ('initContainers[].resources', {}),
    ('volumes[].configMap.defaultMode', 420),
    ('volumes[].secret.defaultMode', 420),
)
# Fields of embedded templates the API server writes as null or fills in.
EVERY_KIND_DEFAULTS = tuple(
    (path + '.creationTimestamp', None) for path in (
        'spec.template.metadata', 'spec.jobTemplate.metadata',
        'spec.jobTemplate.spec.template.metadata',
        'spec.volumeClaimTemplates[].metadata'))
SERVER_PATHS = ('spec.volumeClaimTemplates[].status',)
KIND_DEFAULTS = {
    'Deployment': (
        ('spec.progressDeadlineSeconds', 600),
        ('spec.revisionHistoryLimit', 10),
        ('spec.strategy', {'type': 'RollingUpdate', 'rollingUpdate': {
            'maxSurge': '25%', 'maxUnavailable': '25%'}}),
    ),
    'StatefulSet': (
        ('spec.podManagementPolicy', 'OrderedReady'),
        ('spec.revisionHistoryLimit', 10),
        ('spec.updateStrategy', {'type': 'RollingUpdate',
                                 'rollingUpdate': {'partition': 0}}),
        ('spec.persistentVolumeClaimRetentionPolicy',
         {'whenDeleted': 'Retain', 'whenScaled': 'Retain'}),
    ),
    'DaemonSet': (
        ('spec.revisionHistoryLimit', 10),
        ('spec.updateStrategy', {'type': 'RollingUpdate', 'rollingUpdate': {
            'maxSurge': 0, 'maxUnavailable': 1}}),
    ),
    'Service': (
        ('spec.sessionAffinity', 'None'),
        ('spec.type', 'ClusterIP'),
        ('spec.internalTrafficPolicy', 'Cluster'),
        ('spec.ports[].protocol', 'TCP'),
    ),
    'PersistentVolumeClaim': (
        ('spec.volumeMode', 'Filesystem'),
    ),
}


def _parents(obj, path):
    """(container, key) for every place the dotted path names in obj."""
    places = [obj]
    parts = path.split('.')
    for part in parts[:-1]:
        many = part.endswith('[]')
        key = part[:-2] if many else part
        found = []
        for place in places:
            value = place.get(key) if isinstance(place, dict) else None
            if many and isinstance(value, list):
                found.extend(v for v in value if isinstance(v, dict))
            elif not many and isinstance(value, dict):
                found.append(value)
        places = found
    last = parts[-1]
    if last.endswith('[]'):
        raise ValueError('a path ends at a field, not a list: %s' % path)
    return [(place, last) for place in places if last in place]


def drop_defaults(obj, rules):
    """Remove each field of obj whose value is the rule's default."""
    for path, default in rules:
        for place, key in _parents(obj, path):
            if place[key] == default:
                del place[key]


def _get(obj, path):
    for key in path.split('.'):
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _prune_marks(meta, key, dropped):
    marks = {k: v for k, v in (meta.get(key) or {}).items()
             if k not in dropped}
    if marks:
        meta[key] = marks
    else:
        meta.pop(key, None)


def _plain_metadata(meta):
    for key in SERVER_METADATA:
        meta.pop(key, None)
    _prune_marks(meta, 'labels', DROPPED_LABELS)
    _prune_marks(meta, 'annotations', DROPPED_ANNOTATIONS)
    finalizers = [f for f in meta.get('finalizers') or ()
                  if f not in SERVER_FINALIZERS]
    if finalizers:
        meta['finalizers'] = finalizers
    else:
        meta.pop('finalizers', None)


def _plain_service(spec):
    # 'None' is a headless Service: a choice, not an allocation.
    if spec.get('clusterIP') != 'None':
        spec.pop('clusterIP', None)
        spec.pop('clusterIPs', None)
    if spec.get('ipFamilyPolicy') == 'SingleStack':
        del spec['ipFamilyPolicy']
        spec.pop('ipFamilies', None)  # the new cluster's own family
    for port in spec.get('ports') or ():
        if port.get('targetPort') == port.get('port'):
            port.pop('targetPort', None)


def _plain_job(meta, spec):
    # Unless chosen by hand, the API generates the selector and labels
    # from the Job's uid and refuses a selector given on create.
    if spec.get('manualSelector'):
        return
    spec.pop('selector', None)
    _prune_marks(meta, 'labels', JOB_GENERATED_LABELS)
    template_meta = (spec.get('template') or {}).get('metadata') or {}
    _prune_marks(template_meta, 'labels', JOB_GENERATED_LABELS)


def _plain_pod_spec(pod):
    pod.pop('nodeName', None)  # the scheduler's choice
    pod.pop('serviceAccount', None)  # the API copies serviceAccountName
    # The service account token volume that admission adds to every pod.
    injected = {v['name'] for v in pod.get('volumes') or ()
                if v.get('name', '').startswith('kube-api-access-')}
    if injected:
        pod['volumes'] = [v for v in pod['volumes']
                          if v['name'] not in injected]
        for container in (pod.get('containers') or []) + (
                pod.get('initContainers') or []):
            container['volumeMounts'] = [
                m for m in container.get('volumeMounts') or ()
                if m.get('name') not in injected]
            if not container['volumeMounts']:
                del container['volumeMounts']
        if not pod['volumes']:
            del pod['volumes']
    drop_defaults(pod, POD_DEFAULTS)


def plain(obj):
    """A copy of a live object as a manifest to apply elsewhere."""
    obj = copy.deepcopy(obj)
    obj.pop('status', None)
    _plain_metadata(obj.setdefault('metadata', {}))
    kind = obj.get('kind')
    spec = obj.get('spec') if isinstance(obj.get('spec'), dict) else {}
    if kind == 'Service':
        _plain_service(spec)
    elif kind == 'PersistentVolumeClaim':
        spec.pop('volumeName', None)  # bound to a volume of this cluster
    elif kind == 'CronJob':
        _plain_job(_get(obj, 'spec.jobTemplate.metadata') or {},
                   _get(obj, 'spec.jobTemplate.spec') or {})
    elif kind == 'Job':
        _plain_job(obj['metadata'], spec)
    for path in SERVER_PATHS:
        for place, key in _parents(obj, path):
            del place[key]
    drop_defaults(obj, EVERY_KIND_DEFAULTS + KIND_DEFAULTS.get(kind, ()))
    pod = _get(obj, POD_SPEC[kind]) if kind in POD_SPEC else None
    if isinstance(pod, dict):
        _plain_pod_spec(pod)
    return obj


def without_secret_values(obj):
    """A Secret with its keys and empty values, saying so; others as given.

    Empty values keep the manifest valid (data is base64, '' included).
    """
    if obj.get('kind') != 'Secret':
        return obj
    obj = copy.deepcopy(obj)
    obj['data'] = {key: '' for key in sorted(set(obj.get('data') or {}) |
                                             set(obj.get('stringData') or {}))}
    obj.pop('stringData', None)
    meta = obj.setdefault('metadata', {})
    meta.setdefault('annotations', {})[VALUES_OMITTED] = VALUES_OMITTED_TEXT
    return obj


def in_namespace(entries, namespace):
    """(comments, object) entries with the objects moved to one namespace.

    Namespaced objects get it; the stack's first Namespace object becomes
    that namespace and other Namespace objects are left out; cluster-scoped
    objects stay as they are.
    """
    moved, has_namespace = [], False
    for comments, obj in entries:
        obj = copy.deepcopy(obj)
        meta = obj.setdefault('metadata', {})
        if obj.get('kind') == 'Namespace':
            if has_namespace:
                continue
            has_namespace = True
            meta['name'] = namespace
        elif meta.get('namespace'):
            meta['namespace'] = namespace
        moved.append((comments, obj))
    return moved


def namespaces_first(entries):
    """Namespaces before what they hold; otherwise the order given."""
    return sorted(entries, key=lambda entry: entry[1].get('kind') !=
                  'Namespace')


def _document(obj):
    """obj with apiVersion, kind and metadata first, as manifests read."""
    head = ('apiVersion', 'kind', 'metadata')
    ordered = {key: obj[key] for key in head if key in obj}
    ordered.update((key, obj[key]) for key in sorted(obj) if key not in head)
    return ordered


def to_yaml(entries, header=()):
    """A multi-document YAML stream of (comment lines, object) entries."""
    lines = ['# ' + line for line in header]
    for comments, obj in entries:
        lines.append('---')
        lines.extend('# ' + line for line in comments)
        lines.append(yaml.safe_dump(_document(obj), default_flow_style=False,
                                    sort_keys=False).rstrip('\n'))
    return '\n'.join(lines) + '\n'
