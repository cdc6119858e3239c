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

"""The offline checks of one object, before anything is written.

properties(rsrc, props) is what KubernetesResource.validate_properties
runs, however Heat validates (base.KubernetesBase): the name, the cluster,
the namespace, the body (the kind's check, by default body() here: its
OpenAPI schema and the API server's value rules), a wait that could end
in time, and one resource per object in the stack. Each refusal is the
resource's own StackValidationFailed (rsrc._invalid), naming the
property. Nothing here talks to the API server except kind discovery.
"""

import re

from heat.common import exception
from oslo_config import cfg

from heat_k8s import kinds
from heat_k8s.kinds import fieldrules
from heat_k8s.kinds import naming
from heat_k8s.kinds import schema as openapi
from heat_k8s.resources.shared import common
from heat_k8s.resources.shared import literal
from heat_k8s.resources.shared import sensitive

CONF = cfg.CONF
NAME, NAMESPACE, LABELS, ANNOTATIONS, WAIT, TIMEOUT = (
    common.NAME, common.NAMESPACE, common.LABELS, common.ANNOTATIONS,
    common.WAIT, common.TIMEOUT)


def properties(rsrc, props):
    """Every offline check of these properties, in this order."""
    kind = rsrc.kind_of(props)
    if props[NAME]:
        error = naming.validate(props[NAME], naming.rule(kind),
                                naming.max_length(kind))
        if error:
            raise rsrc._invalid('%s name %r: %s' % (kind, props[NAME],
                                                    error), NAME)
    rsrc._validate_cluster(props)
    if rsrc.namespaced(props, discover=False) is not False:
        _namespace(rsrc, props)
    rsrc.validate_body(props)
    _wait(rsrc, props)
    _unique(rsrc, props)


def body(rsrc, props):
    """Check the manifest against the kind's OpenAPI schema and the
    API server's offline value rules (labels, keys, ranges)."""
    manifest = stand_in(rsrc, props)
    errors = openapi.validate(manifest) + fieldrules.problems(
        manifest)[:openapi.MAX_ERRORS]
    if errors:
        problems = '; '.join('%s: %s' % error if error[0] else error[1]
                             for error in errors)
        raise rsrc._invalid('Invalid %s: %s' % (manifest['kind'], problems),
                            _blamed(rsrc, errors[0][0], props))


def stand_in(rsrc, props):
    """The manifest of props as validation sees it: a stand-in name
    and namespace where they are not known yet."""
    given = dict(props, **{NAME: props[NAME] or 'x', NAMESPACE: 'x'})
    return rsrc.manifest(sensitive.PlainProperties(given), owned=False,
                         content=False)


def _wait(rsrc, props):
    """Refuse a wait that cannot end in time: a workload whose
    controller counts a pod available only after minReadySeconds, or
    that Heat holds for ready_hold_seconds, as long as or longer than
    the resource may wait."""
    known = kinds.builtin(rsrc.api_version(props), rsrc.kind_of(props))
    if not props.get(WAIT, False) or known is None or not known.holds:
        return
    spec = stand_in(rsrc, props).get('spec') or {}
    min_ready = spec.get('minReadySeconds')
    timeout = props.get(TIMEOUT)
    limit = timeout or rsrc.stack.timeout_secs()
    bound = '%s (%ds)' % ('timeout property' if timeout else 'stack timeout',
                          limit)
    if isinstance(min_ready, int) and min_ready >= limit:
        raise rsrc._invalid(
            'spec.minReadySeconds (%d) is not less than the %s: '
            'no pod would count as available before Heat stopped '
            'waiting; shorten it, or raise the timeout' % (
                min_ready, bound), TIMEOUT if timeout else None)
    hold = CONF.kubernetes.ready_hold_seconds
    if hold >= limit:
        raise rsrc._invalid(
            '[kubernetes] ready_hold_seconds (%d) is not less than the %s: '
            'the workload could not stay ready that long before Heat '
            'stopped waiting; raise the timeout (the hold is the '
            'operator\'s setting)' % (hold, bound),
            TIMEOUT if timeout else None)


def _unique(rsrc, props):
    """Refuse a second resource of the stack naming the same object."""
    key = rsrc.object_key(props)
    if key is None:
        return
    for other in rsrc.stack.resources.values():
        # By name: OS::Kubernetes::Objects checks its entries as views
        # of itself, and compares them among themselves.
        if other.name == rsrc.name or not hasattr(other, 'object_keys'):
            continue
        try:
            other_keys = other.object_keys(
                literal.checked_properties(other))
        except (exception.StackValidationFailed, ValueError,
                TypeError):
            continue  # its own validation reports what is wrong
        if key in other_keys:
            _group, kind, namespace, name, _cluster = key
            raise rsrc._invalid(
                '%s %s is also the object of resource %r: two '
                'resources of a stack cannot manage one object (give '
                'one of them another name%s)' % (
                    kind, '%s/%s' % (namespace, name) if namespace
                    else name, other.name,
                    ', namespace or cluster' if namespace else ''),
                NAME)


def _namespace(rsrc, props):
    namespace = props.get(NAMESPACE)
    if not namespace and rsrc.stack.id is None and (
            '%(stack_id)s' in CONF.kubernetes.default_namespace):
        return  # known only once the stack is stored
    origin = 'namespace %r' % namespace
    if not namespace:
        try:
            namespace = rsrc.default_namespace()
        except exception.Error as exc:
            raise rsrc._invalid(str(exc), NAMESPACE) from None
        origin = ('default namespace %r ([kubernetes] '
                  'default_namespace)' % namespace)
    error = naming.validate(namespace, 'label')
    if error:
        raise rsrc._invalid('%s: %s' % (origin, error), NAMESPACE)


def _blamed(rsrc, path, props):
    """The property a field path of the manifest comes from."""
    steps = re.split(r'[.[]', path)
    if steps[0] == 'metadata' and len(steps) > 1:
        prop = {'labels': LABELS, 'annotations': ANNOTATIONS}.get(steps[1])
        if prop and (props[prop] or not rsrc.schema_property):
            return prop
    return {key: p for p, key in rsrc.body_properties.items()}.get(
        steps[0], rsrc.schema_property)
