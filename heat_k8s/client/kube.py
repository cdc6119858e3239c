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

"""A thin REST layer over the Kubernetes API, speaking plain dicts.

Every object goes in and comes out as the JSON the API defines, so the
pure modules (readiness, immutable, labels, ...) work on what the API
returns. Errors carry the API's own Status message with field paths, and
never Secret values.
"""

import json
import threading

from kubernetes.client import exceptions as k8s_exceptions
from oslo_log import log as logging
from urllib3 import exceptions as urllib3_exceptions

from heat_k8s import kinds
from heat_k8s.client import apierrors
from heat_k8s.client import transport
from heat_k8s.client import watches
from heat_k8s.kinds import redaction

LOG = logging.getLogger(__name__)

APPLY_PATCH = 'application/apply-patch+yaml'
SERVICE_NAME_LABEL = watches.SERVICE_NAME_LABEL
DEFAULT_CLASS_ANNOTATION = 'storageclass.kubernetes.io/is-default-class'

# A resourceVersion no object has (etcd's revisions never come near it):
# an apply carrying it creates the object, or fails if the name is taken.
UNTAKEN_VERSION = str(2 ** 63 - 1)

# (endpoint, apiVersion) -> {kind: kinds.Kind}; shared by all clients
_discovery = {}
_discovery_lock = threading.Lock()

ApiError = apierrors.ApiError  # what callers catch, raised by every verb


def label_selector(selector):
    """Label selector query string for a LabelSelector, or None if empty.

    An empty selector matches everything; callers treat None as "no
    related objects" rather than listing the whole namespace.
    """
    if not selector:
        return None
    terms = ['%s=%s' % kv for kv in sorted(
        (selector.get('matchLabels') or {}).items())]
    for expr in selector.get('matchExpressions') or []:
        key, op = expr['key'], expr['operator']
        values = ','.join(expr.get('values') or [])
        if op == 'In':
            terms.append('%s in (%s)' % (key, values))
        elif op == 'NotIn':
            terms.append('%s notin (%s)' % (key, values))
        elif op == 'Exists':
            terms.append(key)
        elif op == 'DoesNotExist':
            terms.append('!' + key)
    return ','.join(terms) or None


def create_only(manifest):
    """A copy of manifest whose server-side apply creates the object, and
    fails with 409 Conflict when an object already holds the name (the
    resourceVersion precondition, which the API ignores for a create)."""
    return dict(manifest, metadata=dict(manifest['metadata'],
                                        resourceVersion=UNTAKEN_VERSION))


class Kube(watches.Watches):
    """Requests against one API endpoint with one set of credentials."""

    def __init__(self, api_client, field_manager='heat', timeout=30,
                 token=None):
        self.api = api_client
        self.transport = transport.for_api(api_client)
        self.endpoint = api_client.configuration.host
        self.field_manager = field_manager
        self.timeout = timeout
        # () -> this caller's bearer token; None: the client's own
        # credentials (a kubeconfig).
        self.token = token

    def request(self, method, path, query=None, body=None,
                content_type='application/json', secrets=()):
        response = self._send(method, path, query, body, content_type,
                              self.timeout)
        text = self._checked_text(response, secrets)
        return json.loads(text) if text else {}

    def prepared(self, method, path, query=None, body=None,
                 content_type='application/json'):
        """(method, url, headers, body) of a request, as it will be sent."""
        headers = {'Accept': 'application/json'}
        auth_settings = ['BearerToken']
        if self.token is not None:
            # On the request, never on the client: one client (and its
            # connection pool) serves every caller of an endpoint.
            headers['authorization'] = 'Bearer ' + self.token()
            auth_settings = []
        if body is not None:
            # The client serialises dict bodies as JSON for JSON and
            # structured YAML (apply-patch+yaml) content types alike.
            headers['Content-Type'] = content_type
        return self.transport.prepare(method, path, query or [], headers,
                                      body, auth_settings)

    def _send(self, method, path, query, body=None,
              content_type='application/json', timeout=None):
        method, url, headers, body = self.prepared(method, path, query, body,
                                                   content_type)
        try:
            response = self._sent(method, url, headers, body, timeout)
        except k8s_exceptions.ApiException as exc:
            # Raised before any response, e.g. TLS failures: no body.
            raise ApiError(0, 'Unreachable',
                           'Kubernetes API %s unreachable: %s' % (
                               self.endpoint, exc.reason)) from None
        except urllib3_exceptions.HTTPError as exc:
            raise ApiError(0, 'Unreachable',
                           'Kubernetes API %s unreachable: %s' % (
                               self.endpoint, exc)) from None
        if response.status == 401 and hasattr(self.token, 'refused'):
            self.token.refused()
        return response

    def _sent(self, method, url, headers, body, timeout):
        """The transport's response, the request sent once more if its
        connection closed without an answer: a kept-alive connection the
        server let go (its idle timeout) as it was reused. urllib3 resends
        the idempotent methods itself (GET, PUT, DELETE of those used
        here), not an apply's PATCH; Go's transport resends it too."""
        try:
            return self.transport.send(method, url, headers, body, timeout)
        except urllib3_exceptions.ProtocolError as exc:
            LOG.debug('%s %s: %s; sending it again', method,
                      url.split('?')[0], exc)
            return self.transport.send(method, url, headers, body, timeout)

    @staticmethod
    def _checked_text(response, secrets=()):
        """The body of a response; ApiError with the Status if not 2xx."""
        data = response.read()
        text = data.decode('utf-8', 'replace') if data else ''
        if not 200 <= response.status <= 299:
            message, status = apierrors.status_message(response.status, text,
                                                    secrets)
            raise ApiError(response.status, response.reason, message, status)
        return text

    # -- kinds -------------------------------------------------------------

    def kind_info(self, api_version, kind):
        """kinds.Kind for apiVersion/kind; discovery only for non-built-ins.

        Raises ApiError 404 when the API does not serve the kind.
        """
        info = kinds.builtin(api_version, kind)
        if info is not None:
            return info
        key = (self.endpoint, api_version)
        with _discovery_lock:
            known = _discovery.get(key)
        if known is None or kind not in known:
            # A miss refetches: the CRD may have been created since.
            known = self._discover(api_version)
            with _discovery_lock:
                _discovery[key] = known
        if kind not in known:
            raise ApiError(404, 'NotFound',
                           'Kind %s is not served by apiVersion %s at %s' % (
                               kind, api_version, self.endpoint))
        return known[kind]

    def _discover(self, api_version):
        try:
            doc = self.request('GET', kinds.group_path(api_version))
        except ApiError as exc:
            if exc.status == 404:
                return {}
            raise
        found = {}
        for res in doc.get('resources', []):
            if '/' not in res['name']:  # skip subresources
                found[res['kind']] = kinds.Kind(res['kind'], api_version,
                                                res['name'], res['namespaced'])
        return found

    def path(self, api_version, kind, namespace=None, name=None):
        info = self.kind_info(api_version, kind)
        path = kinds.collection_path(
            api_version, info.plural, namespace if info.namespaced else None)
        return path + '/' + name if name else path

    def is_namespaced(self, api_version, kind):
        return self.kind_info(api_version, kind).namespaced

    # -- verbs -------------------------------------------------------------

    def apply(self, manifest, dry_run=False):
        """Server-side apply of a full manifest; returns the live object."""
        meta = manifest['metadata']
        path = self.path(manifest['apiVersion'], manifest['kind'],
                         meta.get('namespace'), meta['name'])
        query = [('fieldManager', self.field_manager), ('force', 'true'),
                 ('fieldValidation', 'Strict')]
        if dry_run:
            query.append(('dryRun', 'All'))
        return self.request('PATCH', path, query, manifest,
                            content_type=APPLY_PATCH,
                            secrets=redaction.secret_values(manifest))

    def get(self, api_version, kind, name, namespace=None):
        """The live object, or None if it (or its kind) does not exist."""
        try:
            return self.request('GET', self.path(api_version, kind,
                                                 namespace, name))
        except ApiError as exc:
            if exc.status == 404:
                return None
            raise

    def delete(self, api_version, kind, name, namespace=None, uid=None,
               propagation='Foreground'):
        """Delete, only the incarnation with this uid when one is given.

        Returns False when there was nothing to delete: not found, kind
        gone, or the name now belongs to another object (uid mismatch).
        """
        options = {'apiVersion': 'v1', 'kind': 'DeleteOptions',
                   'propagationPolicy': propagation}
        if uid:
            options['preconditions'] = {'uid': uid}
        try:
            self.request('DELETE', self.path(api_version, kind, namespace,
                                             name), body=options)
        except ApiError as exc:
            if exc.status == 404 or (uid and exc.status == 409):
                return False
            raise
        return True

    def list(self, api_version, kind, namespace=None, label_selector=None,
             field_selector=None):
        query = []
        if label_selector:
            query.append(('labelSelector', label_selector))
        if field_selector:
            query.append(('fieldSelector', field_selector))
        doc = self.request('GET', self.path(api_version, kind, namespace),
                           query)
        items = doc.get('items') or []
        for item in items:
            # List items carry no kind; the pure modules dispatch on it.
            item.setdefault('apiVersion', api_version)
            item.setdefault('kind', kind)
        return items

    # -- related objects ---------------------------------------------------

    def events_for(self, obj):
        """core/v1 Events about this object, oldest first."""
        meta = obj.get('metadata') or {}
        if not meta.get('uid'):
            return []
        events = self.list('v1', 'Event', meta.get('namespace'),
                           field_selector='involvedObject.uid=' + meta['uid'])

        def when(event):
            return (event.get('lastTimestamp') or event.get('eventTime') or
                    (event.get('metadata') or {}).get('creationTimestamp') or
                    '')
        return sorted(events, key=when)

    def readable_events_for(self, obj):
        """events_for, or none where the user may not list Events: they
        only explain."""
        try:
            return self.events_for(obj)
        except ApiError as exc:
            if exc.status != 403:
                raise
            return []

    def pods_for(self, obj):
        """Pods selected by a workload's spec.selector."""
        selector = label_selector((obj.get('spec') or {}).get('selector'))
        if selector is None:
            return []
        return self.list('v1', 'Pod', obj['metadata'].get('namespace'),
                         label_selector=selector)

    def endpointslices_for(self, service):
        meta = service['metadata']
        return self.list('discovery.k8s.io/v1', 'EndpointSlice',
                         meta.get('namespace'),
                         label_selector='%s=%s' % (SERVICE_NAME_LABEL,
                                                   meta['name']))

    def storageclass_for(self, pvc):
        """The StorageClass a claim binds through, or None.

        StorageClasses are cluster-scoped, and a project's users usually
        may not read them. Then the claim's own events tell what matters:
        the volume controller reports WaitForFirstConsumer on the claim.
        """
        try:
            return self._storageclass_for(pvc)
        except ApiError as exc:
            if exc.status != 403:
                raise
        name = (pvc.get('spec') or {}).get('storageClassName')
        for event in self.events_for(pvc):
            if event.get('reason') == 'WaitForFirstConsumer':
                return {'metadata': {'name': name},
                        'volumeBindingMode': 'WaitForFirstConsumer'}
        return None

    def _storageclass_for(self, pvc):
        name = (pvc.get('spec') or {}).get('storageClassName')
        if name:
            return self.get('storage.k8s.io/v1', 'StorageClass', name)
        if name == '':
            return None  # explicitly no class: static binding
        for sc in self.list('storage.k8s.io/v1', 'StorageClass'):
            annotations = sc['metadata'].get('annotations') or {}
            if annotations.get(DEFAULT_CLASS_ANNOTATION) == 'true':
                return sc
        return None

    RELATED = {
        'pods': pods_for,
        'endpointslices': endpointslices_for,
        'storageclass': storageclass_for,
        'events': readable_events_for,
    }

    def related(self, obj, names):
        """{name: fetched objects} for the related objects a kind declares."""
        result = {}
        for name in sorted(names):
            fetch = self.RELATED.get(name)
            if fetch is None:
                LOG.warning('No fetcher for related objects %r', name)
                continue
            result[name] = fetch(self, obj)
        return result
