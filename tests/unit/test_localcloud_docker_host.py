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

"""The docker host's podman settings (tools/lc/docker_host.py)."""

from tools.lc import docker_host

# A state directory as deep as the e2e suite's (a temporary directory,
# then the cloud, then the stack's host).
DEEP = ('/tmp/heat-k8s-e2e-k2j3h4g5/cloud/docker-host/'
        'dh-cp-0123456789abcdef0123456789abcdef')


def test_the_run_root_stays_within_podmans_limit():
    # podman refuses a run root over 50 characters in the cleanup command
    # that records a container's exit: each attached run waited 20 s.
    root = docker_host.run_root(DEEP)
    assert len(root) <= 50, root
    assert root.startswith(docker_host.RUN_ROOTS + '/')


def test_each_host_has_its_own_run_root():
    assert docker_host.run_root(DEEP) != docker_host.run_root(DEEP + 'x')
    assert docker_host.run_root(DEEP) == docker_host.run_root(DEEP)


def test_the_storage_conf_names_the_short_run_root():
    text = docker_host.STORAGE_CONF.format(
        base=DEEP, runroot=docker_host.run_root(DEEP), images='/i')
    assert 'runroot = "%s"' % docker_host.run_root(DEEP) in text
    assert DEEP + '/containers/storage' in text
