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

"""Keystone's rolling-upgrade steps between the releases we build.

For each upgrade, on a real MariaDB: the old release's image creates the
schema (db_sync), then the new release's image runs the documented
sequence, each step a container of its own as a Heat-ordered step will
be: db_sync --check, --expand, --check, --contract, --check. Exit codes
of --check: 0 current, 2 expand pending, 4 contract pending.
"""

import time

import pytest

from tests.functional import kolla_images

# The shared fixtures: the images, containers and a loopback address.
refs = kolla_images.refs
containers = kolla_images.containers
address = kolla_images.address

# (old recipe, new recipe, whether its expand changes the schema,
# [(db_sync flags, exit code)] run with the new release's image).
UPGRADES = (
    ('keystone-2025.2', 'keystone-2026.1', True, [
        ('--check', 2), ('--expand', 0), ('--check', 0),
        ('--contract', 0), ('--check', 0)]),
    ('keystone-2026.1', 'keystone', False, [
        ('--check', 0), ('--expand', 0), ('--check', 0),
        ('--contract', 0), ('--check', 0)]),
)


def _db_sync(containers, image, config_dir, *flags):
    """Exit code, output and seconds of one db_sync in a new container."""
    command = ' '.join(('keystone-manage', 'db_sync') + flags)
    started = time.monotonic()
    code, out = containers.run(
        image, volumes=[config_dir(
            'keystone', 'sync%d' % len(containers.names), command)],
        check=False)
    seconds = time.monotonic() - started
    print('%s %s: %d in %.1fs' % (image, command[len('keystone-manage '):],
                                  code, seconds))
    if code not in (0, 2, 4) and flags != ('--check',):
        pytest.fail('db_sync %s failed (%d):\n%s' % (flags, code, out))
    return code


def _revisions(containers, refs, address, db_pw):
    """The schema's alembic heads (expand and contract branches)."""
    code, out = containers.run(
        refs['mariadb'], 'mariadb', '-h', address, '-u', 'keystone', '-N',
        '-e', 'SELECT version_num FROM keystone.alembic_version',
        env={'MYSQL_PWD': db_pw})
    return sorted(out.split())


@pytest.mark.parametrize('old,new,expands,steps', UPGRADES,
                         ids=['%s-to-%s' % u[:2] for u in UPGRADES])
def test_upgrade_steps(refs, containers, address, tmp_path,
                       old, new, expands, steps):
    db_pw = kolla_images.keystone_database(containers, refs, address)
    config_dir = kolla_images.keystone_config(tmp_path, address, db_pw)
    print()
    assert _db_sync(containers, refs[old], config_dir) == 0
    # The old release's schema is complete: a 2 below is the new release's.
    assert _db_sync(containers, refs[old], config_dir, '--check') == 0
    revisions = [_revisions(containers, refs, address, db_pw)]
    seen = []
    for flags, _code in steps:
        seen.append((flags, _db_sync(containers, refs[new], config_dir,
                                     flags)))
        if flags != '--check':
            revisions.append(_revisions(containers, refs, address, db_pw))
    assert seen == steps
    print('alembic heads after %s, expand, contract: %s' % (old, revisions))
    before, expanded, contracted = revisions
    assert len(before) == 2, before
    assert (before != expanded) == expands
    # No contract migration in either upgrade (the last is 23 -> 24).
    assert contracted == expanded



def _schema_step(containers, image, config_dir, step):
    """templates/identity/keystone-schema.py's step: (exit, last line)."""
    code, out = containers.run(
        image, 'python3', kolla_images.KOLLA_DIR + '/keystone-schema.py',
        step,
        volumes=[config_dir('keystone', 'step%d' % len(containers.names))],
        check=False)
    last = out.strip().splitlines()[-1]
    print('%s %s: %d: %s' % (image, step, code, last))
    return code, last


def test_schema_steps_go_forward_and_back(refs, containers, address,
                                          tmp_path):
    """identity.yaml's steps: an upgrade, and going back before contract.

    The old release's own `db_sync --check` fails on a database a later
    release expanded (alembic cannot find the revision); its API runs on
    it, so the steps pass over it rather than block the way back.
    """
    db_pw = kolla_images.keystone_database(containers, refs, address)
    config_dir = kolla_images.keystone_config(tmp_path, address, db_pw)
    old, new = refs['keystone-2025.2'], refs['keystone-2026.1']
    print()
    assert _schema_step(containers, old, config_dir, 'check') == (
        0, 'Keystone 28.1.0: checked; database schema expand pending.')
    # On an empty database, expand creates the schema; contract then
    # only records its revision.
    assert _schema_step(containers, old, config_dir, 'expand') == (
        0, 'Keystone 28.1.0: expanded; database schema contract pending.')
    assert _schema_step(containers, old, config_dir, 'contract') == (
        0, 'Keystone 28.1.0: contracted; database schema current.')
    assert _schema_step(containers, new, config_dir, 'check') == (
        0, 'Keystone 29.1.0: checked; database schema expand pending.')
    assert _schema_step(containers, new, config_dir, 'expand') == (
        0, 'Keystone 29.1.0: expanded; database schema current.')
    assert _db_sync(containers, old, config_dir, '--check') == 1
    for step in ('check', 'expand', 'contract'):
        assert _schema_step(containers, old, config_dir, step) == (
            0, 'Keystone 28.1.0: the database was expanded by a later '
            'release and not contracted; this release runs on it, %s '
            'skipped.' % step)
    assert _schema_step(containers, new, config_dir, 'contract') == (
        0, 'Keystone 29.1.0: contracted; database schema current.')
