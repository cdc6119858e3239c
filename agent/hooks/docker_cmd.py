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


"""heat-config hook `docker-cmd`: run a deployment's containers.

Installed as ``<hooks dir>/docker-cmd``. Follows heat-agents' documented
contract so that a configuration runs the same under either: the
deployment (JSON on stdin) has ``config``, a map of container name to
settings, run in ``start_order`` (default 0; ties keep the map's order).
``action: run`` (the default) is ``$HEAT_DOCKER_CMD run --name <name>``
with the labels ``deploy_stack_id``, ``deploy_resource_name``,
``config_id``, ``container_name`` and ``managed_by=docker-cmd``, then the
settings' flags, the image and the command; ``action: exec`` runs the
command in the container named by its first word. An exit code outside
``exit_codes`` (default ``[0]``) fails the deployment and stops it there.
Input ``deploy_action: DELETE`` does nothing: containers of configurations
that are gone are removed by ``docker-cmd cleanup``, which os-refresh-config
runs before the dispatcher (cleanup() below).

Prints ``deploy_stdout``, ``deploy_stderr``, ``deploy_status_code`` and,
on failure, ``failure_reason`` (the failing command's stderr) for
configurations that declare it as an ``error_output``. Standard library
only, so it installs on any server with Python 3.
"""

import base64
import json
import os
import random
import re
import string
import subprocess
import sys
import time
from urllib import parse

# The deployments os-apply-config rendered (cleanup's list of what stays).
CONF_FILE = os.environ.get('HEAT_SHELL_CONFIG',
                           '/var/run/heat-config/heat-config')

LABELS = ('deploy_stack_id', 'deploy_resource_name')
MANAGED_BY = 'managed_by=docker-cmd'
# Heat keeps the failure reason in an event: the end of stderr says why.
REASON_CHARS = 2000
# What the containers print goes to Heat, whose users need not read the
# service's secrets: values this short are left (they would hide words),
# and any run of PIECE characters of a longer one is redacted.
MIN_SECRET = 6
PIECE = 8
REDACTED = '<redacted>'
# Inside a secret file, the words that look generated (a password, a key).
GENERATED = re.compile(r'[A-Za-z0-9+/=_-]{%d,}' % PIECE)


def docker_cmd():
    return os.environ.get('HEAT_DOCKER_CMD', 'docker').split()


def input_values(deployment):
    return {i['name']: i.get('value') for i in deployment.get('inputs', [])}


def load_config(config):
    """The container map; heat-agents also takes it as YAML text."""
    if isinstance(config, dict):
        return config
    if not config:
        return {}
    try:
        return json.loads(config)
    except ValueError:
        import yaml  # only for text configs, as heat-agents reads them
        return yaml.safe_load(config)


def ordered(config):
    """Container names by start_order; sorted() is stable, so ties keep
    the order of the map, as in heat-agents."""
    return sorted(config, key=lambda name: config[name].get('start_order',
                                                            0))


def command_words(command):
    if not command:
        return []
    if isinstance(command, list):
        return [str(word) for word in command]
    return command.split()


def label_args(name, config_id, inputs):
    args = []
    for label in LABELS:
        args += ['--label', '%s=%s' % (label, inputs.get(label))]
    args += ['--label', 'config_id=%s' % config_id,
             '--label', 'container_name=%s' % name,
             '--label', MANAGED_BY]
    return args


def _as_list(value):
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def run_args(settings):
    """`run` flags from one container's settings, image and command last."""
    args = []
    if settings.get('detach', True):
        args.append('--detach=true')
    args += ['--env-file=%s' % f for f in _as_list(settings.get('env_file'))
             if f]
    args += ['--env=%s' % v for v in settings.get('environment') or [] if v]
    for key in ('net', 'pid'):
        if key in settings:
            args.append('--%s=%s' % (key, settings[key]))
    if 'privileged' in settings:
        args.append('--privileged=%s' % str(settings['privileged']).lower())
    for key in ('restart', 'user'):
        if key in settings:
            args.append('--%s=%s' % (key, settings[key]))
    args += ['--volume=%s' % v for v in settings.get('volumes') or [] if v]
    args += ['--volumes-from=%s' % v
             for v in settings.get('volumes_from') or [] if v]
    args.append(settings.get('image', ''))
    return args + command_words(settings.get('command'))


def exec_args(settings, container):
    """`exec` flags; `container` replaces the command's first word."""
    args = []
    if 'privileged' in settings:
        args.append('--privileged=%s' % str(settings['privileged']).lower())
    if 'user' in settings:
        args.append('--user=%s' % settings['user'])
    words = command_words(settings.get('command'))
    if not words:
        raise ValueError('action exec needs a command naming a container')
    return args + [container] + words[1:]


def execute(argv):
    proc = subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    return (proc.stdout.decode('utf-8', 'replace'),
            proc.stderr.decode('utf-8', 'replace'), proc.returncode)


def exists(name):
    out, _, code = execute(docker_cmd() + ['inspect', '--type', 'container',
                                           '--format', 'exists', name])
    return code == 0 and bool(out.strip())


def unique_name(name):
    """The name, or name-<random> while a container holds it (the next
    cleanup renames it back)."""
    candidate = name
    while exists(candidate):
        candidate = '%s-%s' % (name, ''.join(random.choice(  # noqa: S311
            string.ascii_lowercase + string.digits) for _ in range(8)))
    return candidate


def container_of(name, config_id):
    """The container this configuration started for `name`."""
    out, _, code = execute(docker_cmd() + [
        'ps', '-a', '--filter', 'label=container_name=%s' % name,
        '--filter', 'label=config_id=%s' % config_id,
        '--format', '{{.Names}}'])
    names = out.split() if code == 0 else []
    return names[0] if names else name


def command_for(name, settings, config_id, inputs):
    action = settings.get('action', 'run')
    if action == 'run':
        return (docker_cmd() + ['run', '--name', unique_name(name)] +
                label_args(name, config_id, inputs) + run_args(settings))
    if action == 'exec':
        target = command_words(settings.get('command'))[:1]
        container = container_of(target[0], config_id) if target else ''
        return docker_cmd() + ['exec'] + exec_args(settings, container)
    raise ValueError('%s: unknown action %r' % (name, action))


def secret_values(config):
    """The secret values the configuration's containers are given: their
    env files' values and, in their secret files, the generated words."""
    values = set()
    for settings in config.values():
        for path in _as_list(settings.get('env_file')):
            for line in _lines(path):
                values.add(line.partition('=')[2])
        for volume in settings.get('volumes') or []:
            source = str(volume).split(':')[0]
            if '/secret-files' in source:
                for line in _lines(source):
                    values.update(GENERATED.findall(line))
    return sorted(v for v in values if len(v) >= MIN_SECRET)


def _lines(path):
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            return f.read().splitlines()
    except OSError:  # a directory, or a file this hook cannot read
        return []


def spellings(value):
    """A value as a container may print it: as given, in either case,
    reversed, base64, URL-safe base64, hex, URL-encoded; and its runs of
    PIECE characters."""
    raw = value.encode('utf-8')
    forms = {value, value.upper(), value.lower(), value[::-1],
             base64.b64encode(raw).decode(),
             base64.urlsafe_b64encode(raw).decode().rstrip('='),
             raw.hex(), parse.quote(value, safe='')}
    for form in list(forms):
        forms.update(form[i:i + PIECE] for i in range(len(form) - PIECE + 1))
    return sorted(forms, key=len, reverse=True)


def redact(text, values):
    """text without any spelling of values (longest first)."""
    for value in values:
        for form in spellings(value):
            if len(form) >= MIN_SECRET:
                text = text.replace(form, REDACTED)
    return text


def response(stdouts, stderrs, status, reason=None, secrets=()):
    """The hook's answer, with no spelling of the secrets: Heat shows it
    (deploy_stdout, deploy_stderr and failure_reason are outputs and
    event text)."""
    out = {'deploy_stdout': redact('\n'.join(stdouts), secrets),
           'deploy_stderr': redact('\n'.join(stderrs), secrets),
           'deploy_status_code': status}
    if reason is not None:
        out['failure_reason'] = redact(reason, secrets)[-REASON_CHARS:]
    return out


def deploy(deployment, log=sys.stderr):
    inputs = input_values(deployment)
    if inputs.get('deploy_action') == 'DELETE':
        return response([], [], 0)
    config = load_config(deployment.get('config'))
    secrets = secret_values(config)
    stdouts, stderrs = [], []
    for name in ordered(config):
        settings = config[name]
        try:
            argv = command_for(name, settings, deployment.get('id'), inputs)
        except ValueError as e:
            return response(stdouts, stderrs + [str(e)], 1, str(e), secrets)
        log.write('docker-cmd: %s\n' % ' '.join(argv))
        started = time.monotonic()
        out, err, code = execute(argv)
        # Each step's own time, as the host saw it (tools/benchmark
        # controlplane sums them along the control plane's chain).
        log.write('docker-cmd: %s exited %d after %.1f s\n' % (
            name, code, time.monotonic() - started))
        if out:
            stdouts.append(out)
        if err:
            stderrs.append(err)
        if code not in settings.get('exit_codes', [0]):
            reason = '%s exited %d: %s' % (name, code,
                                           err.strip() or out.strip())
            log.write('docker-cmd: %s\n' % redact(reason, secrets))
            return response(stdouts, stderrs, code or 1, reason, secrets)
    return response(stdouts, stderrs, 0, secrets=secrets)


# --- cleanup: configurations that are gone ----------------------------------

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


def cleanup():
    """os-refresh-config's configure.d/50-heat-config-docker-cmd (runs
    `docker-cmd cleanup`), before the dispatcher: containers labelled
    managed_by=docker-cmd whose config_id is no longer among the server's
    docker-cmd deployments (updated or deleted) are removed, freeing
    their names for the new configuration's containers; then containers
    running under a suffixed name (<name>-<random>, started while the
    name was taken) get their container_name back when it is free."""
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


def main():
    if sys.argv[1:] == ['cleanup']:
        return cleanup()
    json.dump(deploy(json.load(sys.stdin)), sys.stdout)
    return 0


if __name__ == '__main__':
    sys.exit(main())
