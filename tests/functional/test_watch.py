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

"""heat_k8s.client.kube.Kube.watch against the real API server.

Readiness waits watch the object between polls; these pin down what the
watch yields: each change as it happens, None on deletion, and a quiet
end when it cannot go on.
"""

import threading
import time

from heat_k8s.client import kube as kube_mod


def configmap(namespace, name, value):
    return {'apiVersion': 'v1', 'kind': 'ConfigMap',
            'metadata': {'name': name, 'namespace': namespace},
            'data': {'k': value}}


def later(seconds, fn, *args):
    timer = threading.Timer(seconds, fn, args)
    timer.start()
    return timer


def test_watch_yields_each_change_as_it_happens(admin, namespace):
    kube = kube_mod.Kube(admin)
    obj = kube.apply(configmap(namespace, 'w', 'one'))
    later(0.5, kube.apply, configmap(namespace, 'w', 'two'))
    started = time.monotonic()
    seen = next(kube.watch(obj, 10))
    # Delivered when it happened, not when the watch timed out.
    assert time.monotonic() - started < 5
    assert seen['data'] == {'k': 'two'}
    assert seen['kind'] == 'ConfigMap' and seen['apiVersion'] == 'v1'
    assert int(seen['metadata']['resourceVersion']) > int(
        obj['metadata']['resourceVersion'])


def test_watch_yields_none_when_the_object_is_deleted(admin, namespace):
    kube = kube_mod.Kube(admin)
    obj = kube.apply(configmap(namespace, 'gone', 'x'))
    later(0.5, kube.delete, 'v1', 'ConfigMap', 'gone', namespace)
    changes = list(kube.watch(obj, 10))
    # Foreground deletion marks the object first, then removes it.
    assert changes[-1] is None
    for marked in changes[:-1]:
        assert marked['metadata']['deletionTimestamp']


def test_watch_of_an_unchanged_object_ends_after_its_time(admin, namespace):
    kube = kube_mod.Kube(admin)
    obj = kube.apply(configmap(namespace, 'quiet', 'x'))
    started = time.monotonic()
    assert list(kube.watch(obj, 1)) == []
    assert 0.9 < time.monotonic() - started < 10
    # The connection went back to the pool in a usable state.
    assert kube.get('v1', 'ConfigMap', 'quiet', namespace)['data'] == {
        'k': 'x'}


def test_watch_only_sees_its_own_object(admin, namespace):
    kube = kube_mod.Kube(admin)
    obj = kube.apply(configmap(namespace, 'mine', 'x'))
    later(0.3, kube.apply, configmap(namespace, 'other', 'y'))
    later(0.6, kube.apply, configmap(namespace, 'mine', 'z'))
    seen = next(kube.watch(obj, 10))
    assert seen['metadata']['name'] == 'mine'
    assert seen['data'] == {'k': 'z'}


def test_a_refused_watch_ends_quietly(admin, namespace):
    kube = kube_mod.Kube(admin)
    obj = kube.apply(configmap(namespace, 'refused', 'x'))
    # The API server refuses the watch (400): the caller just polls.
    obj['metadata']['resourceVersion'] = 'not-a-version'
    started = time.monotonic()
    assert list(kube.watch(obj, 10)) == []
    assert time.monotonic() - started < 5


def endpointslice(namespace, service, name, ready):
    return {'apiVersion': 'discovery.k8s.io/v1', 'kind': 'EndpointSlice',
            'metadata': {'name': name, 'namespace': namespace,
                         'labels': {kube_mod.SERVICE_NAME_LABEL: service}},
            'addressType': 'IPv4',
            'endpoints': [{'addresses': ['10.0.0.9'],
                           'conditions': {'ready': ready}}],
            'ports': [{'port': 80, 'protocol': 'TCP'}]}


def test_a_service_is_watched_through_its_endpoints(admin, namespace):
    kube = kube_mod.Kube(admin)
    # No selector: no controller makes slices for it, the test does.
    service = kube.apply({
        'apiVersion': 'v1', 'kind': 'Service',
        'metadata': {'name': 'svc', 'namespace': namespace},
        'spec': {'ports': [{'port': 80}]}})
    # Another Service's endpoints change first: not this one's business.
    later(0.3, kube.apply, endpointslice(namespace, 'other', 'other-1',
                                         True))
    later(0.6, kube.apply, endpointslice(namespace, 'svc', 'svc-1', True))
    started = time.monotonic()
    changes = kube.watch_endpoints(service, 10)
    seen = next(changes)
    assert 0.5 < time.monotonic() - started < 5
    assert seen['metadata']['uid'] == service['metadata']['uid']
    # What the judge reads then: the new endpoints.
    assert [s['metadata']['name'] for s in kube.endpointslices_for(seen)] == [
        'svc-1']
    # Once the Service is gone, the next change of a slice ends the watch.
    kube.delete('v1', 'Service', 'svc', namespace, propagation='Background')
    kube.delete('discovery.k8s.io/v1', 'EndpointSlice', 'svc-1', namespace)
    assert list(changes) == [None]
