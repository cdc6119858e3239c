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

"""The cloud's long-running services as daemons: start, wait, stop.

A service says what it runs as data: its processes in start order, each a
`Process` (argv, environment, working directory, how to tell it is ready,
how long to give it to start and to stop). `Service` starts, waits for,
reports on and stops them, through the pid and log files of `procs`
(``run/<name>.pid``, ``logs/<name>.log``). A subclass adds only what is its
own: installing, the files it writes, one-off setup.
"""

import dataclasses
import os
import socket
from typing import Callable
from typing import Optional
import urllib.error
import urllib.request

from tools.lc import fetch
from tools.lc import procs


@dataclasses.dataclass(frozen=True)
class Process:
    """One process of a service."""

    name: str  # names its pid file and its log file
    argv: list
    # () -> bool; raising OSError or ValueError means "not yet". None: no
    # check (the process is ready once started).
    ready: Optional[Callable[[], bool]] = None
    what: str = ''  # what a wait message calls the ready check
    ready_timeout: float = 60
    stop_timeout: float = 15
    env: Optional[dict] = None
    cwd: Optional[str] = None


def accepts(port):
    """A ready check: something accepts TCP connections on `port`."""
    def check():
        with socket.create_connection(('127.0.0.1', port), timeout=1):
            return True
    return check


def answers(url, statuses=(200,)):
    """A ready check: GET `url` answers with one of `statuses`."""
    def check():
        try:
            with fetch.urlopen(url, timeout=5) as resp:
                return resp.status in statuses
        except urllib.error.HTTPError as e:
            return e.code in statuses
    return check


def ready(process):
    """Whether `process`'s ready check passes now (no wait, no raise)."""
    try:
        return bool(process.ready())
    except (OSError, ValueError):
        return False


def write_files(files):
    """Write {path: text}, readable by this user only (they hold secrets)."""
    for path, text in files.items():
        os.makedirs(os.path.dirname(path), exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:
            f.write(text)


class Service(object):
    """A service of the cloud; subclasses give `processes()`."""

    PORT = None  # the name of the cluster's port it serves on
    DIR = None  # its directory in the state directory: config and data

    def __init__(self, cluster, log=print, venv=None):
        self.cluster = cluster
        self.state_dir = cluster.state_dir
        self.dir = os.path.join(self.state_dir, self.DIR)
        self.log = log
        self.venv = venv  # the virtualenv of a Python service

    @property
    def port(self):
        return self.cluster.port(self.PORT)

    @property
    def url(self):
        return 'http://127.0.0.1:%d' % self.port

    def bin(self, name):
        """A program of the service's virtualenv."""
        return os.path.join(self.venv, 'bin', name)

    def uwsgi(self, module, processes, threads, *args, procname, port=None):
        """argv: uWSGI serving the WSGI `module` on the service's port (or
        `port`)."""
        return [self.bin('uwsgi'),
                '--http-socket', '127.0.0.1:%d' % (port or self.port),
                '--module', module] + list(args) + [
                '--master', '--processes', str(processes),
                '--threads', str(threads),
                '--lazy-apps', '--need-app', '--die-on-term',
                '--buffer-size', '65535', '--disable-logging',
                # uWSGI's http-socket closes every connection after one
                # response; say so, or clients reuse it and get resets.
                '--add-header', 'Connection: close',
                '--procname-prefix-spaced', procname]

    def processes(self):
        """The service's `Process`es, in start order."""
        raise NotImplementedError

    def process(self, name):
        for p in self.processes():
            if p.name == name:
                return p
        raise KeyError(name)

    def prepare(self):
        """What `start` does first (install, write files); idempotent."""

    def start(self):
        """Prepare and start what is not running; does not wait."""
        self.prepare()
        for p in self.processes():
            procs.start(self.state_dir, p.name, p.argv, env=p.env, cwd=p.cwd)

    def wait(self, timeout=None):
        """Wait for each process's ready check, in start order."""
        for p in self.processes():
            if p.ready:
                procs.wait_for(p.ready, p.what, timeout or p.ready_timeout,
                               p.name, self.state_dir)

    def running(self):
        return all(procs.running(self.state_dir, p.name)
                   for p in self.processes())

    def healthy(self):
        """Whether the last process (the one that serves) is ready."""
        return ready(self.processes()[-1])

    def stop(self):
        for p in reversed(self.processes()):
            procs.stop(self.state_dir, p.name, timeout=p.stop_timeout)

    def restart(self, name):
        """Stop process `name`, start what is not running, wait."""
        p = self.process(name)
        procs.stop(self.state_dir, name, timeout=p.stop_timeout)
        self.start()
        self.wait()
