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

from tools.lc import daemons
from tools.lc.builds import debs
from tools.lc.openstack import passwords

NAME = 'rabbitmq'
EPMD = 'epmd'
NODENAME = 'heatk8s@localhost'
SERVER = '/usr/lib/rabbitmq/bin/rabbitmq-server'
PACKAGES = {'rabbitmq-server': SERVER}
USER = 'heat'
# AMQP 0-9-1 protocol header; a ready broker answers with Connection.Start.
_AMQP_HEADER = b'AMQP\x00\x00\x09\x01'


class RabbitMQ(daemons.Service):

    PORT = 'rabbitmq'
    DIR = NAME

    def __init__(self, cluster, log=print):
        super().__init__(cluster, log)

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

    def config_files(self):
        return {os.path.join(self.dir, name): text for name, text in {
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
        }.items()}

    def processes(self):
        return (
            daemons.Process(EPMD, [
                '/usr/bin/epmd', '-address', '127.0.0.1',
                '-port', str(self.cluster.port('epmd'))]),
            # The script stays the parent of the Erlang VM and forwards
            # TERM, so the pid file tracks a /bin/sh.
            daemons.Process(NAME, ['/bin/sh', SERVER], ready=self.ready,
                            what='RabbitMQ on port %d' % self.port,
                            ready_timeout=90, stop_timeout=30,
                            env=self.env(), cwd=self.dir))

    def prepare(self):
        """Install on demand, write the config."""
        debs.ensure(PACKAGES, log=self.log)
        daemons.write_files(self.config_files())

    def ready(self):
        with socket.create_connection(('127.0.0.1', self.port),
                                      timeout=2) as s:
            s.sendall(_AMQP_HEADER)
            return s.recv(1) == b'\x01'
