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
heat_k8s/kinds/, which imports no Heat; no module of heat_k8s imports
itself through others, and what the types share imports no type. The
tests keep a house too: no test module imports another, what they share
is in helper modules."""

from tests.unit import heat_harness  # noqa: F401  first: sets up Heat

# isort: split

import ast
import os
import pkgutil
import re
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


def imports(root, package='heat_k8s'):
    """{module: modules of package it imports}, read from the source
    under root (function-level imports too: a loop is a loop)."""
    paths = {}
    for folder, _, files in os.walk(os.path.join(root, package)):
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                module = os.path.relpath(path, root)[:-3].replace(os.sep, '.')
                paths[module.removesuffix('.__init__')] = path
    graph = {}
    for module, path in paths.items():
        here = module if path.endswith('__init__.py') else \
            module.rpartition('.')[0]
        found = set()
        with open(path) as source:
            tree = ast.parse(source.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ''
                if node.level:
                    parts = here.split('.')[:len(here.split('.')) -
                                             node.level + 1]
                    base = '.'.join(parts + ([base] if base else []))
                for alias in node.names:
                    name = base + '.' + alias.name
                    found.add(name if name in paths else base)
        graph[module] = sorted(found & set(paths) - {module})
    return graph


def cycles(graph):
    """The import loops of graph, each as the modules around it."""
    loops, state = [], {}

    def visit(module, trail):
        state[module] = 'open'
        for other in graph.get(module, ()):
            if state.get(other) == 'open':
                loops.append(trail[trail.index(other):] + [other])
            elif other not in state:
                visit(other, trail + [other])
        state[module] = 'done'

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    return loops


def may_import(root=ROOT, package='heat_k8s'):
    """{package: what its docstring says it may import of heat_k8s}, from
    its sentence "... may import ``heat_k8s.x`` and ``heat_k8s.y``"
    (None: "any package" or "every other layer"; (): "nothing of
    heat_k8s"); config is the one module at the top."""
    found = {}
    top = os.path.join(root, package)
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name, '__init__.py')
        if name.endswith('.py') and name != '__init__.py':
            path = os.path.join(top, name)
        if not os.path.isfile(path):
            continue
        with open(path) as source:
            doc = ' '.join((ast.get_docstring(ast.parse(source.read()))
                            or '').split())
        sentence = re.search(r'\bmay import (.+?)(?:[;:]|\.(?:\s|$))', doc)
        assert sentence, '%s: no "may import" in its docstring' % path
        allowed = sentence.group(1)
        found[name.removesuffix('.py')] = None if re.match(
            r'(any|every)\b', allowed) else tuple(re.findall(
                r'``%s\.([\w.]+)``' % package, allowed))
    return found


def test_each_package_imports_only_what_its_docstring_says():
    graph = imports(ROOT)
    packages = {module.split('.')[1] for module in graph if '.' in module}
    allowed_by = may_import()
    assert packages == set(allowed_by)
    wrong = []
    for module, found in graph.items():
        if module == 'heat_k8s' or allowed_by[module.split('.')[1]] is None:
            continue
        allowed = ('heat_k8s.' + module.split('.')[1],) + tuple(
            'heat_k8s.' + name for name in allowed_by[module.split('.')[1]])
        wrong += [(module, imported) for imported in found
                  if imported != 'heat_k8s' and not any(
                      imported == a or imported.startswith(a + '.')
                      for a in allowed)]
    assert wrong == []


def test_no_module_imports_itself_through_others():
    graph = imports(ROOT)
    assert 'heat_k8s.kinds' in graph['heat_k8s.kinds.naming']  # sees them
    assert cycles(graph) == []


def test_what_the_types_share_imports_no_type():
    shared = 'heat_k8s.resources.shared'
    assert [(module, imported)
            for module, found in imports(ROOT).items()
            if module == shared or module.startswith(shared + '.')
            for imported in found
            if imported.startswith('heat_k8s.resources.') and
            not imported.startswith(shared)] == []


def write(path, text):
    """A file of a made-up tree (a pathlib path), its folder made."""
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)


def test_the_checks_see_a_loop_and_a_shared_module_importing_a_type(
        tmp_path):
    # A made-up tree: the loop through a package's __init__ that kinds had.
    for name, text in {
            'pkg/__init__.py': 'from pkg import rules\n',
            'pkg/rules.py': 'from pkg import table\n',
            'pkg/table.py': 'import pkg\n',
            'pkg/fine.py': 'from pkg import rules\n'}.items():
        write(tmp_path / name, text)
    graph = imports(str(tmp_path), 'pkg')
    assert graph['pkg.fine'] == ['pkg.rules']
    assert cycles(graph) == [['pkg', 'pkg.rules', 'pkg.table', 'pkg']]


def importers_of_test_modules(root, package='tests'):
    """[(module, test module it imports)] under root/package. A test
    module (test_*.py) is for pytest to collect, not a library: what
    modules share belongs in a helper module (any other name) of the
    package, where it is seen as shared."""
    modules = {}
    for folder, _, files in os.walk(os.path.join(root, package)):
        for name in files:
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                modules[os.path.relpath(path, root)[:-3].replace(
                    os.sep, '.')] = path
    tests = {module for module in modules
             if module.rpartition('.')[2].startswith('test_')}
    found = []
    for module, path in sorted(modules.items()):
        with open(path) as source:
            tree = ast.parse(source.read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module] + [node.module + '.' + alias.name
                                         for alias in node.names]
            else:
                continue
            found += [(module, test) for test in tests for name in names
                      if name == test or name.startswith(test + '.')]
    return sorted(set(found))


def test_no_test_module_imports_another():
    assert importers_of_test_modules(ROOT) == []


def test_the_check_sees_a_test_module_imported(tmp_path):
    for name, text in {
            'pkg/__init__.py': '',
            'pkg/helpers.py': 'X = 1\n',
            'pkg/test_a.py': 'from pkg import helpers\nY = 2\n',
            'pkg/test_b.py': 'from pkg import test_a\n',
            'pkg/test_c.py': 'from pkg.test_a import Y\n',
            'pkg/test_d.py': 'import pkg.test_a\n',
            'pkg/other.py': 'from pkg.helpers import X\n',
            'pkg/shared.py': 'from pkg import test_c as c\n'}.items():
        write(tmp_path / name, text)
    assert importers_of_test_modules(str(tmp_path), 'pkg') == [
        ('pkg.shared', 'pkg.test_c'), ('pkg.test_b', 'pkg.test_a'),
        ('pkg.test_c', 'pkg.test_a'), ('pkg.test_d', 'pkg.test_a')]


def test_the_registry_says_which_types_are_not_one_kind_each():
    doc = ' '.join(registry.__doc__.split())
    for name in registry.RESOURCE_TYPES:
        if name not in registry.KUBERNETES_TYPES or name == \
                'OS::Kubernetes::Resource':
            assert name.split('::')[-1] in doc, name
