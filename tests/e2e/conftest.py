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

"""Session fixture: the whole local cloud (`tools/localcloud up`).

The session starts Kubernetes, MariaDB, RabbitMQ, Keystone,
k8s-keystone-auth and Heat in a temporary state directory and stops them at
the end. Set HEAT_K8S_E2E_STATE_DIR to the state directory of a full cloud
already running to use that one instead (it is left running).
"""

import json
import os
import shlex
import shutil
import tempfile

import pytest

from tests.functional import cloud

CLI_TIMEOUT = 120


class LocalCloud(object):
    """A running local cloud as its users reach it: CLIs and files."""

    def __init__(self, state_dir):
        self.state_dir = state_dir
        self.info = cloud.cloud_info(state_dir)
        self.env = dict(os.environ)
        for line in cloud.localcloud(state_dir, 'env').stdout.splitlines():
            if line.startswith('export '):
                key, _, value = line[len('export '):].partition('=')
                self.env[key] = shlex.split(value)[0] if value else ''

    @property
    def projects(self):
        return self.info['openstack']['projects']

    @property
    def api_url(self):
        return 'https://127.0.0.1:%d' % self.info['ports']['kube-apiserver']

    @property
    def ca_file(self):
        return os.path.join(self.state_dir, 'pki', 'ca.crt')

    def run(self, *argv, os_cloud='demo', check=True):
        return cloud.run(argv, check=check, timeout=CLI_TIMEOUT,
                         env=dict(self.env, OS_CLOUD=os_cloud))

    def openstack(self, *args, os_cloud='demo'):
        """`openstack ... -f json` as `os_cloud`; the parsed answer."""
        out = self.run('openstack', *args, '-f', 'json', os_cloud=os_cloud)
        return json.loads(out.stdout)

    def token(self, os_cloud):
        return self.openstack('token', 'issue', os_cloud=os_cloud)

    def kubectl(self, token, *args, check=False):
        """kubectl with a bearer token only (no kubeconfig credential)."""
        return self.run('kubectl', '--kubeconfig=/dev/null',
                        '--server=' + self.api_url,
                        '--certificate-authority=' + self.ca_file,
                        '--token=' + token, *args, check=check)


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'own_cloud: the test starts a cloud of its own; such '
        'tests run first, before the session cloud starts, so that one '
        'cloud runs at a time')


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=lambda item: item.get_closest_marker('own_cloud') is None)


@pytest.fixture(scope='session')
def localcloud():
    given = os.environ.get('HEAT_K8S_E2E_STATE_DIR')
    if given:
        yield LocalCloud(given)
        return
    state_dir = tempfile.mkdtemp(prefix='heat-k8s-e2e-')
    try:
        result = cloud.localcloud(state_dir, 'up', check=False)
        if result.returncode:
            pytest.fail('localcloud up failed:\n%s%s'
                        % (result.stdout, result.stderr))
        yield LocalCloud(state_dir)
    finally:
        cloud.localcloud(state_dir, 'down', check=False)
        shutil.rmtree(state_dir, ignore_errors=True)
