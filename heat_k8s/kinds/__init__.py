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

"""What Kubernetes says about each kind, one declaration per kind.

KINDS holds a Kind for every built-in kind Heat may meet: where the API
serves it (apiVersion, plural, scope), the API server's name rule, the
fields that cannot change in place, the readiness rule, the related
objects that decide or explain readiness and what a wait watches, and
how Heat suspends it. The
rules it names (readiness, immutable) do not read it back: evaluate()
and replacement_paths() look a kind's rules up and apply them; requests
for these kinds need no API discovery, while other kinds (custom
resources, other API versions) are discovered per endpoint.

Beside the kinds, rules for objects of any kind, read by the resource
types and by the export: ``labels`` (the ownership marks Heat
writes), ``projection`` and ``drift`` (a live object against what was
asked or applied), ``objectset`` (many objects behind one resource).

This layer is pure: it imports no Heat, makes no request, and may import
nothing of heat_k8s outside itself.
"""

import dataclasses
import enum
import typing

from heat_k8s.kinds import immutable
from heat_k8s.kinds import readiness

# How Heat suspends a kind: scale it to zero, or set spec.suspend.
SCALE, SUSPEND_FIELD = 'scale', 'suspend'

# Related objects (fetched by the client layer, read by readiness rules).
PODS = frozenset({'pods'})                      # a workload's pods
ENDPOINTSLICES = frozenset({'endpointslices'})  # a Service's endpoints
STORAGECLASS = frozenset({'storageclass'})      # a claim's storage class
EVENTS = frozenset({'events'})                  # what controllers said of it


class Watched(enum.Enum):
    """What a wait watches to see an object change towards ready."""

    ITSELF = enum.auto()
    # A Service's readiness is its endpoints', which its own watch misses.
    ENDPOINTSLICES = enum.auto()


@dataclasses.dataclass(frozen=True)
class Kind:
    name: str                   # e.g. 'Job'
    api_version: str            # e.g. 'batch/v1'
    plural: str                 # REST resource, e.g. 'jobs'
    namespaced: bool = True
    name_rule: str = 'subdomain'    # naming rule the API server applies
    name_max_len: int = 63          # longest name Heat accepts or generates
    immutable: tuple = ()           # immutable.Rule: a change replaces
    ready: typing.Callable = readiness.exists   # (obj, related) -> Verdict
    decides: frozenset = frozenset()    # related objects read on every poll
    explains: frozenset = frozenset()   # read for a failure or timeout only
    # What a wait watches: not always what decides (a claim's
    # StorageClass never changes as the claim binds).
    watches: Watched = Watched.ITSELF
    suspend: str | None = None          # SCALE, SUSPEND_FIELD or None
    # Ready only once its pods stay up (kinds.steadiness): a container
    # that exits at once is Running, and its pod Ready, for a moment.
    holds: bool = False

    @property
    def related(self):
        """Every related object the readiness rule may read."""
        return self.decides | self.explains


DECLARATIONS = (
    # --- kinds with an OS::Kubernetes::* type ---------------------------
    Kind('Namespace', 'v1', 'namespaces', namespaced=False,
         name_rule='label', ready=readiness.namespace),
    Kind('ConfigMap', 'v1', 'configmaps',
         immutable=immutable.locked_by_immutable('data', 'binaryData')),
    Kind('Secret', 'v1', 'secrets',
         immutable=immutable.locked_by_immutable('data', 'stringData') + (
             immutable.Rule('type'),)),
    Kind('Pod', 'v1', 'pods',
         immutable=immutable.spec_except(
             'containers[*].image', 'initContainers[*].image',
             'activeDeadlineSeconds', 'tolerations'),
         ready=readiness.pod, holds=True),
    Kind('Job', 'batch/v1', 'jobs',
         name_max_len=63,  # pods carry the name as a label value
         # completions stays immutable even though elastic Indexed Jobs
         # may change it together with parallelism.
         immutable=immutable.spec(
             'template', 'selector', 'completions', 'completionMode',
             'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy',
             'successPolicy'),
         ready=readiness.job, explains=PODS | EVENTS,
         suspend=SUSPEND_FIELD),
    Kind('CronJob', 'batch/v1', 'cronjobs',
         name_max_len=52,  # Jobs are named <cronjob>-<11 characters>
         ready=readiness.cronjob, suspend=SUSPEND_FIELD),
    Kind('Deployment', 'apps/v1', 'deployments',
         immutable=immutable.spec('selector'),
         ready=readiness.deployment, explains=PODS, suspend=SCALE,
         holds=True),
    Kind('StatefulSet', 'apps/v1', 'statefulsets',
         name_max_len=52,  # controller-revision-hash label <name>-<hash>
         # Only these spec fields may change; the rest
         # (volumeClaimTemplates, serviceName, podManagementPolicy,
         # selector) not.
         immutable=immutable.spec_except(
             'replicas', 'ordinals', 'template', 'updateStrategy',
             'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy',
             'minReadySeconds'),
         ready=readiness.statefulset, explains=PODS | EVENTS,
         suspend=SCALE, holds=True),
    Kind('DaemonSet', 'apps/v1', 'daemonsets',
         immutable=immutable.spec('selector'),
         ready=readiness.daemonset, explains=PODS | EVENTS, holds=True),
    Kind('Service', 'v1', 'services', name_rule='dns1035-label',
         immutable=immutable.spec('clusterIP', 'clusterIPs') + (
             immutable.Rule('spec.type', values=('ExternalName',)),),
         ready=readiness.service, decides=ENDPOINTSLICES,
         watches=Watched.ENDPOINTSLICES),
    Kind('PersistentVolumeClaim', 'v1', 'persistentvolumeclaims',
         # Storage can grow in place (volume expansion).
         immutable=immutable.spec_except('resources.requests',
                                         'volumeAttributesClassName'),
         ready=readiness.persistentvolumeclaim, decides=STORAGECLASS,
         explains=EVENTS),

    # --- kinds met through OS::Kubernetes::Resource or as related objects
    Kind('ReplicaSet', 'apps/v1', 'replicasets',
         immutable=immutable.spec('selector'),
         ready=readiness.replicaset, explains=PODS, holds=True),
    Kind('RoleBinding', 'rbac.authorization.k8s.io/v1', 'rolebindings',
         immutable=(immutable.Rule('roleRef'),)),
    Kind('ClusterRoleBinding', 'rbac.authorization.k8s.io/v1',
         'clusterrolebindings', namespaced=False,
         immutable=(immutable.Rule('roleRef'),)),
    Kind('StorageClass', 'storage.k8s.io/v1', 'storageclasses',
         namespaced=False,
         immutable=tuple(immutable.Rule(field) for field in (
             'provisioner', 'parameters', 'reclaimPolicy',
             'volumeBindingMode'))),
    Kind('ServiceAccount', 'v1', 'serviceaccounts'),
    Kind('PersistentVolume', 'v1', 'persistentvolumes', namespaced=False),
    Kind('Endpoints', 'v1', 'endpoints'),
    Kind('Event', 'v1', 'events'),
    Kind('LimitRange', 'v1', 'limitranges'),
    Kind('ResourceQuota', 'v1', 'resourcequotas'),
    Kind('Node', 'v1', 'nodes', namespaced=False),
    Kind('EndpointSlice', 'discovery.k8s.io/v1', 'endpointslices'),
    Kind('Ingress', 'networking.k8s.io/v1', 'ingresses'),
    Kind('IngressClass', 'networking.k8s.io/v1', 'ingressclasses',
         namespaced=False),
    Kind('NetworkPolicy', 'networking.k8s.io/v1', 'networkpolicies'),
    Kind('Role', 'rbac.authorization.k8s.io/v1', 'roles'),
    Kind('ClusterRole', 'rbac.authorization.k8s.io/v1', 'clusterroles',
         namespaced=False),
    Kind('HorizontalPodAutoscaler', 'autoscaling/v2',
         'horizontalpodautoscalers'),
    Kind('PodDisruptionBudget', 'policy/v1', 'poddisruptionbudgets'),
    Kind('PriorityClass', 'scheduling.k8s.io/v1', 'priorityclasses',
         namespaced=False),
    Kind('CustomResourceDefinition', 'apiextensions.k8s.io/v1',
         'customresourcedefinitions', namespaced=False),
)

KINDS = {kind.name: kind for kind in DECLARATIONS}


def declared(name):
    """The declaration of a kind; for a kind not in KINDS (a custom
    resource), one with only the rules every kind has."""
    return KINDS.get(name) or Kind(name, None, None)


def evaluate(obj, related=None):
    """The readiness of a live object by its kind's rule; kinds without
    one are ready once they exist.

    related: {'pods': [...], 'endpointslices': [...], 'storageclass': {...}}
    as the kind declares them (decides, explains).
    """
    rule = declared((obj or {}).get('kind')).ready
    return readiness.judged(obj, rule, related)


def immutable_rules(kind):
    """The immutable rules of kind, including those of every kind."""
    return immutable.EVERY_KIND + declared(kind).immutable


def replacement_paths(kind, old, new):
    """Immutable paths whose value differs between two desired manifests."""
    return immutable.changed_paths(immutable_rules(kind), old, new)


def builtin(api_version, kind):
    """The table entry for this apiVersion and kind, or None."""
    entry = KINDS.get(kind)
    if entry is not None and entry.api_version == api_version:
        return entry
    return None


def collection_path(api_version, plural, namespace=None):
    """REST path of a collection, e.g. /apis/apps/v1/namespaces/ns/pods."""
    root = '/api/v1' if api_version == 'v1' else '/apis/' + api_version
    if namespace:
        return '%s/namespaces/%s/%s' % (root, namespace, plural)
    return '%s/%s' % (root, plural)


def group_path(api_version):
    """REST path of an API group version's discovery document."""
    return '/api/v1' if api_version == 'v1' else '/apis/' + api_version
