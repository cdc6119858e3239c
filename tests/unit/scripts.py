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

"""The tree's scripts that are no package's modules (a template's
scripts, the agent's hooks, an image's entry point), loaded as modules
for their unit tests."""

import importlib.machinery
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def load(name, *path):
    """The script at REPO/<path> run as a new module `name`; its file
    name may lack ``.py`` (an image's entry point). It imports from its
    own directory, as ``python3 <script>`` lets it."""
    script = os.path.join(REPO, *path)
    loader = importlib.machinery.SourceFileLoader(name, script)
    module = importlib.util.module_from_spec(
        importlib.util.spec_from_loader(name, loader))
    sys.path.insert(0, os.path.dirname(script))
    try:
        loader.exec_module(module)
    finally:
        sys.path.remove(os.path.dirname(script))
    return module
