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

"""Session fixtures: a real Kubernetes control plane on loopback.

The session starts its own cluster in a temporary state directory and stops
it at the end. Set HEAT_K8S_TEST_STATE_DIR to the state directory of a
cloud already running (`tools/localcloud up`) to use that one instead.

With pytest-xdist (`-n N --dist loadfile`, as tox runs them) the controller
starts the one cluster before its workers and stops it after them; the
workers inherit its state directory. The modules share it as they share
an operator's cluster: each works in namespaces of its own.
"""

import os
import shutil
import tempfile
import uuid

import kubernetes
import pytest

from tests.functional import cloud

STATE_DIR = 'HEAT_K8S_TEST_STATE_DIR'
# Started first, longest first (by the module timeline, tests/timeline.py),
# so that none of them ends the run alone under xdist.
LONGEST = ('test_keystone_releases.py', 'test_images.py',
           'test_steadiness.py', 'test_resources.py')


def pytest_collection_modifyitems(session, config, items):
    items.sort(key=lambda item: LONGEST.index(item.path.name)
               if item.path.name in LONGEST else len(LONGEST))


def pytest_sessionstart(session):
    config = session.config
    if not cloud.xdist_controller(config) or os.environ.get(STATE_DIR):
        return
    state_dir = tempfile.mkdtemp(prefix='heat-k8s-functional-')
    config.heat_k8s_cluster = state_dir
    result = cloud.localcloud(state_dir, 'up', '--kubernetes-only',
                              check=False)
    if result.returncode:
        # pytest calls no sessionfinish after an exit here.
        _stop(state_dir)
        pytest.exit('localcloud up failed:\n%s%s'
                    % (result.stdout, result.stderr), returncode=1)
    os.environ[STATE_DIR] = state_dir


def pytest_sessionfinish(session):
    state_dir = getattr(session.config, 'heat_k8s_cluster', None)
    if state_dir:
        _stop(state_dir)


def _stop(state_dir):
    cloud.localcloud(state_dir, 'down', '--purge', check=False)
    shutil.rmtree(state_dir, ignore_errors=True)


@pytest.fixture(scope='session')
def cluster():
    """The state directory and facts of a ready cluster."""
    given = os.environ.get(STATE_DIR)
    if given:
        yield cloud.cloud_info(given) | {'state_dir': given}
        return
    state_dir = tempfile.mkdtemp(prefix='heat-k8s-functional-')
    try:
        result = cloud.localcloud(state_dir, 'up', '--kubernetes-only',
                                  check=False)
        if result.returncode:
            pytest.fail('localcloud up failed:\n%s%s'
                        % (result.stdout, result.stderr))
        yield cloud.cloud_info(state_dir) | {'state_dir': state_dir}
    finally:
        _stop(state_dir)


def api_client(cluster):
    """A new admin ApiClient of its own (no shared configuration)."""
    config = kubernetes.client.Configuration()
    kubernetes.config.load_kube_config(
        config_file=os.path.join(cluster['state_dir'], 'kubeconfig'),
        client_configuration=config)
    return kubernetes.client.ApiClient(config)


@pytest.fixture(scope='session')
def admin(cluster):
    """An admin ApiClient for the session's cluster."""
    client = api_client(cluster)
    yield client
    client.close()


@pytest.fixture(scope='module')
def api(admin):
    """A dynamic client on the admin ApiClient."""
    return kubernetes.dynamic.DynamicClient(admin)


@pytest.fixture(scope='class')
def cluster_for_unittest(request, cluster):
    """Hands the session's cluster to unittest-style test classes."""
    request.cls.cluster = cluster


def wait_for_default_serviceaccount(core, namespace):
    # Pods are refused until the serviceaccount controller has run.
    cloud.wait_until(lambda: core.list_namespaced_service_account(
        namespace, field_selector='metadata.name=default').items,
        'the default service account of ' + namespace)


@pytest.fixture
def namespace(admin):
    """A fresh namespace for one test, deleted afterwards."""
    core = kubernetes.client.CoreV1Api(admin)
    name = 'test-' + uuid.uuid4().hex[:10]
    core.create_namespace({'metadata': {'name': name}})
    wait_for_default_serviceaccount(core, name)
    yield name
    try:
        core.delete_namespace(name)
    except kubernetes.client.ApiException as exc:
        if exc.status != 404:
            raise
