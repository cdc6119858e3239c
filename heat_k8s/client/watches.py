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

"""Watching objects as they change, for the waits of heat_k8s.waiting.

A mixin of kube.Kube: one watch request, from a resourceVersion, on an
object or on what decides its readiness (a Service's EndpointSlices),
ended by the API server after a few seconds; a watch that cannot go on
ends quietly and the caller reads the object again.
"""

from kubernetes import watch as k8s_watch
from kubernetes.client import exceptions as k8s_exceptions
from oslo_log import log as logging
from urllib3 import exceptions as urllib3_exceptions

from heat_k8s import kinds
from heat_k8s.client import apierrors

LOG = logging.getLogger(__name__)

SERVICE_NAME_LABEL = 'kubernetes.io/service-name'


class _Watch(k8s_watch.Watch):
    """The library's watch, skipping a line that is not JSON."""

    def unmarshal_event(self, data, return_type):
        try:
            return super().unmarshal_event(data, return_type)
        except ValueError:
            return None  # as kubernetes >= 33 does; 32 raises


class Watches:
    """Watches through Kube's requests (_send, path, get, _checked_text)."""

    def watch(self, obj, seconds):
        """Yield `obj` each time it changes, for at most `seconds`.

        One watch request on this object, from its resourceVersion: the
        API server sends each change as it happens and ends the watch
        after timeoutSeconds. Yields None when the object is deleted, then
        stops. Stops quietly when the watch cannot go on (a version too
        old to watch from, a dropped connection): the caller reads the
        object again. An unreachable API raises ApiError, as a read does.
        """
        meta = obj['metadata']
        for kind, item in self._changes(
                obj['apiVersion'], obj['kind'], meta.get('namespace'),
                ('fieldSelector', 'metadata.name=' + meta['name']),
                meta['resourceVersion'], seconds):
            if kind == 'DELETED':
                yield None
                return
            yield item

    def watch_endpoints(self, service, seconds):
        """Yield the Service, read anew, each time one of its EndpointSlices
        changes, for at most `seconds`; None once the Service is gone.

        A Service is ready when its endpoints are, and its own watch would
        not show them. Watched from the Service's resourceVersion, which
        orders every object's changes alike: no change is missed since it
        was read. Ends as watch() does.
        """
        meta = service['metadata']
        for _change in self._changes(
                'discovery.k8s.io/v1', 'EndpointSlice', meta.get('namespace'),
                ('labelSelector', '%s=%s' % (SERVICE_NAME_LABEL,
                                             meta['name'])),
                meta['resourceVersion'], seconds):
            current = self.get(service['apiVersion'], service['kind'],
                               meta['name'], meta.get('namespace'))
            yield current
            if current is None:
                return

    def _changes(self, api_version, kind, namespace, selector,
                 resource_version, seconds):
        """(event type, object) of the objects a selector picks, as they
        change, from resource_version for at most `seconds`."""
        path = self.path(api_version, kind, namespace)

        def request(watch, _preload_content, resource_version,
                    timeout_seconds):
            query = [('watch', 'true'), selector,
                     ('resourceVersion', resource_version),
                     ('timeoutSeconds', str(timeout_seconds))]
            # Reads wait for the next change: allow the whole watch.
            response = self._send('GET', path, query, timeout=(
                self.timeout, seconds + self.timeout))
            if not 200 <= response.status <= 299:
                raise k8s_exceptions.ApiException(
                    status=response.status, reason=self._error_text(response))
            return response.response

        # With timeout_seconds the library neither retries nor resumes; it
        # raises ApiException on an ERROR event (e.g. 410 Expired).
        events = _Watch().stream(
            request, resource_version=resource_version,
            timeout_seconds=max(1, int(seconds)))
        try:
            for event in events:
                event_type = (event or {}).get('type')  # None: not JSON
                if event_type in ('ADDED', 'MODIFIED', 'DELETED'):
                    item = event['raw_object']
                    item.setdefault('apiVersion', api_version)
                    item.setdefault('kind', kind)
                    yield event_type, item
        except apierrors.ApiError:
            raise  # the API unreachable: retried as a failed read is
        except (k8s_exceptions.ApiException, urllib3_exceptions.HTTPError,
                OSError) as exc:
            LOG.info('Watch of %s %s ended: %s', kind, selector[1],
                     getattr(exc, 'reason', None) or exc)
        finally:
            # Releases a finished connection, closes one with unread events.
            events.close()

    def _error_text(self, response):
        try:
            self._checked_text(response)
        except apierrors.ApiError as exc:
            return str(exc)
        return ''

    def watcher_for(self, watched):
        """The method, watcher(obj, seconds), that watches what a kind
        declares it is watched through (kinds.Kind.watches)."""
        return {kinds.Watched.ITSELF: self.watch,
                kinds.Watched.ENDPOINTSLICES: self.watch_endpoints}[watched]
