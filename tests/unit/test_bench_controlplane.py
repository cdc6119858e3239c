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

"""The control plane benchmark's critical path (tools/bench/controlplane)."""

from tools.bench import controlplane as cp


def test_the_longest_chain_wins_and_names_its_steps():
    own = {'mariadb': 10, 'memcached': 50, 'keystone': 5,
           'glance-db-migrate': 30, 'placement-db-sync': 1}
    seconds, steps = cp.critical_path(own)
    # memcached (50) outruns MariaDB and the schema steps before Keystone;
    # Glance's migration outruns Placement's sync after it.
    assert seconds == 50 + 5 + 30
    assert steps[:2] == ['memcached', 'keystone']
    assert steps[-1] in ('glance-db-contract', 'glance-catalog')
    assert 'glance-db-migrate' in steps


def test_every_step_waits_only_for_steps_of_the_chain():
    for step, before in cp.CHAIN.items():
        assert set(before) <= set(cp.CHAIN), step


def test_docker_steps_add_their_init_and_ready_containers():
    handmade_log = [
        'docker-cmd: podman run --name p-keystone ...',
        'docker-cmd: p-keystone exited 0 after 0.6 s',
        'docker-cmd: p-keystone-ready exited 0 after 7.2 s',
        'docker-cmd: p-keystone-db-check exited 0 after 6.5 s',
        'docker-cmd: q-keystone exited 0 after 99.0 s',   # another host
        'heat-config: running ...',
    ]
    assert cp.docker_own(handmade_log, 'p-') == {'keystone': 7.8,
                                          'keystone-db-check': 6.5}


def _handmade_pod(step, state, ready_at=None):
    conditions = [{'type': 'Ready', 'status': 'True',
                   'lastTransitionTime': ready_at}] if ready_at else []
    return {'metadata': {'labels': {'app.kubernetes.io/name': step}},
            'status': {'containerStatuses': [{'state': state}],
                       'conditions': conditions}}


def test_kubernetes_jobs_count_to_their_end_services_to_ready():
    pods = [
        _handmade_pod('p-keystone-db-check', {'terminated': {
            'startedAt': '2026-11-28T22:00:00Z',
            'finishedAt': '2026-11-28T22:00:06Z'}}),
        _handmade_pod('p-keystone', {'running': {
            'startedAt': '2026-11-28T22:01:00Z'}},
            ready_at='2026-11-28T22:01:04Z'),
        # Not ready yet: not counted; another prefix: not ours.
        _handmade_pod('p-glance', {'running': {
            'startedAt': '2026-11-28T22:01:00Z'}}),
        _handmade_pod('q-placement', {'terminated': {
            'startedAt': '2026-11-28T22:00:00Z',
            'finishedAt': '2026-11-28T22:09:00Z'}}),
    ]
    assert cp.kubernetes_own(pods, 'p-') == {'keystone-db-check': 6.0,
                                             'keystone': 4.0}
