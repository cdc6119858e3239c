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

import unittest

from heat_k8s import kinds
from heat_k8s.kinds import naming

SHORT_ID = 'x3kq7vbn2mzc'  # Heat short ids: 12 lowercase base32 characters


class GeneratedNameTest(unittest.TestCase):

    def test_plain_names(self):
        self.assertEqual('mystack-web-x3kq7vbn2mzc',
                         naming.generated_name('mystack', 'web', SHORT_ID))

    def test_lowercased_and_invalid_characters_replaced(self):
        self.assertEqual(
            'my-stack-db-sync-job-x3kq7vbn2mzc',
            naming.generated_name('My_Stack', 'DB sync..Job!', SHORT_ID))

    def test_dashes_collapsed_and_trimmed(self):
        self.assertEqual('a-b-x3kq7vbn2mzc',
                         naming.generated_name('--a--', '__b__', SHORT_ID))

    def test_long_names_fit_and_keep_the_short_id(self):
        name = naming.generated_name('s' * 200, 'r' * 200, SHORT_ID)
        self.assertEqual(63, len(name))
        self.assertTrue(name.endswith('-' + SHORT_ID))
        self.assertIn('s-r', name)

    def test_the_longer_part_is_shortened_first(self):
        name = naming.generated_name('production-openstack-control-plane',
                                     'keystone', SHORT_ID, max_len=40)
        self.assertEqual('production-opensta-keystone-x3kq7vbn2mzc', name)

    def test_never_ends_with_a_dash_after_trimming(self):
        # The cut lands right after a dash in the stack name.
        name = naming.generated_name('abcdefgh-ijklmnop', 'r', SHORT_ID,
                                     max_len=24)
        self.assertEqual('abcdefgh-r-x3kq7vbn2mzc', name)

    def test_starts_with_a_letter(self):
        self.assertEqual('h-2024-stack-web-x3kq7vbn2mzc',
                         naming.generated_name('2024 stack', 'web', SHORT_ID))
        self.assertEqual('h-9abc', naming.generated_name('', '', '9abc'))
        self.assertEqual('h', naming.generated_name('', '', ''))

    def test_prefix_fits_in_max_len(self):
        name = naming.generated_name('1' * 100, 'web', SHORT_ID)
        self.assertEqual(63, len(name))
        self.assertTrue(name.startswith('h-1'))

    def test_kind_limits(self):
        name = naming.generated_name('s' * 80, 'backup', SHORT_ID,
                                     naming.max_length('CronJob'))
        self.assertEqual(52, len(name))
        self.assertEqual(52, naming.max_length('StatefulSet'))
        self.assertEqual(63, naming.max_length('Deployment'))
        self.assertEqual(63, naming.max_length('Database'))

    def test_unique_per_short_id_and_deterministic(self):
        first = naming.generated_name('s' * 100, 'web', 'aaaaaaaaaaaa')
        second = naming.generated_name('s' * 100, 'web', 'bbbbbbbbbbbb')
        self.assertNotEqual(first, second)
        self.assertEqual(first, naming.generated_name('s' * 100, 'web',
                                                      'aaaaaaaaaaaa'))

    def test_always_valid_for_every_rule(self):
        stacks = ['', '-', 'Über-Stack', '0', 'a' * 300, 'x.y.z', '__', '9-']
        resources = ['', 'web', 'Web Server (primary)', 'r' * 70, '_-_']
        for stack in stacks:
            for resource in resources:
                for max_len in (63, 52, 20):
                    name = naming.generated_name(stack, resource, SHORT_ID,
                                                 max_len)
                    for rule in ('label', 'dns1035-label', 'subdomain'):
                        self.assertIsNone(
                            naming.validate(name, rule, max_len),
                            (stack, resource, name))


class ValidateTest(unittest.TestCase):

    def test_valid_names(self):
        self.assertIsNone(naming.validate('web-1', 'label'))
        self.assertIsNone(naming.validate('1-web', 'label'))
        self.assertIsNone(naming.validate('web.example.com', 'subdomain'))
        self.assertIsNone(naming.validate('a' * 253, 'subdomain'))

    def test_characters_message_shows_the_regex(self):
        message = naming.validate('My_App', 'label')
        self.assertTrue(message.startswith("Invalid value 'My_App': a "
                                           "lowercase RFC 1123 label must"))
        self.assertIn("regex used for validation is "
                      "'[a-z0-9]([-a-z0-9]*[a-z0-9])?'", message)

    def test_dots_are_for_subdomains_only(self):
        self.assertIsNotNone(naming.validate('web.v1', 'label'))
        self.assertIsNone(naming.validate('web.v1', 'subdomain'))
        self.assertIn("regex used for validation is '[a-z0-9]",
                      naming.validate('-web', 'subdomain'))

    def test_dns1035_labels_start_with_a_letter(self):
        message = naming.validate('1web', 'dns1035-label')
        self.assertIn('start with an alphabetic character', message)
        self.assertIn("'[a-z]([-a-z0-9]*[a-z0-9])?'", message)

    def test_length(self):
        self.assertEqual("Invalid value '%s': must be no more than 63 "
                         "characters" % ('a' * 64),
                         naming.validate('a' * 64, 'label'))
        self.assertIn('must be no more than 253 characters',
                      naming.validate('a' * 254, 'subdomain'))
        self.assertIn('must be no more than 52 characters',
                      naming.validate('a' * 53, 'subdomain', 52))

    def test_both_problems_are_reported(self):
        message = naming.validate('A' * 70, 'label')
        self.assertIn('no more than 63 characters', message)
        self.assertIn('regex used for validation', message)

    def test_empty_name(self):
        self.assertIn('a name is required', naming.validate('', 'label'))

    def test_unknown_rule(self):
        self.assertRaises(ValueError, naming.validate, 'web', 'hostname')

    def test_name_rule_per_kind(self):
        self.assertEqual('label', naming.rule('Namespace'))
        self.assertEqual('dns1035-label', naming.rule('Service'))
        self.assertEqual('subdomain', naming.rule('Deployment'))
        self.assertEqual('subdomain', naming.rule('Database'))
        self.assertIsNotNone(naming.validate(
            '1st-service', naming.rule('Service')))
        for kind in kinds.DECLARATIONS:
            self.assertIsNone(naming.validate('web', kind.name_rule),
                              kind.name)
            self.assertLessEqual(kind.name_max_len, 63, kind.name)


if __name__ == '__main__':
    unittest.main()
