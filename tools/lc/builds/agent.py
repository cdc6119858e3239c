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

"""agent/install.py as a module, for what installs the agent side: this
machine's docker host (tools/lc/docker_host.py) and the server image
(agent_server). agent/ ships as files, not as a package."""

import functools
import importlib.util
import os

from tools.lc import paths

AGENT_DIR = os.path.join(paths.REPO_DIR, 'agent')


@functools.cache
def install_module():
    """agent/install.py, loaded from its file."""
    spec = importlib.util.spec_from_file_location(
        'heat_k8s_agent_install', os.path.join(AGENT_DIR, 'install.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
