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

"""The docker host's podman and agent settings (tools/lc/docker_host.py)."""

import pytest

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


# Hand-made: the shapes of Heat's os-collect-config metadata for the two
# transports (heat/engine/resources/server_base.py), values invented.
HANDMADE_HEAT_AGENT_CONFIG = {
    'collectors': ['heat', 'local'],
    'heat': {'auth_url': 'http://127.0.0.1:5000', 'user_id': 'u1',
             'password': 'p1', 'project_id': 'pr1', 'stack_id': 's/1',
             'resource_name': 'server', 'region_name': 'RegionOne'}}
HANDMADE_CFN_AGENT_CONFIG = {
    'collectors': ['cfn', 'local'],
    'cfn': {'metadata_url': 'http://10.85.0.1:8000/v1/',
            'access_key_id': 'a1', 'secret_access_key': 's1',
            'stack_name': 'st', 'path': 'server.Metadata'},
    # A transport changed since: Heat blanks the old collector's keys.
    'heat': {'auth_url': None, 'user_id': None}}


def _sections(text):
    sections, current = {}, None
    for line in text.splitlines():
        if line.startswith('['):
            current = sections.setdefault(line.strip('[]'), {})
        elif ' = ' in line:
            key, value = line.split(' = ', 1)
            current[key] = value
    return sections


def test_a_heat_polling_host_logs_in_to_keystone():
    conf = _sections(docker_host.collect_config(
        HANDMADE_HEAT_AGENT_CONFIG, '/c', '/r'))
    assert conf['DEFAULT']['collectors'] == 'heat'
    assert conf['heat'] == HANDMADE_HEAT_AGENT_CONFIG['heat']


def test_a_cfn_polling_host_signs_requests_to_the_cfn_api_only():
    conf = _sections(docker_host.collect_config(
        HANDMADE_CFN_AGENT_CONFIG, '/c', '/r'))
    assert conf['DEFAULT']['collectors'] == 'cfn'
    assert set(conf) == {'DEFAULT', 'cfn'}
    assert conf['cfn'] == HANDMADE_CFN_AGENT_CONFIG['cfn']


def test_a_host_without_a_polling_transport_is_refused_in_words():
    with pytest.raises(ValueError, match='POLL_SERVER_CFN'):
        docker_host.collect_config({'collectors': ['local']}, '/c', '/r')
