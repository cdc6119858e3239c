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

"""The Heat lifecycle shared by every OS::Kubernetes::* resource.

A kind module declares data (kind, body properties, attributes, suspend
strategy); the rules live in the pure modules (readiness, immutable,
naming, labels, redaction), and the waiting in heat_k8s.waiting. Objects
are written with server-side apply of the whole desired manifest, so every
write states all fields Heat owns.
"""

import collections
import copy

from heat.common import exception
from heat.common import short_id
from heat.engine import attributes
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s import kinds
from heat_k8s.client import kube as kube_mod
from heat_k8s.client import plugin as client
from heat_k8s.kinds import fields
from heat_k8s.kinds import immutable
from heat_k8s.kinds import naming
from heat_k8s.kinds import readiness
from heat_k8s.kinds import redaction
from heat_k8s.kinds import schema
from heat_k8s.rendering import checksum
from heat_k8s.resources import labels
from heat_k8s.resources import projection
from heat_k8s.resources import sensitive
from heat_k8s.waiting import awaiter

LOG = logging.getLogger(__name__)
CONF = cfg.CONF

# Tells a crash-recovered object (same Heat resource) from one left by a
# previous incarnation of the resource (a replacement with a fixed name).
RESOURCE_UUID = 'heat.openstack.org/resource-uuid'
STOP_MARGIN = 10   # seconds kept before the stack timeout for our message

# Suspend strategies
SCALE, SUSPEND_FIELD = kinds.SCALE, kinds.SUSPEND_FIELD

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


def _merge_rendered(manifest, rendered):
    for key, entries in rendered.items():
        manifest[key] = dict(manifest.get(key) or {}, **entries)


class KubernetesResource(sensitive.Fingerprinted, resource.Resource):
    """Base of OS::Kubernetes::* resources."""

    # --- what a kind module declares ---
    kind = None                 # e.g. 'Deployment'
    body_properties = {}        # property name -> top-level manifest key
    extra_attributes = {}       # attribute name -> Attr
    suspend_strategy = None     # SCALE, SUSPEND_FIELD or None
    sensitive_properties = ()   # stored as fingerprints, never observed
    checksum_keys = None        # (data key, second key) summed as 'checksum'
    schema_property = None      # property blamed for other schema errors

    default_client_name = client.CLIENT_NAME
    entity = None

    @classmethod
    def is_service_available(cls, context):
        if not client.KubernetesClientPlugin.uses_catalog():
            return True, None
        return super().is_service_available(context)

    # --- identity ---------------------------------------------------------

    def api_version(self, props):
        return kinds.KINDS[self.kind].api_version

    def kind_of(self, props):
        return self.kind

    def namespaced(self, props, discover=True):
        """Whether the kind is namespaced; None if unknown undiscovered."""
        return kinds.KINDS[self.kind].namespaced

    def _kube(self, props=None):
        props = props if props is not None else self.properties
        return self.client_plugin().kube(props[CLUSTER])

    def object_name(self, props):
        stored = self.data().get('name')
        if stored:
            return stored
        if self.external_id:
            return self.external_id
        if props[NAME]:
            return props[NAME]
        return naming.generated_name(self.stack.name, self.name,
                                     short_id.get_id(self.uuid))

    def fixed_name(self, props):
        """True when the template names the object (no generated name)."""
        return bool(props[NAME])

    def object_namespace(self, props):
        if 'namespace' in self.data():
            return self.data()['namespace'] or None
        if not self.namespaced(props):
            return None
        return props.get(NAMESPACE) or self.default_namespace()

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
            own_annotations[RESOURCE_UUID] = self.uuid
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
        props = self._fingerprinted(props)
        manifest = self.manifest(props, owned=False, content=False)
        _merge_rendered(manifest, self.rendered_body(props, comparable=True))
        return manifest

    def _check_writable(self, manifest):
        keys = [self.body_properties[p] for p in self.sensitive_properties
                if p in self.body_properties]
        if any(sensitive.is_fingerprint(value) for key in keys
               for value in (manifest.get(key) or {}).values()):
            raise exception.Error(
                '%s: Heat does not store the values of %s, so it cannot '
                'write them from stored state; update the stack instead' % (
                    self.name, ', '.join(self.sensitive_properties)))

    # --- validation -------------------------------------------------------

    def _invalid(self, message, prop=None):
        path = [self.stack.t.RESOURCES, self.name]
        if prop is not None:
            path += [self.stack.t.get_section_name('Properties'), prop]
        return exception.StackValidationFailed(message=message, path=path)

    def validate(self):
        result = super().validate()
        props = self.properties
        kind = self.kind_of(props)
        if props[NAME]:
            error = naming.validate(props[NAME], naming.rule(kind),
                                    naming.max_length(kind))
            if error:
                raise self._invalid('%s name %r: %s' % (kind, props[NAME],
                                                        error), NAME)
        if self.namespaced(props, discover=False) is not False:
            self._validate_namespace(props)
        self.validate_body(props)
        return result

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
        """Check the manifest against the kind's OpenAPI schema."""
        stand_in = dict(props, **{NAME: props[NAME] or 'x', NAMESPACE: 'x'})
        manifest = self.manifest(sensitive.PlainProperties(stand_in),
                                 owned=False, content=False)
        errors = schema.validate(manifest)
        if errors:
            top = errors[0][0].split('.')[0].split('[')[0]
            prop = {key: p for p, key in self.body_properties.items()}.get(
                top, self.schema_property)
            problems = '; '.join('%s: %s' % error if error[0] else error[1]
                                 for error in errors)
            raise self._invalid('Invalid %s: %s' % (manifest['kind'],
                                                    problems), prop)

    # --- create -----------------------------------------------------------

    def handle_create(self):
        manifest = self.manifest(self.properties)
        self.data_set('name', manifest['metadata']['name'])
        self.data_set('namespace', manifest['metadata'].get('namespace', ''))
        wait = self._new_wait(self.properties)
        existing = self._get(manifest)
        if existing is not None:
            wait.gone_uid = self._claim(existing)
        if not wait.gone_uid:
            wait.live = self._apply(manifest)
        return wait

    def check_create_complete(self, wait):
        if wait.gone_uid:
            manifest = self.manifest(self.properties)
            if not self._gone(manifest, wait.gone_uid, wait):
                return False
            wait.gone_uid = None
            wait.live = self._apply(manifest)
        return self._check_ready(wait)

    def _claim(self, existing):
        """Decide about an object that already has our name.

        Returns the uid to wait for to disappear, or None to apply over it.
        """
        meta = existing['metadata']
        if not labels.is_owned_by(existing, self.stack.id, self.name):
            stack_id, resource_name = labels.owner_of(existing)
            owner = ('stack %s resource %s' % (stack_id, resource_name)
                     if stack_id else 'nothing managed by Heat')
            raise exception.Error(
                '%s already exists and belongs to %s; Heat does not take '
                'over objects it did not create (choose another name, or '
                'adopt it explicitly)' % (self.describe(), owner))
        if meta.get('deletionTimestamp'):
            return meta['uid']
        if (meta.get('annotations') or {}).get(RESOURCE_UUID) == self.uuid:
            LOG.info('%s: taking over %s left by an interrupted create',
                     self.name, self.describe())
            return None
        # A previous incarnation of this resource (replacement keeping a
        # fixed name): it must go before the new object can be created.
        LOG.info('%s: deleting previous %s to replace it', self.name,
                 self.describe())
        self._kube().delete(self.api_version(self.properties),
                            self.kind_of(self.properties), meta['name'],
                            meta.get('namespace'), uid=meta['uid'])
        return meta['uid']

    # --- update -----------------------------------------------------------

    def needs_replace_with_prop_diff(self, changed_properties_set,
                                     after_props, before_props):
        paths = immutable.replacement_paths(
            self.kind_of(after_props),
            self.comparable_manifest(before_props),
            self.comparable_manifest(after_props))
        if paths:
            LOG.info('%s: replacing, immutable fields changed: %s',
                     self.name, ', '.join(paths))
        return bool(paths)

    def needs_replace_failed(self):
        """Replace a FAILED resource unless its object turned out ready.

        When heat-engine dies in the middle of a create, the next stack
        update marks the resource FAILED ("Worker went down during
        resource CREATE") and, by default, replaces it. If the object this
        resource made exists (same uid) and is ready by now, it is kept, as
        OS::Nova::Server keeps an ACTIVE server: Heat then marks the
        resource COMPLETE, or updates it in place when properties changed.
        A failed or still unready object is replaced as before (a failed
        Job runs again).
        """
        if self.resource_id is None or self.external_id:
            return True
        try:
            obj = self._get(self.manifest(self.properties, owned=False,
                                          content=False))
            if obj is None or obj['metadata'].get('uid') != self.resource_id:
                return True
            if not self.properties[WAIT]:
                return False
            verdict = self.verdict(self._kube(), obj, self.properties)
        except Exception as exc:
            LOG.info('%s: replacing the failed resource, its object could '
                     'not be checked: %s', self.name, exc)
            return True
        if verdict.state != readiness.READY:
            return True
        LOG.info('%s: keeping %s, ready although the resource is %s',
                 self.name, self.describe(), self.state)
        return False

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        props = json_snippet.properties(self.properties_schema, self.context)
        wait = self._new_wait(props)
        if not set(prop_diff) - {WAIT, TIMEOUT}:
            return wait
        manifest = self.manifest(props)
        try:
            wait.live = self._apply(manifest)
        except kube_mod.ApiError as exc:
            if exc.status == 422 and immutable.is_immutable_error(
                    exc.status_body):
                LOG.info('%s: replacing, the API refused an in-place '
                         'update: %s', self.name, exc)
                raise resource.UpdateReplace(self.name)
            raise
        return wait

    def check_update_complete(self, wait):
        return self._check_ready(wait)

    def prepare_for_replace(self):
        # A fixed name cannot be held by the old and the new object at
        # once: the old one goes first (as OS::Nova::KeyPair does).
        if self.resource_id is None or not self.fixed_name(self.properties):
            return
        with self.client_plugin().ignore_not_found:
            self._delete(self.properties)

    def restore_prev_rsrc(self, convergence=False):
        # Rolling back a fixed-name replacement: recreate the old object
        # that prepare_for_replace deleted, if nothing holds the name.
        if self.resource_id is None or not self.fixed_name(self.properties):
            return
        manifest = self.manifest(self.properties)
        if self._get(manifest) is None:
            self._apply(manifest)

    # --- delete -----------------------------------------------------------

    def handle_delete(self):
        if self.resource_id is None and not self._recover_unrecorded():
            return None
        wait = self._new_wait(self.properties)
        return wait if self._delete(self.properties) else None

    def _recover_unrecorded(self):
        """Record the object of a create that died before recording it.

        An engine killed between the API accepting an object and
        resource_id_set() leaves an object Heat has no id for. It carries
        this resource's UUID annotation: when one is found under the name
        the create chose, its uid becomes the resource id, so that a
        delete (or the cleanup of a replaced resource) removes it. Returns
        True when one was found.
        """
        if self.external_id or not self.data().get('name'):
            return False  # never written, or not ours to delete
        try:
            obj = self._get(self.manifest(self.properties, owned=False,
                                          content=False))
        except kube_mod.ApiError as exc:
            # Not even readable (e.g. forbidden): nothing was created.
            LOG.info('%s: no unrecorded object to delete: %s', self.name,
                     exc)
            return False
        meta = (obj or {}).get('metadata') or {}
        if (meta.get('annotations') or {}).get(RESOURCE_UUID) != self.uuid:
            return False
        LOG.info('%s: deleting %s, created by an interrupted create',
                 self.name, self.describe())
        self.resource_id_set(meta['uid'])
        return True

    def check_delete_complete(self, wait):
        if not wait:
            return True
        return self._gone(self.manifest(self.properties, owned=False,
                                        content=False),
                          self.resource_id, wait)

    def _delete(self, props):
        meta = self.manifest(props, owned=False, content=False)
        try:
            return self._kube(props).delete(
                meta['apiVersion'], meta['kind'], meta['metadata']['name'],
                meta['metadata'].get('namespace'), uid=self.resource_id)
        except kube_mod.ApiError as exc:
            raise exception.Error('Deleting %s failed: %s' % (
                self.describe(props), exc))

    # --- check, suspend, resume -------------------------------------------

    def handle_check(self):
        manifest = self.manifest(self.properties, owned=False, content=False)
        obj = self._get(manifest)
        if obj is None:
            raise exception.Error('%s does not exist' % self.describe())
        verdict = self.verdict(self._kube(), obj, self.properties)
        if verdict.state != readiness.READY:
            raise exception.Error('%s is not ready: %s' % (
                self.describe(), readiness.explain(
                    verdict, self._events(obj))))

    def handle_suspend(self):
        if self.suspend_strategy is None or self.resource_id is None:
            return None
        manifest = self.manifest(self.properties)
        spec = manifest.setdefault('spec', {})
        if self.suspend_strategy == SCALE:
            live = self._get(manifest) or {}
            replicas = (live.get('spec') or {}).get('replicas')
            if replicas:
                self.data_set('suspended_replicas', str(replicas))
            spec['replicas'] = 0
            self._apply(manifest)
            return self._new_wait(self.properties)
        # A suspended Job or CronJob is never "ready": nothing to wait for.
        spec['suspend'] = True
        self._apply(manifest)
        return None

    def check_suspend_complete(self, wait):
        return wait is None or self._check_ready(wait)

    def handle_resume(self):
        if self.suspend_strategy is None or self.resource_id is None:
            return None
        manifest = self.manifest(self.properties)
        spec = manifest.setdefault('spec', {})
        if self.suspend_strategy == SCALE:
            previous = self.data().get('suspended_replicas')
            if spec.get('replicas') is None and previous:
                spec['replicas'] = int(previous)
        elif spec.get('suspend') is None:
            spec['suspend'] = False
        self._apply(manifest)
        self.data_delete('suspended_replicas')
        return self._new_wait(self.properties)

    def check_resume_complete(self, wait):
        return wait is None or self._check_ready(wait)

    # --- adopt, abandon, observe ------------------------------------------

    def handle_adopt(self, resource_data=None):
        """Adopt by name: an external_id, or `stack adopt` data.

        An object of another stack is adopted only when the adopt data
        names its uid (it was handed over by `stack abandon`).
        """
        resource_data = resource_data or {}
        saved = resource_data.get('resource_data') or {}
        given_id = resource_data.get('resource_id')
        if saved.get('name'):
            self.data_set('name', saved['name'])
            self.data_set('namespace', saved.get('namespace', ''))
        manifest = self.manifest(self.properties)
        obj = self._get(manifest)
        if obj is None:
            raise exception.Error('Cannot adopt %s: it does not exist' %
                                  self.describe())
        self.data_set('name', obj['metadata']['name'])
        self.data_set('namespace', obj['metadata'].get('namespace') or '')
        if self.external_id:
            # External objects are only observed, never written or deleted.
            self.resource_id_set(obj['metadata']['uid'])
            return
        stack_id, _resource_name = labels.owner_of(obj)
        if stack_id is not None and given_id != obj['metadata']['uid'] and (
                not labels.is_owned_by(obj, self.stack.id, self.name)):
            raise exception.Error('Cannot adopt %s: it belongs to stack %s'
                                  % (self.describe(), stack_id))
        self._apply(manifest)

    def prepare_abandon(self):
        data = super().prepare_abandon()
        # Drop the ownership labels, so the object can be adopted elsewhere.
        if self.resource_id is not None:
            try:
                self._apply(self.manifest(self.properties, owned=False))
            except Exception as exc:
                LOG.warning('%s: could not release %s on abandon: %s',
                            self.name, self.describe(), exc)
        return data

    def _show_resource(self):
        obj = self._get(self.manifest(self.properties, owned=False,
                                      content=False))
        if obj is None:
            return None
        obj = redaction.manifest(obj)
        obj.get('metadata', {}).pop('managedFields', None)
        return obj

    def get_live_resource_data(self):
        obj = self._get(self.manifest(self.properties, owned=False,
                                      content=False))
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

    def get_reference_id(self):
        return self.data().get('name') or super().get_reference_id()

    def _resolve_attribute(self, name):
        attr = self.extra_attributes.get(name) or COMMON_ATTRIBUTES.get(name)
        if attr is None or self.resource_id is None:
            return None
        if attr.source == 'data':
            return attr.get(self.data())
        obj = self._get(self.manifest(self.properties, owned=False,
                                      content=False))
        return None if obj is None else attr.get(obj)

    # --- the API ----------------------------------------------------------

    def _get(self, manifest):
        meta = manifest['metadata']
        return self._kube().get(manifest['apiVersion'], manifest['kind'],
                                meta['name'], meta.get('namespace'))

    def _apply(self, manifest):
        self._check_writable(manifest)
        obj = self._kube().apply(manifest)
        self.resource_id_set(obj['metadata']['uid'])
        if self.checksum_keys:
            first, second = self.checksum_keys
            self.data_set('checksum', self.content_checksum(
                manifest.get(first), manifest.get(second)))
        return obj

    content_checksum = staticmethod(checksum.content)

    def _events(self, obj):
        try:
            return self._kube().events_for(obj)
        except kube_mod.ApiError as exc:
            LOG.info('%s: events unavailable: %s', self.name, exc)
            return []

    # --- waiting (heat_k8s.waiting decides; Heat's types at this edge) ---

    def _new_wait(self, props):
        try:
            seconds = self.stack.time_remaining() - STOP_MARGIN
        except TypeError:  # stack times not stored yet
            seconds = self.stack.timeout_secs() - STOP_MARGIN
        if props[TIMEOUT]:
            seconds = min(seconds, props[TIMEOUT])
        # props: during an update self.properties are still the old ones.
        return awaiter.Wait.start(seconds, timeout=props[TIMEOUT],
                                  wait=props[WAIT], props=props)

    def verdict(self, kube, obj, props, explain=True):
        """Readiness of a live object (generic resources add wait_for).

        Objects that only explain a verdict (a workload's pods) are fetched
        for a failure, or when explain is true for a verdict not READY.
        """
        kind = obj['kind']
        deciding = kinds.declared(kind).decides
        result = readiness.evaluate(obj, kube.related(obj, deciding))
        explaining = kinds.declared(kind).explains
        if explaining and (result.state == readiness.FAILED or (
                explain and result.state != readiness.READY)):
            result = readiness.evaluate(
                obj, kube.related(obj, deciding | explaining))
        return result

    def _check_ready(self, wait):
        manifest = self.manifest(wait.props, owned=False, content=False)
        return self._answer(self._awaiter(manifest, wait.props).ready, wait)

    def _gone(self, manifest, uid, wait):
        """True once the incarnation uid of the object no longer exists."""
        return self._answer(self._awaiter(manifest, self.properties).gone,
                            wait, uid)

    def _awaiter(self, manifest, props):
        deciding = kinds.declared(manifest['kind']).decides

        def judge(obj, explain):
            return self.verdict(self._kube(), obj, props, explain=explain)

        def watch(obj, seconds):
            return self._kube().watch(obj, seconds)

        # Not watched when other objects decide (a Service's endpoints):
        # its own watch would not show them.
        return awaiter.Awaiter(
            read=lambda: self._get(manifest), judge=judge,
            events=self._events, describe=self.describe,
            watch_seconds=CONF.kubernetes.watch_seconds,
            poll_interval_max=CONF.kubernetes.poll_interval_max,
            watch=None if deciding else watch, name=self.name)

    @staticmethod
    def _answer(check, *args):
        """A check's answer in Heat's terms: True when the wait is over,
        PollDelay to poll again, exception.Error when it failed."""
        try:
            answer = check(*args)
        except awaiter.Failed as exc:
            raise exception.Error(str(exc)) from None
        if isinstance(answer, awaiter.PollAgain):
            raise resource.PollDelay(answer.seconds)
        return True


def attributes_schema(extra=None):
    """Heat attributes schema: the common attributes plus a kind's own."""
    table = dict(COMMON_ATTRIBUTES, **(extra or {}))
    return {name: attributes.Schema(attr.description, type=attr.type)
            for name, attr in table.items()}


class ScaledWorkload(KubernetesResource):
    """Base of workloads with spec.replicas: suspend scales them to zero."""

    body_properties = {'spec': 'spec'}
    suspend_strategy = SCALE
    extra_attributes = {'ready_replicas': READY_REPLICAS}
    properties_schema = dict(common_properties(), spec=spec_property())
    attributes_schema = attributes_schema(extra_attributes)
