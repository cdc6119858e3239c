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
