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

"""Keystone's rolling upgrade by `stack update`, on the real node.

templates/identity.yaml on Kubernetes with two API replicas, created at
28.1.0, then updated by its keystone_version parameter alone while a
client issues and validates tokens twice a second (tests/e2e/probe.py):
a failing migration (a conflicting index) fails the update with the
migration's own words and leaves 28.1.0 answering; going back to 28.1.0
recovers; 28.1.0 -> 29.1.0 (real expand migrations) completes with no
failed request (29.1.0 -> 30.0.0, no migration, is the control plane's
Keystone step in test_controlplane_upgrade.py, with its probe); a version
whose image does not exist fails at the check step, before any database
step.
Then the credentials rotate by parameter, with the probe running: a
Fernet key rotation restarts the API's pods and nothing else, and a token
issued before it stays valid; a database password rotation restarts
the API and re-runs exactly the tasks that read the password, and drops
the previous database user. The steps' durations, from Heat's events, and
the probe's figures are printed.
"""

import collections
import datetime
import time
import uuid

import pytest

from tests.e2e import identity as tt
from tests.e2e import probe
from tests.e2e import stacks

ADMIN_PASSWORD = 'up-Admin-' + uuid.uuid4().hex[:12]
STEPS = ('keystone_db_check', 'keystone_db_expand', 'keystone',
         'keystone_db_contract', 'keystone_bootstrap')
# An index of the name 29.1.0's expand migration creates.
CONFLICT = 'ix_revocation_event_composite'
UPDATE_TIMEOUT = 600


@pytest.fixture(scope='module')
def kube(localcloud):
    return tt.Kube(localcloud)


@pytest.fixture(scope='module')
def identity(localcloud):
    # The releases the upgrade goes through (opt-in images).
    stacks.ensure_images(localcloud, 'keystone-2025.2', 'keystone-2026.1')
    suffix = uuid.uuid4().hex[:6]
    info = {'stack': 'e2e-up-' + suffix, 'prefix': 'u%s-' % suffix}
    try:
        info['created'] = tt.stack_create(localcloud, info['stack'],
                                          tt.KUBE_ENVS, [
            'admin_password=' + ADMIN_PASSWORD, 'prefix=' + info['prefix'],
            'keystone_version=28.1.0', 'database_storage_size='])
        assert info['created']['stack_status'] == 'CREATE_COMPLETE', (
            tt.failures(localcloud, info['stack']))
        info['auth_url'] = tt.outputs(localcloud, info['stack'])['auth_url']
        yield info
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait',
                       info['stack'], check=False)


def _update(localcloud, info, version=None, **parameters):
    """`stack update --existing` of these parameters alone (the version
    by default); its `stack show` and the steps' seconds."""
    if version:
        parameters['keystone_version'] = version
    started = datetime.datetime.now(datetime.timezone.utc)
    began = time.monotonic()
    localcloud.run('openstack', 'stack', 'update', '--existing', *(
        arg for name, value in sorted(parameters.items())
        for arg in ('--parameter', '%s=%s' % (name, value))), info['stack'])
    shown = tt.wait_stack(localcloud, info['stack'], 'UPDATE',
                          timeout=UPDATE_TIMEOUT)
    seconds = _step_seconds(localcloud, info['stack'], started)
    seconds['update'] = round(time.monotonic() - began)
    return shown, seconds


def _step_seconds(localcloud, stack, since):
    """{step: seconds from UPDATE_IN_PROGRESS to its end} since `since`."""
    events = localcloud.openstack('stack', 'event', 'list', '-f', 'json',
                                  '--sort', 'event_time:asc', stack)
    began, took = {}, {}
    for event in events:
        at = datetime.datetime.fromisoformat(
            event['event_time'].rstrip('Z')).replace(
                tzinfo=datetime.timezone.utc)
        name, status = event['resource_name'], event['resource_status']
        if name not in STEPS or at < since.replace(microsecond=0):
            continue
        if status == 'UPDATE_IN_PROGRESS':
            began[name] = at
        elif name in began:
            took[name] = (at - began[name]).total_seconds()
    return took


def _api_images(kube, info):
    """Images of the API's pods that are not terminating."""
    return sorted(
        pod['spec']['containers'][0]['image']
        for pod in kube.items('pod', 'app.kubernetes.io/name=%skeystone,'
                              'app.kubernetes.io/component=service'
                              % info['prefix'])
        if not pod['metadata'].get('deletionTimestamp'))


def _sql(localcloud, kube, info, statement):
    """Run SQL in the keystone database, as MariaDB's root."""
    [pod] = kube.items('pod', 'app.kubernetes.io/name=%smariadb,'
                       'app.kubernetes.io/component=service' % info['prefix'])
    return tt.admin_kubectl(
        localcloud, '-n', kube.namespace, 'exec', pod['metadata']['name'],
        '--', 'sh', '-c',
        'mariadb -uroot -p"$MARIADB_ROOT_PASSWORD" -N keystone -e "%s"'
        % statement)


def _failure_reasons(localcloud, info):
    """The stack's status reason: the whole of it (events and resources
    keep 255 characters)."""
    return localcloud.openstack('stack', 'show',
                                info['stack'])['stack_status_reason']


def _jobs(kube, info, step):
    return kube.items('job', 'app.kubernetes.io/name=%skeystone-db-%s'
                      % (info['prefix'], step))


def _with_probe(localcloud, info, version):
    token_probe = probe.TokenProbe(info['auth_url'], ADMIN_PASSWORD)
    token_probe.start()
    shown, seconds = _update(localcloud, info, version)
    report = token_probe.stop()
    print('\nupgrade to %s: %s; seconds: %s; probe: %s' % (
        version, shown['stack_status'], seconds, token_probe.describe()))
    return shown, seconds, report


def test_a_failing_migration_leaves_the_old_release_answering(
        localcloud, identity, kube):
    old_images = _api_images(kube, identity)
    [old_expand] = _jobs(kube, identity, 'expand')
    _sql(localcloud, kube, identity, 'CREATE INDEX %s ON revocation_event '
         '(user_id)' % CONFLICT)
    token_probe = probe.TokenProbe(identity['auth_url'], ADMIN_PASSWORD)
    token_probe.start()
    shown, _ = _update(localcloud, identity, '29.1.0')
    report = token_probe.stop()
    print('\nfailed upgrade: probe: %s' % token_probe.describe())
    assert shown['stack_status'] == 'UPDATE_FAILED'
    reasons = _failure_reasons(localcloud, identity)
    print(reasons)
    # The Job retries; each attempt fails on one of the two indexes.
    assert ("keystone-manage db_sync --expand failed: "
            "sqlalchemy.exc.OperationalError: (pymysql.err.OperationalError)"
            " (1061, \"Duplicate key name 'ix_revocation_event_") in reasons, (
                reasons)
    # The API never moved: no new replica, no failed request.
    assert _api_images(kube, identity) == old_images == [
        'localhost/heat-k8s/keystone:28.1.0'] * 2
    assert report['failures'] == 0, report
    # The failed replacement Job is kept beside the old one until an
    # update completes.
    assert len({j['metadata']['uid'] for j in _jobs(kube, identity, 'expand')
                } - {old_expand['metadata']['uid']}) == 1

    # Back to the old parameters: the update completes on 28.1.0 again.
    shown, _ = _update(localcloud, identity, '28.1.0')
    assert shown['stack_status'] == 'UPDATE_COMPLETE', tt.failures(
        localcloud, identity['stack'])
    assert _api_images(kube, identity) == old_images
    assert len(_jobs(kube, identity, 'expand')) == 1
    # MySQL's DDL is not transactional: the migration's first index
    # exists. Clear the way, as the upgrade guide tells an operator.
    _sql(localcloud, kube, identity, 'DROP INDEX %s ON revocation_event; '
         'DROP INDEX ix_revocation_event_project_id_user_id ON '
         'revocation_event' % CONFLICT)


def test_upgrade_with_expand_migrations_loses_no_request(
        localcloud, identity, kube):
    shown, seconds, report = _with_probe(localcloud, identity, '29.1.0')
    assert shown['stack_status'] == 'UPDATE_COMPLETE', tt.failures(
        localcloud, identity['stack'])
    assert report['failures'] == 0, report
    assert report['requests'] > 50, report
    assert set(seconds) == set(STEPS) | {'update'}, seconds
    assert _api_images(kube, identity) == [
        'localhost/heat-k8s/keystone:29.1.0'] * 2
    # Heat's order: check, expand, the API, contract.
    jobs = {step: _jobs(kube, identity, step)[0]['status']
            for step in ('check', 'expand', 'contract')}
    assert jobs['check']['completionTime'] <= jobs['expand']['startTime']
    assert all(j.get('succeeded') == 1 for j in jobs.values()), jobs


def test_a_missing_image_fails_before_any_database_step(localcloud,
                                                        identity, kube):
    expand = _jobs(kube, identity, 'expand')[0]['metadata']['uid']
    shown, _ = _update(localcloud, identity, '31.0.0')
    assert shown['stack_status'] == 'UPDATE_FAILED'
    reasons = _failure_reasons(localcloud, identity)
    print(reasons)
    assert 'keystone_db_check' in reasons, reasons
    assert 'localhost/heat-k8s/keystone:31.0.0' in reasons, reasons
    # No database step ran, the API did not move.
    assert _jobs(kube, identity, 'expand')[0]['metadata']['uid'] == expand
    assert _api_images(kube, identity) == [
        'localhost/heat-k8s/keystone:29.1.0'] * 2
    shown, _ = _update(localcloud, identity, '29.1.0')
    assert shown['stack_status'] == 'UPDATE_COMPLETE', tt.failures(
        localcloud, identity['stack'])


def _workloads(kube, info):
    """{name: uids and restart counts} of the stack's running service pods
    and of its Jobs: what a change restarted or ran again."""
    found = collections.defaultdict(list)
    for kind in ('pod', 'job'):
        for obj in kube.items(kind):
            meta = obj['metadata']
            app = meta.get('labels', {}).get('app.kubernetes.io/name', '')
            if not app.startswith(info['prefix']) or (
                    meta.get('deletionTimestamp')):
                continue
            if kind == 'pod':
                if meta['labels'].get(
                        'app.kubernetes.io/component') != 'service':
                    continue
                restarts = sum(c.get('restartCount', 0) for c in obj[
                    'status'].get('containerStatuses', []))
                found[app[len(info['prefix']):]].append(
                    (meta['uid'], restarts))
            else:
                found['job ' + app[len(info['prefix']):]].append(meta['uid'])
    return {name: sorted(v) for name, v in found.items()}


def _rotate(localcloud, info, kube, **parameters):
    """Update `parameters` with the probe running: (stack show, probe
    report, what restarted or ran again, the probe's first token)."""
    before = _workloads(kube, info)
    token_probe = probe.TokenProbe(info['auth_url'], ADMIN_PASSWORD)
    token_probe.start()
    shown, seconds = _update(localcloud, info, **parameters)
    report = token_probe.stop()
    after = _workloads(kube, info)
    print('\nrotation %s: %s; seconds: %s; probe: %s' % (
        parameters, shown['stack_status'], seconds, token_probe.describe()))
    assert shown['stack_status'] == 'UPDATE_COMPLETE', tt.failures(
        localcloud, info['stack'])
    assert set(after) == set(before), (before, after)
    return report, sorted(n for n in after if after[n] != before[n]), (
        token_probe.first_token)


def _valid(info, token):
    """Whether Keystone says `token` is valid."""
    return probe.TokenProbe(info['auth_url'], ADMIN_PASSWORD).accepts(token)


def test_fernet_rotation_restarts_only_the_api_and_keeps_tokens(
        localcloud, identity, kube):
    report, restarted, before = _rotate(localcloud, identity, kube,
                                        fernet_rotation=1)
    # The probe validated a token issued before the rotation throughout
    # (tests/unit/test_identity_rotation.py follows the keys further).
    assert report['failures'] == 0, report
    assert restarted == ['keystone'], restarted
    assert _valid(identity, before)


def test_database_password_rotation_restarts_exactly_its_readers(
        localcloud, identity, kube):
    assert _sql(localcloud, kube, identity, "SELECT user FROM mysql.user "
                "WHERE user LIKE 'keystone%'").split() == ['keystone']
    report, restarted, _ = _rotate(localcloud, identity, kube,
                                   database_password_rotation=1)
    assert report['failures'] == 0, report
    # The API and every task that reads the password (keystone.conf or
    # the database user's); not MariaDB, not memcached.
    assert restarted == ['job keystone-bootstrap', 'job keystone-db-check',
                         'job keystone-db-contract', 'job keystone-db-create',
                         'job keystone-db-expand', 'job keystone-db-retire',
                         'keystone'], restarted
    assert _sql(localcloud, kube, identity, "SELECT user FROM mysql.user "
                "WHERE user LIKE 'keystone%'").split() == ['keystone_1']
