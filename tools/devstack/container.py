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


"""The container devstack runs in, and its network.

Rootful podman boots systemd (devstack's services are systemd units) from
the `devstack-host` image. The container joins a network namespace made
here (`unshare --net`, held by that process), which reaches out through
slirp4netns in user space: podman makes no namespace of its own, so it
never touches the host's /run/netns (making it a mount of itself, as
podman's own namespaces do, leaves containerd unable to remove the
namespaces of a local cloud's pods already running) nor its firewall, and
devstack's ports (MySQL, RabbitMQ, Apache...) stay in that namespace, away
from the host's.
The container is 10.0.2.100; nothing outside reaches in (the tests use
`podman exec`).
"""

import os
import shlex
import subprocess
import time

from tools.lc import paths
from tools.lc import procs
from tools.lc.builds import images
from tools.lc.builds import recipes

NAME = 'heat-k8s-devstack'
IMAGE = 'devstack-host'
PODMAN = images.PODMAN
ADDRESS = '10.0.2.100'  # slirp4netns' default guest address
HOSTNAME = 'devstack'
# runc needs explicit limits here (the host's hard nofile is 20000).
ULIMITS = ('--ulimit', 'nofile=20000:20000', '--ulimit',
           'nproc=32768:32768')
# Inside the container: devstack's DEST, and where the host's files are.
DEST = '/opt/stack'
BIN_DIR = '/opt/kubernetes/bin'
PIP_CACHE = '/var/cache/devstack-pip'
APT_CACHE = '/var/cache/apt/archives'
HOST_CA = '/etc/ssl/certs/host-ca-bundle.crt'
HOST_BUNDLE = '/etc/ssl/certs/ca-certificates.crt'
USER = 'stack'


def cache_dir():
    """The devstack run's own cache (its image, .debs, pip's wheels),
    apart from the local cloud's."""
    return os.path.join(paths.cache_dir(), 'devstack')


def state_dir():
    return os.path.join(cache_dir(), 'run')


def ensure_image(log=print):
    """The image, built into our own cache (HEAT_K8S_CACHE for the
    build only: the local cloud's cache is not written)."""
    saved = os.environ.get('HEAT_K8S_CACHE')
    os.environ['HEAT_K8S_CACHE'] = os.path.join(cache_dir(), 'cache')
    try:
        return images.ensure(recipes.BY_NAME[IMAGE], log=log)[0]
    finally:
        if saved is None:
            del os.environ['HEAT_K8S_CACHE']
        else:
            os.environ['HEAT_K8S_CACHE'] = saved


def _netns_path():
    return '/proc/%d/ns/net' % procs.read(state_dir(), 'netns')['pid']


def _run(argv, check=True, **kwargs):
    return subprocess.run(argv, check=check, capture_output=True, text=True,
                          **kwargs)


def network_up(timeout=30):
    """The namespace's holder and slirp4netns; waits for the address."""
    state = state_dir()
    holder = procs.start(state, 'netns', [
        '/usr/bin/unshare', '--net', '--fork', '--kill-child',
        'sleep', 'infinity'])
    procs.start(state, 'slirp4netns', [
        '/usr/bin/slirp4netns', '--configure', '--mtu=65520',
        '--disable-host-loopback', str(holder), 'tap0'])

    def configured():
        out = _run(['nsenter', '--net=' + _netns_path(), 'ip', '-o', '-4',
                    'addr', 'show', 'tap0'], check=False).stdout
        return ADDRESS + '/' in out
    procs.wait_for(configured, 'slirp4netns to configure tap0', timeout,
                   'slirp4netns', state)


def network_down():
    for name in ('slirp4netns', 'netns'):
        procs.stop(state_dir(), name)


def exists():
    return _run(list(PODMAN) + ['container', 'exists', NAME],
                check=False).returncode == 0


def start(image, stack_dir, bin_dirs, cache, timeout=120):
    """Boot the container: /opt/stack is `stack_dir`, the Kubernetes
    binaries are read-only under BIN_DIR, pip's and apt's caches are
    `cache`'s, and the host's CA bundle is there for pip (this host may
    reach PyPI through a proxy that signs with its own CA)."""
    os.makedirs(os.path.join(cache, 'pip'), exist_ok=True)
    os.makedirs(os.path.join(cache, 'apt'), exist_ok=True)
    argv = list(PODMAN) + [
        'run', '--detach', '--name', NAME, '--hostname', HOSTNAME,
        # RabbitMQ's node (rabbit@devstack) and sudo resolve it.
        '--add-host', '%s:%s' % (HOSTNAME, ADDRESS),
        '--systemd=always', '--network', 'ns:' + _netns_path(),
        '--volume', '%s:%s' % (stack_dir, DEST),
        '--volume', '%s:%s' % (os.path.join(cache, 'pip'), PIP_CACHE),
        '--volume', '%s:%s' % (os.path.join(cache, 'apt'), APT_CACHE),
        '--volume', '%s:%s:ro' % (HOST_BUNDLE, HOST_CA)] + list(ULIMITS)
    for d in bin_dirs:
        argv += ['--volume', '%s:%s/%s:ro' % (d, BIN_DIR,
                                              os.path.basename(d))]
    _run(argv + [image, '/sbin/init'])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        state = exec_(['systemctl', 'is-system-running'], check=False,
                      user='root').stdout.strip()
        if state in ('running', 'degraded'):
            return state
        time.sleep(1)
    raise RuntimeError('systemd in %s did not boot in %ds (%s)' % (
        NAME, timeout, state))


def exec_(argv, check=True, user=USER, env=None, input=None, timeout=None,
          stream=None, workdir=None):
    """`podman exec` as `user` (a login-like environment: HOME, PATH);
    `stream`: a file the output goes to instead of being captured."""
    cmd = list(PODMAN) + ['exec', '-i', '--user', user, '--workdir',
                          workdir or (DEST if user == USER else '/')]
    home = DEST if user == USER else '/root'
    for k, v in dict({'HOME': home, 'PATH': recipes.PATH_ENV},
                     **(env or {})).items():
        cmd += ['--env', '%s=%s' % (k, v)]
    cmd += [NAME] + list(argv)
    output = (dict(stdout=stream, stderr=subprocess.STDOUT) if stream
              else dict(capture_output=True))
    proc = subprocess.run(cmd, input=input, text=True, timeout=timeout,
                          **output)
    if check and proc.returncode:
        raise RuntimeError('in %s: %s exited %d\n%s%s' % (
            NAME, shlex.join(argv), proc.returncode,
            proc.stdout or '', proc.stderr or ''))
    return proc


def copy_in(path, dest):
    """A host file into the container."""
    _run(list(PODMAN) + ['cp', path, '%s:%s' % (NAME, dest)])


def shell(script, **kwargs):
    """A bash script in the container (as exec_)."""
    return exec_(['bash', '-c', script], **kwargs)


def remove():
    """The container (stopped first: systemd shuts its units down)."""
    if exists():
        _run(list(PODMAN) + ['stop', '--time', '60', NAME], check=False)
        _run(list(PODMAN) + ['rm', '--force', NAME], check=False)
