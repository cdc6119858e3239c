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

"""The object a resource manages, in its cluster.

A KubernetesResource holds an ObjectHandle (``self.object``): it reads,
writes and deletes the object through the resource's client, by the
manifests the resource builds (``resource.manifest``), records in the
resource what it wrote (the uid as the resource id, the content's
checksum) and reads what explains the object (its events, its pods, the
Secrets to redact from a message that leaves for Heat).
"""

from heat.common import exception
from oslo_log import log as logging

from heat_k8s import kinds
from heat_k8s.client import kube as kube_mod
from heat_k8s.kinds import redaction
from heat_k8s.secrecy import digests

LOG = logging.getLogger(__name__)


class ObjectHandle:
    """The object of one KubernetesResource."""

    def __init__(self, resource):
        self.resource = resource

    def locator(self, props=None):
        """Enough of the manifest to find, read or delete the object (no
        ownership marks, nothing rendered)."""
        rsrc = self.resource
        return rsrc.manifest(rsrc.properties if props is None else props,
                             owned=False, content=False)

    def get(self, manifest=None):
        """The live object of this manifest (default: the resource's
        own), or None."""
        manifest = manifest or self.locator()
        meta = manifest['metadata']
        return self.resource._kube().get(
            manifest['apiVersion'], manifest['kind'], meta['name'],
            meta.get('namespace'))

    def apply(self, manifest):
        """Write the whole manifest (server-side apply); record its uid as
        the resource id and, for a kind that sums its content, the
        checksum. Refuses a manifest holding fingerprints in place of
        secret values."""
        rsrc = self.resource
        self.check_writable(manifest)
        obj = rsrc._kube().apply(manifest)
        rsrc.resource_id_set(obj['metadata']['uid'])
        if rsrc.checksum_keys:
            first, second = rsrc.checksum_keys
            rsrc.data_set('checksum', rsrc.content_checksum(
                manifest.get(first), manifest.get(second)))
        return obj

    def check_writable(self, manifest):
        """Refuse to write what Heat stored as fingerprints only."""
        rsrc = self.resource
        keys = [rsrc.body_properties[p] for p in rsrc.sensitive_properties
                if p in rsrc.body_properties]
        if any(digests.is_fingerprint(value) for key in keys
               for value in (manifest.get(key) or {}).values()):
            raise exception.Error(
                '%s: Heat does not store the values of %s, so it cannot '
                'write them from stored state; update the stack instead' % (
                    rsrc.name, ', '.join(rsrc.sensitive_properties)))

    def delete(self, props):
        """Delete the incarnation the resource id names; False when there
        was none."""
        rsrc = self.resource
        meta = self.locator(props)
        try:
            return rsrc._kube(props).delete(
                meta['apiVersion'], meta['kind'], meta['metadata']['name'],
                meta['metadata'].get('namespace'), uid=rsrc.resource_id)
        except kube_mod.ApiError as exc:
            raise exception.Error('Deleting %s failed: %s' % (
                rsrc.describe(props), exc))

    def events(self, obj):
        """Events about obj, or none when they cannot be read."""
        try:
            return self.resource._kube().events_for(obj)
        except kube_mod.ApiError as exc:
            LOG.info('%s: events unavailable: %s', self.resource.name, exc)
            return []

    def pods(self, manifest):
        """The pods of the object now: a Pod itself, a workload's."""
        obj = self.get(manifest)
        if obj is None or obj.get('kind') == 'Pod':
            return [obj] if obj else []
        return self.resource._kube().related(obj, kinds.PODS).get(
            'pods') or []

    def redacted(self, text, manifest):
        """text without the values of the Secrets this object's pods read,
        which a container may print before it exits (its termination
        message, a kubelet event): read now, with the caller's token, only
        for a text that leaves for Heat; never logged."""
        names = redaction.consumed_secrets(manifest)
        if not text or not names:
            return text
        namespace = manifest['metadata'].get('namespace')
        values, unread = [], []
        for name in sorted(names):
            try:
                secret = self.resource._kube().get('v1', 'Secret', name,
                                                   namespace)
            except kube_mod.ApiError:
                unread.append(name)
                continue
            values.extend(redaction.secret_values(secret))
        if unread:
            # Values it cannot know: what the containers said goes instead.
            try:
                values.extend(redaction.container_messages(
                    self.pods(manifest)))
            except kube_mod.ApiError:
                return ('%s: the reason is withheld: it may quote values of '
                        'Secrets (%s) that could not be read to redact it'
                        % (self.resource.describe(), ', '.join(unread)))
        return redaction.text(text, values, public=(
            namespace or '', manifest['metadata'].get('name') or ''))
