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


"""heat-config hook `script`: run a deployment's config as a program.

Installed as ``<hooks dir>/script``, following heat-agents' contract: the
config is written to ``$HEAT_SCRIPT_WORKING/<id>`` (mode 0700) and run
there with each input as an environment variable (maps and lists as
JSON), ``heat_outputs_path`` naming where it may write
``<path>.<output name>`` files for the declared outputs. Prints those
outputs, ``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code``
and, when the program fails, ``failure_reason`` (the end of its stderr)
for configs that declare it as an ``error_output``. Unlike heat-agents'
hook it does not log input values: deployments carry passwords.
"""

import json
import os
import subprocess
import sys

REASON_CHARS = 2000


def directory(env, default):
    path = os.environ.get(env, default)
    os.makedirs(path, mode=0o700, exist_ok=True)
    return path


def environment(inputs, base):
    env = dict(base)
    for item in inputs:
        value = item.get('value', '')
        if isinstance(value, (dict, list)):
            value = json.dumps(value)
        env[item['name']] = '' if value is None else str(value)
    return env


def collect_outputs(outputs, prefix):
    found = {}
    for output in outputs or []:
        try:
            with open('%s.%s' % (prefix, output['name'])) as f:
                found[output['name']] = f.read()
        except OSError:
            pass
    return found


def deploy(deployment, log=sys.stderr):
    working = directory('HEAT_SCRIPT_WORKING',
                        '/var/lib/heat-config/heat-config-script')
    outputs_dir = directory('HEAT_SCRIPT_OUTPUTS',
                            '/var/run/heat-config/heat-config-script')
    program = os.path.join(working, deployment['id'])
    outputs_prefix = os.path.join(outputs_dir, deployment['id'])
    env = environment(deployment.get('inputs', []), os.environ)
    env['heat_outputs_path'] = outputs_prefix
    with os.fdopen(os.open(program, os.O_CREAT | os.O_WRONLY | os.O_TRUNC,
                           0o700), 'w') as f:
        f.write(deployment.get('config') or '')
    log.write('script: running %s\n' % program)
    proc = subprocess.run([program], cwd=working, env=env,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE)
    result = collect_outputs(deployment.get('outputs'), outputs_prefix)
    result.update({
        'deploy_stdout': proc.stdout.decode('utf-8', 'replace'),
        'deploy_stderr': proc.stderr.decode('utf-8', 'replace'),
        'deploy_status_code': proc.returncode,
    })
    if proc.returncode:
        result['failure_reason'] = (
            'exited %d: %s' % (proc.returncode,
                               result['deploy_stderr'].strip()))[
                                   -REASON_CHARS:]
    return result


def main():
    json.dump(deploy(json.load(sys.stdin)), sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
