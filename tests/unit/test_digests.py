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

"""Keyed digests (heat_k8s.secrecy.digests): the HMAC checksums of secret
content."""

import hmac
import unittest

from heat_k8s.rendering import checksum
from heat_k8s.secrecy import digests


class ContentTest(unittest.TestCase):

    def test_keyed_sum(self):
        data = {'password': 'czNjcjN0LVBhNTV3MHJk'}
        keyed = digests.content(data, key=b'k' * 32)
        self.assertNotEqual(checksum.content(data), keyed)
        self.assertEqual(keyed, digests.content(data, key='k' * 32))
        self.assertNotEqual(keyed, digests.content(data, key=b'j' * 32))
        self.assertEqual(
            hmac.new(b'k' * 32,
                     b'{"binaryData":{},"data":{"password":'
                     b'"czNjcjN0LVBhNTV3MHJk"}}', 'sha256').hexdigest(),
            keyed)


if __name__ == '__main__':
    unittest.main()
