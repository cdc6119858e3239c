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

"""The control plane's create on each backend against its critical path.

    tools/benchmark controlplane [--backend kubernetes|docker] [--keep]

Run inside a full local cloud's environment (``eval "$(tools/localcloud
env)"``; the opt-in images built: ``tools/localcloud images glance
placement``). Each backend creates ``templates/controlplane.yaml`` with
the parameters and environment files of the end-to-end tests, waits for
CREATE_COMPLETE, then prints the create's time beside the critical path:
the longest chain (``CHAIN``) of the steps' own work. A step's own work
is its containers' on the docker host (each docker-cmd step's time, from
the agent's log) and, on Kubernetes, a Job's container from start to
finish or a Deployment's first pod from its container's start to Ready.
What the create takes beyond it is Heat's, the agent's and the
backend's overhead. The stack is deleted unless --keep.
"""

import argparse
import datetime
import json
import os
import re
import subprocess
import sys
import time
import uuid

from tools.lc import docker_host
from tools.lc import paths
from tools.lc import procs

ENVIRONMENTS = os.path.join(paths.REPO_DIR, 'environments')
TEMPLATE = os.path.join(paths.REPO_DIR, 'templates', 'controlplane.yaml')
# Keystone, Glance and Placement: CHAIN's steps (no compute services).
ENVS = {
    'kubernetes': ('kubernetes.yaml', 'localcloud-images.yaml',
                   'localcloud-controlplane-images.yaml',
                   'localcloud-kubernetes.yaml',
                   'disable-compute.yaml'),
    'docker': ('deployed-server-docker.yaml', 'localcloud-images.yaml',
               'localcloud-controlplane-images.yaml',
               'localcloud-docker-host.yaml', 'disable-compute.yaml'),
}
# Each step (the name after the prefix) and the steps it waits for, as
# the templates order them (identity.yaml, glance.yaml, placement.yaml;
# Glance and Placement start once Keystone's identity stack is done).
CHAIN = {
    'mariadb': (), 'memcached': (),
    'keystone-db-create': ('mariadb',),
    'keystone-db-check': ('keystone-db-create',),
    'keystone-db-expand': ('keystone-db-check',),
    'keystone': ('keystone-db-expand', 'memcached'),
    'keystone-db-contract': ('keystone',),
    'keystone-bootstrap': ('keystone-db-contract',),
    'keystone-db-retire': ('keystone-bootstrap',),
    'glance-db-create': ('keystone-db-retire',),
    'glance-service-user': ('keystone-db-retire',),
    'glance-db-expand': ('glance-db-create',),
    'glance-db-migrate': ('glance-db-expand',),
    'glance': ('glance-db-migrate', 'glance-service-user'),
    'glance-db-contract': ('glance',),
    'glance-catalog': ('glance',),
    'placement-db-create': ('keystone-db-retire',),
    'placement-service-user': ('keystone-db-retire',),
    'placement-db-sync': ('placement-db-create',),
    'placement': ('placement-db-sync', 'placement-service-user'),
    'placement-catalog': ('placement',),
}
STEP_TIME = re.compile(r'^docker-cmd: (\S+) exited -?\d+ after ([\d.]+) s$')


def critical_path(own):
    """The longest chain of CHAIN by the steps' own seconds `own` (a step
    not measured counts 0): (seconds, the chain's steps)."""
    longest = {}

    def chain(step):
        if step not in longest:
            before = max((chain(s) for s in CHAIN[step]),
                         default=(0.0, []))
            longest[step] = (before[0] + own.get(step, 0.0),
                             before[1] + [step])
        return longest[step]
    return max(chain(step) for step in CHAIN)


def docker_own(log_lines, prefix):
    """{step: seconds} from the agent's log: each container of the step
    (its run, its -init and -ready steps) as docker-cmd timed it."""
    own = {}
    for line in log_lines:
        match = STEP_TIME.match(line.strip())
        if not match or not match.group(1).startswith(prefix):
            continue
        name = match.group(1)[len(prefix):]
        for suffix in ('-ready', '-init'):
            if name.endswith(suffix) and name[:-len(suffix)] in CHAIN:
                name = name[:-len(suffix)]
        if name in CHAIN:
            own[name] = own.get(name, 0.0) + float(match.group(2))
    return own


def _seconds(text):
    return datetime.datetime.fromisoformat(
        text.replace('Z', '+00:00')).timestamp()


def kubernetes_own(pods, prefix):
    """{step: seconds} from the pods (their app.kubernetes.io/name label
    is the step's name): a finished container from start to finish, a
    running one from start to its pod's Ready; the first pod of a step."""
    own = {}
    for pod in pods:
        name = (pod['metadata'].get('labels') or {}).get(
            'app.kubernetes.io/name', '')
        step = name[len(prefix):] if name.startswith(prefix) else None
        statuses = (pod.get('status') or {}).get('containerStatuses') or []
        if step not in CHAIN or not statuses:
            continue
        state = statuses[0].get('state') or {}
        if 'terminated' in state:
            done = state['terminated']
            seconds = _seconds(done['finishedAt']) - _seconds(
                done['startedAt'])
        elif 'running' in state:
            ready = [c for c in pod['status'].get('conditions') or []
                     if c['type'] == 'Ready' and c['status'] == 'True']
            if not ready:
                continue
            seconds = _seconds(ready[0]['lastTransitionTime']) - _seconds(
                state['running']['startedAt'])
        else:
            continue
        own[step] = min(own.get(step, seconds), seconds)
    return own


def _run(*argv, check=True):
    result = subprocess.run(argv, capture_output=True, text=True)
    if check and result.returncode:
        raise RuntimeError('%s: %s' % (' '.join(argv), result.stderr))
    return result.stdout


def _status(name):
    shown = json.loads(_run('openstack', 'stack', 'show', name, '-f',
                            'json'))
    return shown['stack_status'], shown['stack_status_reason']


def create(backend, state_dir, timeout=900):
    """Create the control plane on `backend`: (stack, prefix, seconds)."""
    suffix = uuid.uuid4().hex[:6]
    name, prefix = 'bench-cp-' + suffix, 'b%s-' % suffix
    argv = ['openstack', 'stack', 'create', '--timeout',
            str(timeout // 60), '-t', TEMPLATE]
    for env in ENVS[backend]:
        argv += ['-e', os.path.join(ENVIRONMENTS, env)]
    argv += ['--parameter', 'prefix=' + prefix, '--parameter',
             'admin_password=bench-' + uuid.uuid4().hex[:12], name]
    started = time.monotonic()
    _run(*argv)
    if backend == 'docker':
        _run(os.path.join(paths.REPO_DIR, 'tools', 'localcloud'),
             '--state-dir', state_dir, 'docker-host', name)
    while True:
        status, reason = _status(name)
        if not status.endswith('IN_PROGRESS'):
            break
        if time.monotonic() - started > timeout:
            raise RuntimeError('%s still %s after %ds' % (name, status,
                                                          timeout))
        time.sleep(1)
    seconds = time.monotonic() - started
    if status != 'CREATE_COMPLETE':
        raise RuntimeError('%s: %s: %s' % (name, status, reason))
    return name, prefix, seconds


def own_work(backend, state_dir, name, prefix):
    if backend == 'docker':
        log = procs.log_path(state_dir, docker_host.process_name(name))
        with open(log, errors='replace') as f:
            return docker_own(f, prefix)
    pods = json.loads(_run('kubectl', 'get', 'pods', '-A', '-o',
                           'json'))['items']
    return kubernetes_own(pods, prefix)


def delete(backend, state_dir, name):
    _run('openstack', 'stack', 'delete', '-y', '--wait', name, check=False)
    if backend == 'docker':
        docker_host.stop(state_dir, name)


def main(argv):
    p = argparse.ArgumentParser(prog='tools/benchmark controlplane',
                                description=__doc__.split('\n')[0])
    p.add_argument('--backend', choices=sorted(ENVS), action='append',
                   help='the backend(s) to measure (default: both, '
                        'Kubernetes first)')
    p.add_argument('--keep', action='store_true',
                   help='leave the stacks (each binds its ports)')
    args = p.parse_args(argv)
    state_dir = os.environ.get('HEAT_K8S_STATE_DIR')
    if not state_dir:
        p.error('run inside `eval "$(tools/localcloud env)"`')
    rows = []
    for backend in args.backend or ['kubernetes', 'docker']:
        name, prefix, seconds = create(backend, state_dir)
        try:
            path, steps = critical_path(own_work(backend, state_dir, name,
                                                 prefix))
        finally:
            if not args.keep:
                delete(backend, state_dir, name)
        rows.append((backend, seconds, path, steps))
        print('%-10s create %6.1f s, critical path %6.1f s (%.2fx): %s' % (
            backend, seconds, path, seconds / path if path else 0,
            ' > '.join(steps)), flush=True)
    if len(rows) == 2:
        print('docker host / real node: %.2fx' % (rows[1][1] / rows[0][1]))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
