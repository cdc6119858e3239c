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


"""Remove the files of heat-k8s services whose deployment is gone.

Installed as os-refresh-config's ``configure.d/51-heat-k8s-files``, next
to the docker-cmd cleanup (50). heat-k8s's docker service templates write
each service's files with a ``script`` deployment
(templates/services/docker/write-files.py, its data in the script as
``DATA = json.loads(...)``). Deployments have no undo step a deployed
server can run (Heat checks a DELETE action's server with Nova), so this
script does it: a files deployment the dispatcher ran (its record in the
deployed dir) whose resource (``deploy_stack_id`` and
``deploy_resource_name``) is no longer among the server's deployments had
its stack deleted: its directory (files, env file, storage) is removed.
An update keeps the resource, so it keeps the directory.
"""

import json
import os
import re
import shutil
import sys

CONF_FILE = os.environ.get('HEAT_SHELL_CONFIG',
                           '/var/run/heat-config/heat-config')
DEPLOYED_DIR = os.environ.get('HEAT_CONFIG_DEPLOYED',
                              '/var/lib/heat-config/deployed')
DATA_RE = re.compile(r'^DATA = json\.loads\(r"""(.*?)"""\)$', re.M | re.S)


def owner(deployment):
    inputs = {i['name']: i.get('value') for i in deployment.get('inputs', [])}
    return inputs.get('deploy_stack_id'), inputs.get('deploy_resource_name')


def files_dir(deployment):
    """The directory a heat-k8s files deployment writes, or None."""
    if deployment.get('group') != 'script':
        return None
    match = DATA_RE.search(deployment.get('config') or '')
    if not match:
        return None
    try:
        data = json.loads(match.group(1))
    except ValueError:
        return None
    base = data.get('dir') if isinstance(data, dict) else None
    # Only an absolute, normalised path of some depth: never '/' or '/var'.
    if not isinstance(base, str) or not base.startswith('/') or (
            os.path.normpath(base) != base) or base.count('/') < 2:
        return None
    return base


def stale(records, current):
    """[(record path, directory)] of files deployments whose resource is
    gone; `records` are (path, deployment) of the deployed dir."""
    alive = {owner(d) for d in current}
    found = []
    for path, deployment in records:
        base = files_dir(deployment)
        if base and owner(deployment) not in alive:
            found.append((path, base))
    return found


def records(deployed_dir):
    out = []
    for name in sorted(os.listdir(deployed_dir)):
        if not name.endswith('.json') or name.endswith('.notify.json'):
            continue
        path = os.path.join(deployed_dir, name)
        try:
            with open(path) as f:
                out.append((path, json.load(f)))
        except (OSError, ValueError):
            continue
    return out


def main():
    if not (os.path.exists(CONF_FILE) and os.path.isdir(DEPLOYED_DIR)):
        return 0
    try:
        with open(CONF_FILE) as f:
            current = json.load(f) or []
    except ValueError:
        return 0
    for record, base in stale(records(DEPLOYED_DIR), current):
        sys.stderr.write('heat-k8s-files: removing %s (its deployment is '
                         'gone)\n' % base)
        shutil.rmtree(base, ignore_errors=True)
        # Done with it: the next pass does not look again.
        os.rename(record, record + '.removed')
    return 0


if __name__ == '__main__':
    sys.exit(main())
