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

"""Where the local cloud keeps its sources, builds and state."""

import os

TOOLS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(TOOLS_DIR)
VERSIONS_FILE = os.path.join(TOOLS_DIR, 'versions.env')
GOMOD_DIR = os.path.join(TOOLS_DIR, 'gomod')
KWOK_STAGES = os.path.join(TOOLS_DIR, 'kwok', 'stages.yaml')


def cache_dir():
    """Builds are cached here, outside the repo, keyed by version."""
    return os.environ.get('HEAT_K8S_CACHE') or os.path.join(
        os.path.expanduser('~'), '.cache', 'heat-k8s')


def default_state_dir():
    """Certificates, tokens, data, pids and logs of a running cloud."""
    return os.environ.get('HEAT_K8S_STATE_DIR') or os.path.join(
        cache_dir(), 'localcloud')
