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

"""What one create costs in Kubernetes API requests, per resource.

Each request the plugin sends is counted and attributed to the resource
whose object it names (path, name or label selector); the table is
printed (pytest -s) for the benchmark notes, and the cheap kinds are held
to their one request.
"""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

import collections
import threading
import time
import urllib.parse

import fixtures
import kubernetes

from heat_k8s.client import kube as kube_mod
from tests import simulated

NAMES = {'config': 'rq-config', 'password': 'rq-password', 'db': 'rq-db',
         'db_service': 'rq-db-svc', 'claim': 'rq-claim'}
SELECTORS = ('metadata.name=', 'kubernetes.io/service-name=', 'app=')


def owner(path, query):
    """The resource a request is about, or None."""
    names = {path.rsplit('/', 1)[-1]}
    for _key, value in query or []:
        names.update(value[len(prefix):] for prefix in SELECTORS
                     if value.startswith(prefix))
    found = [res for res, name in NAMES.items() if name in names]
    return found[0] if found else None


def template():
    def typed(kind, name, **props):
        return {'type': 'OS::Kubernetes::' + kind,
                'properties': dict(props, name=NAMES[name])}
    db_pod = {'metadata': {'labels': {'app': NAMES['db']}},
              'spec': simulated.on_kwok({'containers': [
                  {'name': 'db', 'image': 'registry.invalid/db:1'}]})}
    return {'heat_template_version': '2021-04-16', 'resources': {
        'config': typed('ConfigMap', 'config', data={'a': 'b'}),
        'password': typed('Secret', 'password', string_data={'p': 'w'}),
        'db': typed('Deployment', 'db', spec={
            'replicas': 1, 'template': db_pod,
            'selector': {'matchLabels': {'app': NAMES['db']}}}),
        'db_service': dict(typed('Service', 'db_service', spec={
            'selector': {'app': NAMES['db']},
            'ports': [{'port': 5432}]}), depends_on=['db']),
        'claim': typed('PersistentVolumeClaim', 'claim', spec={
            'storageClassName': '', 'volumeName': 'rq-volume',
            'accessModes': ['ReadWriteOnce'],
            'resources': {'requests': {'storage': '1Gi'}}}),
    }}


class RequestCountTest(heat_cluster.ClusterTestCase):

    def setUp(self):
        super().setUp()
        self.core.create_persistent_volume({
            'metadata': {'name': 'rq-volume'},
            'spec': {'capacity': {'storage': '1Gi'},
                     'accessModes': ['ReadWriteOnce'],
                     'storageClassName': '',
                     'claimRef': {'namespace': self.ns, 'name': 'rq-claim'},
                     'hostPath': {'path': '/tmp/rq-volume'}}})
        self.addCleanup(self.core.delete_persistent_volume, 'rq-volume')
        self.sent = collections.defaultdict(list)
        send = kube_mod.Kube._send

        def counted(kube, method, path, query, *args, **kwargs):
            watch = dict(query or []).get('watch') == 'true'
            segments = urllib.parse.unquote(path).split('/')
            # the collection: .../configmaps/name or .../endpointslices
            plural = segments[-2] if owner(path, None) else segments[-1]
            what = '%s %s' % ('WATCH' if watch else method, plural)
            self.sent[owner(path, query)].append(what)
            return send(kube, method, path, query, *args, **kwargs)
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.client.kube.Kube._send', counted))

    def test_requests_per_resource_of_a_create(self):
        stack = self.create(template())
        self.assertState(stack, 'CREATE', 'COMPLETE')
        print('\nrequests per resource of a create:')
        for res in sorted(self.sent, key=str):
            print('  %-11s %2d  %s' % (res, len(self.sent[res]),
                                      ', '.join(self.sent[res])))
        # Written and ready at once: the create-only apply is all.
        self.assertEqual(['PATCH configmaps'], self.sent['config'])
        self.assertEqual(['PATCH secrets'], self.sent['password'])

    def test_a_service_notices_its_endpoints_by_watch(self):
        tmpl = template()
        db = tmpl['resources']['db']['properties']
        service = dict(tmpl['resources']['db_service'])
        del service['depends_on']
        tmpl['resources'] = {'db_service': service}
        # Its pods come a second after the Service, from outside the stack.
        deployment = {'metadata': {'name': db['name']}, 'spec': db['spec']}
        threading.Timer(1, self.apps.create_namespaced_deployment,
                        (self.ns, deployment)).start()
        ready_at = []
        watcher = threading.Thread(target=self._note_ready_endpoints,
                                   args=(ready_at,), daemon=True)
        watcher.start()
        stack = self.create(tmpl)
        done_at = time.monotonic()
        self.assertState(stack, 'CREATE', 'COMPLETE')
        watcher.join(10)
        print('\nService complete %.2f s after its endpoints were ready; '
              'its requests: %s' % (done_at - ready_at[0],
                                    ', '.join(self.sent['db_service'])))
        self.assertIn('WATCH endpointslices', self.sent['db_service'])

    def _note_ready_endpoints(self, ready_at):
        """Note when the Service first has a ready endpoint."""
        discovery = kubernetes.client.DiscoveryV1Api(self.api)
        for event in kubernetes.watch.Watch().stream(
                discovery.list_namespaced_endpoint_slice, self.ns,
                label_selector='kubernetes.io/service-name=' +
                NAMES['db_service'], timeout_seconds=60):
            if any(e.conditions.ready
                   for e in event['object'].endpoints or []):
                ready_at.append(time.monotonic())
                return
