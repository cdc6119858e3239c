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

import dataclasses
import unittest

from heat_k8s import kinds
from heat_k8s.kinds import diagnosis
from heat_k8s.kinds import readiness
from tests.unit.fixtures import load

READY, PROGRESSING, FAILED = (readiness.READY, readiness.PROGRESSING,
                              readiness.FAILED)

# A 1.36 kubelet shows a container in back-off as its last run
# terminated, not as waiting in CrashLoopBackOff.
CRASH = ('pod crash container app: crash loop, restarted 2 times, '
         'terminated with exit code 2: cannot reach the database')


def with_status(name, **status):
    """A recorded object with its status changed by hand."""
    obj = load(name)
    obj['status'].update(status)
    return obj


def container_of(pod):
    """The status of a recorded pod's (only) container, to change."""
    return pod['status']['containerStatuses'][0]


class VerdictCase(unittest.TestCase):

    def assertVerdict(self, state, start, verdict):
        """verdict is state, its message starting with start."""
        self.assertEqual(state, verdict.state)
        self.assertTrue(verdict.message.startswith(start), verdict.message)


class VerdictTest(unittest.TestCase):

    def test_is_frozen(self):
        verdict = readiness.Verdict(READY)
        self.assertEqual('', verdict.message)
        self.assertRaises(dataclasses.FrozenInstanceError, setattr,
                          verdict, 'state', FAILED)


class PodTest(VerdictCase):

    def test_running_pod_with_all_conditions_true_is_ready(self):
        self.assertEqual(READY, readiness.pod(load('pod_ready')).state)

    def test_crash_loop_reports_restarts_exit_code_and_message(self):
        verdict = readiness.pod(load('pod_crashloop'))
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual(CRASH, verdict.message)

    def test_image_pull_back_off(self):
        pod = load('pod_imagepull')
        verdict = readiness.pod(pod)
        self.assertVerdict(
            PROGRESSING, 'pod %s container app: ImagePullBackOff: Back-off '
            'pulling image "127.0.0.1:9/heat-k8s/web:does-not-exist": '
            'ErrImagePull: ' % pod['metadata']['name'], verdict)

    def test_missing_configmap_key(self):
        pod = load('pod_config_error')
        verdict = readiness.pod(pod)
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('pod config-error container app: '
                         'CreateContainerConfigError: couldn\'t find key '
                         'db_host in ConfigMap %s/web-config'
                         % pod['metadata']['namespace'], verdict.message)

    def test_unschedulable_pod_gives_the_scheduler_message(self):
        verdict = readiness.pod(load('pod_unschedulable'))
        self.assertVerdict(
            PROGRESSING, 'pod unschedulable not scheduled: Unschedulable: ',
            verdict)
        self.assertIn("1 node(s) didn't match Pod's node affinity/selector",
                      verdict.message)

    def test_run_to_completion_pod_that_succeeded_is_ready(self):
        pod = load('pod_succeeded')
        self.assertEqual('Never', pod['spec']['restartPolicy'])
        self.assertEqual(READY, readiness.pod(pod).state)

    def test_failed_pod_fails_with_exit_code_and_termination_message(self):
        verdict = readiness.pod(load('pod_failed'))
        self.assertEqual(FAILED, verdict.state)
        self.assertEqual(
            "pod db-sync-failed failed; pod db-sync-failed container app: "
            "terminated with exit code 2: "
            "Can't locate revision identified by 'ae1027a6acf'",
            verdict.message)

    def test_a_long_termination_message_keeps_its_end(self):
        # The log tail of glance-manage against a wrong password, as the
        # control plane's e2e test saw it (hand-shortened traceback).
        pod = load('pod_failed')
        status = container_of(pod)['state']['terminated']
        status['message'] = (
            'Traceback (most recent call last):\n' +
            '  File "sqlalchemy/engine/default.py", line 630, in connect\n'
            * 20 + 'oslo_db.exception.DBError: (pymysql.err.OperationalError)'
            ' (1045, "Access denied for user \'glance\'@\'10.88.0.9\' '
            '(using password: YES)")')
        message = readiness.pod(pod).message
        self.assertIn('terminated with exit code 2: ...', message)
        self.assertTrue(message.endswith('(using password: YES)")'), message)

    def test_evicted_pod_fails_with_the_eviction_reason(self):
        pod = load('pod_ready')
        pod['status'].update(phase='Failed', reason='Evicted',
                             message='The node was low on resource: memory.')
        verdict = readiness.pod(pod)
        self.assertEqual(FAILED, verdict.state)
        self.assertIn('pod runs failed: Evicted: The node '
                      'was low on resource: memory.', verdict.message)

    def test_new_pod_without_status_waits_for_scheduling(self):
        pod = load('pod_ready')
        pod['status'] = {'phase': 'Pending', 'qosClass': 'BestEffort'}
        verdict = readiness.pod(pod)
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('pod runs is Pending, waiting for '
                         'PodScheduled', verdict.message)

    def test_pod_not_ready_without_container_detail_names_the_condition(self):
        pod = load('pod_ready')
        ready = pod['status']['conditions'][2]
        ready.update(status='False', reason='ReadinessGatesNotReady',
                     message='corresponding condition of pod readiness gate '
                             '"example.com/lb" does not exist.')
        verdict = readiness.pod(pod)
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertIn('waiting for Ready: ReadinessGatesNotReady: '
                      'corresponding condition', verdict.message)

    def test_running_container_failing_its_readiness_probe(self):
        pod = load('pod_crashloop')
        status = container_of(pod)
        status['state'] = {'running': {'startedAt': '2026-11-27T18:40:20Z'}}
        status.update(lastState={}, restartCount=0)
        verdict = readiness.pod(pod)
        self.assertEqual('pod crash container app: running but not ready',
                         verdict.message)

    def test_out_of_memory_kill_is_named(self):
        pod = load('pod_crashloop')
        state = container_of(pod)['state']
        state['terminated'].update(exitCode=137, reason='OOMKilled')
        del state['terminated']['message']
        self.assertIn('terminated with exit code 137 (OOMKilled)',
                      readiness.pod(pod).message)

    def test_failing_init_container_is_reported_as_such(self):
        pod = load('pod_crashloop')
        pod['status']['initContainerStatuses'] = [
            pod['status'].pop('containerStatuses')[0]]
        pod['status']['initContainerStatuses'][0]['name'] = 'wait-for-db'
        self.assertIn('pod crash init container wait-for-db: crash loop',
                      readiness.pod(pod).message)

    def test_long_termination_messages_are_clipped(self):
        pod = load('pod_failed')
        state = container_of(pod)['state']
        state['terminated']['message'] = 'Traceback\n' + 'x' * 5000
        message = readiness.pod(pod).message
        self.assertLess(len(message), 400)
        # The end is kept: a log tail's last lines hold the error.
        self.assertIn('exit code 2: ...xxx', message)
        self.assertTrue(message.endswith('xxx'))


class DeploymentTest(unittest.TestCase):

    def test_rolled_out_deployment_is_ready(self):
        verdict = readiness.deployment(load('deployment_ready'))
        self.assertEqual(readiness.Verdict(READY, '3/3 replicas ready'),
                         verdict)

    def test_crash_looping_replica_is_named_with_its_reason(self):
        deployment = with_status('deployment_ready', readyReplicas=2,
                                 availableReplicas=2, unavailableReplicas=1)
        pods = [load('pod_ready'), load('pod_crashloop')]
        verdict = readiness.deployment(deployment, {'pods': pods})
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('2/3 replicas ready; ' + CRASH, verdict.message)

    def test_partial_availability_is_not_ready(self):
        # Available=True (maxUnavailable satisfied) must not pass for ready.
        deployment = with_status('deployment_ready', readyReplicas=2,
                                 availableReplicas=2)
        self.assertEqual('True',
                         deployment['status']['conditions'][0]['status'])
        self.assertEqual(PROGRESSING,
                         readiness.deployment(deployment).state)

    def test_ready_but_not_yet_available(self):
        deployment = with_status('deployment_ready', availableReplicas=1)
        self.assertEqual('1/3 replicas available',
                         readiness.deployment(deployment).message)

    def test_rollout_in_progress_counts_updated_and_old_replicas(self):
        verdict = readiness.deployment(load('deployment_rolling'))
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('1/3 replicas updated, old replicas remaining: 1',
                         verdict.message)

    def test_old_replicas_must_be_gone(self):
        deployment = with_status('deployment_ready', replicas=4)
        self.assertEqual('old replicas remaining: 1',
                         readiness.deployment(deployment).message)

    def test_replicas_still_terminating_are_waited_for(self):
        # A replaced replica drains (preStop) with the old code: what
        # depends on the rollout must not start before it stops.
        deployment = with_status('deployment_ready', terminatingReplicas=1)
        self.assertEqual(
            readiness.Verdict(PROGRESSING, 'replicas terminating: 1'),
            readiness.deployment(deployment))
        deployment['status']['terminatingReplicas'] = 0
        self.assertEqual(READY, readiness.deployment(deployment).state)

    def test_unobserved_generation_is_progressing_despite_counts(self):
        deployment = load('deployment_ready')
        deployment['metadata']['generation'] = 2
        verdict = readiness.deployment(deployment)
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('waiting for the controller to observe generation '
                         '2 (observed: 1)', verdict.message)

    def test_progress_deadline_exceeded_fails_with_pod_reasons(self):
        pods = [load('pod_ready'), load('pod_probe_failing')]
        verdict = readiness.deployment(load('deployment_deadline'),
                                       {'pods': pods})
        self.assertEqual(FAILED, verdict.state)
        self.assertEqual(
            'deployment stalled rollout failed: ProgressDeadlineExceeded: '
            'ReplicaSet "stalled-567d468c8c" has timed out progressing.; '
            'pod unready container app: running but not ready (readiness '
            'probe exec sh -c echo not yet; exit 1 not passing)',
            verdict.message)

    def test_stale_deadline_condition_of_an_older_generation(self):
        deployment = load('deployment_deadline')
        deployment['metadata']['generation'] = 3
        self.assertEqual(PROGRESSING,
                         readiness.deployment(deployment).state)

    def test_replicas_default_to_one(self):
        deployment = load('deployment_ready')
        del deployment['spec']['replicas']
        deployment['status'].update(replicas=1, readyReplicas=1,
                                    availableReplicas=1, updatedReplicas=1)
        self.assertEqual(READY, readiness.deployment(deployment).state)
        deployment['status'] = {'observedGeneration': 1}
        self.assertEqual('0/1 replicas updated, 0/1 replicas ready',
                         readiness.deployment(deployment).message)

    def test_scaled_to_zero_is_ready(self):
        deployment = load('deployment_ready')
        deployment['spec']['replicas'] = 0
        deployment['status'] = {'observedGeneration': 1, 'conditions': []}
        self.assertEqual(READY, readiness.deployment(deployment).state)

    def test_paused_rollout_says_so(self):
        deployment = load('deployment_rolling')
        deployment['spec']['paused'] = True
        self.assertIn('rollout is paused (spec.paused is true)',
                      readiness.deployment(deployment).message)

    def test_replica_failure_condition_is_reported(self):
        deployment = with_status('deployment_ready', readyReplicas=2,
                                 availableReplicas=2, replicas=2,
                                 updatedReplicas=2)
        deployment['status']['conditions'].append({
            'lastTransitionTime': '2026-11-22T04:10:12Z',
            'lastUpdateTime': '2026-11-22T04:10:12Z',
            'message': 'pods "web-7c5ddbdf54-4bq9z" is forbidden: exceeded '
                       'quota: compute, requested: pods=1, used: pods=2, '
                       'limited: pods=2',
            'reason': 'FailedCreate', 'status': 'True',
            'type': 'ReplicaFailure'})
        self.assertIn('FailedCreate: pods "web-7c5ddbdf54-4bq9z" is '
                      'forbidden: exceeded quota',
                      readiness.deployment(deployment).message)

    def test_pod_reasons_are_capped_worst_first(self):
        deployment = with_status('deployment_ready', readyReplicas=0,
                                 availableReplicas=0)
        starting = load('pod_imagepull')
        container_of(starting)['state'] = {
            'waiting': {'reason': 'ContainerCreating'}}
        pods = [starting] + [load('pod_crashloop') for _ in range(4)]
        for restarts, pod in enumerate(pods[1:]):
            container_of(pod)['state'][
                'terminated']['exitCode'] = restarts + 1
        message = readiness.deployment(deployment, {'pods': pods}).message
        self.assertEqual(3, message.count('crash loop'))
        self.assertNotIn('ContainerCreating', message)
        self.assertTrue(message.endswith('; and 2 more'), message)

    def test_pods_with_the_same_problem_are_named_once(self):
        deployment = with_status('deployment_ready', readyReplicas=0,
                                 availableReplicas=0)
        pods = [load('pod_crashloop') for _ in range(3)]
        for n, pod in enumerate(pods):
            pod['metadata']['name'] = 'web-5d8f9c7b6d-%d' % n
        message = readiness.deployment(deployment, {'pods': pods}).message
        self.assertEqual(1, message.count('crash loop'), message)
        self.assertIn('pod web-5d8f9c7b6d-0 container ', message)
        self.assertTrue(message.endswith(' (and 2 more pods the same)'),
                        message)

    def test_terminating_pods_are_not_blamed(self):
        deployment = with_status('deployment_ready', readyReplicas=2)
        pod = load('pod_crashloop')
        pod['metadata']['deletionTimestamp'] = '2026-11-22T04:25:00Z'
        self.assertEqual('2/3 replicas ready', readiness.deployment(
            deployment, {'pods': [pod]}).message)


class ReplicaSetTest(VerdictCase):

    def test_ready(self):
        self.assertEqual(READY,
                         readiness.replicaset(load('replicaset_ready')).state)

    def test_not_all_ready(self):
        replicaset = with_status('replicaset_ready', readyReplicas=1,
                                 availableReplicas=1)
        pod = load('pod_imagepull')
        verdict = readiness.replicaset(replicaset, {'pods': [pod]})
        self.assertVerdict(
            PROGRESSING, '1/3 replicas ready; pod %s container app: '
            'ImagePullBackOff' % pod['metadata']['name'], verdict)


class StatefulSetTest(unittest.TestCase):

    def test_ready(self):
        self.assertEqual(READY, readiness.statefulset(
            load('statefulset_ready')).state)

    def test_rolling_update_waits_for_the_new_revision(self):
        sts = with_status('statefulset_ready', updatedReplicas=1,
                          currentReplicas=2, updateRevision='db-7f8c9d6b5')
        verdict = readiness.statefulset(sts)
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('1/3 replicas updated to revision db-7f8c9d6b5',
                         verdict.message)

    def test_all_updated_but_revision_not_yet_current(self):
        sts = with_status('statefulset_ready', updateRevision='db-7f8c9d6b5')
        self.assertEqual('revision db-7f8c9d6b5 not yet current (current: '
                         'db-6dc9cb6956)', readiness.statefulset(sts).message)

    def test_partition_keeps_old_pods_on_purpose(self):
        sts = with_status('statefulset_ready', updatedReplicas=1,
                          currentReplicas=2, updateRevision='db-7f8c9d6b5')
        sts['spec']['updateStrategy']['rollingUpdate']['partition'] = 2
        self.assertEqual(READY, readiness.statefulset(sts).state)
        sts['status']['updatedReplicas'] = 0
        self.assertEqual('0/1 replicas updated to revision db-7f8c9d6b5',
                         readiness.statefulset(sts).message)

    def test_on_delete_strategy_only_needs_ready_pods(self):
        sts = with_status('statefulset_ready', updatedReplicas=0,
                          updateRevision='db-7f8c9d6b5')
        sts['spec']['updateStrategy'] = {'type': 'OnDelete'}
        self.assertEqual(READY, readiness.statefulset(sts).state)

    def test_not_ready_pods(self):
        sts = with_status('statefulset_ready', readyReplicas=2,
                          availableReplicas=2)
        pod = load('pod_crashloop')
        verdict = readiness.statefulset(sts, {'pods': [pod]})
        self.assertEqual('2/3 replicas ready; ' + CRASH, verdict.message)


class DaemonSetTest(unittest.TestCase):

    def test_ready(self):
        verdict = readiness.daemonset(load('daemonset_ready'))
        self.assertEqual(readiness.Verdict(READY, '1/1 pods ready'), verdict)

    def test_update_in_progress(self):
        ds = with_status('daemonset_ready', desiredNumberScheduled=2,
                         currentNumberScheduled=2, updatedNumberScheduled=1,
                         numberReady=1, numberAvailable=1)
        self.assertEqual('1/2 pods updated, 1/2 pods ready',
                         readiness.daemonset(ds).message)

    def test_on_delete_strategy_ignores_the_updated_count(self):
        ds = with_status('daemonset_ready', updatedNumberScheduled=0)
        ds['spec']['updateStrategy'] = {'type': 'OnDelete'}
        self.assertEqual(READY, readiness.daemonset(ds).state)

    def test_unavailable_pods(self):
        ds = with_status('daemonset_ready', numberAvailable=0)
        self.assertEqual('0/1 pods available',
                         readiness.daemonset(ds).message)

    def test_no_matching_node_is_ready(self):
        ds = load('daemonset_ready')
        ds['status'] = {'currentNumberScheduled': 0,
                        'desiredNumberScheduled': 0, 'numberMisscheduled': 0,
                        'numberReady': 0, 'observedGeneration': 1}
        verdict = readiness.daemonset(ds)
        self.assertEqual(READY, verdict.state)
        self.assertIn('no node', verdict.message)


class JobTest(unittest.TestCase):

    def test_complete_job_is_ready(self):
        verdict = readiness.job(load('job_complete'))
        self.assertEqual(READY, verdict.state)
        self.assertEqual('job db-sync completed (1 succeeded)',
                         verdict.message)

    def test_running_job_reports_counts(self):
        verdict = readiness.job(load('job_running'))
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('job db-retry is running: 0/1 succeeded, 1 active, '
                         '1 failed (backoffLimit 2)', verdict.message)

    def test_failed_job_fails_at_once_with_the_failed_pod_reasons(self):
        pods = [load('pod_succeeded'), load('pod_failed')]
        verdict = readiness.job(load('job_failed'), {'pods': pods})
        self.assertEqual(FAILED, verdict.state)
        self.assertEqual(
            "job migrate failed: pod db-sync-failed container app: "
            "terminated with exit code 2: "
            "Can't locate revision identified by 'ae1027a6acf'; "
            "BackoffLimitExceeded: Job has reached the specified backoff "
            "limit",
            verdict.message)

    def test_failure_target_fails_before_the_failed_condition(self):
        job = load('job_failed')
        del job['status']['conditions'][1]
        self.assertEqual(FAILED, readiness.job(job).state)

    def test_failed_condition_that_is_false_is_not_a_failure(self):
        job = load('job_failed')
        for condition in job['status']['conditions']:
            condition['status'] = 'False'
        self.assertEqual(PROGRESSING, readiness.job(job).state)

    def test_suspended_job(self):
        job = load('job_running')
        job['spec']['suspend'] = True
        verdict = readiness.job(job)
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('job db-retry is suspended (spec.suspend is true)',
                         verdict.message)

    def test_running_job_shows_why_its_pod_restarts(self):
        pod = load('pod_failed')
        pod['status']['phase'] = 'Running'
        status = container_of(pod)
        status['lastState'] = {'terminated': status['state']['terminated']}
        status['state'] = {'waiting': {'reason': 'CrashLoopBackOff',
                                       'message': 'back-off 20s'}}
        message = readiness.job(load('job_running'), {'pods': [pod]}).message
        self.assertIn('pod db-sync-failed container app: '
                      'CrashLoopBackOff: back-off 20s (last exit code 2: '
                      "Can't locate", message)


    def test_a_job_whose_pod_no_node_takes_is_pending_not_running(self):
        job = load('job_pending')
        verdict = kinds.evaluate(job, {'pods': load('job_pending_pods')})
        self.assertEqual((PROGRESSING, readiness.PENDING),
                         (verdict.state, verdict.stuck))
        self.assertTrue(verdict.message.startswith(
            'job db-sync is pending: 0/1 succeeded, 1 active, 0 failed '
            '(backoffLimit 0); pod db-sync-'), verdict.message)
        self.assertIn(' not scheduled: Unschedulable: 0/4 nodes are '
                      'available: 1 node(s) didn\'t match Pod\'s node '
                      'affinity/selector', verdict.message)
        # Before its pods are read nothing says it is stuck.
        self.assertEqual('', kinds.evaluate(job).stuck)

    def test_a_job_whose_pod_runs_is_running(self):
        pod = load('pod_failed')
        pod['status']['phase'] = 'Running'
        self.assertIn('job db-retry is running: ', readiness.job(
            load('job_running'), {'pods': [pod]}).message)


class StuckTest(unittest.TestCase):
    """Waits the cluster keeps retrying but that do not end by themselves
    are marked stuck, with the grace they get; slow ones are not."""

    def test_a_pod_no_node_takes(self):
        self.assertEqual(readiness.PENDING, kinds.evaluate(
            load('pod_unschedulable')).stuck)

    def test_the_schedulers_message_is_said_once(self):
        verdict = kinds.evaluate(load('pod_unschedulable'))
        events = [event for event in load('events_web')['items']
                  if event['reason'] in ('FailedScheduling', 'FailedMount')]
        explained = readiness.explain(verdict, events)
        # The pod's condition says it; the FailedScheduling event is not
        # repeated, another warning still is.
        self.assertIn('not scheduled: Unschedulable: 0/4 nodes', explained)
        self.assertNotIn('FailedScheduling', explained)
        self.assertIn('Warning events: FailedMount: ', explained)

    def test_a_pod_whose_configmap_key_is_missing(self):
        self.assertEqual(readiness.PENDING, kinds.evaluate(
            load('pod_config_error')).stuck)

    def test_a_pod_preempting_its_way_onto_a_node_is_only_slow(self):
        pod = load('pod_unschedulable')
        pod['status']['nominatedNodeName'] = 'kwok-node-0'
        self.assertEqual('', kinds.evaluate(pod).stuck)

    def test_a_scheduled_pod_creating_its_container_is_only_slow(self):
        pod = load('pod_imagepull')
        container_of(pod)['state'] = {
            'waiting': {'reason': 'ContainerCreating'}}
        verdict = kinds.evaluate(pod)
        self.assertEqual((PROGRESSING, ''), (verdict.state, verdict.stuck))

    def test_a_rollout_whose_new_pods_no_node_takes(self):
        deployment = load('deployment_rolling')
        pods = [load('pod_ready'), load('pod_unschedulable')]
        verdict = kinds.evaluate(deployment, {'pods': pods})
        self.assertEqual((PROGRESSING, readiness.PENDING),
                         (verdict.state, verdict.stuck))
        self.assertIn('not scheduled: Unschedulable: 0/4 nodes are '
                      'available', verdict.message)

    def test_an_image_that_cannot_be_pulled_is_named_first(self):
        pods = [load('pod_unschedulable'), load('pod_image_missing')]
        self.assertEqual(readiness.IMAGE_PULL, kinds.evaluate(
            load('deployment_rolling'), {'pods': pods}).stuck)


class CronJobTest(unittest.TestCase):

    def test_a_schedule_is_ready_once_it_exists(self):
        verdict = readiness.cronjob(load('cronjob'))
        self.assertEqual(READY, verdict.state)
        self.assertIn("'0 3 * * *'", verdict.message)

    def test_suspended_is_ready_too(self):
        cronjob = load('cronjob')
        cronjob['spec']['suspend'] = True
        verdict = readiness.cronjob(cronjob)
        self.assertEqual(readiness.Verdict(READY, 'cronjob backup is '
                                                  'suspended'), verdict)


class ServiceTest(unittest.TestCase):

    def test_ready_with_one_ready_endpoint(self):
        slices = [load('endpointslice_web')]
        self.assertEqual(READY, readiness.service(
            load('service_clusterip'), {'endpointslices': slices}).state)

    def test_no_ready_endpoint_names_the_selector(self):
        endpoint_slice = load('endpointslice_web')
        for endpoint in endpoint_slice['endpoints']:
            endpoint['conditions']['ready'] = False
        verdict = readiness.service(load('service_clusterip'),
                                    {'endpointslices': [endpoint_slice]})
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('service web has no ready endpoints (3 not ready) '
                         'for selector app=web,tier=frontend',
                         verdict.message)

    def test_no_endpoint_slice_yet(self):
        verdict = readiness.service(load('service_clusterip'),
                                    {'endpointslices': []})
        self.assertEqual('service web has no ready endpoints for selector '
                         'app=web,tier=frontend', verdict.message)

    def test_unset_ready_condition_means_ready(self):
        endpoint_slice = load('endpointslice_web')
        del endpoint_slice['endpoints'][1]['conditions']['ready']
        endpoint_slice['endpoints'] = endpoint_slice['endpoints'][1:]
        self.assertEqual(READY, readiness.service(
            load('service_clusterip'),
            {'endpointslices': [endpoint_slice]}).state)

    def test_slices_of_another_service_do_not_count(self):
        endpoint_slice = load('endpointslice_web')
        endpoint_slice['metadata']['labels'][
            'kubernetes.io/service-name'] = 'web-canary'
        self.assertEqual(PROGRESSING, readiness.service(
            load('service_clusterip'),
            {'endpointslices': [endpoint_slice]}).state)

    def test_services_without_endpoints_to_wait_for(self):
        headless = load('service_clusterip')
        headless['spec'].update(clusterIP='None', clusterIPs=['None'])
        selectorless = load('service_clusterip')
        del selectorless['spec']['selector']
        external = load('service_clusterip')
        external['spec'] = {'type': 'ExternalName',
                            'externalName': 'db.example.com'}
        for service in (headless, selectorless, external):
            self.assertEqual(READY, readiness.service(service, {}).state)
        self.assertEqual('service web is an alias of db.example.com',
                         readiness.service(external).message)

    def test_load_balancer_needs_an_address(self):
        slices = [load('endpointslice_web')]
        slices[0]['metadata']['labels'][
            'kubernetes.io/service-name'] = 'web-public'
        service = load('service_loadbalancer')
        verdict = readiness.service(service, {'endpointslices': slices})
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('service web-public is waiting for a load balancer '
                         'address (status.loadBalancer.ingress is empty)',
                         verdict.message)
        service['status']['loadBalancer']['ingress'] = [
            {'ip': '192.0.2.10', 'ipMode': 'VIP'}]
        self.assertEqual(READY, readiness.service(
            service, {'endpointslices': slices}).state)


class PersistentVolumeClaimTest(unittest.TestCase):

    def test_bound(self):
        claim = load('pvc_bound_local')
        verdict = readiness.persistentvolumeclaim(claim)
        self.assertEqual(READY, verdict.state)
        self.assertIn(claim['spec']['volumeName'], verdict.message)

    def test_pending_until_first_consumer_is_ready(self):
        verdict = readiness.persistentvolumeclaim(
            load('pvc_pending'),
            {'storageclass': load('storageclass_local_path')})
        self.assertEqual(READY, verdict.state)
        self.assertIn('binds on first consumer', verdict.message)

    def test_pending_with_immediate_binding_is_progressing(self):
        storage_class = load('storageclass_local_path')
        storage_class['volumeBindingMode'] = 'Immediate'
        verdict = readiness.persistentvolumeclaim(
            load('pvc_pending'), {'storageclass': storage_class})
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertEqual('claim data is Pending, waiting for a volume '
                         '(storage class %s)' % storage_class['metadata'][
                             'name'], verdict.message)

    def test_pending_without_storage_class(self):
        pvc = load('pvc_pending')
        pvc['spec']['storageClassName'] = ''
        verdict = readiness.persistentvolumeclaim(pvc, {'storageclass': None})
        self.assertEqual(PROGRESSING, verdict.state)
        self.assertIn('no storage class: needs a matching PersistentVolume',
                      verdict.message)

    def test_a_claim_nothing_can_bind_says_so_in_the_claims_words(self):
        verdict = kinds.evaluate(load('pvc_no_class'), {
            'storageclass': None, 'events': load('events_pvc_no_class')})
        self.assertEqual((PROGRESSING, readiness.PENDING),
                         (verdict.state, verdict.stuck))
        self.assertEqual(
            'claim no-class is Pending, waiting for a volume (no storage '
            'class: needs a matching PersistentVolume); FailedBinding: no '
            'persistent volumes available for this claim and no storage '
            'class is set', verdict.message)

    def test_a_claim_of_a_class_that_does_not_exist(self):
        claim = load('pvc_no_such_class')
        events = load('events_pvc_no_such_class')
        verdict = kinds.evaluate(claim, {'storageclass': None,
                                             'events': events})
        self.assertEqual(readiness.PENDING, verdict.stuck)
        self.assertTrue(verdict.message.endswith(
            'ProvisioningFailed: storageclass.storage.k8s.io "%s" not found'
            % claim['spec']['storageClassName']), verdict.message)
        # Said once: the verdict already quotes the Warning event.
        self.assertEqual(verdict.message, readiness.explain(verdict, events))

    def test_a_claim_a_provisioner_is_at_work_on_is_only_slow(self):
        verdict = kinds.evaluate(load('pvc_pending'), {
            'storageclass': None,
            'events': load('events_pvc_provisioning_synthetic')})
        self.assertEqual((PROGRESSING, ''), (verdict.state, verdict.stuck))

    def test_lost_claim_fails(self):
        pvc = with_status('pvc_bound_local', phase='Lost')
        verdict = readiness.persistentvolumeclaim(pvc)
        self.assertEqual(FAILED, verdict.state)
        self.assertIn('lost its volume ' + pvc['spec']['volumeName'],
                      verdict.message)


class NamespaceTest(VerdictCase):

    def test_active(self):
        self.assertEqual(READY,
                         readiness.namespace(load('namespace_active')).state)

    def test_terminating_fails_with_what_remains(self):
        namespace = load('namespace_terminating')
        verdict = readiness.namespace(namespace)
        self.assertVerdict(
            FAILED, 'namespace %s is terminating; NamespaceContentRemaining: '
            'SomeResourcesRemain: Some resources are remaining: configmaps.'
            % namespace['metadata']['name'], verdict)
        self.assertIn('SomeFinalizersRemain: Some content in the namespace '
                      'has finalizers remaining: heat-k8s.test/hold',
                      verdict.message)
        self.assertNotIn('ResourcesDiscovered', verdict.message)


class ExistenceTest(unittest.TestCase):

    def test_configmap_and_secret_are_ready_once_they_exist(self):
        for name in ('configmap', 'secret'):
            self.assertEqual(readiness.Verdict(READY),
                             kinds.evaluate(load(name)))

    def test_unknown_kinds_are_ready_once_they_exist(self):
        custom = {'apiVersion': 'example.com/v1', 'kind': 'Database',
                  'metadata': {'name': 'db', 'namespace': 'demo'},
                  'status': {'conditions': [{'type': 'Ready',
                                             'status': 'False'}]}}
        self.assertEqual(READY, kinds.evaluate(custom).state)


class EvaluateTest(unittest.TestCase):

    def test_dispatches_on_kind(self):
        pods = {'pods': [load('pod_crashloop')]}
        deployment = with_status('deployment_ready', readyReplicas=2)
        self.assertEqual(readiness.deployment(deployment, pods),
                         kinds.evaluate(deployment, pods))
        self.assertEqual(FAILED, kinds.evaluate(load('job_failed')).state)

    def test_each_kind_declares_its_rule_and_related_objects(self):
        declared = kinds.KINDS
        self.assertIs(readiness.job, declared['Job'].ready)
        self.assertIs(readiness.exists, declared['ConfigMap'].ready)
        self.assertIs(readiness.exists, declared['Role'].ready)
        self.assertIs(readiness.exists, kinds.declared('Database').ready)
        # A Job's, StatefulSet's and DaemonSet's controller says only in
        # events that the API server refuses their pods; a Deployment's in
        # its ReplicaFailure condition.
        for name in ('Job', 'StatefulSet', 'DaemonSet'):
            self.assertEqual({'pods', 'events'}, declared[name].related)
        self.assertEqual({'pods'}, declared['Deployment'].related)
        self.assertEqual({'endpointslices'}, declared['Service'].related)
        self.assertEqual({'storageclass', 'events'},
                         declared['PersistentVolumeClaim'].related)
        self.assertEqual(frozenset(), declared['ConfigMap'].related)
        for kind in kinds.DECLARATIONS:
            # A rule is named after its kind, so one guess finds it.
            if kind.ready is not readiness.exists:
                self.assertEqual(kind.name.lower(), kind.ready.__name__)
            self.assertFalse(kind.decides & kind.explains, kind.name)

    def test_explaining_objects_never_change_the_state(self):
        # The resource layer fetches EXPLAINS only for failures and
        # timeouts: a workload's pods may add detail, never decide.
        pods = [load(name) for name in (
            'pod_crashloop', 'pod_imagepull', 'pod_config_error',
            'pod_failed', 'pod_unschedulable', 'pod_ready')]
        fixtures = ('daemonset_ready', 'deployment_deadline',
                    'deployment_ready', 'deployment_rolling',
                    'job_complete', 'job_failed', 'job_running',
                    'replicaset_ready', 'statefulset_ready')
        for name in fixtures:
            obj = load(name)
            self.assertTrue(kinds.KINDS[obj['kind']].explains, name)
            self.assertFalse(kinds.KINDS[obj['kind']].decides, name)
            for related in ([], pods, pods[:1]):
                self.assertEqual(
                    kinds.evaluate(obj).state,
                    kinds.evaluate(obj, {'pods': related}).state,
                    name)

    def test_missing_object_fails(self):
        self.assertEqual(FAILED, kinds.evaluate(None).state)

    def test_object_being_deleted_will_not_become_ready(self):
        deployment = with_status('deployment_ready', readyReplicas=2)
        deployment['metadata'].update(
            deletionTimestamp='2026-11-22T05:00:00Z',
            finalizers=['foregroundDeletion'])
        verdict = kinds.evaluate(deployment)
        self.assertEqual(FAILED, verdict.state)
        self.assertEqual('Deployment web is being deleted (finalizers: '
                         'foregroundDeletion); 2/3 replicas ready',
                         verdict.message)

    def test_ready_object_being_deleted_stays_ready(self):
        pod = load('pod_ready')
        pod['metadata']['deletionTimestamp'] = '2026-11-22T05:00:00Z'
        self.assertEqual(READY, kinds.evaluate(pod).state)

    def test_secret_data_never_appears_in_messages(self):
        secret = load('secret')
        secret['metadata']['deletionTimestamp'] = '2026-11-22T05:00:00Z'
        for obj in (secret, load('secret')):
            message = kinds.evaluate(obj).message
            for value in ('czNjcjN0LVBhNTV3MHJk', 's3cr3t-Pa55w0rd',
                          'keystone'):
                self.assertNotIn(value, message)


class ExplainTest(unittest.TestCase):

    def test_recent_distinct_warnings_most_recent_first(self):
        # Four pods that cannot start, each with its kubelet's or the
        # scheduler's (events.k8s.io: eventTime, no count) warnings.
        events = load('events_web')['items']
        crash = next(e['involvedObject'] for e in events
                     if e['reason'] == 'BackOff')
        verdict = readiness.Verdict(PROGRESSING, '2/3 replicas ready')
        self.assertEqual(
            '2/3 replicas ready. Warning events: BackOff: Back-off '
            'restarting failed container app in pod crash_%s(%s); '
            'FailedMount: MountVolume.SetUp failed for volume "config" : '
            'configmap "absent" not found (x3); Failed: Error: couldn\'t '
            'find key db_host in ConfigMap %s/web-config (x2)' % (
                crash['namespace'], crash['uid'], crash['namespace']),
            diagnosis.explain(verdict, events))

    def test_limit_and_normal_events(self):
        events = load('events_web')['items']
        found = diagnosis.warning_events(events, limit=10)
        self.assertEqual(4, len(found))
        self.assertTrue(found[-1].startswith('FailedScheduling: 0/'))
        self.assertFalse(any('Pulled' in text for text in found))

    def test_without_warnings_the_message_is_unchanged(self):
        verdict = readiness.Verdict(PROGRESSING, 'claim data is Pending')
        normal = [e for e in load('events_web')['items']
                  if e['type'] == 'Normal']
        self.assertEqual('claim data is Pending',
                         diagnosis.explain(verdict, normal))
        self.assertEqual('claim data is Pending',
                         diagnosis.explain(verdict, []))

    def test_events_alone(self):
        (event,) = [e for e in load('events_web')['items']
                    if e['reason'] == 'FailedMount']
        self.assertEqual(
            'Warning events: FailedMount: MountVolume.SetUp failed for '
            'volume "config" : configmap "absent" not found (x3)',
            diagnosis.explain(readiness.Verdict(FAILED), [event]))


if __name__ == '__main__':
    unittest.main()
