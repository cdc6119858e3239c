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

"""Content checksums of ConfigMap and Secret data.

A pod template annotation holding the checksum rolls a Deployment when its
configuration changes. Equal content gives equal checksums whatever the
key order, and a Secret given through stringData sums like the same
Secret given through data, as the API server stores it. Secret content is
summed with a key (``heat_k8s.secrecy.digests``), over the same canonical
form.
"""

import base64
import hashlib
import json


def canonical(data, binary_data=None):
    """The bytes a checksum sums: the canonical JSON of data and
    binaryData."""
    return json.dumps({'data': data or {}, 'binaryData': binary_data or {}},
                      sort_keys=True, separators=(',', ':'),
                      ensure_ascii=False).encode('utf-8')


def content(data, binary_data=None):
    """sha256 hex digest of the canonical JSON of data and binaryData."""
    return hashlib.sha256(canonical(data, binary_data)).hexdigest()


def secret_data(data=None, string_data=None):
    """A Secret's data with stringData folded in as base64.

    stringData wins over data for the same key, as on the API server.
    """
    merged = dict(data or {})
    for name, value in (string_data or {}).items():
        merged[name] = base64.b64encode(
            str(value).encode('utf-8')).decode('ascii')
    return merged


def secret_content(data=None, string_data=None):
    """content() of a Secret's data with stringData folded in."""
    return content(secret_data(data, string_data))
