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

"""The properties and attributes every OS::Kubernetes::* type shares.

A type's module builds its schemas from these: common_properties() plus
its body properties, attributes_schema() of its extra Attr entries.
"""

import collections

from heat.engine import attributes
from heat.engine import constraints
from heat.engine import properties

from heat_k8s.kinds import fields
from heat_k8s.kinds import redaction

PROPERTIES = (
    NAME, NAMESPACE, LABELS, ANNOTATIONS, CLUSTER, WAIT, TIMEOUT,
) = (
    'name', 'namespace', 'labels', 'annotations', 'cluster', 'wait',
    'timeout',
)

ATTRIBUTES = (
    NAME_ATTR, NAMESPACE_ATTR, UID_ATTR, STATUS_ATTR,
) = (
    'name', 'namespace', 'uid', 'status',
)

# source 'live': get(live object); source 'data': get(resource data)
Attr = collections.namedtuple('Attr', 'description type get source',
                              defaults=('live',))


COMMON_ATTRIBUTES = {
    NAME_ATTR: Attr('Name of the object.', attributes.Schema.STRING,
                    lambda obj: obj['metadata']['name']),
    NAMESPACE_ATTR: Attr('Namespace of the object (None if cluster-scoped).',
                         attributes.Schema.STRING,
                         lambda obj: obj['metadata'].get('namespace')),
    UID_ATTR: Attr('UID Kubernetes gave the object.',
                   attributes.Schema.STRING,
                   lambda obj: obj['metadata'].get('uid')),
    STATUS_ATTR: Attr('The status the object reports, as the API has it.',
                      attributes.Schema.MAP,
                      lambda obj: redaction.manifest(obj).get('status')),
}


READY_REPLICAS = Attr('Number of ready pods.', attributes.Schema.INTEGER,
                      lambda obj: fields.status_of(obj).get(
                          'readyReplicas', 0))


def common_properties(namespaced=True):
    schema = {
        NAME: properties.Schema(
            properties.Schema.STRING,
            'Name of the object. Default: derived from the stack and '
            'resource names, unique per physical resource. A change '
            'replaces the object.'),
        LABELS: properties.Schema(
            properties.Schema.MAP,
            'Labels of the object (the ownership labels Heat sets win).',
            update_allowed=True, default={}),
        ANNOTATIONS: properties.Schema(
            properties.Schema.MAP,
            'Annotations of the object.',
            update_allowed=True, default={}),
        CLUSTER: properties.Schema(
            properties.Schema.STRING,
            'Cluster to create the object in: a name configured by the '
            'operator or a Magnum cluster name or ID. Default: the '
            "Keystone catalog's Kubernetes endpoint. A change replaces."),
        WAIT: properties.Schema(
            properties.Schema.BOOLEAN,
            'Wait until the object is ready before the resource completes.',
            update_allowed=True, default=True),
        TIMEOUT: properties.Schema(
            properties.Schema.INTEGER,
            'Seconds to wait for readiness (or deletion); on expiry the '
            'resource fails saying what was not ready. Default: the time '
            'left before the stack times out.',
            update_allowed=True,
            constraints=[constraints.Range(min=1)]),
    }
    if namespaced:
        schema[NAMESPACE] = properties.Schema(
            properties.Schema.STRING,
            'Namespace of the object. Default: [kubernetes] '
            'default_namespace (one per Keystone project). A change '
            'replaces the object.')
    return schema


def spec_property(description='The spec of the object, as the Kubernetes '
                  'API defines it for this kind.'):
    return properties.Schema(properties.Schema.MAP, description,
                             required=True, update_allowed=True)



def data_property(description):
    """A map of data that updates in place (ConfigMap, Secret)."""
    return properties.Schema(properties.Schema.MAP, description,
                             update_allowed=True)


def immutable_property(kind):
    """The `immutable` property of ConfigMap and Secret."""
    return properties.Schema(
        properties.Schema.BOOLEAN,
        'Forbid changes to the data; a change then replaces the %s.' % kind,
        update_allowed=True)


def attributes_schema(extra=None):
    """Heat attributes schema: the common attributes plus a kind's own."""
    table = dict(COMMON_ATTRIBUTES, **(extra or {}))
    return {name: attributes.Schema(attr.description, type=attr.type)
            for name, attr in table.items()}
