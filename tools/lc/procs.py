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

"""Start and stop the cloud's processes, tracked by pid files.

A pid file holds the pid and the executable it was started from, so `down`
never signals a process it did not start even if the pid was reused.
"""

import fcntl
import json
import os
import random
import signal
import socket
import subprocess
import time

from tools.lc import paths

# The local clouds' ports: below Kubernetes' NodePorts (30000-32767) and
# the kernel's ephemeral ports (32768-60999), which every outgoing
# connection draws from: a port picked there and bound seconds later may
# be a client socket's by then, and its server's bind fails.
PORT_RANGE = (20000, 29999)


def free_port(owner, registry=None):
    """A port of PORT_RANGE that binds now and that no other local cloud
    holds, held for `owner` (a state directory) while that exists: two
    clouds starting at once never pick the same one."""
    registry = registry or os.path.join(paths.cache_dir(), 'ports.json')
    os.makedirs(os.path.dirname(registry), exist_ok=True)
    with open(registry + '.lock', 'a') as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            with open(registry) as f:
                held = json.load(f)
        except (OSError, ValueError):
            held = {}
        held = {p: o for p, o in held.items() if os.path.isdir(o)}
        pick = random.SystemRandom()
        for _ in range(500):
            port = pick.randint(*PORT_RANGE)
            if str(port) not in held and _binds(port):
                held[str(port)] = os.path.abspath(owner)
                with open(registry + '.tmp', 'w') as f:
                    json.dump(held, f, indent=1, sort_keys=True)
                os.replace(registry + '.tmp', registry)
                return port
    raise RuntimeError('no free port in %d-%d' % PORT_RANGE)


def _binds(port):
    with socket.socket() as s:
        try:
            s.bind(('127.0.0.1', port))
        except OSError:
            return False
    return True


def _pidfile(state_dir, name):
    return os.path.join(state_dir, 'run', name + '.pid')


def log_path(state_dir, name):
    return os.path.join(state_dir, 'logs', name + '.log')


def start(state_dir, name, argv, env=None, cwd=None, prefix=(),
          preexec_fn=None):
    """Start `argv` detached, logging to logs/<name>.log; prefix (a
    command that execs argv, as nsenter does) and preexec_fn place it
    (a further node's namespace and cgroup)."""
    os.makedirs(os.path.join(state_dir, 'run'), exist_ok=True)
    os.makedirs(os.path.join(state_dir, 'logs'), exist_ok=True)
    if running(state_dir, name):
        return read(state_dir, name)['pid']
    log = open(log_path(state_dir, name), 'ab')
    proc = subprocess.Popen(list(prefix) + list(argv), stdout=log,
                            stderr=subprocess.STDOUT,
                            stdin=subprocess.DEVNULL, env=env, cwd=cwd,
                            start_new_session=True, preexec_fn=preexec_fn)
    log.close()
    info = {'pid': proc.pid, 'exe': os.path.realpath(argv[0]),
            'argv': list(argv)}
    with open(_pidfile(state_dir, name), 'w') as f:
        json.dump(info, f)
    deadline = time.monotonic() + 5
    while prefix and not _is_ours(info) and proc.poll() is None and \
            time.monotonic() < deadline:
        time.sleep(0.01)  # until the prefix has exec'd argv
    return proc.pid


def command(argv, check=True, ok_if=None):
    """Run a short command; with check, its failure raises, unless its
    stderr says `ok_if` (what is already so)."""
    result = subprocess.run(argv, capture_output=True, text=True)
    if result.returncode and check and not (
            ok_if and ok_if in result.stderr):
        raise RuntimeError('%s failed: %s' % (' '.join(argv),
                                               result.stderr.strip()))
    return result


def read(state_dir, name):
    try:
        with open(_pidfile(state_dir, name)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _is_ours(info):
    try:
        exe = os.path.realpath('/proc/%d/exe' % info['pid'])
    except OSError:
        return False
    # A deleted (rebuilt) binary reads as '<path> (deleted)'.
    return exe.split(' (deleted)')[0] == info['exe']


def running(state_dir, name):
    info = read(state_dir, name)
    if not info or not _is_ours(info):
        return False
    with open('/proc/%d/stat' % info['pid']) as f:
        return f.read().rsplit(')', 1)[1].split()[0] != 'Z'


def names(state_dir):
    run = os.path.join(state_dir, 'run')
    if not os.path.isdir(run):
        return []
    return sorted(n[:-4] for n in os.listdir(run) if n.endswith('.pid'))


def stop(state_dir, name, timeout=15):
    """Stop one process we started; safe when it is already gone."""
    info = read(state_dir, name)
    if info and _is_ours(info):
        for sig, wait in ((signal.SIGTERM, timeout), (signal.SIGKILL, 5)):
            try:
                os.killpg(info['pid'], sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + wait
            while time.monotonic() < deadline and running(state_dir, name):
                _reap(info['pid'])
                time.sleep(0.1)
            if not running(state_dir, name):
                break
    try:
        os.unlink(_pidfile(state_dir, name))
    except FileNotFoundError:
        pass


def _reap(pid):
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def wait_for(check, what, timeout, log_name=None, state_dir=None):
    """Poll `check()` until true; on timeout show the component's log."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if log_name and not running(state_dir, log_name):
            raise RuntimeError('%s exited; its log:\n%s'
                               % (log_name, why_exited(state_dir, log_name)))
        try:
            if check():
                return
        except (OSError, ValueError):
            pass
        time.sleep(0.2)
    msg = 'timed out after %ss waiting for %s' % (timeout, what)
    if log_name:
        msg += '; last log lines of %s:\n%s' % (log_name,
                                                tail(state_dir, log_name))
    raise RuntimeError(msg)


def why_exited(state_dir, name, lines=30):
    """The log from its last traceback (what a CI report's cut would
    otherwise hide behind a banner), or its last `lines`."""
    try:
        with open(log_path(state_dir, name), errors='replace') as f:
            log = f.readlines()
    except OSError:
        return '(no log)'
    starts = [i for i, line in enumerate(log)
              if line.startswith('Traceback (most recent call last)')]
    if starts and len(log) - starts[-1] <= 3 * lines:
        return ''.join(log[starts[-1]:])
    return ''.join(log[-lines:])


def tail(state_dir, name, lines=30):
    try:
        with open(log_path(state_dir, name), errors='replace') as f:
            return ''.join(f.readlines()[-lines:])
    except OSError:
        return '(no log)'
