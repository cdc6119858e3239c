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

"""A resource's reason (a failed wait, a failed check) without the values
of the Secrets its pods read, whatever a container printed of them."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy

from heat.common import exception

from heat_k8s.client import kube
from heat_k8s.kinds import readiness
from heat_k8s.resources import objects
from heat_k8s.resources.shared import members
from heat_k8s.waiting import awaiter
from tests.unit import recovery
from tests.unit.fixtures import load
from tests.unit.heat_harness import template

PLAIN = 's3cr3t-Pa55w0rd'   # the recorded Secret's password
FORMS = (PLAIN, 'czNjcjN0LVBhNTV3MHJk', 'S3CR3T-PA55', 'dr0w55aP', 'Pa55w0')


class PodAndSecret(recovery.FakeKube):
    """The synthetic crash-looping pod and the recorded Secret it reads;
    refused: the caller may not read Secrets."""

    def __init__(self, refused=False):
        super().__init__(load('pod_crashloop_secret_synthetic'))
        self.secret, self.refused, self.reads = load('secret'), refused, []

    def get(self, api_version, kind, name, namespace=None):
        self.reads.append((kind, namespace, name))
        if kind != 'Secret':
            return super().get(api_version, kind, name, namespace)
        if self.refused:
            raise kube.ApiError(403, 'Forbidden', 'secrets "%s" is '
                                'forbidden' % name)
        meta = self.secret['metadata']
        if (namespace, name) == (meta['namespace'], meta['name']):
            return copy.deepcopy(self.secret)
        return None


class ReasonTest(heat_harness.KubernetesTestCase):

    def _pod(self, fake):
        pod = fake.obj
        stack = self.parse(template({'crash': {
            'type': 'OS::Kubernetes::Pod', 'properties': {
                'name': pod['metadata']['name'],
                'namespace': pod['metadata']['namespace'],
                'spec': {'containers': pod['spec']['containers']}}}}))
        rsrc = stack['crash']
        rsrc.store()
        rsrc._kube = lambda props=None: fake
        rsrc.resource_id_set(pod['metadata']['uid'])
        return rsrc

    def _failed_wait(self, rsrc):
        """The reason of a wait that failed on the pod's own verdict."""
        reason = readiness.pod(copy.deepcopy(rsrc._kube().obj)).message

        def check():
            raise awaiter.Failed(reason)

        self.assertIn(PLAIN, reason)   # what is at stake
        manifest = rsrc.manifest(rsrc.properties, owned=False,
                                 content=False)
        return str(self.assertRaises(exception.Error, rsrc.waits.answer, check,
                                     manifest=manifest))

    def assertRedacted(self, reason):
        for form in FORMS:
            self.assertNotIn(form, reason)
        self.assertIn('exit code 2', reason)

    def test_a_failed_wait_reads_the_secrets_and_redacts_them(self):
        fake = PodAndSecret()
        reason = self._failed_wait(self._pod(fake))
        self.assertRedacted(reason)
        self.assertIn('DB_PASSWORD=<redacted> sent <redacted>', reason)
        self.assertEqual([('Secret', 'test-3108cfb5ab', 'db-credentials')],
                         fake.reads)

    def test_a_failed_check_redacts_them(self):
        rsrc = self._pod(PodAndSecret())
        rsrc.check_drift = lambda obj: None   # recorded, not Heat's apply
        error = self.assertRaises(exception.Error, rsrc.handle_check)
        self.assertIn('is not ready: pod crash container app', str(error))
        self.assertRedacted(str(error))

    def test_secrets_it_cannot_read_withhold_what_the_containers_said(self):
        fake = PodAndSecret(refused=True)
        reason = self._failed_wait(self._pod(fake))
        self.assertRedacted(reason)
        self.assertNotIn('DB_PASSWORD', reason)
        self.assertIn('terminated with exit code 2: ', reason)

    def test_an_object_whose_pods_read_no_secret_reads_none(self):
        fake = PodAndSecret()
        rsrc = self._pod(fake)
        del fake.obj['spec']['containers'][0]['env']
        rsrc.properties.data['spec'] = {
            'containers': fake.obj['spec']['containers']}
        manifest = rsrc.manifest(rsrc.properties, owned=False,
                                 content=False)
        self.assertEqual('any text', rsrc.object.redacted('any text',
                                                      manifest))
        self.assertEqual([], fake.reads)


class ObjectsReasonTest(heat_harness.KubernetesTestCase):
    """OS::Kubernetes::Objects: a member's failed wait, the same way."""

    def test_a_members_failed_wait_is_redacted(self):
        fake = PodAndSecret()
        pod = fake.obj
        manifest = {'apiVersion': 'v1', 'kind': 'Pod',
                    'metadata': {'name': pod['metadata']['name']},
                    'spec': {'containers': pod['spec']['containers']}}
        stack = self.parse(template({'objects': {
            'type': 'OS::Kubernetes::Objects', 'properties': {
                'namespace': pod['metadata']['namespace'],
                'manifests': [manifest]}}}))
        owner = stack['objects']
        owner._kube = lambda props=None: fake
        member = owner._members(owner.properties)[0]
        reason = readiness.pod(copy.deepcopy(pod)).message

        def step(task):
            raise awaiter.Failed(reason)

        task = members.Task(member, objects.CREATE, awaiter.Wait.start(60))
        said = members.attempt(step, task)
        self.assertIn(PLAIN, reason)
        for form in FORMS:
            self.assertNotIn(form, said)
        self.assertIn('exit code 2', said)
