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

"""Ownership marks on every object Heat writes: who manages it, which stack
and which resource of that stack.

Values go in labels so a stack's objects can be listed by selector. A value
that is not a valid label value (a long or oddly spelled Heat resource
name) goes in an annotation in full, with a readable, hashed form in the
label; owner_of() and is_owned_by() work from either.
"""

import hashlib
import re

from heat_k8s.kinds import fieldrules

MANAGED_BY = 'app.kubernetes.io/managed-by'
MANAGER = 'heat'
STACK_ID = 'heat.openstack.org/stack-id'
RESOURCE = 'heat.openstack.org/resource-name'
OWNERSHIP_KEYS = (MANAGED_BY, STACK_ID, RESOURCE)
# An annotation: tells a crash-recovered object (same Heat resource) from
# one a previous incarnation left (a replacement keeping a fixed name).
RESOURCE_UUID = 'heat.openstack.org/resource-uuid'

MAX_VALUE_LEN = fieldrules.LABEL_VALUE.max_len
_HASH_LEN = 12


def fits_label(value):
    """True when value is a valid Kubernetes label value."""
    return isinstance(value, str) and not fieldrules.label_value_problems(
        value)


def label_value(value):
    """value itself if it fits a label, else a readable prefix and a hash."""
    if fits_label(value):
        return value
    digest = hashlib.sha256(str(value).encode('utf-8')).hexdigest()
    readable = re.sub(r'[^A-Za-z0-9_.-]+', '-', str(value))
    readable = readable[:MAX_VALUE_LEN - _HASH_LEN - 1]
    readable = re.sub(r'^[^A-Za-z0-9]+|[^A-Za-z0-9]+$', '', readable)
    return '-'.join(p for p in (readable, digest[:_HASH_LEN]) if p)


def ownership(stack_id, resource_name):
    """(labels, annotations) marking an object as this resource's."""
    labels = {MANAGED_BY: MANAGER}
    annotations = {}
    for key, value in ((STACK_ID, stack_id), (RESOURCE, resource_name)):
        labels[key] = label_value(value)
        if labels[key] != value:
            annotations[key] = value
    return labels, annotations


def _read(labels, annotations, key):
    full, label = annotations.get(key), labels.get(key)
    # Trust the annotation only when it agrees with the label.
    if full is not None and (label is None or label_value(full) == label):
        return full
    return label


def owner_of(obj):
    """(stack_id, resource_name) of a Heat-managed object, else Nones."""
    metadata = (obj or {}).get('metadata') or {}
    labels = metadata.get('labels') or {}
    annotations = metadata.get('annotations') or {}
    if labels.get(MANAGED_BY) != MANAGER:
        return None, None
    return (_read(labels, annotations, STACK_ID),
            _read(labels, annotations, RESOURCE))


def is_owned_by(obj, stack_id, resource_name=None):
    """True when obj belongs to the stack (and to the resource, if given)."""
    found_stack, found_resource = owner_of(obj)
    if found_stack is None or label_value(found_stack) != label_value(
            stack_id):
        return False
    return resource_name is None or (
        found_resource is not None
        and label_value(found_resource) == label_value(resource_name))


def merge(user, ours):
    """The user's labels or annotations with ours on top.

    Ours win, and every ownership key the user gives is dropped, even one
    we do not set on this object (such as the resource-name annotation when
    the name fits a label), so a template cannot make an object look like
    another stack's or resource's.
    """
    merged = {key: value for key, value in (user or {}).items()
              if key not in OWNERSHIP_KEYS}
    merged.update(ours or {})
    return merged


def resource_uuid(obj):
    """The Heat resource UUID annotated on an object (or None)."""
    meta = obj.get('metadata') or {}
    return (meta.get('annotations') or {}).get(RESOURCE_UUID)
