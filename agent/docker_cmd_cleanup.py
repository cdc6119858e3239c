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


"""Remove containers of docker-cmd configurations that are gone.

Installed as os-refresh-config's ``configure.d/50-heat-config-docker-cmd``,
so it runs before the dispatcher (55): containers labelled
``managed_by=docker-cmd`` whose ``config_id`` is no longer among the
server's docker-cmd deployments (an updated or deleted deployment) are
removed, freeing their names for the new configuration's containers; then
containers running under a suffixed name (``<name>-<random>``, started
while the name was taken) get their ``container_name`` back when it is
free. heat-agents' contract; ``HEAT_DOCKER_CMD`` names the docker CLI.
"""

import json
import os
import subprocess
import sys

CONF_FILE = os.environ.get('HEAT_SHELL_CONFIG',
                           '/var/run/heat-config/heat-config')


# docker_cmd() and execute() repeat the docker-cmd hook's: each script is
# installed alone on the server (heat-agents' layout), with no shared module.
def docker_cmd():
    return os.environ.get('HEAT_DOCKER_CMD', 'docker').split()


def execute(argv):
    proc = subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    return (proc.stdout.decode('utf-8', 'replace'),
            proc.stderr.decode('utf-8', 'replace'), proc.returncode)


def wanted_config_ids(deployments):
    return {d['id'] for d in deployments if d.get('group') == 'docker-cmd'}


def stale(containers, wanted):
    """Names of the containers (name, config_id) whose config is gone."""
    return sorted(name for name, config_id in containers
                  if config_id and config_id not in wanted)


def renames(containers):
    """(current, desired) pairs: suffixed containers whose desired name
    (their container_name label) no container holds."""
    names = {name for name, _ in containers}
    return sorted((name, desired) for name, desired in containers
                  if desired and desired != name and desired not in names)


def managed_containers():
    """[(name, labels)] of every docker-cmd container. `ps` lists them and
    `inspect` reads their labels (docker's and podman's `ps --format`
    disagree about labels; their `inspect` JSON agrees)."""
    out, err, code = execute(docker_cmd() + [
        'ps', '-a', '-q', '--filter', 'label=managed_by=docker-cmd'])
    if code:
        raise RuntimeError('listing containers failed: %s' % err.strip())
    ids = out.split()
    if not ids:
        return []
    out, err, code = execute(docker_cmd() + ['inspect', '--type',
                                             'container'] + ids)
    if code:
        raise RuntimeError('inspecting containers failed: %s' % err.strip())
    return [(c['Name'].lstrip('/'), (c.get('Config') or {}).get('Labels')
             or {}) for c in json.loads(out)]


def main():
    def log(msg):
        sys.stderr.write('heat-config-docker-cmd: %s\n' % msg)

    if not os.path.exists(CONF_FILE):
        log('no deployments file %s' % CONF_FILE)
        return 0
    try:
        with open(CONF_FILE) as f:
            wanted = wanted_config_ids(json.load(f) or [])
    except ValueError as e:
        log('unreadable deployments file: %s' % e)
        return 0
    managed = managed_containers()
    for name in stale([(n, labels.get('config_id')) for n, labels in managed],
                      wanted):
        log('removing %s (its configuration is gone)' % name)
        _, err, code = execute(docker_cmd() + ['rm', '-f', name])
        if code:
            log('removing %s failed: %s' % (name, err.strip()))
    for current, desired in renames(
            [(n, labels.get('container_name'))
             for n, labels in managed_containers()]):
        log('renaming %s to %s' % (current, desired))
        execute(docker_cmd() + ['rename', current, desired])
    return 0


if __name__ == '__main__':
    sys.exit(main())
