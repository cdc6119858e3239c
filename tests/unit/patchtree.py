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

"""A patch of an engine or client fix applied to a copy of the installed
files it touches, and the text of a function there: the patches' tests
(tests/unit/test_enginefix_patches.py, test_clientdupkeyfix.py) read
them.
"""

import ast
import inspect
import os
import re
import shutil
import subprocess
import tempfile

import heat

# Where Heat is installed: patches are relative to the directory holding
# the heat package, as in Heat's source tree.
HEAT_ROOT = os.path.dirname(os.path.dirname(heat.__file__))


def patched_tree(patch, root=HEAT_ROOT):
    """A copy of the files `patch` touches (under `root`), patched:
    (tree, files, patch's outcome)."""
    with open(patch) as f:
        text = f.read()
    files = sorted(set(re.findall(r'^\+\+\+ b/(\S+)$', text, re.M)))
    tree = tempfile.mkdtemp()
    for name in files:
        source = os.path.join(root, name)
        os.makedirs(os.path.dirname(os.path.join(tree, name)), exist_ok=True)
        if os.path.exists(source):
            shutil.copy(source, os.path.join(tree, name))
    out = subprocess.run(['patch', '-p1', '--batch', '--forward',
                          '--no-backup-if-mismatch', '-i', patch],
                         cwd=tree, capture_output=True, text=True)
    return tree, files, out


def function_source(path, owner, name):
    """The text of `owner`.`name` (a class's method, or a module's
    function when owner is the module) in the file at `path`."""
    with open(path) as f:
        text = f.read()
    body = ast.parse(text).body
    if not inspect.ismodule(owner):
        body = next(node.body for node in body
                    if isinstance(node, ast.ClassDef)
                    and node.name == owner.__name__)
    return next((ast.get_source_segment(text, node) for node in body
                 if isinstance(node, ast.FunctionDef) and node.name == name),
                '')
