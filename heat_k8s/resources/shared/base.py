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

"""The Heat lifecycle of every OS::Kubernetes::* resource, in one place.

A type's module declares data (kind, body properties, attributes) and
now and then overrides a hook of KubernetesResource (what its object is,
its manifest, its readiness verdict, its body's checks, its checksum);
what Kubernetes says about the kind is its declaration in
heat_k8s.kinds. KubernetesBase is what every type is to Heat (its client,
its offline checks however Heat validates, fingerprints in place of
secret values, its waits); KubernetesResource adds one object: what it
is, its manifest, its readiness and its checks, then Heat's handlers in
lifecycle order (create, update, delete, check, suspend, resume, adopt,
abandon, show).

A resource holds two collaborators, made on each use, with a small
interface each:

``self.object`` (shared.handle.ObjectHandle)
  the object in its cluster: locator(props), get(manifest), apply(manifest),
  check_writable(manifest), delete(props), events(obj), pods(manifest),
  redacted(text, manifest).
``self.waits`` (shared.waits.Waits)
  the edge to heat_k8s.waiting, in Heat's terms: start(props), ready(wait),
  gone(manifest, uid, wait), awaiter(manifest, props), answer(check),
  show_progress(text).

and calls functions: shared.checks (the offline checks of one object),
shared.literal (the values known at `template validate`),
shared.sensitive (fingerprints), the kinds' pure rules. They read the
type's declarations and hooks and never call a handler. Objects are
written with server-side apply of the whole desired manifest, so every
write states all fields Heat owns.
"""

import copy

from heat.common import exception
from heat.common import short_id
from heat.engine import resource
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s import kinds
from heat_k8s.client import clientplugin as client
from heat_k8s.client import kube as kube_mod
from heat_k8s.kinds import drift
from heat_k8s.kinds import immutable
from heat_k8s.kinds import labels
from heat_k8s.kinds import naming
from heat_k8s.kinds import projection
from heat_k8s.kinds import readiness
from heat_k8s.kinds import redaction
from heat_k8s.rendering import checksum
from heat_k8s.resources.shared import checks
from heat_k8s.resources.shared import common
from heat_k8s.resources.shared import handle
from heat_k8s.resources.shared import literal
from heat_k8s.resources.shared import sensitive
from heat_k8s.resources.shared import templated
from heat_k8s.resources.shared import waits

LOG = logging.getLogger(__name__)
CONF = cfg.CONF
NAME, NAMESPACE, LABELS, ANNOTATIONS, CLUSTER, WAIT, TIMEOUT = (
    common.NAME, common.NAMESPACE, common.LABELS, common.ANNOTATIONS,
    common.CLUSTER, common.WAIT, common.TIMEOUT)

# Suspend strategies
SCALE, SUSPEND_FIELD = kinds.SCALE, kinds.SUSPEND_FIELD


class KubernetesBase(resource.Resource):
    """What every OS::Kubernetes::* type is to Heat, of one object
    (KubernetesResource) or many (Objects): the client it uses, offline
    checks however Heat validates, secret values stored as fingerprints,
    and its waits."""

    default_client_name = client.CLIENT_NAME
    sensitive_properties = ()   # stored as fingerprints, never observed

    @classmethod
    def is_service_available(cls, context):
        # No catalog endpoint needed when the operator configures one.
        if not client.KubernetesClientPlugin.uses_catalog():
            return True, None
        return super().is_service_available(context)

    @property
    def waits(self):
        """Its waits (shared.waits.Waits): start(props), ready(wait),
        gone(manifest, uid, wait), show_progress(text), in Heat's terms."""
        return waits.Waits(self)

    def _kube(self, props=None):
        """The client of the cluster the properties name."""
        props = props if props is not None else self.properties
        return self.client_plugin().kube(props[CLUSTER])

    # --- validate: offline checks however Heat validates (shared.literal) -

    def validate(self):
        result = super().validate()
        sensitive.refuse_unkeyed(self)
        if self.stack.strict_validate:
            self.validate_properties(self.properties)
        return result

    def validate_template(self):
        result = super().validate_template()
        if literal.checks_template(self.stack):
            self.validate_properties(literal.known_properties(self))
        return result

    def validate_properties(self, props):
        """Offline checks of these properties; StackValidationFailed
        (self._invalid) names what is wrong."""

    def _invalid(self, message, prop=None):
        path = [self.stack.t.RESOURCES, self.name]
        if prop is not None:
            path += [self.stack.t.get_section_name('Properties'), prop]
        return exception.StackValidationFailed(message=message, path=path)

    def _validate_cluster(self, props):
        """Refuse a cluster the operator does not let templates name."""
        refusal = client.cluster_refusal(props[CLUSTER])
        if refusal is not None:
            raise self._invalid(refusal, CLUSTER)

    # --- stored and shown: secret values as fingerprints (shared.sensitive)

    def preview(self):
        # `stack create --dry-run` shows resolved properties: a copy whose
        # secret values are fingerprints stands in for this resource.
        return sensitive.preview(self)

    def _update_stored_properties(self):
        # Heat stores resolved properties and shows them in events; secret
        # values are replaced by fingerprints before they are stored.
        super()._update_stored_properties()
        if self._stored_properties_data:
            sensitive.fingerprint_values(self, self._stored_properties_data)


class KubernetesResource(KubernetesBase):
    """Base of OS::Kubernetes::* resources of one object."""

    # --- what a kind module declares ---
    kind = None                 # e.g. 'Deployment'
    body_properties = {}        # property name -> top-level manifest key
    extra_attributes = {}       # attribute name -> Attr
    suspend_strategy = None     # SCALE, SUSPEND_FIELD or None
    # sensitive_properties: KubernetesBase's (stored as fingerprints)
    checksum_keys = None        # (data key, second key) summed as 'checksum'
    rendered_key = None         # manifest key of files rendered (templated)
    literal_properties = ()     # properties whose keys a file may not reuse
    schema_property = None      # property blamed for other schema errors

    entity = None
    # A check that found drift keeps the object: update re-applies it.
    always_replace_on_check_failed = False

    @property
    def object(self):
        """Its object in the cluster (shared.handle.ObjectHandle):
        locator(props), get(manifest), apply(manifest),
        check_writable(manifest), delete(props), events(obj),
        pods(manifest), redacted(text, manifest)."""
        return handle.ObjectHandle(self)

    # --- what the object is (a kind module may override these) ----------

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

    # --- its desired manifest ---------------------------------------------

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
        if self.rendered_key is None:
            return {}
        return templated.rendered_body(self, props, comparable)

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

    def content_checksum(self, data, binary_data):
        """The 'checksum' of the content (checksum_keys), for pod
        template annotations."""
        return checksum.content(data, binary_data)

    # --- its readiness ----------------------------------------------------

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

    # --- its offline checks (shared.checks; KubernetesBase runs them) ------

    def validate_properties(self, props):
        checks.properties(self, props)

    def validate_body(self, props):
        """Check the manifest against the kind's OpenAPI schema and the
        API server's offline value rules (labels, keys, ranges); a kind
        adds its own checks."""
        checks.body(self, props)
        if self.rendered_key is not None:
            templated.validate(self, props)

    # --- create -----------------------------------------------------------

    def handle_create(self):
        manifest = self.manifest(self.properties)
        self._record_name(manifest['metadata'])
        wait = self.waits.start(self.properties)
        try:
            wait.live = self.object.apply(kube_mod.create_only(manifest))
            return wait
        except kube_mod.ApiError as exc:
            if exc.status != 409:
                raise
        # The name is taken: what holds it decides (self._claim).
        existing = self.object.get(manifest)
        if existing is not None:
            wait.gone_uid = self._claim(existing)
        if not wait.gone_uid:
            wait.live = self.object.apply(manifest)
        return wait

    def check_create_complete(self, wait):
        if wait.gone_uid:
            manifest = self.manifest(self.properties)
            if not self.waits.gone(manifest, wait.gone_uid, wait):
                return False
            wait.gone_uid = None
            wait.live = self.object.apply(manifest)
        return self.waits.ready(wait)

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
        if labels.resource_uuid(existing) == self.uuid:
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
        paths = kinds.replacement_paths(
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
        Job runs again). An object the dead engine made but never recorded
        is recorded first (_recover_unrecorded), so that it is kept, or
        deleted with the replaced resource, rather than left behind.
        """
        if self.external_id:
            return True
        try:
            if self.resource_id is None and not self._recover_unrecorded():
                return True
            obj = self.object.get()
            if obj is None or obj['metadata'].get('uid') != self.resource_id:
                return True
            if self.action == self.CHECK and self.drift(
                    obj, self.manifest(self.applied_properties())):
                return False  # handle_update converges it
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

    def _needs_update(self, after, before, after_props, before_props,
                      prev_resource, check_init_complete=True):
        # A failed check kept by needs_replace_failed() is updated even
        # with an unchanged template: handle_update re-applies a drift.
        return super()._needs_update(
            after, before, after_props, before_props, prev_resource,
            check_init_complete) or self.state == (self.CHECK, self.FAILED)

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        props = json_snippet.properties(self.properties_schema, self.context)
        wait = self.waits.start(props)
        manifest = self.manifest(props)
        if not set(prop_diff) - {WAIT, TIMEOUT}:
            live = self.object.get(manifest)
            if live is None or not self.drift(live, manifest):
                return wait
            LOG.info('%s: re-applying %s, changed outside Heat', self.name,
                     self.describe())
        try:
            wait.live = self.object.apply(manifest)
        except kube_mod.ApiError as exc:
            if exc.status == 422 and immutable.is_immutable_error(
                    exc.status_body):
                LOG.info('%s: replacing, the API refused an in-place '
                         'update: %s', self.name, exc)
                raise resource.UpdateReplace(self.name)
            raise
        return wait

    def check_update_complete(self, wait):
        return self.waits.ready(wait)

    def prepare_for_replace(self):
        # A fixed name cannot be held by the old and the new object at
        # once: the old one goes first (as OS::Nova::KeyPair does).
        if self.resource_id is None or not self.fixed_name(self.properties):
            return
        with self.client_plugin().ignore_not_found:
            self.object.delete(self.properties)

    def restore_prev_rsrc(self, convergence=False):
        # Rolling back a fixed-name replacement: recreate the old object
        # that prepare_for_replace deleted, if nothing holds the name.
        if self.resource_id is None or not self.fixed_name(self.properties):
            return
        manifest = self.manifest(self.properties)
        if self.object.get(manifest) is None:
            self.object.apply(manifest)

    # --- delete -----------------------------------------------------------

    def handle_delete(self):
        if self.resource_id is None and not self._recover_unrecorded():
            return None
        wait = self.waits.start(self.properties)
        return wait if self.object.delete(self.properties) else None

    def _recover_unrecorded(self):
        """Record the object of a create that died before recording it.

        An engine killed between the API accepting an object and
        resource_id_set() leaves an object Heat has no id for. It carries
        this resource's UUID annotation: when one is found under the name
        the create chose, its uid becomes the resource id, so that a
        delete (or the cleanup of a replaced resource) removes it and the
        next update of the failed resource sees it. Returns True when one
        was found.
        """
        if self.external_id or not self.data().get('name'):
            return False  # never written, or not ours to delete
        try:
            obj = self.object.get()
        except kube_mod.ApiError as exc:
            # Not even readable (e.g. forbidden): nothing was created.
            LOG.info('%s: no unrecorded object to delete: %s', self.name,
                     exc)
            return False
        if labels.resource_uuid(obj or {}) != self.uuid:
            return False
        meta = obj['metadata']
        LOG.info('%s: recording %s, created by an interrupted create',
                 self.name, self.describe())
        self.resource_id_set(meta['uid'])
        return True

    def check_delete_complete(self, wait):
        if not wait:
            return True
        return self.waits.gone(self.object.locator(), self.resource_id,
                               wait)

    # --- check, suspend, resume -------------------------------------------

    def handle_check(self):
        manifest = self.object.locator()
        obj = self.object.get(manifest)
        if obj is None:
            raise exception.Error('%s does not exist' % self.describe())
        self.check_drift(obj)
        verdict = self.verdict(self._kube(), obj, self.properties)
        if verdict.state != readiness.READY:
            why = readiness.explain(verdict, self.object.events(obj))
            raise exception.Error(self.object.redacted(
                '%s is not ready: %s' % (self.describe(), why), manifest))

    def handle_suspend(self):
        manifest, spec = self._suspend_target()
        if manifest is None:
            return None
        if self.suspend_strategy == SCALE:
            live = self.object.get(manifest) or {}
            replicas = (live.get('spec') or {}).get('replicas')
            if replicas:
                self.data_set('suspended_replicas', str(replicas))
            spec['replicas'] = 0
            self.object.apply(manifest)
            return self.waits.start(self.properties)
        # A suspended Job or CronJob is never "ready": nothing to wait for.
        spec['suspend'] = True
        self.object.apply(manifest)
        return None

    def check_suspend_complete(self, wait):
        return wait is None or self.waits.ready(wait)

    def handle_resume(self):
        manifest, spec = self._suspend_target()
        if manifest is None:
            return None
        if self.suspend_strategy == SCALE:
            previous = self.data().get('suspended_replicas')
            if spec.get('replicas') is None and previous:
                spec['replicas'] = int(previous)
        elif spec.get('suspend') is None:
            spec['suspend'] = False
        self.object.apply(manifest)
        self.data_delete('suspended_replicas')
        return self.waits.start(self.properties)

    def check_resume_complete(self, wait):
        return wait is None or self.waits.ready(wait)

    def _suspend_target(self):
        """(desired manifest, its spec) to suspend or resume with, or
        (None, None) when the kind has no strategy or nothing was made."""
        if self.suspend_strategy is None or self.resource_id is None:
            return None, None
        manifest = self.manifest(self.properties)
        return manifest, manifest.setdefault('spec', {})

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

    def drift(self, obj, manifest):
        """The fields of obj that left manifest (heat_k8s.kinds.drift)."""
        return drift.findings(manifest, obj, CONF.kubernetes.field_manager)

    def applied_properties(self):
        """The properties Heat applies: stored properties hold
        fingerprints in place of secret values, so those resolve from
        the template again."""
        if not self.sensitive_properties:
            return self.properties
        return self.t.properties(self.properties_schema, self.context)

    # --- adopt, abandon ----------------------------------------------------

    def handle_adopt(self, resource_data=None):
        """Adopt by name: an external_id, or `stack adopt` data.

        An object of another stack is adopted only when the adopt data
        names its uid (it was handed over by `stack abandon`).
        """
        resource_data = resource_data or {}
        saved = resource_data.get('resource_data') or {}
        given_id = resource_data.get('resource_id')
        if saved.get('name'):
            self._record_name(saved)
        manifest = self.manifest(self.properties)
        obj = self.object.get(manifest)
        if obj is None:
            raise exception.Error('Cannot adopt %s: it does not exist' %
                                  self.describe())
        self._record_name(obj['metadata'])
        if self.external_id:
            # External objects are only observed, never written or deleted.
            self.resource_id_set(obj['metadata']['uid'])
            return
        stack_id, _resource_name = labels.owner_of(obj)
        if stack_id is not None and given_id != obj['metadata']['uid'] and (
                not labels.is_owned_by(obj, self.stack.id, self.name)):
            raise exception.Error('Cannot adopt %s: it belongs to stack %s'
                                  % (self.describe(), stack_id))
        self.object.apply(manifest)

    def delete(self):
        # Abandon retains the object: drop its ownership labels, so that
        # another stack can adopt it. Not in prepare_abandon(): `stack
        # export` calls that too, and must change nothing.
        if self.abandon_in_progress and self.resource_id is not None:
            props = self.frozen_definition().properties(
                self.properties_schema, self.context)
            try:
                self.object.apply(self.manifest(props, owned=False))
            except Exception as exc:
                LOG.warning('%s: could not release %s on abandon: %s',
                            self.name, self.describe(), exc)
        return (yield from super().delete())

    # --- show, attributes, observe reality --------------------------------

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

    # --- helpers ----------------------------------------------------------

    def _record_name(self, named):
        """Keep the object's name and namespace (from metadata, or saved
        resource data): later reads, the delete and the reference id
        find it by them, whatever the properties resolve to then."""
        self.data_set('name', named['name'])
        self.data_set('namespace', named.get('namespace') or '')


class ScaledWorkload(KubernetesResource):
    """Base of workloads with spec.replicas: suspend scales them to zero."""

    body_properties = {'spec': 'spec'}
    suspend_strategy = SCALE
    extra_attributes = {'ready_replicas': common.READY_REPLICAS}
    properties_schema = dict(common.common_properties(),
                             spec=common.spec_property())
    attributes_schema = common.attributes_schema(extra_attributes)


def _merge_rendered(manifest, rendered):
    for key, entries in rendered.items():
        manifest[key] = dict(manifest.get(key) or {}, **entries)
