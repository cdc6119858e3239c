# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""templates/identity.yaml's credential rotation, as its yaql computes it.

The template's own expressions are evaluated by Heat's yaql function for
rotations 0 to 9, and the key repository they give each rotation is checked
against Keystone's staged/primary/secondary model. A key is named by the
salt that made it (the slots without a salt hold K(0) and K(1), the keys
stacks had before rotation existed).
"""

import os
import re
import unittest

from heat.engine.hot import functions
import yaml

TEMPLATE = os.path.join(os.path.dirname(__file__), '..', '..', 'templates',
                        'identity.yaml')
KEYS_DIR = '/var/lib/kolla/config_files/fernet-keys/'
ROTATIONS = range(10)
# The keys the unsalted slots hold: slot 0 made K(1), slot 1 made K(0).
UNSALTED = {0: 1, 1: 0}


def _template():
    with open(TEMPLATE) as f:
        return yaml.safe_load(f)


def _yaql(snippet, data):
    """Evaluate {yaql: {expression, data}} with `data` as Heat would."""
    parser = functions.Yaql.get_yaql_parser()
    return parser(snippet['yaql']['expression']).evaluate(
        {'data': data}, functions.Yaql._context)


class FernetRotationTest(unittest.TestCase):

    def setUp(self):
        template = _template()
        self.resources = template['resources']
        self.conditions = template['conditions']

    def salt(self, slot, rotation):
        """The salt slot `slot` has at `rotation` (None: no salt)."""
        salt = self.resources['fernet_key_%d' % slot]['properties']['salt']
        if 'if' in salt:
            condition, salt = salt['if']
            if not _yaql(self.conditions[condition], rotation):
                return None
        return int(_yaql(salt, {'rotation': rotation, 'slot': slot}))

    def key(self, slot, rotation):
        """Which K(i) slot `slot` holds at `rotation`."""
        salt = self.salt(slot, rotation)
        return UNSALTED[slot] if salt is None else salt

    def repository(self, rotation):
        """{file name: K(i)} given to the API at `rotation`."""
        snippet = self.resources['keystone_secret_files']['properties'][
            'value']
        keys = ['K%d' % self.key(slot, rotation) for slot in range(3)]
        files = _yaql(snippet, {'rotation': rotation,
                                'keys': [k + '=' for k in keys]})
        self.assertTrue(all(p.startswith(KEYS_DIR) for p in files))
        return {p[len(KEYS_DIR):]: int(v[1:-1]) for p, v in files.items()}

    def test_each_rotation_has_staged_primary_and_one_secondary(self):
        for n in ROTATIONS:
            expected = {'0': n + 1, str(n + 1): n}
            if n:
                expected[str(n)] = n - 1
            self.assertEqual(expected, self.repository(n), n)

    def test_the_new_primary_was_staged_on_every_replica(self):
        for n in ROTATIONS[:-1]:
            before, after = self.repository(n), self.repository(n + 1)
            primary = after[max(after, key=int)]
            self.assertEqual(before['0'], primary, n)
            # Tokens of the previous primary still validate.
            self.assertIn(before[max(before, key=int)], after.values())

    def test_a_rotation_changes_one_slot_only(self):
        for n in ROTATIONS[:-1]:
            changed = [slot for slot in range(3)
                       if self.salt(slot, n) != self.salt(slot, n + 1)]
            self.assertEqual(1, len(changed), n)
            # ...and not one a key of the new repository is in.
            [slot] = changed
            self.assertEqual(n + 2, self.key(slot, n + 1))

    def test_rotation_zero_keeps_the_keys_stacks_had(self):
        self.assertEqual([None, None],
                         [self.salt(slot, 0) for slot in (0, 1)])
        self.assertEqual({'0': 1, '1': 0}, self.repository(0))

    def test_keystone_keeps_three_keys(self):
        values = self.resources['keystone_db_check']['properties'][
            'config_values']
        self.assertEqual(3, values['fernet_keys'])

    def test_bootstrap_gets_no_key_a_rotation_changes(self):
        files = self.resources['keystone_bootstrap']['properties'][
            'secret_files']
        self.assertEqual(
            {KEYS_DIR + '0': {'get_attr': ['bootstrap_fernet_key',
                                           'reference']}},
            files)
        self.assertNotIn('salt',
                         self.resources['bootstrap_fernet_key']['properties'])


class DatabasePasswordRotationTest(unittest.TestCase):

    def setUp(self):
        template = _template()
        self.resources = template['resources']
        self.conditions = template['conditions']

    def user(self, rotation):
        return _yaql(self.resources['keystone_database_user']['properties'][
            'value'], rotation)

    def test_each_rotation_has_its_own_user(self):
        users = [self.user(n) for n in ROTATIONS]
        self.assertEqual('keystone', users[0])
        self.assertEqual('keystone_3', users[3])
        self.assertEqual(len(users), len(set(users)))

    def test_retire_matches_every_rotations_user_and_no_other(self):
        command = self.resources['keystone_db_retire']['properties'][
            'command'][-1]
        pattern = re.search(r"REGEXP '([^']+)'", command).group(1)
        # The shell unescapes \$ inside double quotes.
        pattern = pattern.replace('\\$', '$')
        for n in ROTATIONS:
            self.assertRegex(self.user(n), pattern)
        for other in ('keystone_1x', 'keystonex', 'glance', 'keystone_'):
            self.assertNotRegex(other, pattern)

    def test_the_password_is_salted_from_the_first_rotation_on(self):
        condition = self.conditions['salted_database_password']
        self.assertEqual(
            {'not': {'equals': [
                {'get_param': 'database_password_rotation'}, 0]}},
            condition)
        salt = self.resources['keystone_database_password']['properties'][
            'salt']
        self.assertEqual(['salted_database_password',
                          {'get_param': 'database_password_rotation'}],
                         salt['if'])
