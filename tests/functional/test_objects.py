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

"""OS::Kubernetes::Objects driven by Heat's engine against the real cluster."""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

from tests.functional.specs import SIM
from tests.functional.specs import deployment_spec
from tests.functional.specs import hot
from tests.functional.specs import job_spec

PAIRS = 10  # a ConfigMap and a Deployment each: 20 objects


def config_map(name, value='v1'):
    return {'apiVersion': 'v1', 'kind': 'ConfigMap',
            'metadata': {'name': name}, 'data': {'value': value}}


def deployment(name, app=None, replicas=1):
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
            'metadata': {'name': name},
            'spec': deployment_spec(app or name, replicas=replicas)}


def pairs(count=PAIRS):
    manifests = []
    for i in range(count):
        manifests += [config_map('cfg-%d' % i), deployment('app-%d' % i)]
    return manifests


def objects_stack(manifests, **props):
    props['manifests'] = manifests
    return hot({'objs': {'type': 'OS::Kubernetes::Objects',
                         'properties': props}},
               outputs={'count': {'value': {'get_attr': ['objs', 'count']}}})


class ObjectsTest(heat_cluster.ClusterTestCase):

    def owned(self, stack):
        """{(kind, name): uid} of the labelled objects of the stack."""
        selector = 'heat.openstack.org/stack-id=%s' % stack.id
        found = {}
        for kind, lister in (
                ('ConfigMap', self.core.list_namespaced_config_map),
                ('Deployment', self.apps.list_namespaced_deployment),
                ('Job', self.batch.list_namespaced_job)):
            for obj in lister(self.ns, label_selector=selector).items:
                self.assertEqual('objs', obj.metadata.labels[
                    'heat.openstack.org/resource-name'])
                found[kind, obj.metadata.name] = obj.metadata.uid
        return found

    def recorded(self, stack):
        return {(e['kind'], e['name']): e['uid']
                for e in stack['objs'].FnGetAtt('objects')}

    def test_create_update_delete(self):
        manifests = pairs()
        stack = self.create(objects_stack(manifests))
        self.assertState(stack, 'CREATE', 'COMPLETE')
        before = self.owned(stack)
        self.assertEqual(2 * PAIRS, len(before))
        self.assertEqual(before, self.recorded(stack))
        self.assertEqual(2 * PAIRS, self.output(stack, 'count'))
        for i in range(PAIRS):  # each waited on until rolled out
            live = self.apps.read_namespaced_deployment('app-%d' % i,
                                                        self.ns)
            self.assertEqual(1, live.status.ready_replicas)
        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'COMPLETE')

        changed = list(manifests)
        changed[0] = config_map('cfg-0', 'v2')            # in place
        changed[1] = deployment('app-0', app='moved')      # immutable
        del changed[2]                                     # removed cfg-1
        changed.append(config_map('cfg-new'))              # added
        stack = self.update(stack, objects_stack(changed))
        self.assertState(stack, 'UPDATE', 'COMPLETE')

        after = self.owned(stack)
        self.assertEqual(after, self.recorded(stack))
        self.assertEqual(before['ConfigMap', 'cfg-0'],
                         after['ConfigMap', 'cfg-0'])
        self.assertEqual('v2', self.core.read_namespaced_config_map(
            'cfg-0', self.ns).data['value'])
        self.assertNotEqual(before['Deployment', 'app-0'],
                            after['Deployment', 'app-0'])
        live = self.apps.read_namespaced_deployment('app-0', self.ns)
        self.assertEqual({'app': 'moved'}, live.spec.selector.match_labels)
        self.assertNotIn(('ConfigMap', 'cfg-1'), after)
        self.assertIn(('ConfigMap', 'cfg-new'), after)
        untouched = set(before) - {('ConfigMap', 'cfg-0'),
                                   ('Deployment', 'app-0'),
                                   ('ConfigMap', 'cfg-1')}
        self.assertEqual({k: before[k] for k in untouched},
                         {k: after[k] for k in untouched})

        self.core.delete_namespaced_config_map('cfg-2', self.ns)
        stack = self.check(stack)
        self.assertState(stack, 'CHECK', 'FAILED')
        self.assertIn('ConfigMap %s/cfg-2 does not exist' % self.ns,
                      stack['objs'].status_reason)

        stack = self.delete(stack)
        self.assertState(stack, 'DELETE', 'COMPLETE')
        self.assertEqual({}, self.owned(stack))
        selector = 'heat.openstack.org/stack-id=%s' % stack.id
        self.assertEqual([], self.core.list_namespaced_pod(
            self.ns, label_selector=selector).items)

    def test_a_failing_object_fails_the_resource_with_its_reason(self):
        failing = {'apiVersion': 'batch/v1', 'kind': 'Job',
                   'metadata': {'name': 'sync'},
                   'spec': job_spec({SIM + 'exit-code': '3',
                                     SIM + 'message': 'db unreachable'})}
        stack = self.create(objects_stack([config_map('cfg'), failing,
                                           deployment('app')]))
        self.assertState(stack, 'CREATE', 'FAILED')
        reason = stack['objs'].status_reason
        self.assertIn('Job %s/sync' % self.ns, reason)
        self.assertIn('BackoffLimitExceeded', reason)
        self.assertIn('exit code 3', reason)
        # What was created is recorded, so the delete removes it all.
        self.assertEqual(self.owned(stack), self.recorded(stack))
        stack = self.delete(stack)
        self.assertState(stack, 'DELETE', 'COMPLETE')
        self.assertEqual({}, self.owned(stack))
