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

"""A resource whose object heat-engine lost track of: a fake API server
holding one object, and the resource and object the recovery, drift and
reason tests build (tests/unit/test_resources_recovery.py)."""

import copy

from heat_k8s.client import kube
from heat_k8s.kinds import labels
from tests.unit.heat_harness import deployment
from tests.unit.heat_harness import template

UID = '6b1f0d52-8a3e-4d7b-9c11-2f0e8a9b7c60'


class FakeKube(object):
    """The few Kube calls these paths make, over one stored object."""

    def __init__(self, obj=None, error=None):
        self.obj = obj
        self.error = error
        self.deleted = []

    def get(self, api_version, kind, name, namespace=None):
        if self.error is not None:
            raise self.error
        if self.obj and self.obj['metadata']['name'] == name:
            return copy.deepcopy(self.obj)
        return None

    def delete(self, api_version, kind, name, namespace=None, uid=None,
               propagation='Foreground'):
        self.deleted.append((kind, namespace, name, uid))
        return True

    def related(self, obj, names):
        return {name: [] for name in names}

    def events_for(self, obj):
        return []

    def watch(self, obj, seconds):
        return iter(())  # the watch ended with no change

    def watcher_for(self, watched):
        return self.watch


class NameHolder(FakeKube):
    """FakeKube with the API server's answer to a create-only apply: the
    object is created, or 409 when an object already holds the name."""

    def __init__(self, obj=None):
        super().__init__(obj)
        self.requests = []

    def get(self, api_version, kind, name, namespace=None):
        self.requests.append('GET')
        return super().get(api_version, kind, name, namespace)

    def apply(self, manifest):
        version = manifest['metadata'].get('resourceVersion')
        self.requests.append('APPLY create-only' if version else 'APPLY')
        if self.obj is not None and version is not None:
            raise kube.ApiError(409, 'Conflict', 'the object has been '
                                'modified')
        uid = self.obj['metadata']['uid'] if self.obj else UID
        self.obj = copy.deepcopy(manifest)
        self.obj['metadata'].pop('resourceVersion', None)
        self.obj['metadata']['uid'] = uid
        return copy.deepcopy(self.obj)


class Recovering(object):
    """For a KubernetesTestCase: a stored Deployment resource talking to
    a FakeKube, and the object the API server holds for it."""

    def _resource(self, fake):
        stack = self.parse(template({'web': deployment()}))
        rsrc = stack['web']
        rsrc.store()
        rsrc._kube = lambda props=None: fake
        return rsrc

    def _object(self, rsrc, uid=UID, ready=True, owner=None):
        meta = rsrc.manifest(rsrc.properties)['metadata']
        meta['uid'] = uid
        meta['generation'] = 1
        meta['annotations'][labels.RESOURCE_UUID] = owner or rsrc.uuid
        want = 2 if ready else 0
        return {'apiVersion': 'apps/v1', 'kind': 'Deployment',
                'metadata': meta,
                'spec': rsrc.properties['spec'],
                'status': {'observedGeneration': 1, 'replicas': 2,
                           'updatedReplicas': 2, 'readyReplicas': want,
                           'availableReplicas': want}}
