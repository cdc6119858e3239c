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

"""Built-in Kubernetes kinds: API version, REST plural, scope.

Requests for these kinds need no API discovery. Other kinds (custom
resources, kinds of other API versions) are discovered per endpoint.
"""

import collections

Kind = collections.namedtuple('Kind', 'api_version plural namespaced')

KINDS = {
    'Namespace': Kind('v1', 'namespaces', False),
    'ConfigMap': Kind('v1', 'configmaps', True),
    'Secret': Kind('v1', 'secrets', True),
    'Pod': Kind('v1', 'pods', True),
    'Service': Kind('v1', 'services', True),
    'ServiceAccount': Kind('v1', 'serviceaccounts', True),
    'PersistentVolumeClaim': Kind('v1', 'persistentvolumeclaims', True),
    'PersistentVolume': Kind('v1', 'persistentvolumes', False),
    'Endpoints': Kind('v1', 'endpoints', True),
    'Event': Kind('v1', 'events', True),
    'LimitRange': Kind('v1', 'limitranges', True),
    'ResourceQuota': Kind('v1', 'resourcequotas', True),
    'Node': Kind('v1', 'nodes', False),
    'Deployment': Kind('apps/v1', 'deployments', True),
    'StatefulSet': Kind('apps/v1', 'statefulsets', True),
    'DaemonSet': Kind('apps/v1', 'daemonsets', True),
    'ReplicaSet': Kind('apps/v1', 'replicasets', True),
    'Job': Kind('batch/v1', 'jobs', True),
    'CronJob': Kind('batch/v1', 'cronjobs', True),
    'EndpointSlice': Kind('discovery.k8s.io/v1', 'endpointslices', True),
    'Ingress': Kind('networking.k8s.io/v1', 'ingresses', True),
    'IngressClass': Kind('networking.k8s.io/v1', 'ingressclasses', False),
    'NetworkPolicy': Kind('networking.k8s.io/v1', 'networkpolicies', True),
    'StorageClass': Kind('storage.k8s.io/v1', 'storageclasses', False),
    'Role': Kind('rbac.authorization.k8s.io/v1', 'roles', True),
    'RoleBinding': Kind('rbac.authorization.k8s.io/v1', 'rolebindings',
                        True),
    'ClusterRole': Kind('rbac.authorization.k8s.io/v1', 'clusterroles',
                        False),
    'ClusterRoleBinding': Kind('rbac.authorization.k8s.io/v1',
                               'clusterrolebindings', False),
    'HorizontalPodAutoscaler': Kind('autoscaling/v2',
                                    'horizontalpodautoscalers', True),
    'PodDisruptionBudget': Kind('policy/v1', 'poddisruptionbudgets', True),
    'PriorityClass': Kind('scheduling.k8s.io/v1', 'priorityclasses', False),
    'CustomResourceDefinition': Kind('apiextensions.k8s.io/v1',
                                     'customresourcedefinitions', False),
}


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
