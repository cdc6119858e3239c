# Copyright 2026 heat-k8s developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""The progress text of a waiting object, on recorded objects, and how
often it is stored (heat_k8s.kinds.progress, heat_k8s.waiting.reporting)."""

import datetime
import json

from heat_k8s import kinds
from heat_k8s.kinds import progress
from heat_k8s.kinds import readiness
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import reporting
from tests.unit.fixtures import load

UTC = datetime.timezone.utc
# The recorded objects' cluster time: 40 s after pod_probe_failing started.
NOW = datetime.datetime(2026, 11, 27, 18, 40, 48, tzinfo=UTC)


def text(obj, related=None, now=NOW):
    return progress.text(obj, kinds.evaluate(obj, related), related, now)


def test_a_rollout_names_its_counts_and_its_pods_on_their_way():
    pods = [load('pod_unschedulable'), load('pod_imagepull'),
            load('pod_ready')]
    assert text(load('deployment_rolling'), {'pods': pods}) == (
        'Deployment web: 3/3 replicas ready, 1/3 updated; '
        'pod unschedulable not scheduled (Unschedulable); '
        'pod %s in ImagePullBackOff' % pods[1]['metadata']['name'])


def test_before_the_pods_are_read_only_the_counts_are_shown():
    assert text(load('deployment_rolling')) == (
        'Deployment web: 3/3 replicas ready, 1/3 updated')


def test_pods_beyond_the_first_two_are_counted():
    pods = [load('pod_imagepull') for _ in range(4)]
    for number, pod in enumerate(pods):
        pod['metadata']['name'] = 'web-%d' % number
    assert text(load('deployment_rolling'), {'pods': pods}).endswith(
        'pod web-0 in ImagePullBackOff; pod web-1 in ImagePullBackOff; '
        '2 more pods')


def test_terminating_pods_are_not_shown():
    pod = load('pod_imagepull')
    pod['metadata']['deletionTimestamp'] = '2026-11-22T04:22:00Z'
    assert text(load('deployment_rolling'), {'pods': [pod]}) == (
        'Deployment web: 3/3 replicas ready, 1/3 updated')


def test_a_spec_the_controller_has_not_seen_says_so():
    deployment = load('deployment_rolling')
    deployment['metadata']['generation'] += 1
    assert text(deployment) == (
        'Deployment web: waiting for the controller to see the new spec')


def test_a_job_shows_its_running_pod_and_for_how_long():
    pod = load('pod_ready')
    pod['status']['containerStatuses'][0]['state']['running'][
        'startedAt'] = '2026-11-27T18:40:08Z'
    assert text(load('job_running'), {'pods': [pod]}) == (
        'Job db-retry: 1 active, 1 failed (backoffLimit 2); '
        'pod runs running for 40 s')


def test_ages_change_every_ten_seconds_then_every_minute():
    assert [progress.age(s) for s in (3, 40, 49, 119, 725)] == [
        'less than 10 s', '40 s', '40 s', '110 s', '12 min']


def test_a_pod_in_the_kubelets_words():
    assert [text(load(name), now=NOW) for name in (
        'pod_crashloop', 'pod_image_missing', 'pod_probe_failing')] == [
        'Pod crash: restarted 2 times (exit code 2)',
        'Pod noimage: in ErrImageNeverPull',
        'Pod unready: running for 40 s, not ready']
    assert text(load('pod_config_error')) == (
        'Pod config-error: in CreateContainerConfigError')


def test_an_init_container_is_shown_as_kubectl_shows_it():
    pod = load('pod_imagepull')
    pod['status']['initContainerStatuses'] = [
        {'name': 'migrate', 'state': {'terminated': {'exitCode': 0}}},
        {'name': 'wait-db', 'state': {'running': {}}}]
    assert text(pod).endswith(': in Init:1/2')
    pod['status']['initContainerStatuses'][1]['state'] = {
        'waiting': {'reason': 'CrashLoopBackOff'}}
    assert text(pod).endswith(': in Init:CrashLoopBackOff')


def test_a_service_counts_its_ready_endpoints():
    assert text(load('service_clusterip'), {'endpointslices': []}) == (
        'Service web: 0 ready endpoints')
    assert text(load('service_loadbalancer'), {'endpointslices': []}) == (
        'Service web-public: 0 ready endpoints, waiting for a load '
        'balancer address')


def test_a_kind_without_a_headline_shows_its_verdict():
    custom = {'apiVersion': 'example.com/v1', 'kind': 'Database',
              'metadata': {'name': 'db'}, 'status': {'conditions': [
                  {'type': 'Ready', 'status': 'False', 'reason': 'Booting'}]}}
    result = readiness.wait_for(custom, [readiness.parse_wait_for(
        'condition=Ready')])
    assert progress.text(custom, result, {}, NOW) == (
        'Database db: %s' % result.message)
    assert 'Booting' in result.message


def test_no_message_and_no_value_reaches_the_text():
    pod = load('pod_config_error')
    waiting = pod['status']['containerStatuses'][0]['state']['waiting']
    waiting['message'] = 'secret "db-password" value s3cr3t-v4lue not found'
    shown = text(load('deployment_rolling'), {'pods': [pod]})
    assert 'CreateContainerConfigError' in shown
    assert 's3cr3t' not in shown and 'db-password' not in shown


def test_the_text_fits_a_status_reason():
    pod = load('pod_imagepull')
    pod['metadata']['name'] = 'p' * 300
    assert len(text(load('deployment_rolling'), {'pods': [pod]})) == (
        progress.MAX_TEXT)


# --- how often it is stored -------------------------------------------------

class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def reporter(interval=5):
    clock, stored = Clock(), []
    return reporting.Reporter(stored.append, interval, clock), clock, stored


def test_a_text_is_stored_at_once_then_only_when_it_changed():
    report, clock, stored = reporter()
    wait = awaiter.Wait.start(600, clock=clock)
    assert report(wait, 'Deployment web: 0/2 replicas ready')
    clock.now += 30
    assert not report(wait, 'Deployment web: 0/2 replicas ready')
    assert report(wait, 'Deployment web: 1/2 replicas ready')
    assert stored == ['Deployment web: 0/2 replicas ready',
                      'Deployment web: 1/2 replicas ready']


def test_changes_within_the_interval_wait_for_its_end():
    report, clock, stored = reporter(interval=5)
    wait = awaiter.Wait.start(600, clock=clock)
    report(wait, 'a')
    for second, shown in enumerate('bcd', start=1):
        clock.now += 1
        assert not report(wait, shown), second
    clock.now += 2
    assert report(wait, 'e')
    assert stored == ['a', 'e']


def test_an_interval_of_zero_stores_every_change():
    report, clock, stored = reporter(interval=0)
    wait = awaiter.Wait.start(600, clock=clock)
    for shown in ('a', 'b', 'b', 'c'):
        report(wait, shown)
    assert stored == ['a', 'b', 'c']


def test_each_wait_is_limited_on_its_own():
    report, clock, stored = reporter()
    first = awaiter.Wait.start(600, clock=clock)
    second = awaiter.Wait.start(600, clock=clock)
    report(first, 'web')
    report(second, 'db')
    assert stored == ['web', 'db']


def test_the_recorded_objects_are_unchanged_by_the_text():
    deployment = load('deployment_rolling')
    before = json.dumps(deployment, sort_keys=True)
    text(deployment, {'pods': [load('pod_imagepull')]})
    assert json.dumps(deployment, sort_keys=True) == before
