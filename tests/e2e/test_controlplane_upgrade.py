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

"""The control plane on the real Kubernetes node, and its release upgrade.

``templates/controlplane.yaml`` with the parameters the docker host's
stack takes (test_docker_host.py), only the environment files differ. It
is created one release behind (``release=2026.1``: Keystone 29.1.0,
Glance 32.0.0, Placement 15.0.0), answers, and is raised by ``release``
alone to 2026.2 while a probe per service asks Keystone (tokens), Glance
(the image list) and Placement (the resource providers) twice a second.
The first attempt carries a wrong database password in Glance's
configuration: it fails at Glance's first step with MariaDB's own words,
after Keystone's upgrade, and Glance keeps answering on its release; the
second, without it, resumes and completes. Each service's failed requests
are printed and bounded, Heat's events show Keystone updated before
Glance and Placement started and Glance's expand, migrate, API and
contract in that order, and an image uploaded before comes back after.
Then it answers again and deletes cleanly.
"""

import json
import os
import time
import uuid

import pytest

from tests.e2e import controlplane_clients as clients
from tests.e2e import docker_stacks as dh
from tests.e2e import probe
from tests.e2e import stacks

FROM_RELEASE, TO_RELEASE = '2026.1', '2026.2'
# disable-compute.yaml leaves these.
SERVICES = ('keystone', 'glance', 'placement')
ADMIN_PASSWORD = 'cp-Admin-' + uuid.uuid4().hex[:12]


@pytest.fixture(scope='module')
def images(localcloud):
    stacks.ensure_images(localcloud, *clients.IMAGES)


def test_one_release_behind_then_upgraded_in_order(localcloud, images,
                                                   tmp_path):
    """(The database's and Glance's claims get volumes of the cluster's
    default StorageClass: nothing is made by hand.)"""
    suffix = uuid.uuid4().hex[:6]
    name = 'cp-up-' + suffix
    prefix = name_prefix(name)
    # The docker host's stack takes these very parameters.
    params = {'admin_password': ADMIN_PASSWORD, 'prefix': prefix}
    kube_envs = [os.path.join(dh.ENVIRONMENTS, n) for n in (
        'kubernetes.yaml', 'localcloud-images.yaml',
        'localcloud-controlplane-images.yaml',
        'localcloud-kubernetes.yaml',
        'disable-compute.yaml')]
    try:
        started = time.monotonic()
        dh.create(localcloud, name, dh.CONTROLPLANE,
                  dict(params, release=FROM_RELEASE), envs=kube_envs)
        shown = dh.wait(localcloud, name, 'CREATE')
        assert shown['stack_status'] == 'CREATE_COMPLETE', (
            shown['stack_status_reason'])
        created = time.monotonic() - started
        url = dh.outputs(localcloud, name)['auth_url']
        assert url.startswith('http://127.0.0.1:')
        answered = clients.answers(localcloud, url, ADMIN_PASSWORD,
                                    str(tmp_path), 'kubernetes-before')
        assert answered['same_bytes'], answered
        print('kubernetes: stack create to the first image saved back: '
              '%.0fs (CREATE_COMPLETE after %.0fs)' % (
                  time.monotonic() - started, created))
        assert clients.running_tags(localcloud, prefix, SERVICES) == {
            service: clients.RELEASE_TAGS[FROM_RELEASE][service]
            for service in SERVICES}
        _upgrade_in_order(localcloud, name, url, str(tmp_path))
        assert clients.running_tags(localcloud, prefix, SERVICES) == {
            service: clients.RELEASE_TAGS[TO_RELEASE][service]
            for service in SERVICES}
        answered = clients.answers(localcloud, url, ADMIN_PASSWORD,
                                    str(tmp_path), 'kubernetes-after')
        assert answered['same_bytes'], answered
        assert (answered['placement'],
                answered['placement_without_token']) == (200, 401), answered
    finally:
        dh.delete(localcloud, name)
    clients.assert_nothing_left(localcloud, name, prefix)


def _upgrade_in_order(localcloud, name, auth_url, workdir):
    """`release` raised by one while every service is asked without
    pause, twice: first with Glance's database password wrong in its
    configuration (GlanceIniOverrides), so that its first step fails with
    its own error while the services before it are done and Glance keeps
    answering on its release; then with the override gone, which
    resumes. Each service's failed requests over both are reported; the
    order of the steps is read from Heat's events."""
    env = clients.admin_env(localcloud, auth_url, ADMIN_PASSWORD)
    image_id, original = clients.upload(env, workdir, 'before-upgrade')
    database = dh.outputs(localcloud, name)['database_host']
    # The wrong password shares no 8 characters with MariaDB's answer: the
    # reason loses any run of 8 of the Secret's values (a word included).
    broken = {'GlanceIniOverrides': {'database': {
        'connection': 'mysql+pymysql://glance:Wr0ng-Pw@%s:3306/'
                      'glance' % database}}}
    probes = probe.control_plane(auth_url, ADMIN_PASSWORD)
    started = time.monotonic()
    failed = _update(localcloud, name, workdir, broken)
    assert failed['shown']['stack_status'] == 'UPDATE_FAILED', failed
    # The step's own words, glance-manage's from MariaDB, in the stack's
    # reason (events keep 255 characters of it).
    reasons = failed['shown']['stack_status_reason']
    # (MariaDB's 1045: "Access denied for user 'glance'@'<address>'
    # (using password: YES)"; the message keeps the log tail's end.)
    assert 'glance_db_expand' in reasons and "for user 'glance'@" in (
        reasons) and '(using password: YES)' in reasons, reasons
    # Keystone was done before Glance started; Glance's API was not
    # touched. (Placement, beside Glance, may or may not have finished.)
    tags = clients.running_tags(localcloud, name_prefix(name), SERVICES)
    assert (tags['keystone'], tags['glance']) == (
        clients.RELEASE_TAGS[TO_RELEASE]['keystone'],
        clients.RELEASE_TAGS[FROM_RELEASE]['glance']), tags
    # Glance, not upgraded, still answers on its release.
    assert clients.saved_back(env, image_id, original)
    resumed = _update(localcloud, name, workdir, {'GlanceIniOverrides': {}})
    seconds = time.monotonic() - started
    reports = {service: one.stop() for service, one in probes.items()}
    print('\nkubernetes, release %s -> %s: failed at Glance\'s expand in '
          '%.0fs, resumed: %s; %.0fs in all' % (
              FROM_RELEASE, TO_RELEASE, failed['seconds'],
              resumed['shown']['stack_status'], seconds))
    for service, one in probes.items():
        print('  probe %s: %s' % (service, one.describe()))
    assert resumed['shown']['stack_status'] == 'UPDATE_COMPLETE', (
        resumed['shown']['stack_status_reason'])
    for service, report in reports.items():
        assert report['requests'] > 10, (service, report)
        assert report['longest_gap'] < 60, (service, report)
    # Keystone and Placement roll, a replica at a time behind their
    # readiness checks; Glance's API, with its volume, is recreated.
    assert (reports['keystone']['failures'],
            reports['placement']['failures']) == (0, 0), reports
    # Keystone first: Glance and Placement take its outputs.
    when = clients.update_times(failed['events'], name)
    for service in ('glance', 'placement'):
        assert when[('keystone', 'COMPLETE')] <= when[(service,
                                                       'IN_PROGRESS')]
    # Glance's own order, when resumed: expand, migrate, the API,
    # contract.
    when = clients.update_times(resumed['events'], name)
    steps = ['glance_db_expand', 'glance_db_migrate', 'glance',
             'glance_db_contract']
    for before, after in zip(steps, steps[1:]):
        assert when[(before, 'COMPLETE', 'nested')] <= when[
            (after, 'IN_PROGRESS', 'nested')], (before, after)
    assert clients.saved_back(env, image_id, original)
    clients.openstack(env, 'image', 'delete', image_id)


def name_prefix(name):
    """The service prefix of the stack `name` (cp-up-<suffix>)."""
    return 'cp%s-' % name.rsplit('-', 1)[1]


def _update(localcloud, name, workdir, parameter_defaults):
    """`stack update --existing` to TO_RELEASE with an environment file of
    these parameter_defaults (the services' own parameters): its `stack
    show`, seconds, and the events it added."""
    before = {e['id'] for e in dh.events(localcloud, name)}
    path = os.path.join(workdir, 'update-%s.yaml' % uuid.uuid4().hex[:6])
    with open(path, 'w') as f:
        json.dump({'parameter_defaults': parameter_defaults}, f)
    started = time.monotonic()
    localcloud.run('openstack', 'stack', 'update', '--existing', '-e', path,
                   '--parameter', 'release=' + TO_RELEASE, name)
    shown = dh.wait(localcloud, name, 'UPDATE')
    return {'shown': shown, 'seconds': time.monotonic() - started,
            'events': [e for e in dh.events(localcloud, name)
                       if e['id'] not in before]}
