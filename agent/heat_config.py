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


"""The heat-config dispatcher: run each new deployment's hook, signal Heat.

Installed as os-refresh-config's ``configure.d/55-heat-config``, after
os-apply-config has written the server's deployments (a JSON list) to
``$HEAT_SHELL_CONFIG`` (``/var/run/heat-config/heat-config``). Follows
heat-agents' contract: a deployment runs once, when
``<deployed dir>/<id>.json`` does not exist yet (written first, mode 0600,
so a hook that crashes is not run again on every poll); its hook is
``<hooks dir>/<group>`` and reads the deployment on stdin; the hook's JSON
answer is kept in ``<id>.notify.json`` (0600) and handed to
``heat-config-notify <id>.json`` on stdin, which signals Heat.

The new deployments of one run start at once, each hook in its own
process (at most ``HEAT_CONFIG_PARALLEL``, default 8): Heat publishes a
deployment only when everything it depends on has signalled, so the ones
waiting together are independent. Each is still signalled on its own as
it ends, and its hook's stderr is written in one piece.
"""

from concurrent import futures
import json
import os
import subprocess
import sys
import threading

CONF_FILE = os.environ.get('HEAT_SHELL_CONFIG',
                           '/var/run/heat-config/heat-config')
DEPLOYED_DIR = os.environ.get('HEAT_CONFIG_DEPLOYED',
                              '/var/lib/heat-config/deployed')
NOTIFY = os.environ.get('HEAT_CONFIG_NOTIFY', 'heat-config-notify')
# Groups that never had a hook: nothing to run, nothing to report.
NO_HOOK_GROUPS = ('os-apply-config', 'Heat::Ungrouped')
PARALLEL = max(1, int(os.environ.get('HEAT_CONFIG_PARALLEL', '8')))
# One writer at a time, so one hook's stderr is never cut by another's.
_OUTPUT = threading.Lock()


def hook_dirs():
    return [d for d in (os.environ.get('HEAT_CONFIG_HOOKS'),
                        '/usr/libexec/heat-config/hooks',
                        '/var/lib/heat-config/hooks') if d]


def hook_path(group, dirs):
    """<dir>/<group> in the first directory holding it; the group is
    reduced to letters, digits, '-' and '_' (no path tricks)."""
    name = ''.join(ch for ch in group or '' if ch.isalnum() or ch in '-_')
    for d in dirs:
        path = os.path.join(d, name)
        if name and os.path.exists(path):
            return path
    return None


def pick_component(deployment):
    """A `component` config holds one config per action; the deployment
    runs the one for its deploy_action (None: nothing to run)."""
    inputs = {i['name']: i.get('value') for i in deployment['inputs']}
    for cfg in (deployment.get('config') or {}).get('configs') or []:
        if inputs.get('deploy_action') in cfg.get('actions', []):
            return dict(deployment, config=cfg['config'], group=cfg['tool'])
    return None


def signal_data(returncode, stdout, stderr):
    """The hook's JSON answer; its raw output when it gave none."""
    try:
        if stdout.strip():
            return json.loads(stdout)
    except ValueError:
        pass
    return {'deploy_stdout': stdout, 'deploy_stderr': stderr,
            'deploy_status_code': returncode or (0 if stdout else 1)}


def write_private(path, data):
    with os.fdopen(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC,
                           0o600), 'w') as f:
        json.dump(data, f, indent=2)


def prepare(deployment, log):
    """(deployment, hook) to run, marked deployed; None when there is
    nothing to run (done before, no hook, not this action)."""
    for item in deployment.get('inputs', []):
        # heat-agents bug 1333992: String inputs arrive as other types.
        if item.get('type') == 'String' and not isinstance(
                item.get('value'), str):
            item['value'] = str(item.get('value'))
    if deployment.get('group') == 'component':
        deployment = pick_component(deployment)
        if deployment is None:
            return None
    deployed = os.path.join(DEPLOYED_DIR, '%s.json' % deployment['id'])
    if os.path.exists(deployed):
        return None
    hook = hook_path(deployment.get('group'), hook_dirs())
    if hook is None:
        if deployment.get('group') not in NO_HOOK_GROUPS:
            log('skipping %s: no hook for group %s'
                % (deployment['id'], deployment.get('group')))
        return None
    write_private(deployed, deployment)
    return deployment, hook


def run(deployment, hook, log):
    """Run one deployment's hook and signal Heat with its answer."""
    log('running %s for %s (%s)' % (hook, deployment['id'],
                                    deployment.get('name')))
    proc = subprocess.run([hook], input=json.dumps(deployment).encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stderr = proc.stderr.decode('utf-8', 'replace')
    if stderr:
        with _OUTPUT:
            sys.stderr.write(stderr)
            sys.stderr.flush()
    data = signal_data(proc.returncode,
                       proc.stdout.decode('utf-8', 'replace'), stderr)
    log('%s: deploy_status_code %s' % (deployment['id'],
                                       data.get('deploy_status_code')))
    deployed = os.path.join(DEPLOYED_DIR, '%s.json' % deployment['id'])
    notify_data = os.path.join(DEPLOYED_DIR,
                               '%s.notify.json' % deployment['id'])
    write_private(notify_data, data)
    notify = subprocess.run(NOTIFY.split() + [deployed],
                            input=json.dumps(data).encode(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if notify.returncode:
        log('heat-config-notify failed (%d): %s' % (
            notify.returncode, notify.stdout.decode('utf-8', 'replace')))


def dispatch(deployments, log):
    """Prepare the deployments in order, then run the new ones at once;
    one broken deployment never stops the others."""
    ready = []
    for deployment in deployments or []:
        try:
            prepared = prepare(deployment, log)
        except Exception as e:
            log('deployment %s: %s' % (deployment.get('id'), e))
            continue
        if prepared:
            ready.append(prepared)
    if not ready:
        return
    with futures.ThreadPoolExecutor(min(PARALLEL, len(ready))) as pool:
        running = {pool.submit(run, deployment, hook, log): deployment
                   for deployment, hook in ready}
        for done in futures.as_completed(running):
            if done.exception() is not None:
                log('deployment %s: %s' % (running[done].get('id'),
                                           done.exception()))


def main():
    def log(msg):
        with _OUTPUT:
            sys.stderr.write('heat-config: %s\n' % msg)
            sys.stderr.flush()

    if not os.path.exists(CONF_FILE):
        log('no deployments file %s' % CONF_FILE)
        return 1
    os.chmod(CONF_FILE, 0o600)
    os.makedirs(DEPLOYED_DIR, mode=0o700, exist_ok=True)
    try:
        with open(CONF_FILE) as f:
            deployments = json.load(f)
    except ValueError as e:
        log('unreadable deployments file %s: %s' % (CONF_FILE, e))
        return 0
    dispatch(deployments, log)
    return 0


if __name__ == '__main__':
    sys.exit(main())
