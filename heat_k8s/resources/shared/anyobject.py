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

"""Any object given as a whole manifest, custom resources included.

What OS::Kubernetes::Resource (``generic``) is, and how
OS::Kubernetes::Objects sees each of its manifests (``members``).
"""

import copy

from heat.engine import constraints
from heat.engine import properties

from heat_k8s import kinds
from heat_k8s.kinds import labels
from heat_k8s.kinds import readiness
from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common

PROPERTIES = (MANIFEST, WAIT_FOR) = ('manifest', 'wait_for')


class AnyObject(base.KubernetesResource):
    """Any Kubernetes object, given as a whole manifest.

    apiVersion and kind come from the manifest; name and namespace from the
    name and namespace properties, else the manifest's metadata, else the
    defaults. Without wait_for, kinds Heat knows wait as their own resource
    types do, and other kinds are ready once they exist.
    """

    properties_schema = dict(
        common.common_properties(),
        **{MANIFEST: properties.Schema(
            properties.Schema.MAP,
            'The object: apiVersion, kind, metadata and the rest, as the '
            'Kubernetes API defines it.',
            required=True, update_allowed=True),
           WAIT_FOR: properties.Schema(
               properties.Schema.LIST,
               'Conditions that all must hold for the object to be ready, '
               'spelled as for kubectl wait: "condition=Ready", '
               '"condition=Ready=False", "jsonpath={.status.phase}=Running".',
               update_allowed=True,
               schema=properties.Schema(properties.Schema.STRING),
               constraints=[constraints.Length(min=1)])})
    attributes_schema = common.attributes_schema()
    schema_property = MANIFEST

    def _given(self, props):
        return props[MANIFEST] or {}

    def api_version(self, props):
        return self._given(props).get('apiVersion')

    def kind_of(self, props):
        return self._given(props).get('kind')

    def namespaced(self, props, discover=True):
        known = kinds.builtin(self.api_version(props), self.kind_of(props))
        if known is not None:
            return known.namespaced
        if 'namespace' in self.data():  # created: '' if cluster-scoped
            return bool(self.data()['namespace'])
        if not discover:
            return None
        return self._kube(props).is_namespaced(self.api_version(props),
                                               self.kind_of(props))

    def given_name(self, props):
        # The manifest's own name counts like the name property: a change
        # replaces the object (immutable.EVERY_KIND).
        given = (self._given(props).get('metadata') or {}).get('name')
        return props[common.NAME] or given or None

    def given_namespace(self, props):
        given = (self._given(props).get('metadata') or {}).get('namespace')
        return props[common.NAMESPACE] or given or None

    def object_name(self, props):
        # Before the stored name: a new manifest name must show in diffs.
        return self.given_name(props) or super().object_name(props)

    def object_namespace(self, props):
        if self.given_namespace(props) and self.namespaced(props):
            return self.given_namespace(props)
        return super().object_namespace(props)

    def manifest(self, props, owned=True, content=True):
        desired = super().manifest(props, owned, content)
        given = copy.deepcopy(self._given(props))
        given_meta = given.pop('metadata', None) or {}
        for key in ('labels', 'annotations'):
            merged = labels.merge(given_meta.get(key),
                                  desired['metadata'].get(key, {}))
            if merged:
                desired['metadata'][key] = merged
        extra = {k: v for k, v in given_meta.items()
                 if k not in ('name', 'namespace', 'labels', 'annotations')}
        desired['metadata'] = dict(extra, **desired['metadata'])
        given.update(desired)
        return given

    def validate_body(self, props):
        given = self._given(props)
        for key in ('apiVersion', 'kind'):
            if not given.get(key):
                raise self._invalid('manifest.%s is required' % key,
                                    MANIFEST)
        if given['kind'] == 'Secret':
            raise self._invalid('use OS::Kubernetes::Secret for Secrets: it '
                                'keeps their values out of Heat', MANIFEST)
        for condition in props[WAIT_FOR] or ():
            try:
                readiness.parse_wait_for(condition)
            except ValueError as exc:
                raise self._invalid('wait_for %r: %s' % (condition, exc),
                                    WAIT_FOR)
        if self.namespaced(props, discover=False) is not None:
            super().validate_body(props)  # a schema exists for built-ins

    def verdict(self, kube, obj, props, explain=True):
        if props[WAIT_FOR]:
            return readiness.wait_for(obj, props[WAIT_FOR])
        return super().verdict(kube, obj, props, explain)
