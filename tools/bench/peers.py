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

"""The peers the benchmark compares Heat with, built or installed once.

Helm 4 is built from its Go module with the local cloud's own builder
(tools/lc/builds/go.py, wrapper module tools/gomod/helm) into
``<cache>/bin/helm-v<version>``; Ansible with the kubernetes client goes
into ``<cache>/venv/ansible-<key>``. Both are keyed by the pins in
tools/versions.env, so a later run finds them ready.
"""

import hashlib
import os
import subprocess
import sys

from tools.lc import paths
from tools.lc.builds import go

HELM = go.Component(
    name='helm', version_key='HELM_VERSION', module='helm.sh/helm/v4',
    binaries={'helm': 'helm.sh/helm/v4/cmd/helm'},
    ldflags=('-X helm.sh/helm/v4/internal/version.version=v{v}',))

ANSIBLE_PACKAGES = (('ansible', 'ANSIBLE_VERSION'),
                    ('kubernetes', 'KUBERNETES_PYTHON_VERSION'))
COMPLETE = '.complete'


def helm(log):
    """Path of the pinned helm binary, built when missing."""
    versions = go.read_versions()
    if not os.path.exists(os.path.join(paths.GOMOD_DIR, HELM.name,
                                       'go.mod')):
        go.update(versions, components=(HELM,))
    go.build_component(HELM, versions, log=log)
    return os.path.join(go.bin_dir(HELM, versions), 'helm')


def ansible_venv(log):
    """The venv with ansible-playbook and kubernetes, created when missing."""
    versions = go.read_versions()
    requirements = ['%s==%s' % (name, versions[key])
                    for name, key in ANSIBLE_PACKAGES]
    key = hashlib.sha256('\n'.join(
        ['%d.%d' % sys.version_info[:2]] + requirements).encode())
    venv = os.path.join(paths.cache_dir(), 'venv',
                        'ansible-' + key.hexdigest()[:12])
    if not os.path.exists(os.path.join(venv, COMPLETE)):
        log('creating %s (takes minutes)' % venv)
        subprocess.run([sys.executable, '-m', 'venv', '--clear', venv],
                       check=True)
        subprocess.run([os.path.join(venv, 'bin', 'pip'), 'install', '-q',
                        '--disable-pip-version-check'] + requirements,
                       check=True)
        open(os.path.join(venv, COMPLETE), 'w').close()
    return venv


def main(argv):
    """``python3 -m tools.bench.peers``: build both, print where they are."""
    def log(msg):
        print('peers: %s' % msg, file=sys.stderr, flush=True)
    if 'helm' in argv or not argv:
        print(helm(log))
    if 'ansible' in argv or not argv:
        print(ansible_venv(log))


if __name__ == '__main__':
    main(sys.argv[1:])
