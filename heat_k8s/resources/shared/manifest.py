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

"""What a resource's object is: its name, namespace and manifest.

A mixin of KubernetesResource: the object's identity (name rule,
namespace, cluster), the desired manifest built from the properties
(labels Heat owns, rendered files, sensitive values), and the checks
`template validate` runs on it (names, namespaces, the kind's OpenAPI
schema). Nothing here talks to the API server except kind discovery.
"""

import copy
import re

from heat.common import exception
from heat.common import short_id
from oslo_config import cfg

from heat_k8s import kinds
from heat_k8s.kinds import fieldrules
from heat_k8s.kinds import labels
from heat_k8s.kinds import naming
from heat_k8s.kinds import schema as openapi
from heat_k8s.resources.shared import common
from heat_k8s.resources.shared import literal
from heat_k8s.resources.shared import sensitive

CONF = cfg.CONF
NAME, NAMESPACE, LABELS, ANNOTATIONS, CLUSTER, WAIT, TIMEOUT = (
    common.NAME, common.NAMESPACE, common.LABELS, common.ANNOTATIONS,
    common.CLUSTER, common.WAIT, common.TIMEOUT)


def _merge_rendered(manifest, rendered):
    for key, entries in rendered.items():
        manifest[key] = dict(manifest.get(key) or {}, **entries)



class Manifested:
    """The object a resource manages, as its properties describe it."""

    # --- identity ---------------------------------------------------------

    def api_version(self, props):
        return kinds.KINDS[self.kind].api_version

    def kind_of(self, props):
        return self.kind

    def namespaced(self, props, discover=True):
        """Whether the kind is namespaced; None if unknown undiscovered."""
        return kinds.KINDS[self.kind].namespaced

    def object_name(self, props):
        stored = self.data().get('name')
        if stored:
            return stored
        if self.external_id:
            return self.external_id
        return self.given_name(props) or naming.generated_name(
            self.stack.name, self.name, short_id.get_id(self.uuid))

    def given_name(self, props):
        """The name the template gives the object, or None."""
        return props[NAME] or None

    def given_namespace(self, props):
        """The namespace the template gives the object, or None."""
        return props.get(NAMESPACE) or None

    def fixed_name(self, props):
        """True when the template names the object (no generated name)."""
        return bool(self.given_name(props))

    def object_key(self, props):
        """What tells this object from every other: (API group, kind,
        namespace, name, cluster), or None with a generated name. Needs no
        stored state: validation compares the stack's resources by it."""
        name = self.given_name(props)
        if not name:
            return None
        namespace = None
        if self.namespaced(props, discover=False) is not False:
            try:
                namespace = (self.given_namespace(props)
                             or self.default_namespace())
            except exception.Error:
                return None  # reported by the namespace check
        group = (self.api_version(props) or '').rpartition('/')[0]
        return (group, self.kind_of(props), namespace, name,
                props[CLUSTER] or None)

    def object_keys(self, props):
        """The keys of every object of this resource: [object_key()]."""
        return [self.object_key(props)]

    def object_namespace(self, props):
        if 'namespace' in self.data():
            return self.data()['namespace'] or None
        if not self.namespaced(props):
            return None
        return self.given_namespace(props) or self.default_namespace()

    def default_namespace(self):
        ctx = self.context
        keys = {'project_id': self.stack.tenant_id or ctx.project_id,
                'project_name': ctx.project_name,
                'project_domain_id': ctx.project_domain_id,
                'user_id': ctx.user_id, 'user_name': ctx.username,
                'stack_id': self.stack.id, 'stack_name': self.stack.name}
        try:
            return CONF.kubernetes.default_namespace % keys
        except (KeyError, ValueError, TypeError) as exc:
            raise exception.Error(
                'Invalid [kubernetes] default_namespace %r: %s' % (
                    CONF.kubernetes.default_namespace, exc))

    def describe(self, props=None):
        props = props if props is not None else self.properties
        namespace = self.object_namespace(props)
        name = self.object_name(props)
        return '%s %s' % (self.kind_of(props),
                          '%s/%s' % (namespace, name) if namespace else name)

    # --- desired state ----------------------------------------------------

    def body(self, props):
        """Top-level manifest fields other than metadata."""
        return {key: copy.deepcopy(props[prop])
                for prop, key in self.body_properties.items()
                if props[prop] is not None}

    def rendered_body(self, props, comparable=False):
        """Body fields a kind computes from its properties, or {}.

        {manifest key: {key: value}}, merged into the map body() gives
        under that key: e.g. files rendered from templates into a
        ConfigMap's data. comparable=True asks for a stand-in for diffs
        only, which must not fail: a fingerprint per key that changes
        when the content would (fingerprints are never written).
        """
        return {}

    def manifest(self, props, owned=True, content=True):
        """The desired manifest for these properties.

        content=False leaves rendered_body() out: enough to find, read or
        delete the object, and nothing is rendered.
        """
        metadata = {'name': self.object_name(props)}
        namespace = self.object_namespace(props)
        if namespace:
            metadata['namespace'] = namespace
        own_labels, own_annotations = {}, {}
        if owned:
            own_labels, own_annotations = labels.ownership(self.stack.id,
                                                           self.name)
            own_annotations[labels.RESOURCE_UUID] = self.uuid
        metadata['labels'] = labels.merge(props[LABELS], own_labels)
        metadata['annotations'] = labels.merge(props[ANNOTATIONS],
                                               own_annotations)
        for key in ('labels', 'annotations'):
            if not metadata[key]:
                del metadata[key]
        manifest = {'apiVersion': self.api_version(props),
                    'kind': self.kind_of(props), 'metadata': metadata}
        manifest.update(self.body(props))
        if content:
            _merge_rendered(manifest, self.rendered_body(props))
        return manifest

    def comparable_manifest(self, props):
        """manifest() with secret values as fingerprints, for diffs."""
        props = sensitive.fingerprinted(self, props)
        manifest = self.manifest(props, owned=False, content=False)
        _merge_rendered(manifest, self.rendered_body(props, comparable=True))
        return manifest

    # --- validation -------------------------------------------------------

    def validate_properties(self, props):
        """The offline checks (KubernetesBase runs them)."""
        kind = self.kind_of(props)
        if props[NAME]:
            error = naming.validate(props[NAME], naming.rule(kind),
                                    naming.max_length(kind))
            if error:
                raise self._invalid('%s name %r: %s' % (kind, props[NAME],
                                                        error), NAME)
        self._validate_cluster(props)
        if self.namespaced(props, discover=False) is not False:
            self._validate_namespace(props)
        self.validate_body(props)
        self._validate_wait(props)
        self._validate_unique(props)

    def _validate_wait(self, props):
        """Refuse a wait that cannot end in time: a workload whose
        controller counts a pod available only after minReadySeconds,
        as long as or longer than the resource may wait."""
        known = kinds.builtin(self.api_version(props), self.kind_of(props))
        if not props.get(WAIT, False) or known is None or not known.holds:
            return
        spec = self._stand_in(props).get('spec') or {}
        min_ready = spec.get('minReadySeconds')
        timeout = props.get(TIMEOUT)
        limit = timeout or self.stack.timeout_secs()
        if isinstance(min_ready, int) and min_ready >= limit:
            raise self._invalid(
                'spec.minReadySeconds (%d) is not less than the %s (%ds): '
                'no pod would count as available before Heat stopped '
                'waiting; shorten it, or raise the timeout' % (
                    min_ready, 'timeout property' if timeout else
                    'stack timeout', limit), TIMEOUT if timeout else None)

    def _validate_unique(self, props):
        """Refuse a second resource of the stack naming the same object."""
        key = self.object_key(props)
        if key is None:
            return
        for other in self.stack.resources.values():
            # By name: OS::Kubernetes::Objects checks its entries as views
            # of itself, and compares them among themselves.
            if other.name == self.name or not hasattr(other, 'object_keys'):
                continue
            try:
                other_keys = other.object_keys(
                    literal.checked_properties(other))
            except (exception.StackValidationFailed, ValueError,
                    TypeError):
                continue  # its own validation reports what is wrong
            if key in other_keys:
                _group, kind, namespace, name, _cluster = key
                raise self._invalid(
                    '%s %s is also the object of resource %r: two '
                    'resources of a stack cannot manage one object (give '
                    'one of them another name%s)' % (
                        kind, '%s/%s' % (namespace, name) if namespace
                        else name, other.name,
                        ', namespace or cluster' if namespace else ''),
                    NAME)

    def _validate_namespace(self, props):
        namespace = props.get(NAMESPACE)
        if not namespace and self.stack.id is None and (
                '%(stack_id)s' in CONF.kubernetes.default_namespace):
            return  # known only once the stack is stored
        origin = 'namespace %r' % namespace
        if not namespace:
            try:
                namespace = self.default_namespace()
            except exception.Error as exc:
                raise self._invalid(str(exc), NAMESPACE) from None
            origin = ('default namespace %r ([kubernetes] '
                      'default_namespace)' % namespace)
        error = naming.validate(namespace, 'label')
        if error:
            raise self._invalid('%s: %s' % (origin, error), NAMESPACE)

    def validate_body(self, props):
        """Check the manifest against the kind's OpenAPI schema and the
        API server's offline value rules (labels, keys, ranges)."""
        manifest = self._stand_in(props)
        errors = openapi.validate(manifest) + fieldrules.problems(
            manifest)[:openapi.MAX_ERRORS]
        if errors:
            problems = '; '.join('%s: %s' % error if error[0] else error[1]
                                 for error in errors)
            raise self._invalid('Invalid %s: %s' % (manifest['kind'],
                                                    problems),
                                self._blamed(errors[0][0], props))

    def _stand_in(self, props):
        """The manifest of props as validation sees it: a stand-in name
        and namespace where they are not known yet."""
        stand_in = dict(props, **{NAME: props[NAME] or 'x', NAMESPACE: 'x'})
        return self.manifest(sensitive.PlainProperties(stand_in),
                             owned=False, content=False)

    def _blamed(self, path, props):
        """The property a field path of the manifest comes from."""
        steps = re.split(r'[.[]', path)
        if steps[0] == 'metadata' and len(steps) > 1:
            prop = {'labels': LABELS, 'annotations': ANNOTATIONS}.get(
                steps[1])
            if prop and (props[prop] or not self.schema_property):
                return prop
        return {key: p for p, key in self.body_properties.items()}.get(
            steps[0], self.schema_property)
