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

"""Project `other` against a secret of project `demo`: no fingerprint to
compare guesses with, no value through an attribute, a refused create.

Each check is also made as `demo`, where the same steps do reach the value
(or its fingerprint): so a check that passes for `other` shows a refusal,
not a test that could not see.
"""

import base64
import json
import uuid

import pytest

from tests.e2e import stacks

TYPED = 'typed-by-demo-%s' % uuid.uuid4().hex   # known to the test only


@pytest.fixture(scope='module')
def demo_reference(localcloud):
    """The reference of a password demo typed; the stack is deleted after."""
    heat = stacks.Heat(localcloud)
    name = stacks.unique('tenant-secret')
    stacks.openstack_wait(
        localcloud, 'create', '-t', stacks.template('tenant-secret.yaml'),
        '--parameter', 'value=' + TYPED, name)
    reference = heat.client.stacks.output_show(
        name, 'reference')['output']['output_value']
    assert reference.startswith('<heat-k8s-secret:k'), reference
    yield reference
    stacks.delete(localcloud, heat, name)


def _preview(localcloud, secret, os_cloud):
    """`stack create --dry-run` of the borrowing template: the result."""
    return localcloud.run(
        'openstack', 'stack', 'create', '--dry-run', '-f', 'json', '-t',
        stacks.template('tenant-borrow.yaml'), '--parameter',
        'secret=' + secret, stacks.unique('dry'), os_cloud=os_cloud,
        check=False)


def _preview_fingerprint(localcloud, secret, os_cloud):
    """The fingerprint `stack create --dry-run` shows for the Secret."""
    result = _preview(localcloud, secret, os_cloud)
    assert result.returncode == 0, result.stderr
    assert TYPED not in result.stdout
    borrowed, = [r for r in json.loads(result.stdout)['resources']
                 if r['resource_name'] == 'borrowed']
    fingerprint = borrowed['properties']['string_data']['password']
    assert fingerprint.startswith('<redacted:'), fingerprint
    return fingerprint


def _refused(result):
    """A clear refusal naming the reference, and nothing learned."""
    assert result.returncode != 0
    said = result.stdout + result.stderr
    assert 'a secret reference that this project did not make' in said, said
    assert 'Internal Error' not in said
    assert TYPED not in said and '<redacted:' not in said


def test_no_fingerprint_oracle_across_projects(localcloud, demo_reference):
    # In demo's own project, its reference and its value digest alike
    # (what lets a template move to references without an update)...
    assert (_preview_fingerprint(localcloud, demo_reference, 'demo') ==
            _preview_fingerprint(localcloud, TYPED, 'demo'))
    # ...another project's preview of the reference is refused, and its
    # fingerprint of a right guess matches nothing of demo's.
    _refused(_preview(localcloud, demo_reference, 'other'))
    assert (_preview_fingerprint(localcloud, TYPED, 'other') !=
            _preview_fingerprint(localcloud, TYPED, 'demo'))


def test_another_projects_reference_opens_nothing(localcloud,
                                                  demo_reference):
    name = stacks.unique('borrow')
    _refused(localcloud.run(
        'openstack', 'stack', 'create', '-t',
        stacks.template('tenant-borrow.yaml'), '--parameter',
        'secret=' + demo_reference, name, os_cloud='other', check=False))
    listed = localcloud.openstack('stack', 'list', os_cloud='other')
    assert name not in [s['Stack Name'] for s in listed]


def test_no_attribute_gives_an_opened_value(localcloud, demo_reference):
    heat = stacks.Heat(localcloud)
    name = stacks.unique('own')
    stacks.openstack_wait(
        localcloud, 'create', '-t', stacks.template('tenant-borrow.yaml'),
        '--parameter', 'secret=' + demo_reference, name)
    try:
        stack = heat.stack(name)
        # demo's own reference opens, into demo's own Secret...
        assert stack.stack_status == 'CREATE_COMPLETE', (
            stack.stack_status_reason)
        listed = stacks.kubectl(localcloud, 'get', 'secrets', '-A', '-l',
                                'heat.openstack.org/stack-id=' + stack.id)
        assert [TYPED] == [base64.b64decode(value).decode()
                           for item in listed['items']
                           for value in item['data'].values()]
        # ...but no output or attribute hands the value back.
        output = heat.client.stacks.output_show(stack.id, 'environment')
        assert TYPED not in json.dumps(output)
        assert 'gives only sealed' in json.dumps(output)
    finally:
        stacks.delete(localcloud, heat, name)
