#!/usr/bin/env python3
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

"""One step of Keystone's rolling upgrade: check, expand or contract.

Runs in the image of the release being deployed (templates/identity.yaml
runs it as three ContainerTasks: check and expand before the API rolls,
contract after every replica runs the new release), with the rendered
keystone.conf. Exit 0: the step is done, and the last line says what it
found or did. Exit 1: it failed, and the last line (also the container's
termination message) is the reason, in keystone-manage's words.

`db_sync --check` exits 0 (current), 2 (expand pending) or 4 (contract
pending). A database that a later release expanded, but did not
contract, is one this release still runs on (expand migrations are
additive): that is how a failed upgrade goes back, so every step passes
over it. A database a later release contracted is refused.
"""

import re
import subprocess
import sys

from task_failure import fail

CONF_FILE = '/var/lib/kolla/config_files/keystone.conf'
CHECK_STATES = {0: 'current', 2: 'expand pending', 4: 'contract pending'}
# Alembic's words for a revision the scripts of this release do not have.
UNKNOWN_REVISION = "Can't locate revision"
ERROR_LINE = re.compile(r'^(?:.*\bERROR\b \S+ )?(\w+(?:\.\w+)*'
                        r'(?:Error|Exception|Failure)\b.*)$')


def keystone_manage(*args):
    proc = subprocess.run(('keystone-manage', '--config-file', CONF_FILE)
                          + args, capture_output=True, text=True)
    return proc.returncode, proc.stdout + proc.stderr


def last_error(output):
    """The exception line of a traceback in keystone-manage's log."""
    found = [m.group(1) for m in map(ERROR_LINE.match, output.splitlines())
             if m]
    return found[-1] if found else (output.strip().splitlines() or [''])[-1]


def db_sync_failed(step, output):
    print(output, file=sys.stderr)
    fail('keystone-manage db_sync %s failed: %s' % (step, last_error(output)))


def schema_heads():
    """The database's alembic heads: {revision: branch or None (unknown)}."""
    # Imported here: keystone's modules are the image's, not this host's.
    from alembic import script as alembic_script
    from keystone.common import sql
    from keystone.common.sql import upgrades
    import keystone.conf
    import sqlalchemy

    # As keystone-manage sets itself up.
    keystone.conf.configure()
    sql.initialize()
    conf = keystone.conf.CONF
    conf(args=[], project='keystone', default_config_files=[CONF_FILE])
    scripts = alembic_script.ScriptDirectory.from_config(
        upgrades.get_alembic_config())
    known = {rev.revision: rev for rev in scripts.walk_revisions()}
    engine = sqlalchemy.create_engine(conf.database.connection)
    with engine.connect() as conn:
        rows = conn.execute(sqlalchemy.text(
            'SELECT version_num FROM alembic_version')).fetchall()
    return {row[0]: (('contract' if 'contract' in known[row[0]].branch_labels
                      else 'expand') if row[0] in known else None)
            for row in rows}


def state():
    """(check exit code or 'ahead', keystone-manage's output)."""
    code, output = keystone_manage('db_sync', '--check')
    if code in CHECK_STATES or UNKNOWN_REVISION not in output:
        return code, output
    heads = schema_heads()
    if 'contract' in heads.values():
        return 'ahead', output
    db_sync_failed('--check', output + '\nThe database was contracted by a '
                   'later release (revisions %s): this release cannot run '
                   'on it.' % ', '.join(sorted(heads)))


def main(step):
    version = keystone_manage('--version')[1].strip()
    code, output = state()
    if code == 'ahead':
        print('Keystone %s: the database was expanded by a later release '
              'and not contracted; this release runs on it, %s skipped.'
              % (version, step))
        return
    if code not in CHECK_STATES:
        db_sync_failed('--check', output)
    if step != 'check':
        code, output = keystone_manage('db_sync', '--' + step)
        if code != 0:
            db_sync_failed('--' + step, output)
        code, output = keystone_manage('db_sync', '--check')
    print('Keystone %s: %s; database schema %s.' % (
        version, 'checked' if step == 'check' else step + 'ed',
        CHECK_STATES.get(code, 'unknown (%s)' % code)))


if __name__ == '__main__':
    if sys.argv[1:] not in (['check'], ['expand'], ['contract']):
        sys.exit('usage: keystone-schema.py check|expand|contract')
    main(sys.argv[1])
