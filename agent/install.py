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


"""Install heat-k8s's heat-config agent side on a server.

    python3 agent/install.py [--root DIR] [--venv DIR] [--no-venv]
                             [--docker-cmd CMD] [--service]
                             [--started-signal FILE]

installs, under ``--root`` (``/`` on a real server; a directory for a
server that shares its machine, like tools/localcloud's docker host):

- the hooks ``script`` and ``docker-cmd`` in ``var/lib/heat-config/hooks``;
- os-refresh-config's scripts ``configure.d/20-os-apply-config``,
  ``50-heat-config-docker-cmd``, ``51-heat-k8s-files`` (the files of
  deleted heat-k8s services) and ``55-heat-config`` in
  ``usr/libexec/os-refresh-config``;
- os-apply-config's templates (the deployments file, and
  ``/etc/os-collect-config.conf`` for servers configured by Heat's boot
  data) in ``usr/libexec/os-apply-config/templates``;
- ``heat-config-notify`` in ``usr/local/bin``;
- ``etc/heat-config-agent.env``: the variables pointing the agent chain at
  those paths (the contract's defaults when the root is ``/``);
- os-collect-config, os-refresh-config and os-apply-config from PyPI in a
  virtualenv (``--venv``, skipped with ``--no-venv``);
- with ``--service`` (a server booted by Heat): a first
  ``etc/os-collect-config.conf`` (collectors read the boot data Heat wrote
  to /var/lib/heat-cfntools; os-apply-config then renders the real one
  from the server's metadata and os-collect-config re-executes itself)
  and a systemd unit running os-collect-config, started when the root is
  ``/`` and systemd runs.

With ``--started-signal`` (a file, ``-`` for stdin, holding an
``OS::Heat::WaitConditionHandle``'s ``signal`` attribute) it then signals
that handle: SUCCESS once the agent runs, or FAILURE with the error that
stopped it, so that the server's stack need not wait for its timeout.

The files come from this directory: a server's image carries it
(templates/hosts/nova-docker.yaml's boot script runs this file there;
Nova takes at most 64 KiB of boot data, less than the agent's files).
Standard library only.
"""

import argparse
import importlib.util
import json
import os
import shlex
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
# source (relative to agent/) -> installed path (relative to the root)
FILES = {
    'hooks/script.py': 'var/lib/heat-config/hooks/script',
    'hooks/docker_cmd.py': 'var/lib/heat-config/hooks/docker-cmd',
    'heat_k8s_files_cleanup.py':
        'usr/libexec/os-refresh-config/configure.d/51-heat-k8s-files',
    'heat_config.py':
        'usr/libexec/os-refresh-config/configure.d/55-heat-config',
    'heat_config_notify.py': 'usr/local/bin/heat-config-notify',
    'templates/var/run/heat-config/heat-config':
        'usr/libexec/os-apply-config/templates/var/run/heat-config/'
        'heat-config',
    'templates/etc/os-collect-config.conf':
        'usr/libexec/os-apply-config/templates/etc/os-collect-config.conf',
}
EXECUTABLE = ('hooks/', 'usr/libexec/os-refresh-config/', 'usr/local/bin/')
APPLY_CONFIG = 'usr/libexec/os-refresh-config/configure.d/20-os-apply-config'
DOCKER_CMD_CLEANUP = ('usr/libexec/os-refresh-config/configure.d/'
                      '50-heat-config-docker-cmd')
ENV_FILE = 'etc/heat-config-agent.env'
UNIT = 'etc/systemd/system/os-collect-config.service'
FIRST_COLLECT_CONFIG = '''\
[DEFAULT]
command = os-refresh-config
'''
UNIT_TEXT = '''\
[Unit]
Description=Collect deployments from Heat and run them (heat-config)
After=network-online.target docker.service
Wants=network-online.target

[Service]
EnvironmentFile=%(env)s
ExecStart=%(venv)s/bin/os-collect-config --config-file %(conf)s
Restart=on-failure
RestartSec=10

[Install]
WantedBy=multi-user.target
'''
# What a server needs from PyPI (heat-agents' hooks are not published).
AGENT_PACKAGES = ('os-collect-config==14.1.0', 'os-refresh-config==14.1.0',
                  'os-apply-config==14.1.0')
# A server's virtualenv; an image that holds it complete (the marker
# file) needs no PyPI at boot (tools/lc/builds/agent_server.py).
VENV = '/opt/heat-config-agent'
VENV_COMPLETE = '.heat-config-agent-complete'


def sources():
    """{relative source path: text}, from this directory."""
    found = {}
    for src in FILES:
        with open(os.path.join(HERE, src)) as f:
            found[src] = f.read()
    return found


def environment(root, venv, docker_cmd=None):
    """The agent chain's variables for files under `root`."""
    def at(path):
        return os.path.join(root, path)
    env = {
        'HEAT_CONFIG_HOOKS': at('var/lib/heat-config/hooks'),
        'HEAT_CONFIG_DEPLOYED': at('var/lib/heat-config/deployed'),
        'HEAT_SHELL_CONFIG': at('var/run/heat-config/heat-config'),
        'HEAT_CONFIG_NOTIFY': at('usr/local/bin/heat-config-notify'),
        'HEAT_SCRIPT_WORKING': at('var/lib/heat-config/heat-config-script'),
        'HEAT_SCRIPT_OUTPUTS': at('var/run/heat-config/heat-config-script'),
        'OS_REFRESH_CONFIG_BASE_DIR': at('usr/libexec/os-refresh-config'),
    }
    if docker_cmd:
        env['HEAT_DOCKER_CMD'] = docker_cmd
    path = [at('usr/local/bin')]
    if venv:
        path.insert(0, os.path.join(venv, 'bin'))
    env['PATH'] = ':'.join(path + ['/usr/local/sbin', '/usr/local/bin',
                                   '/usr/sbin', '/usr/bin', '/sbin', '/bin'])
    return env


def apply_config_script(root):
    return ('#!/bin/sh\n'
            '# Render the deployments (and os-collect-config.conf) from the\n'
            '# metadata os-collect-config collected.\n'
            'set -eu\n'
            'exec os-apply-config -t %s -o %s\n' % (
                shlex.quote(os.path.join(
                    root, 'usr/libexec/os-apply-config/templates')),
                shlex.quote(root)))


def docker_cmd_cleanup_script(root):
    return ('#!/bin/sh\n'
            '# Remove the containers of docker-cmd configurations that are\n'
            '# gone, before the dispatcher runs the new ones.\n'
            'exec %s cleanup\n' % shlex.quote(os.path.join(
                root, FILES['hooks/docker_cmd.py'])))


def write(path, text, mode):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + '.tmp'
    with open(tmp, 'w') as f:
        f.write(text)
    os.chmod(tmp, mode)
    os.rename(tmp, path)


def install(root, venv=None, log=print, docker_cmd=None, service=False):
    root = os.path.abspath(root)
    texts = sources()
    for src, dest in FILES.items():
        mode = 0o755 if dest.startswith(EXECUTABLE) or '/hooks/' in dest \
            else 0o644
        write(os.path.join(root, dest), texts[src], mode)
    write(os.path.join(root, APPLY_CONFIG), apply_config_script(root), 0o755)
    write(os.path.join(root, DOCKER_CMD_CLEANUP),
          docker_cmd_cleanup_script(root), 0o755)
    for d in ('var/lib/heat-config/deployed', 'var/run/heat-config'):
        os.makedirs(os.path.join(root, d), mode=0o700, exist_ok=True)
    env = environment(root, venv, docker_cmd)
    # K=V lines: read by systemd's EnvironmentFile and by `set -a; . file`.
    write(os.path.join(root, ENV_FILE), ''.join(
        '%s=%s\n' % (k, shlex.quote(v)) for k, v in sorted(
            env.items())), 0o644)
    complete = venv and os.path.join(venv, VENV_COMPLETE)
    if venv and not os.path.exists(complete):
        log('installing %s into %s' % (', '.join(AGENT_PACKAGES), venv))
        subprocess.run([sys.executable, '-m', 'venv', '--clear', venv],
                       check=True)
        subprocess.run([os.path.join(venv, 'bin', 'pip'), 'install', '-q',
                        '--disable-pip-version-check'] +
                       list(AGENT_PACKAGES), check=True)
        open(complete, 'w').close()  # an interrupted install starts over
    if service:
        install_service(root, venv, log)
    return env


def install_service(root, venv, log):
    conf = os.path.join(root, 'etc/os-collect-config.conf')
    if not os.path.exists(conf):
        write(conf, FIRST_COLLECT_CONFIG, 0o600)
    write(os.path.join(root, UNIT), UNIT_TEXT % {
        'env': os.path.join(root, ENV_FILE), 'venv': venv, 'conf': conf},
        0o644)
    if root == '/' and os.path.isdir('/run/systemd/system'):
        log('starting os-collect-config')
        subprocess.run(['systemctl', 'daemon-reload'], check=True)
        subprocess.run(['systemctl', 'enable', '--now',
                        'os-collect-config.service'], check=True)


def signal_started(signal, error=None):
    """SUCCESS, or FAILURE with `error`, to a wait condition handle's
    `signal` map, through the agent's own notifier."""
    spec = importlib.util.spec_from_file_location(
        'heat_config_notify', os.path.join(HERE, 'heat_config_notify.py'))
    notify = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(notify)
    data = {'status': 'FAILURE' if error else 'SUCCESS', 'id': 'agent',
            'reason': error or 'os-collect-config runs', 'data': ''}
    return notify.notify(notify.handle_deployment(signal), data)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    p.add_argument('--root', default='/')
    p.add_argument('--venv', default=VENV)
    p.add_argument('--no-venv', action='store_true')
    p.add_argument('--docker-cmd', help='HEAT_DOCKER_CMD (default docker)')
    p.add_argument('--service', action='store_true',
                   help='run os-collect-config as a systemd service')
    p.add_argument('--started-signal', metavar='FILE',
                   help="a wait condition handle's signal attribute "
                        '(JSON; - for stdin) to signal afterwards')
    args = p.parse_args(argv)
    signal = None
    if args.started_signal:
        with (sys.stdin if args.started_signal == '-'
              else open(args.started_signal)) as f:
            signal = json.loads(f.read().strip() or '{}')
    try:
        install(args.root, None if args.no_venv else args.venv,
                docker_cmd=args.docker_cmd, service=args.service)
    except Exception as exc:
        if signal:
            signal_started(signal, error='agent install failed: %s' % exc)
        raise
    if signal:
        signal_started(signal)
    return 0


if __name__ == '__main__':
    sys.exit(main())
