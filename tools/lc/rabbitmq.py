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

"""RabbitMQ from Debian's package, run as our own processes on loopback.

An epmd of our own on a loopback port (so the node never meets another
Erlang node's epmd) and one node ``heatk8s@localhost`` with its Mnesia
database, logs, cookie and config in ``<state>/rabbitmq``. The broker's
only user is created from rabbitmq.conf on first boot.
"""

import os
import socket

from lc import debs
from lc import passwords
from lc import procs

NAME = 'rabbitmq'
EPMD = 'epmd'
NODENAME = 'heatk8s@localhost'
SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'
PACKAGES = {'rabbitmq-server': SERVER}
USER = 'heat'
# AMQP 0-9-1 protocol header; a ready broker answers with Connection.Start.
_AMQP_HEADER = b'AMQP\x00\x00\x09\x01'


class RabbitMQ(object):

    def __init__(self, cluster, log=print):
        self.cluster = cluster
        self.state_dir = cluster.state_dir
        self.dir = os.path.join(self.state_dir, 'rabbitmq')
        self.log = log

    @property
    def port(self):
        return self.cluster.port('rabbitmq')

    @property
    def password(self):
        return passwords.get(self.state_dir, 'rabbitmq-' + USER)

    @property
    def transport_url(self):
        return 'rabbit://%s:%s@127.0.0.1:%d/' % (USER, self.password,
                                                 self.port)

    def env(self):
        d = self.dir
        return dict(
            os.environ,
            HOME=d,  # the Erlang cookie lives in $HOME
            ERL_EPMD_ADDRESS='127.0.0.1',
            ERL_EPMD_PORT=str(self.cluster.port('epmd')),
            RABBITMQ_NODENAME=NODENAME,
            RABBITMQ_NODE_IP_ADDRESS='127.0.0.1',
            RABBITMQ_NODE_PORT=str(self.port),
            RABBITMQ_DIST_PORT=str(self.cluster.port('rabbitmq-dist')),
            RABBITMQ_MNESIA_BASE=os.path.join(d, 'mnesia'),
            RABBITMQ_LOG_BASE=os.path.join(d, 'log'),
            RABBITMQ_LOGS='-',
            RABBITMQ_PID_FILE=os.path.join(d, 'rabbitmq.pid'),
            RABBITMQ_CONFIG_FILE=os.path.join(d, 'rabbitmq.conf'),
            RABBITMQ_ADVANCED_CONFIG_FILE=os.path.join(d, 'advanced.config'),
            RABBITMQ_ENABLED_PLUGINS_FILE=os.path.join(d, 'enabled_plugins'),
            RABBITMQ_CONF_ENV_FILE=os.path.join(d, 'rabbitmq-env.conf'))

    def _write_config(self):
        os.makedirs(self.dir, exist_ok=True)
        files = {
            'enabled_plugins': '[].\n',
            'rabbitmq-env.conf': '# all settings come from the environment\n',
            'rabbitmq.conf': (
                'default_user = %s\ndefault_pass = %s\n'
                'default_permissions.configure = .*\n'
                'default_permissions.read = .*\n'
                'default_permissions.write = .*\n'
                'listeners.tcp.default = 127.0.0.1:%d\n'
                'disk_free_limit.absolute = 50MB\n'
                % (USER, self.password, self.port)),
        }
        for name, text in files.items():
            path = os.path.join(self.dir, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, 'w') as f:
                f.write(text)

    def start(self):
        """Install on demand, start epmd and the node; does not wait."""
        debs.ensure(PACKAGES, log=self.log)
        self._write_config()
        procs.start(self.state_dir, EPMD, [
            '/usr/bin/epmd', '-address', '127.0.0.1',
            '-port', str(self.cluster.port('epmd'))])
        # The script stays the parent of the Erlang VM and forwards TERM, so
        # the pid file tracks a /bin/sh.
        procs.start(self.state_dir, NAME, ['/bin/sh', SERVER],
                    env=self.env(), cwd=self.dir)

    def ready(self):
        with socket.create_connection(('127.0.0.1', self.port),
                                      timeout=2) as s:
            s.sendall(_AMQP_HEADER)
            return s.recv(1) == b'\x01'

    def wait(self, timeout=90):
        procs.wait_for(self.ready, 'RabbitMQ on port %d' % self.port,
                       timeout, NAME, self.state_dir)

    def running(self):
        return (procs.running(self.state_dir, NAME)
                and procs.running(self.state_dir, EPMD))

    def stop(self):
        procs.stop(self.state_dir, NAME, timeout=30)
        procs.stop(self.state_dir, EPMD)
