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

"""OS::Kubernetes::* driven by Heat's engine against the real cluster."""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

import base64
import copy
import json

from oslo_config import cfg

from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import sealing
from tests import simulated
from tests.functional.specs import SIM
from tests.functional.specs import deployment_spec
from tests.functional.specs import hot
from tests.functional.specs import job_spec
from tests.functional.specs import pod_template

SECRET = 'Sup3r-s3cret-passw0rd'


APP = hot({
    'config': {'type': 'OS::Kubernetes::ConfigMap', 'properties': {
        'data': {'api.conf': '[DEFAULT]\ndebug = false\n'}}},
    'password': {'type': 'OS::Kubernetes::Secret', 'properties': {
        'string_data': {'password': SECRET}}},
    'db_sync': {'type': 'OS::Kubernetes::Job', 'depends_on': ['config'],
                'properties': {'spec': job_spec()}},
    'api': {'type': 'OS::Kubernetes::Deployment',
            'depends_on': ['db_sync', 'password'],
            'properties': {'spec': {
                'replicas': 3, 'selector': {'matchLabels': {'app': 'api'}},
                'template': {
                    'metadata': {'labels': {'app': 'api'}, 'annotations': {
                        'config-checksum': {
                            'get_attr': ['config', 'checksum']}}},
                    'spec': simulated.on_kwok({'containers': [{
                        'name': 'api', 'image': 'registry.invalid/api:1',
                        'ports': [{'containerPort': 5000}]}]})}}}},
    'api_service': {'type': 'OS::Kubernetes::Service',
                    'depends_on': ['api'],
                    'properties': {'spec': {
                        'selector': {'app': 'api'},
                        'ports': [{'port': 80, 'targetPort': 5000}]}}},
}, outputs={'endpoint': {'value': {'get_attr': ['api_service',
                                                'endpoint']}}})


class StackLifecycleTest(heat_cluster.ClusterTestCase):

    def test_create_wires_services_and_delete_leaves_nothing(self):
        stack = self.create(APP)
        self.assertState(stack, 'CREATE', 'COMPLETE')

        api = self.apps.read_namespaced_deployment(
            stack['api'].data()['name'], self.ns)
        self.assertEqual(3, api.status.ready_replicas)
        self.assertEqual('heat', api.metadata.labels[
            'app.kubernetes.io/managed-by'])
        self.assertEqual(stack.id, api.metadata.labels[
            'heat.openstack.org/stack-id'])
        # The Job completed before the Deployment was created.
        job = self.batch.read_namespaced_job(
            stack['db_sync'].data()['name'], self.ns)
        self.assertEqual(1, job.status.succeeded)
        self.assertLess(job.status.completion_time,
                        api.metadata.creation_timestamp.replace(
                            microsecond=999999))
        self.assertEqual(3, stack['api'].FnGetAtt('ready_replicas'))
        self.assertEqual(stack['config'].FnGetAtt('checksum'),
                         api.spec.template.metadata.annotations[
                             'config-checksum'])

        svc = self.core.read_namespaced_service(
            stack['api_service'].data()['name'], self.ns)
        self.assertEqual(svc.spec.cluster_ip,
                         stack['api_service'].FnGetAtt('cluster_ip'))
        self.assertEqual('%s:80' % svc.spec.cluster_ip,
                         self.output(stack, 'endpoint'))

        selector = 'heat.openstack.org/stack-id=%s' % stack.id
        stack = self.delete(stack)
        self.assertState(stack, 'DELETE', 'COMPLETE')
        for lister in (self.core.list_namespaced_config_map,
                       self.core.list_namespaced_secret,
                       self.core.list_namespaced_service,
                       self.apps.list_namespaced_deployment,
                       self.batch.list_namespaced_job,
                       self.core.list_namespaced_pod):
            self.assertEqual([], lister(self.ns,
                                        label_selector=selector).items,
                             lister.__name__)

    def test_secret_values_never_reach_heat(self):
        stack = self.create(APP)
        self.assertState(stack, 'CREATE', 'COMPLETE')
        secret = stack['password']
        live = self.core.read_namespaced_secret(secret.data()['name'],
                                                self.ns)
        self.assertEqual(SECRET, base64.b64decode(
            live.data['password']).decode())
        # Nothing Heat keeps or shows carries the value or its base64.
        shown = [json.dumps(secret.FnGetAtt('show'), default=str),
                 json.dumps(secret.FnGetAtt('status'), default=str),
                 str(secret.FnGetAtt('checksum')),
                 json.dumps(secret.data()),
                 json.dumps(secret._stored_properties_data, default=str)]
        for event in self.events(stack):
            shown.append(json.dumps(event.resource_properties, default=str))
            shown.append(str(event.resource_status_reason))
        encoded = base64.b64encode(SECRET.encode()).decode()
        for text in shown:
            self.assertNotIn(SECRET, text)
            self.assertNotIn(encoded, text)
        self.assertNotIn('last-applied-configuration',
                         json.dumps(live.metadata.annotations or {}))

    def test_secret_references_open_only_into_the_secret(self):
        ref = {'get_attr': ['password', 'reference']}
        stack = self.create(hot({
            'password': {'type': 'OS::HeatK8s::RandomSecret'},
            'secret': {'type': 'OS::Kubernetes::Secret', 'properties': {
                'string_data': {'url': {'list_join': [
                    '', ['mysql://app:', ref, '@db/app']]}},
                'data': {'raw': ref},
                'templates': {'app.conf': 'password = {{ pw }}\n'},
                'values': {'pw': ref}}}}))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        value = sealing.open_text(stack['password'].FnGetAtt('reference'),
                                  stack.tenant_id, sensitive.keyring())
        live = self.core.read_namespaced_secret(
            stack['secret'].data()['name'], self.ns)
        decoded = {k: base64.b64decode(v).decode()
                   for k, v in live.data.items()}
        self.assertEqual({'url': 'mysql://app:%s@db/app' % value,
                          'raw': value, 'app.conf': 'password = %s\n' % value},
                         decoded)
        kept = [json.dumps(stack['secret']._stored_properties_data),
                json.dumps([e.resource_properties for e in
                            self.events(stack)], default=str),
                json.dumps(stack['password'].data())]
        for text in kept:
            self.assertNotIn(value, text)


class UpdateTest(heat_cluster.ClusterTestCase):

    def deployment_stack(self, spec, name=None):
        props = {'spec': spec}
        if name:
            props['name'] = name
        return hot({'web': {'type': 'OS::Kubernetes::Deployment',
                            'properties': props}})

    def test_in_place_update_rolls_out(self):
        stack = self.create(self.deployment_stack(deployment_spec('web')))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        uid = stack['web'].resource_id
        stack = self.update(stack, self.deployment_stack(deployment_spec(
            'web', image='registry.invalid/app:2')))
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        self.assertEqual(uid, stack['web'].resource_id)
        live = self.apps.read_namespaced_deployment(
            stack['web'].data()['name'], self.ns)
        self.assertEqual('registry.invalid/app:2',
                         live.spec.template.spec.containers[0].image)
        self.assertEqual(3, live.status.updated_replicas)
        self.assertEqual(3, live.status.ready_replicas)

    def test_immutable_selector_change_replaces(self):
        stack = self.create(self.deployment_stack(deployment_spec('web'),
                                                  name='web'))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        old_uid = stack['web'].resource_id
        stack = self.update(stack, self.deployment_stack(
            deployment_spec('web2'), name='web'))
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        live = self.apps.read_namespaced_deployment('web', self.ns)
        self.assertNotEqual(old_uid, live.metadata.uid)
        self.assertEqual(live.metadata.uid, stack['web'].resource_id)
        self.assertEqual({'app': 'web2'}, live.spec.selector.match_labels)

    def test_job_template_change_replaces_job(self):
        tmpl = hot({'migrate': {'type': 'OS::Kubernetes::Job',
                                'properties': {'spec': job_spec()}}})
        stack = self.create(tmpl)
        self.assertState(stack, 'CREATE', 'COMPLETE')
        old = stack['migrate'].data()['name'], stack['migrate'].resource_id
        new_tmpl = copy.deepcopy(tmpl)
        new_tmpl['resources']['migrate']['properties']['spec'] = job_spec(
            image='registry.invalid/migrate:2')
        stack = self.update(stack, new_tmpl)
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        self.assertNotEqual(old[1], stack['migrate'].resource_id)
        names = [j.metadata.name for j in
                 self.batch.list_namespaced_job(self.ns).items]
        self.assertEqual([stack['migrate'].data()['name']], names)
        self.assertNotIn(old[0], names)

    def job_events(self, name):
        return [e.reason for e in self.core.list_namespaced_event(
            self.ns, field_selector='involvedObject.kind=Job,'
            'involvedObject.name=' + name).items]

    def test_delete_job_runs_only_when_deleted(self):
        tmpl = hot({'unregister': {'type': 'OS::Kubernetes::Job',
                                   'properties': {'run_at': 'delete',
                                                  'spec': job_spec()}}})
        stack = self.create(tmpl)
        self.assertState(stack, 'CREATE', 'COMPLETE')
        name = stack['unregister'].data()['name']
        changed = copy.deepcopy(tmpl)
        changed['resources']['unregister']['properties']['spec'] = job_spec(
            image='registry.invalid/migrate:2')
        stack = self.update(stack, changed)
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        # Neither the create nor the change ran it.
        self.assertEqual([], self.batch.list_namespaced_job(self.ns).items)
        self.assertEqual([], self.job_events(name))
        stack = self.delete(stack)
        self.assertState(stack, 'DELETE', 'COMPLETE')
        self.assertIn('Completed', self.job_events(name))
        self.assertEqual([], self.batch.list_namespaced_job(self.ns).items)

    def test_delete_job_still_running_at_a_poll_is_waited_for(self):
        # No watch: the first look finds the Job running and polls again
        # (a run outlasting the watch did so in e2e, and was deleted).
        cfg.CONF.set_override('watch_seconds', 0, group='kubernetes')
        stack = self.create(hot({'unregister': {
            'type': 'OS::Kubernetes::Job',
            'properties': {'run_at': 'delete', 'spec': job_spec()}}}))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        name = stack['unregister'].data()['name']
        stack = self.delete(stack)
        self.assertState(stack, 'DELETE', 'COMPLETE')
        self.assertIn('Completed', self.job_events(name))

    def test_delete_job_bad_spec_refused_at_create(self):
        spec = job_spec()
        spec['template']['spec']['containers'][0]['name'] = 'Not_A_Name'
        stack = self.create(hot({'unregister': {
            'type': 'OS::Kubernetes::Job',
            'properties': {'run_at': 'delete', 'spec': spec}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        self.assertIn('spec.template.spec.containers[0].name',
                      stack['unregister'].status_reason)
        self.assertEqual([], self.batch.list_namespaced_job(self.ns).items)

    def test_failed_delete_job_fails_the_delete_and_runs_anew(self):
        stack = self.create(hot({'unregister': {
            'type': 'OS::Kubernetes::Job', 'properties': {
                'run_at': 'delete',
                'spec': job_spec({SIM + 'exit-code': '3',
                                  SIM + 'message': 'keystone refused'})}}}))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        for attempt in range(2):
            stack = self.delete(stack)
            self.assertState(stack, 'DELETE', 'FAILED')
            reason = stack.status_reason
            self.assertIn('resources.unregister: Job', reason)
            self.assertIn('exit code 3', reason)
            self.assertIn('keystone refused', reason)
            # The failed run went: the next delete's reason is its own.
            self.assertEqual([],
                             self.batch.list_namespaced_job(self.ns).items)

    def test_failed_rollout_fails_update_with_reason(self):
        stack = self.create(self.deployment_stack(deployment_spec(
            'web', replicas=2)))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        bad = deployment_spec('web', replicas=2, annotations={
            SIM + 'waiting-reason': 'CrashLoopBackOff',
            SIM + 'exit-code': '1', SIM + 'message': 'config invalid'})
        bad['progressDeadlineSeconds'] = 5
        stack = self.update(stack, self.deployment_stack(bad))
        self.assertState(stack, 'UPDATE', 'FAILED')
        self.assertIn('ProgressDeadlineExceeded', stack.status_reason)
        self.assertIn('crash loop, restarted 3 times, terminated with exit '
                      'code 1: config invalid', stack.status_reason)

    def test_drift_fails_check_and_converge_recreates(self):
        tmpl = hot({'settings': {'type': 'OS::Kubernetes::ConfigMap',
                                 'properties': {'data': {'a': '1'}}}})
        stack = self.create(tmpl)
        self.assertState(stack, 'CREATE', 'COMPLETE')
        name = stack['settings'].data()['name']
        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'COMPLETE')
        self.core.delete_namespaced_config_map(name, self.ns)
        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'FAILED')
        self.assertIn('does not exist', stack['settings'].status_reason)
        stack = self.update(stack, tmpl, converge=True)
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        live = self.core.read_namespaced_config_map(
            stack['settings'].data()['name'], self.ns)
        self.assertEqual({'a': '1'}, live.data)


class FailureReasonTest(heat_cluster.ClusterTestCase):

    def test_failing_job_names_exit_code_and_message(self):
        stack = self.create(hot({'sync': {
            'type': 'OS::Kubernetes::Job', 'properties': {
                'spec': job_spec({SIM + 'exit-code': '3',
                                  SIM + 'message': 'db unreachable'})}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['sync'].status_reason
        self.assertIn('BackoffLimitExceeded', reason)
        self.assertIn('exit code 3', reason)
        self.assertIn('db unreachable', reason)

    def test_pod_waiting_reason_reported_at_timeout(self):
        stack = self.create(hot({'pod': {
            'type': 'OS::Kubernetes::Pod', 'properties': {
                'timeout': 8,
                'annotations': {SIM + 'waiting-reason': 'ImagePullBackOff',
                                SIM + 'message': 'Back-off pulling image'},
                'spec': pod_template({})['spec']}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['pod'].status_reason
        self.assertIn('ImagePullBackOff', reason)
        self.assertIn('Back-off pulling image', reason)

    def test_deployment_timeout_names_its_pods_reasons(self):
        # The wait watches the Deployment until the timeout; the message
        # then comes from a fresh read with the pods that explain it.
        spec = deployment_spec('slow', replicas=1, annotations={
            SIM + 'waiting-reason': 'ImagePullBackOff',
            SIM + 'message': 'Back-off pulling image'})
        stack = self.create(hot({'web': {
            'type': 'OS::Kubernetes::Deployment',
            'properties': {'timeout': 8, 'spec': spec}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['web'].status_reason
        self.assertIn('not ready after 8s (timeout property)', reason)
        self.assertIn('ImagePullBackOff', reason)
        self.assertIn('Back-off pulling image', reason)

    def test_api_rejection_names_field_and_leaves_nothing(self):
        # From another resource, the port is unknown when `stack create`
        # validates (a literal 99999 is refused there): the API server
        # refuses it.
        stack = self.create(hot({
            'port': {'type': 'OS::Heat::Value',
                     'properties': {'type': 'number', 'value': 99999}},
            'svc': {'type': 'OS::Kubernetes::Service', 'properties': {
                'spec': {'selector': {'app': 'x'}, 'ports': [
                    {'port': {'get_attr': ['port', 'value']}}]}}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        self.assertIn('spec.ports[0].port', stack['svc'].status_reason)
        self.assertEqual([], self.core.list_namespaced_service(
            self.ns).items)

    def test_object_of_someone_else_is_not_taken_over(self):
        self.core.create_namespaced_config_map(self.ns, {
            'metadata': {'name': 'taken'}, 'data': {'mine': 'yes'}})
        stack = self.create(hot({'cfg': {
            'type': 'OS::Kubernetes::ConfigMap',
            'properties': {'name': 'taken', 'data': {'theirs': 'no'}}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        self.assertIn('already exists', stack['cfg'].status_reason)
        live = self.core.read_namespaced_config_map('taken', self.ns)
        self.assertEqual({'mine': 'yes'}, live.data)


class KindsTest(heat_cluster.ClusterTestCase):

    def test_every_kind_creates_and_suspends(self):
        stack = self.create(hot({
            'pod': {'type': 'OS::Kubernetes::Pod', 'properties': {
                'spec': pod_template({})['spec']}},
            'sts': {'type': 'OS::Kubernetes::StatefulSet', 'properties': {
                'spec': dict(deployment_spec('db', replicas=2),
                             serviceName='db')}},
            'ds': {'type': 'OS::Kubernetes::DaemonSet', 'properties': {
                'spec': {k: v for k, v in deployment_spec('agent').items()
                         if k != 'replicas'}}},
            'cron': {'type': 'OS::Kubernetes::CronJob', 'properties': {
                'spec': {'schedule': '*/5 * * * *',
                         'jobTemplate': {'spec': job_spec()}}}},
            'pvc': {'type': 'OS::Kubernetes::PersistentVolumeClaim',
                    'properties': {'wait': False, 'spec': {
                        'accessModes': ['ReadWriteOnce'],
                        'resources': {'requests': {'storage': '1Gi'}}}}},
            'deploy': {'type': 'OS::Kubernetes::Deployment',
                       'properties': {'spec': deployment_spec('web', 2)}},
        }))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        self.assertEqual(3, stack['ds'].FnGetAtt('ready_replicas'))
        self.assertEqual('Running', stack['pod'].FnGetAtt('phase'))
        self.assertTrue(stack['pod'].FnGetAtt('pod_ip'))

        stack = self.suspend(stack)
        self.assertState(stack, 'SUSPEND', 'COMPLETE')
        deploy = self.apps.read_namespaced_deployment(
            stack['deploy'].data()['name'], self.ns)
        self.assertEqual(0, deploy.spec.replicas)
        cron = self.batch.read_namespaced_cron_job(
            stack['cron'].data()['name'], self.ns)
        self.assertTrue(cron.spec.suspend)

        stack = self.resume(stack)
        self.assertState(stack, 'RESUME', 'COMPLETE')
        deploy = self.apps.read_namespaced_deployment(
            stack['deploy'].data()['name'], self.ns)
        self.assertEqual(2, deploy.spec.replicas)
        self.assertEqual(2, deploy.status.ready_replicas)
        cron = self.batch.read_namespaced_cron_job(
            stack['cron'].data()['name'], self.ns)
        self.assertFalse(cron.spec.suspend)

    def test_namespace_and_custom_resource_after_its_crd(self):
        crd = {
            'apiVersion': 'apiextensions.k8s.io/v1',
            'kind': 'CustomResourceDefinition',
            'metadata': {'name': 'widgets.example.org'},
            'spec': {'group': 'example.org', 'scope': 'Namespaced',
                     'names': {'plural': 'widgets', 'singular': 'widget',
                               'kind': 'Widget'},
                     'versions': [{'name': 'v1', 'served': True,
                                   'storage': True, 'schema': {
                                       'openAPIV3Schema': {
                                           'type': 'object',
                                           'x-kubernetes-preserve-unknown-'
                                           'fields': True}}}]}}
        stack = self.create(hot({
            'ns': {'type': 'OS::Kubernetes::Namespace'},
            'crd': {'type': 'OS::Kubernetes::Resource', 'properties': {
                'manifest': crd, 'wait_for': ['condition=Established']}},
            'widget': {'type': 'OS::Kubernetes::Resource',
                       'depends_on': ['crd'], 'properties': {
                           'namespace': {'get_attr': ['ns', 'name']},
                           'manifest': {'apiVersion': 'example.org/v1',
                                        'kind': 'Widget',
                                        'metadata': {'name': 'w1'},
                                        'spec': {'size': 3}}}},
        }))
        self.addCleanup(self._delete_crd)
        self.assertState(stack, 'CREATE', 'COMPLETE')
        ns_name = stack['ns'].FnGetAtt('name')
        self.assertEqual('Active', self.core.read_namespace(
            ns_name).status.phase)
        self.assertEqual(ns_name, stack['widget'].FnGetAtt('namespace'))
        stack = self.delete(stack)
        self.assertState(stack, 'DELETE', 'COMPLETE')

    def _delete_crd(self):
        import kubernetes
        api = kubernetes.client.ApiextensionsV1Api(self.api)
        try:
            api.delete_custom_resource_definition('widgets.example.org')
        except kubernetes.client.ApiException as exc:
            if exc.status != 404:
                raise
