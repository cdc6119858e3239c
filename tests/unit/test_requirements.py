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

"""The lower bounds requirements.txt states are what tox -e py3-lower
installs (tools/constraints/lower-constraints.txt), so they are tested."""

import os
import unittest

from packaging import requirements
from packaging import utils

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
REQUIREMENTS = os.path.join(REPO, 'requirements.txt')
LOWER = os.path.join(REPO, 'tools', 'constraints', 'lower-constraints.txt')


def read(path):
    """[(canonical name, operator, version)] of a requirements file."""
    found = []
    with open(path) as f:
        for line in f:
            line = line.split('#', 1)[0].strip()
            if line:
                req = requirements.Requirement(line)
                found.extend((utils.canonicalize_name(req.name), spec.operator,
                              spec.version) for spec in req.specifier)
    return found


class LowerConstraintsTest(unittest.TestCase):

    def test_every_lower_bound_is_pinned_exactly(self):
        bounds = read(REQUIREMENTS)
        pins = read(LOWER)
        self.assertEqual({'>='}, {op for _, op, _ in bounds},
                         'a requirement without (or beyond) a lower bound')
        self.assertEqual({'=='}, {op for _, op, _ in pins})
        self.assertEqual(sorted((name, ver) for name, _, ver in bounds),
                         sorted((name, ver) for name, _, ver in pins))
