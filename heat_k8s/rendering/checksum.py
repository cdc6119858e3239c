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
Secret given through data, as the API server stores it.
"""

import base64
import hashlib
import hmac
import json


def _canonical(data, binary_data):
    return json.dumps({'data': data or {}, 'binaryData': binary_data or {}},
                      sort_keys=True, separators=(',', ':'),
                      ensure_ascii=False).encode('utf-8')


def content(data, binary_data=None, key=None):
    """sha256 hex digest of the canonical JSON of data and binaryData.

    With key (bytes or str) it is an HMAC-SHA256 instead, so a short
    secret value cannot be guessed back from a published checksum.
    """
    canonical = _canonical(data, binary_data)
    if key is None:
        return hashlib.sha256(canonical).hexdigest()
    if isinstance(key, str):
        key = key.encode('utf-8')
    return hmac.new(key, canonical, hashlib.sha256).hexdigest()


def secret_content(data=None, string_data=None, key=None):
    """content() of a Secret's data with stringData folded in as base64.

    stringData wins over data for the same key, as on the API server.
    """
    merged = dict(data or {})
    for name, value in (string_data or {}).items():
        merged[name] = base64.b64encode(
            str(value).encode('utf-8')).decode('ascii')
    return content(merged, key=key)
