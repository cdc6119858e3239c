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

"""What a resource's object is now: reads of the live object.

A mixin of KubernetesResource: the live object and its events, its
readiness verdict, what Heat shows of it (resource show, attributes,
observe reality) with Secret values redacted. Waiting for it is
shared.waits'.
"""

from heat.common import exception
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s import kinds
from heat_k8s.kinds import drift
from heat_k8s.kinds import projection
from heat_k8s.kinds import readiness
from heat_k8s.kinds import redaction
from heat_k8s.resources.shared import common

LOG = logging.getLogger(__name__)
CONF = cfg.CONF
LABELS, ANNOTATIONS = (
    common.LABELS, common.ANNOTATIONS)


class Observed:
    """Reads of the object a resource manages, and waiting for it."""

    def _show_resource(self):
        obj = self.object.get()
        if obj is None:
            return None
        obj = redaction.manifest(obj)
        obj.get('metadata', {}).pop('managedFields', None)
        return obj

    def get_live_resource_data(self):
        obj = self.object.get()
        if obj is None:
            raise exception.EntityNotFound(entity=self.kind_of(
                self.properties), name=self.object_name(self.properties))
        return obj

    def parse_live_resource_data(self, resource_properties, resource_data):
        meta = resource_data.get('metadata') or {}
        live = {LABELS: projection.project(resource_properties[LABELS],
                                           meta.get('labels')),
                ANNOTATIONS: projection.project(
                    resource_properties[ANNOTATIONS],
                    meta.get('annotations'))}
        for prop, key in self.body_properties.items():
            if prop not in self.sensitive_properties:
                live[prop] = projection.project(resource_properties[prop],
                                                resource_data.get(key))
        return live

    def drift(self, obj, manifest):
        """The fields of obj that left manifest (heat_k8s.kinds.drift)."""
        return drift.findings(manifest, obj, CONF.kubernetes.field_manager)

    def check_drift(self, obj):
        """Raise the drift of obj from what Heat applies, if any; fields
        only others set are logged, never fought over."""
        if self.external_id:
            return  # never written by Heat
        manifest = self.manifest(self.applied_properties())
        manager = CONF.kubernetes.field_manager
        for path in drift.foreign(manifest, obj, manager):
            LOG.info('%s: %s is set outside Heat, left alone', self.name,
                     path)
        found = self.drift(obj, manifest)
        if found:
            prefix = 'Error: resources.%s: ' % self.name
            raise exception.Error(drift.message(
                self.describe(), found, drift.REASON_MAX - len(prefix)))

    def applied_properties(self):
        """The properties Heat applies: stored properties hold
        fingerprints in place of secret values, so those resolve from
        the template again."""
        if not self.sensitive_properties:
            return self.properties
        return self.t.properties(self.properties_schema, self.context)

    def get_reference_id(self):
        return self.data().get('name') or super().get_reference_id()

    def _resolve_attribute(self, name):
        attr = (self.extra_attributes.get(name) or
                common.COMMON_ATTRIBUTES.get(name))
        if attr is None or self.resource_id is None:
            return None
        if attr.source == 'data':
            return attr.get(self.data())
        obj = self.object.get()
        return None if obj is None else attr.get(obj)

    def verdict(self, kube, obj, props, explain=True):
        """Readiness of a live object (generic resources add wait_for).

        Objects that only explain a verdict (a workload's pods) are fetched
        for a failure, or when explain is true for a verdict not READY.
        """
        kind = obj['kind']
        deciding = kinds.declared(kind).decides
        result = kinds.evaluate(obj, kube.related(obj, deciding))
        explaining = kinds.declared(kind).explains
        if explaining and (result.state == readiness.FAILED or (
                explain and result.state != readiness.READY)):
            result = kinds.evaluate(
                obj, kube.related(obj, deciding | explaining))
        return result
