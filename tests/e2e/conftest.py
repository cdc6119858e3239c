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

With pytest-xdist (`-n N --dist loadfile`, as tox runs the suite) the
controller starts the one cloud before its workers and stops it after them;
the workers inherit its state directory. Most of the suite's time is
waiting for pods, containers and Heat, which overlaps well. A module that
kills or restarts part of its cloud, or measures it, is marked `own_cloud`
and starts a kwok-only cloud of its own (`own_kwok_cloud`), so that the
others go on meanwhile on the session cloud (which has the real node: one
runs on a machine at a time).
"""

import contextlib
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

    def run(self, *argv, os_cloud='demo', check=True, stdin=None):
        return cloud.run(argv, check=check, timeout=CLI_TIMEOUT,
                         env=dict(self.env, OS_CLOUD=os_cloud), input=stdin)

    def openstack(self, *args, os_cloud='demo'):
        """`openstack ... -f json` as `os_cloud`; the parsed answer."""
        out = self.run('openstack', *args, '-f', 'json', os_cloud=os_cloud)
        return json.loads(out.stdout)

    def token(self, os_cloud):
        return self.openstack('token', 'issue', os_cloud=os_cloud)

    def kubectl(self, token, *args, check=False, stdin=None):
        """kubectl with a bearer token only (no kubeconfig credential)."""
        return self.run('kubectl', '--kubeconfig=/dev/null',
                        '--server=' + self.api_url,
                        '--certificate-authority=' + self.ca_file,
                        '--token=' + token, *args, check=check, stdin=stdin)


STATE_DIR = 'HEAT_K8S_E2E_STATE_DIR'
# Started first, longest first, so that the longest modules do not end
# the run alone (tox keeps this order: --no-loadscope-reorder); the
# modules with clouds of their own next.
# test_members.py first too: it adds real nodes and loads the machine for
# three minutes, which test_load.py's 180 s window did not survive.
LONGEST = ('test_members.py', 'test_controlplane_upgrade.py',
           'test_compute_region.py',
           'test_compute_cloud.py', 'test_upgrade.py', 'test_templates.py',
           'test_docker_host.py')


def pytest_configure(config):
    config.addinivalue_line(
        'markers', 'own_cloud: the module starts a cloud of its own (kwok '
        'only: the real node is the session cloud\'s), since it kills, '
        'restarts or measures part of its cloud')


def _order(item):
    name = item.path.name
    if name in LONGEST:
        return (0, LONGEST.index(name))
    return (1 if item.get_closest_marker('own_cloud') else 2, 0)


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=_order)


def pytest_sessionstart(session):
    config = session.config
    if not cloud.xdist_controller(config):
        return
    config.heat_k8s_own_dir = tempfile.mkdtemp(prefix='heat-k8s-e2e-')
    if not os.environ.get(STATE_DIR):
        state_dir = os.path.join(config.heat_k8s_own_dir, 'cloud')
        config.heat_k8s_cloud = state_dir
        error = start_cloud(state_dir)
        if error:
            # pytest calls no sessionfinish after an exit here.
            stop_cloud(state_dir)
            shutil.rmtree(config.heat_k8s_own_dir, ignore_errors=True)
            pytest.exit(error, returncode=1)
        os.environ[STATE_DIR] = state_dir


def pytest_sessionfinish(session):
    config = session.config
    if getattr(config, 'heat_k8s_cloud', None):
        stop_cloud(config.heat_k8s_cloud)
    if getattr(config, 'heat_k8s_own_dir', None):
        shutil.rmtree(config.heat_k8s_own_dir, ignore_errors=True)


def start_cloud(state_dir):
    """`localcloud up` in `state_dir`; what went wrong, or None."""
    result = cloud.localcloud(state_dir, 'up', check=False)
    if result.returncode:
        return 'localcloud up failed:\n%s%s' % (result.stdout, result.stderr)
    return None


def stop_cloud(state_dir):
    cloud.localcloud(state_dir, 'down', '--purge', check=False)
    shutil.rmtree(state_dir, ignore_errors=True)


@contextlib.contextmanager
def own_kwok_cloud(name, *up_args):
    """A kwok-only cloud of the calling module's own (`localcloud up
    --kwok-only` with `up_args`), stopped and removed after it."""
    state_dir = tempfile.mkdtemp(prefix='heat-k8s-e2e-%s-' % name)
    try:
        result = cloud.localcloud(state_dir, 'up', '--kwok-only', *up_args,
                                  check=False)
        if result.returncode:
            pytest.fail('localcloud up failed:\n%s%s'
                        % (result.stdout, result.stderr))
        yield LocalCloud(state_dir)
    finally:
        stop_cloud(state_dir)


@pytest.fixture(scope='session')
def localcloud():
    given = os.environ.get(STATE_DIR)
    if given:
        yield LocalCloud(given)
        return
    state_dir = tempfile.mkdtemp(prefix='heat-k8s-e2e-')
    try:
        error = start_cloud(state_dir)
        if error:
            pytest.fail(error)
        yield LocalCloud(state_dir)
    finally:
        stop_cloud(state_dir)
