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

"""The one fixture recorder, and the real-node helpers its tests share.

With HEAT_K8S_RECORD_FIXTURES=1, record(name, obj) writes obj, as the API
server returned it, to tests/unit/fixtures/<name>.json, where the unit tests
replay it. test_real_node, test_recorded_fixtures and test_steadiness
record through it.
"""

import json
import os

from tests.functional import cloud
from tools.lc.builds import recipes

FIXTURES = os.path.join(cloud.REPO, 'tests', 'unit', 'fixtures')
BASE = recipes.ref('base')
SLOW = 120  # a real pod: image unpack, sandbox, probes


def record(name, obj):
    if os.environ.get('HEAT_K8S_RECORD_FIXTURES'):
        with open(os.path.join(FIXTURES, name + '.json'), 'w') as f:
            json.dump(obj, f, indent=2, sort_keys=True)
            f.write('\n')


def resource(api, kind, api_version='v1'):
    return api.resources.get(api_version=api_version, kind=kind)


def get(api, kind, namespace, name, api_version='v1'):
    return resource(api, kind, api_version).get(
        name=name, namespace=namespace).to_dict()


def create(api, namespace, obj):
    return resource(api, obj['kind'], obj['apiVersion']).create(
        body=obj, namespace=namespace).to_dict()


def pods_of(api, namespace, selector):
    return [p.to_dict() for p in resource(api, 'Pod').get(
        namespace=namespace, label_selector=selector).items]


def events_of(api, namespace, name):
    return [e.to_dict() for e in resource(api, 'Event').get(
        namespace=namespace,
        field_selector='involvedObject.name=' + name).items]


def container(command, **extra):
    return dict({'name': 'app', 'image': BASE, 'imagePullPolicy': 'Never',
                 'command': ['sh', '-c', command],
                 'securityContext': {'allowPrivilegeEscalation': False}},
                **extra)


def pod(name, *containers, restart='Always', **spec):
    return {'apiVersion': 'v1', 'kind': 'Pod',
            'metadata': {'name': name, 'labels': {'test': name}},
            'spec': dict({'restartPolicy': restart,
                          'terminationGracePeriodSeconds': 1,
                          'containers': list(containers)}, **spec)}


def claim(name, storage_class):
    return {'apiVersion': 'v1', 'kind': 'PersistentVolumeClaim',
            'metadata': {'name': name},
            'spec': {'accessModes': ['ReadWriteOnce'],
                     'storageClassName': storage_class,
                     'resources': {'requests': {'storage': '1Gi'}}}}


def write_through_claim(api, namespace, claim_name, host_path):
    """A pod writes a file on the claim's volume; the file is read back
    from the volume's directory on the host."""
    create(api, namespace, pod('writer', container(
        'echo written > /data/proof', volumeMounts=[
            {'name': 'data', 'mountPath': '/data'}]),
        restart='Never', volumes=[{'name': 'data', 'persistentVolumeClaim': {
            'claimName': claim_name}}]))
    wait_for_pod(api, namespace, 'writer',
                 lambda p: p['status'].get('phase') == 'Succeeded',
                 'pod writer Succeeded')
    with open(os.path.join(host_path, 'proof')) as f:
        assert f.read() == 'written\n'


def wait_for(api, kind, namespace, name, check, what, api_version='v1'):
    """The object once check(object) is true."""
    return cloud.wait_until(
        lambda: (lambda o: check(o) and o)(
            get(api, kind, namespace, name, api_version)),
        what, timeout=SLOW, interval=1)


def wait_for_pod(api, namespace, name, check, what):
    return wait_for(api, 'Pod', namespace, name, check, what)
