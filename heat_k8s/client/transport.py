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

"""Sending a request through either generation of the Kubernetes client.

The supported series pin kubernetes 32 to 37. From 37 the library is made
by the newer openapi-generator: ``ApiClient.param_serialize`` builds a
request, ``call_api(method, url, ...)`` sends it and answers every status
with a response read on demand. Before 37, ``call_api`` takes a resource
path, keeps the last response on the shared client, and its rest layer
raises ApiException for a non-2xx answer and logs every preloaded response
body at DEBUG (a Secret's data in heat-engine's log). What the ApiClient
offers decides the path; both answer with a :class:`Response`-shaped
object and never preload, so no body is logged.
"""

import atexit
import hashlib
import inspect
import math
import os
import tempfile
import urllib.parse

from kubernetes import client as k8s_client
from kubernetes.client import exceptions as k8s_exceptions


def for_api(api):
    """The transport of an ApiClient: its own, or the older one's adapter."""
    if hasattr(api, 'param_serialize'):
        return Generated(api)
    return Legacy(api)


class Generated:
    """kubernetes >= 37: the ApiClient builds and sends the request."""

    def __init__(self, api):
        self.api = api

    def prepare(self, method, path, query, headers, body, auth_settings):
        """(method, url, headers, body) as they will be sent."""
        method, url, headers, body, _ = self.api.param_serialize(
            method, path, query_params=query, header_params=headers,
            body=body, auth_settings=auth_settings)
        return method, url, headers, body

    def send(self, method, url, headers, body, timeout):
        """The response, whatever its status (never preloaded)."""
        return self.api.call_api(method, url, headers, body,
                                 _request_timeout=timeout)


class Legacy:
    """kubernetes < 37: the request built as param_serialize builds it,
    sent straight through the rest layer (not call_api, which keeps each
    response on the client every caller shares)."""

    def __init__(self, api):
        self.api = api

    def prepare(self, method, path, query, headers, body, auth_settings):
        api = self.api
        headers = dict(headers)
        headers.update(api.default_headers)
        if api.cookie:
            headers['Cookie'] = api.cookie
        query = list(query)
        api.update_params_for_auth(headers, query, auth_settings)
        if body:
            body = api.sanitize_for_serialization(body)
        url = api.configuration.host + path
        if query:
            url += '?' + urllib.parse.urlencode(query)
        return method, url, headers, body

    def send(self, method, url, headers, body, timeout):
        if isinstance(timeout, float):
            # This rest layer drops a float total timeout, and waits forever.
            timeout = math.ceil(timeout)
        try:
            raw = self.api.rest_client.request(
                method, url, headers=headers, body=body,
                _preload_content=False, _request_timeout=timeout)
        except k8s_exceptions.ApiException as exc:
            if not exc.status:
                raise  # no answer (a TLS failure): the caller's unreachable
            # A non-2xx answer, its body read into the exception.
            return Response(exc.status, exc.reason, data=exc.body or b'')
        return Response(raw.status, raw.reason, raw)


class Response:
    """An answer as the newer RESTResponse shows it: status, reason,
    read() (the body, read once), and the urllib3 response to stream."""

    def __init__(self, status, reason, response=None, data=None):
        self.status = status
        self.reason = reason
        self.response = response
        self.data = data

    def read(self):
        if self.data is None:
            self.data = self.response.data
        return self.data


# -- TLS -------------------------------------------------------------------

_CA_DATA = 'ca_cert_data' in inspect.signature(
    k8s_client.Configuration.__init__).parameters
_ca_files = {}


def set_ca_data(configuration, pem):
    """Verify the API server with this CA bundle (PEM text), if any.

    Clients before 37 take a CA file only: the bundle is written to one
    for the process (a CA certificate is public).
    """
    configuration.ca_cert_data = pem
    if pem and not _CA_DATA:
        configuration.ssl_ca_cert = _ca_file(pem)


def _ca_file(pem):
    data = pem.encode() if isinstance(pem, str) else pem
    digest = hashlib.sha256(data).hexdigest()
    path = _ca_files.get(digest)
    if path is None or not os.path.exists(path):
        fd, path = tempfile.mkstemp(prefix='heat-k8s-ca-', suffix='.pem')
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
        atexit.register(_remove, path)
        _ca_files[digest] = path
    return path


def _remove(path):
    try:
        os.unlink(path)
    except OSError:
        pass
