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

"""Keyed digests: what stands in for a secret value where it is shown.

A checksum of secret content (a Secret's data, files rendered from secret
values) is an HMAC-SHA256 of the content's canonical form
(``heat_k8s.rendering.checksum``, the form an unkeyed checksum sums too),
keyed per purpose and project (``keyring``), so a short secret value
cannot be guessed back from a published checksum. A fingerprint is such a
digest of one value, kept by Heat in the value's place: it changes when
the value does, so update diffs stay exact, and it says nothing of the
value to whoever reads the stack. Pure: the caller passes the key.
"""

import hashlib
import hmac

from heat_k8s.rendering import checksum

FINGERPRINT_PREFIX = '<redacted:'


def content(data, binary_data=None, *, key):
    """HMAC-SHA256 hex digest of the canonical JSON of data and
    binaryData, keyed with key (bytes or str)."""
    if isinstance(key, str):
        key = key.encode('utf-8')
    return hmac.new(key, checksum.canonical(data, binary_data),
                    hashlib.sha256).hexdigest()


def secret_content(data=None, string_data=None, *, key):
    """content() of a Secret's data with stringData folded in as the API
    server stores it (checksum.secret_data)."""
    return content(checksum.secret_data(data, string_data), key=key)


def fingerprint(value, key):
    """The fingerprint of value (a value as sealing.digestible gives it)
    keyed with key: FINGERPRINT_PREFIX, 16 hex digits and ``>``."""
    return '%s%s>' % (FINGERPRINT_PREFIX, content({'v': value}, key=key)[:16])


def is_fingerprint(value):
    return isinstance(value, str) and value.startswith(FINGERPRINT_PREFIX)
