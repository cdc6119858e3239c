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

import hashlib
import unittest

from heat_k8s.rendering import checksum
from tests.unit.fixtures import load


class ContentTest(unittest.TestCase):

    def test_canonical_form(self):
        # Pinned: a change here rolls every Deployment that uses checksums.
        self.assertEqual(
            hashlib.sha256(b'{"binaryData":{},"data":{"a":"1","b":"2"}}')
            .hexdigest(),
            checksum.content({'b': '2', 'a': '1'}))
        self.assertEqual(
            hashlib.sha256('{"binaryData":{},"data":{"k":"é"}}'.encode())
            .hexdigest(),
            checksum.content({'k': 'é'}))

    def test_key_order_does_not_matter(self):
        cm = load('configmap')
        reordered = dict(reversed(list(cm['data'].items())))
        self.assertEqual(checksum.content(cm['data'], cm['binaryData']),
                         checksum.content(reordered, cm['binaryData']))

    def test_any_change_of_content_changes_the_sum(self):
        cm = load('configmap')
        base = checksum.content(cm['data'], cm['binaryData'])
        variants = [
            ({**cm['data'], 'LOG_LEVEL': 'debug'}, cm['binaryData']),
            ({'log_level' if k == 'LOG_LEVEL' else k: v
              for k, v in cm['data'].items()}, cm['binaryData']),
            (cm['data'], None),
            ({**cm['data'], **cm['binaryData']}, None),
        ]
        sums = {checksum.content(d, b) for d, b in variants}
        self.assertEqual(len(variants), len(sums))
        self.assertNotIn(base, sums)

    def test_empty_is_empty(self):
        self.assertEqual(checksum.content({}, {}), checksum.content(None))


class SecretContentTest(unittest.TestCase):

    def test_string_data_sums_like_the_stored_data(self):
        secret = load('secret')
        self.assertEqual(
            checksum.secret_content(data=secret['data']),
            checksum.secret_content(string_data={
                'password': 's3cr3t-Pa55w0rd', 'username': 'keystone'}))

    def test_string_data_wins_over_data(self):
        secret = load('secret')
        mixed = checksum.secret_content(data=secret['data'],
                                        string_data={'password': 'other'})
        self.assertNotEqual(checksum.secret_content(data=secret['data']),
                            mixed)
        self.assertEqual(mixed, checksum.secret_content(data={
            'password': 'b3RoZXI=', 'username': secret['data']['username']}))


if __name__ == '__main__':
    unittest.main()
