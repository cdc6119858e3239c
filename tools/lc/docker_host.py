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


"""This machine as a stack's docker host (an OS::Heat::DeployedServer).

``start(state_dir, stack, env)`` reads the stack's host ``agent_config``
output (the deployed server's os-collect-config settings: Heat's API and
the server's own Keystone credentials, or its CFN API keys), installs the
agent side (agent/install.py: our dispatcher, ``script`` and
``docker-cmd`` hooks, os-collect-config, os-refresh-config and
os-apply-config from PyPI in a cached virtualenv) under
``<state>/docker-host/<stack>`` and starts os-collect-config there: it
polls Heat (POLL_SERVER_HEAT, or its CFN API with POLL_SERVER_CFN), runs
each new deployment and signals the result back (HEAT_SIGNAL, CFN_SIGNAL),
as on a real server. Containers run under podman (``HEAT_DOCKER_CMD``)
with a containers.conf giving what this machine needs: runc, cgroupfs and
explicit ulimits, and a container store of the host's own (images
shared, read-only, from the machine's store): each docker host is a
separate server, whose docker-cmd cleanup must not see another stack's
containers. ``podman_env()`` gives the environment to look at a host's
containers (``podman ps``).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time

from tools.lc import paths
from tools.lc import procs
from tools.lc.builds import agent

# A real server polls every 30 s; loopback Heat can take a poll a second.
POLLING_INTERVAL = 1
RUN_ROOTS = '/run/heat-k8s-docker-hosts'
CONTAINERS_CONF = """\
# podman on this machine: crun fails on its hybrid cgroups, PID 1 is not
# systemd, and runc needs explicit limits (hard nofile limit 20000).
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
cgroup_manager = "cgroupfs"
"""


STORAGE_CONF = """\
# This docker host's containers; images come from the machine's store.
[storage]
driver = "overlay"
graphroot = "{base}/containers/storage"
runroot = "{runroot}"

[storage.options]
additionalimagestores = ["{images}"]
"""


def agent_venv():
    """The agents' virtualenv, keyed by their pins and Python version."""
    pins = '\n'.join(('%d.%d' % sys.version_info[:2],) +
                     agent.install_module().AGENT_PACKAGES)
    return os.path.join(paths.cache_dir(), 'venv', 'agent-' + hashlib.sha256(
        pins.encode()).hexdigest()[:12])


def host_dir(state_dir, stack):
    return os.path.join(state_dir, 'docker-host', stack)


def run_root(base):
    """The host's podman run root: short, since podman refuses a run root
    over 50 characters in the exit command conmon runs to record a
    container's exit, and every attached `podman run` then waits 20 s for
    an exit code that never comes."""
    return os.path.join(RUN_ROOTS, hashlib.sha256(
        base.encode()).hexdigest()[:12])


def remove_run_roots(state_dir):
    """The run roots of the state directory's docker hosts (on purge)."""
    hosts = os.path.join(state_dir, 'docker-host')
    for name in os.listdir(hosts) if os.path.isdir(hosts) else ():
        shutil.rmtree(run_root(os.path.join(hosts, name)),
                      ignore_errors=True)


def process_name(stack):
    return 'docker-host-' + stack


# The collectors a deployed server polls Heat with, by its transport
# (ContainerHostConfigTransport), and the settings each takes.
COLLECTORS = {
    'heat': ('auth_url', 'user_id', 'password', 'project_id', 'stack_id',
             'resource_name', 'region_name'),
    'cfn': ('metadata_url', 'access_key_id', 'secret_access_key',
            'stack_name', 'path'),
}


def collect_config(agent_config, cachedir, root):
    """os-collect-config.conf for a deployed server's `agent_config`."""
    # Heat blanks the settings of a transport the server no longer uses.
    found = [c for c in agent_config.get('collectors') or COLLECTORS
             if c in COLLECTORS and any((agent_config.get(c) or {}).values())]
    if not found:
        raise ValueError('agent_config has no heat or cfn collector '
                         'settings (the host needs ContainerHostConfig'
                         'Transport POLL_SERVER_HEAT or POLL_SERVER_CFN): '
                         '%s' % sorted(agent_config))
    collector = found[0]
    lines = ['[DEFAULT]',
             'collectors = ' + collector,
             'command = os-refresh-config --lockfile %s' % os.path.join(
                 root, 'var/run/os-refresh-config.lock'),
             'cachedir = %s' % cachedir,
             'polling_interval = %d' % POLLING_INTERVAL,
             'min_polling_interval = %d' % POLLING_INTERVAL,
             '', '[%s]' % collector]
    settings = agent_config[collector]
    for key in COLLECTORS[collector]:
        if settings.get(key):
            lines.append('%s = %s' % (key, settings[key]))
    return '\n'.join(lines) + '\n'


def _write(path, text, mode=0o600):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with os.fdopen(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC,
                           mode), 'w') as f:
        f.write(text)


def machine_store():
    """Graph root of podman's default store (where images are loaded)."""
    out = subprocess.run(['podman', 'info', '--format',
                          '{{.Store.GraphRoot}}'], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, check=True,
                         env={k: v for k, v in os.environ.items()
                              if k != 'CONTAINERS_STORAGE_CONF'})
    return out.stdout.strip()


def podman_env(state_dir, stack, base_env=None):
    """The environment under which `podman` shows this host's containers."""
    base = host_dir(state_dir, stack)
    return dict(base_env if base_env is not None else os.environ,
                CONTAINERS_CONF=os.path.join(base, 'containers.conf'),
                CONTAINERS_STORAGE_CONF=os.path.join(base, 'storage.conf'))


def configure(state_dir, stack, agent_config, log=print):
    """Install and configure the agent for one stack's host; returns the
    os-collect-config command line and its environment."""
    base = host_dir(state_dir, stack)
    root = os.path.join(base, 'root')
    venv = agent_venv()
    env = agent.install_module().install(root, venv, log=log)
    conf = os.path.join(base, 'os-collect-config.conf')
    _write(conf, collect_config(agent_config,
                                os.path.join(base, 'collect-cache'), root))
    _write(os.path.join(base, 'containers.conf'), CONTAINERS_CONF, 0o644)
    _write(os.path.join(base, 'storage.conf'), STORAGE_CONF.format(
        base=base, runroot=run_root(base), images=machine_store()), 0o644)
    env = podman_env(state_dir, stack, dict(
        env, HEAT_DOCKER_CMD='podman', PYTHONUNBUFFERED='1'))
    # The interpreter first: procs recognises its processes by executable.
    argv = [os.path.join(venv, 'bin', 'python3'),
            os.path.join(venv, 'bin', 'os-collect-config'),
            '--config-file', conf]
    return argv, env


def start(state_dir, stack, agent_config, log=print):
    """Configure and start the agent; a running one is restarted (new
    credentials after a host replacement)."""
    name = process_name(stack)
    procs.stop(state_dir, name)
    argv, env = configure(state_dir, stack, agent_config, log=log)
    pid = procs.start(state_dir, name, argv, env=env)
    log('docker host agent for %s: pid %d, log %s' % (
        stack, pid, procs.log_path(state_dir, name)))
    return pid


def stop(state_dir, stack):
    procs.stop(state_dir, process_name(stack))


def stack_agent_config(openstack_env, stack, host_resource='host',
                       timeout=300):
    """The `agent_config` output of the stack's host (a nested stack),
    once its server exists: the host itself completes only when the agent
    has run its first deployment (the host's key,
    templates/hosts/server-key.yaml)."""
    def cli(*args):
        out = subprocess.run(['openstack'] + list(args) + ['-f', 'json'],
                             env=openstack_env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, timeout=120)
        if out.returncode:
            raise RuntimeError(out.stderr.strip())
        return json.loads(out.stdout)

    deadline = time.monotonic() + timeout
    while True:
        res = cli('stack', 'resource', 'show', stack, host_resource)
        if res['resource_status'].endswith('FAILED'):
            raise RuntimeError('%s %s: %s' % (host_resource,
                                              res['resource_status'],
                                              res['resource_status_reason']))
        nested = res.get('physical_resource_id')
        try:
            server = nested and cli('stack', 'resource', 'show', nested,
                                    'server')['resource_status']
            value = server in ('CREATE_COMPLETE', 'UPDATE_COMPLETE') and cli(
                'stack', 'output', 'show', nested,
                'agent_config')['output_value']
        except RuntimeError:   # the nested stack is still being made
            value = None
        if value:
            return json.loads(value) if isinstance(value, str) else value
        if time.monotonic() > deadline:
            raise RuntimeError('the server of %s\'s %s not created after %ds'
                               % (stack, host_resource, timeout))
        time.sleep(1)
