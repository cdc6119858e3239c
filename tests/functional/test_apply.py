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

"""A create-only server-side apply, as the API server answers it.

handle_create relies on it: the apply creates the object when the name is
free, and is refused (409) without a change when an object holds it.
"""

import pytest

from heat_k8s.client import kube as kube_mod


def configmap(namespace, value, name='c'):
    return {'apiVersion': 'v1', 'kind': 'ConfigMap',
            'metadata': {'name': name, 'namespace': namespace,
                         'labels': {'by': value}},
            'data': {'k': value}}


def test_creates_when_the_name_is_free(admin, namespace):
    kube = kube_mod.Kube(admin)
    created = kube.apply(kube_mod.create_only(configmap(namespace, 'one')))
    assert created['data'] == {'k': 'one'}
    assert created['metadata']['resourceVersion'] != kube_mod.UNTAKEN_VERSION
    # The precondition is not kept: a plain apply goes on from there.
    updated = kube.apply(configmap(namespace, 'two'))
    assert updated['metadata']['uid'] == created['metadata']['uid']
    assert updated['data'] == {'k': 'two'}


@pytest.mark.parametrize('kind', ['ConfigMap', 'Service'])
def test_refused_without_a_change_when_the_name_is_taken(admin, namespace,
                                                         kind):
    kube = kube_mod.Kube(admin)
    theirs = configmap(namespace, 'theirs')
    if kind == 'Service':
        theirs = {'apiVersion': 'v1', 'kind': 'Service',
                  'metadata': theirs['metadata'],
                  'spec': {'ports': [{'port': 80}]}}
    before = kube.apply(theirs)
    ours = dict(theirs, metadata=dict(theirs['metadata'],
                                      labels={'by': 'heat'}))
    error = pytest.raises(kube_mod.ApiError, kube.apply,
                          kube_mod.create_only(ours)).value
    assert error.status == 409
    after = kube.get('v1', kind, 'c', namespace)
    assert after['metadata']['resourceVersion'] == (
        before['metadata']['resourceVersion'])
    assert after['metadata']['labels'] == {'by': 'theirs'}
