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

"""Bad input, as a new template author types it, through the real CLI.

Each template is refused by `openstack orchestration template validate`
with a message naming the property and field path, and by `stack create`
before any stack exists. A key written twice is refused where Heat parses
text: heat-api (through the paste filter the local cloud configures) and
heat-engine (nested templates).
"""

import uuid

from heatclient import exc as heat_exc
import pytest
import yaml

from tests.e2e import identity as tt
from tests.e2e import stacks

DEPLOYMENT = {
    'type': 'OS::Kubernetes::Deployment',
    'properties': {'spec': {
        'replicas': 1,
        'selector': {'matchLabels': {'app': 'web'}},
        'template': {'metadata': {'labels': {'app': 'web'}},
                     'spec': {'containers': [{'name': 'web',
                                              'image': 'nginx'}]}}}}}
SECRET_VALUE = 'hunter2 plain'


def _deployment(**spec):
    resource = yaml.safe_load(yaml.safe_dump(DEPLOYMENT))
    resource['properties']['spec'].update(spec)
    return resource


CASES = {
    'replicas-out-of-int32': (
        {'web': _deployment(replicas=4294967296)},
        ['resources.web.properties.spec', 'spec.replicas',
         'out of range for int32']),
    'configmap-key-with-a-slash': (
        {'conf': {'type': 'OS::Kubernetes::ConfigMap',
                  'properties': {'data': {'conf/app.ini': 'x'}}}},
        ['resources.conf.properties', 'conf/app.ini']),
    'secret-data-not-base64': (
        {'pw': {'type': 'OS::Kubernetes::Secret',
                'properties': {'data': {'pw': SECRET_VALUE}}}},
        ['resources.pw.properties', 'base64']),
    # The local cloud leaves [kubernetes] allow_magnum_clusters off.
    'magnum-cluster-while-off': (
        {'conf': {'type': 'OS::Kubernetes::ConfigMap',
                  'properties': {'data': {'k': 'v'}, 'cluster': 'prod'}}},
        ['resources.conf.properties.cluster', "cluster 'prod'",
         '[kubernetes] allow_magnum_clusters']),
    'one-object-twice': (
        {'web': dict(_deployment(), properties=dict(
            _deployment()['properties'], name='web')),
         'web2': dict(_deployment(), properties=dict(
             _deployment()['properties'], name='web'))},
        ['web', 'web2']),
}


@pytest.mark.parametrize('case', sorted(CASES))
def test_refused_at_validate_and_at_create(localcloud, tmp_path, case):
    resources, wanted = CASES[case]
    path = tmp_path / 'bad.yaml'
    path.write_text(yaml.safe_dump({
        'heat_template_version': '2021-04-16', 'resources': resources}))
    result = tt.validate(localcloud, '-t', str(path))
    assert result.returncode != 0, result.stdout
    for text in wanted:
        assert text in result.stderr, result.stderr
    assert 'hunter2' not in result.stdout + result.stderr

    name = 'e2e-bad-' + uuid.uuid4().hex[:6]
    created = localcloud.run('openstack', 'stack', 'create', '-t',
                             str(path), name, check=False)
    assert created.returncode != 0, created.stdout
    assert 'hunter2' not in created.stdout + created.stderr
    shown = localcloud.run('openstack', 'stack', 'show', name, check=False)
    assert shown.returncode != 0, shown.stdout


# Hand-made: the first `data` would be lost in silence.
TWICE = """heat_template_version: 2021-04-16
resources:
  conf:
    type: OS::Kubernetes::ConfigMap
    properties:
      data: {a: '1'}
      data: {b: '2'}
"""
TWICE_SAID = "Duplicate key 'data' in one mapping (lines 6 and 7)"


def test_a_key_written_twice_is_refused_where_heat_parses(localcloud):
    # Sent as text, as an API client may: heat-api parses it (the openstack
    # client parses a file itself and sends what it read).
    heat = stacks.Heat(localcloud)
    with pytest.raises(heat_exc.HTTPBadRequest) as refused:
        heat.client.stacks.validate(template=TWICE)
    assert TWICE_SAID in str(refused.value)

    # A nested template of `files`: heat-engine parses it, at create.
    name = 'e2e-twice-' + uuid.uuid4().hex[:6]
    parent = {'heat_template_version': '2021-04-16',
              'resources': {'inner': {'type': 'inner.yaml'}}}
    with pytest.raises(heat_exc.HTTPBadRequest) as refused:
        heat.client.stacks.create(stack_name=name, template=parent,
                                  files={'inner.yaml': TWICE})
    assert TWICE_SAID in str(refused.value)
    with pytest.raises(heat_exc.HTTPNotFound):
        heat.stack(name)
