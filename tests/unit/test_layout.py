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

"""The tree shows the design (README, "Where things are"): each module at
the top of heat_k8s/resources/ is one resource type, what the types are
built from is in resources/shared/, and the pure helpers are in
heat_k8s/kinds/, which imports no Heat."""

from tests.unit import heat_harness  # noqa: F401  first: sets up Heat

# isort: split

import os
import pkgutil
import subprocess
import sys

from heat_k8s import resources
from heat_k8s.resources import registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def test_the_top_of_resources_holds_the_types_and_shared_the_rest():
    found = list(pkgutil.iter_modules(resources.__path__))
    assert [m.name for m in found if m.ispkg] == ['shared']
    tops = {'heat_k8s.resources.' + m.name for m in found
            if not m.ispkg and m.name != 'registry'}
    homes = {cls.__module__ for cls in registry.RESOURCE_TYPES.values()}
    assert sorted(tops) == sorted(homes)


def test_the_kinds_layer_imports_no_heat_and_no_other_layer():
    # A fresh interpreter: this one has Heat loaded already.
    code = ('import importlib, pkgutil, sys, heat_k8s.kinds as k\n'
            'for m in pkgutil.iter_modules(k.__path__):\n'
            '    importlib.import_module("heat_k8s.kinds." + m.name)\n'
            'print(" ".join(sorted(sys.modules)))')
    loaded = subprocess.run([sys.executable, '-c', code], cwd=ROOT,
                            check=True, capture_output=True,
                            text=True).stdout.split()
    assert 'heat_k8s.kinds.labels' in loaded   # the check sees imports
    assert [name for name in loaded
            if name == 'heat' or name.startswith('heat.') or
            name.startswith('heat_k8s.') and
            not name.startswith('heat_k8s.kinds')] == []
