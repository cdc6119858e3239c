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

"""Every template and environment file parses as Heat parses it (a YAML
slip otherwise shows only when a stack is created)."""

from tests.unit import heat_harness  # noqa: F401 (first: sets up Heat)

# isort: split

import glob
import os

from heat.common import environment_format
from heat.common import template_format
import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TEMPLATES = sorted(glob.glob(os.path.join(REPO, 'templates', '**', '*.yaml'),
                             recursive=True))
ENVIRONMENTS = sorted(glob.glob(os.path.join(REPO, 'environments', '*.yaml')))


@pytest.mark.parametrize('path', TEMPLATES,
                         ids=[os.path.relpath(p, REPO) for p in TEMPLATES])
def test_template_parses(path):
    with open(path) as f:
        parsed = template_format.parse(f.read())
    assert parsed['heat_template_version']
    for name, param in (parsed.get('parameters') or {}).items():
        assert isinstance(param.get('description', ''), str), name


@pytest.mark.parametrize('path', ENVIRONMENTS,
                         ids=[os.path.relpath(p, REPO) for p in ENVIRONMENTS])
def test_environment_parses(path):
    with open(path) as f:
        environment_format.parse(f.read())
