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

"""MariaDB from Debian's package, run as our own process on loopback.

Data, socket and pid live in ``<state>/mariadb``; no systemd, no
/etc/mysql (``--no-defaults``). The launcher's own OS user administers it
over the Unix socket; services get a database and a password user each.
"""

import getpass
import os
import subprocess

from tools.lc import daemons
from tools.lc.builds import debs
from tools.lc.openstack import passwords

NAME = 'mariadb'
MARIADBD = '/usr/sbin/mariadbd'
PACKAGES = {'mariadb-server': MARIADBD, 'mariadb-client': '/usr/bin/mariadb'}


class MariaDB(daemons.Service):

    PORT = NAME
    DIR = NAME

    def __init__(self, cluster, log=print):
        super().__init__(cluster, log)
        self.datadir = os.path.join(self.dir, 'data')
        self.socket = os.path.join(self.dir, 'mysqld.sock')
        self.user = getpass.getuser()

    def argv(self):
        return [MARIADBD, '--no-defaults',
                '--datadir=' + self.datadir, '--socket=' + self.socket,
                '--pid-file=' + os.path.join(self.dir, 'mariadbd.pid'),
                '--port=%d' % self.port, '--bind-address=127.0.0.1',
                '--user=' + self.user, '--skip-name-resolve',
                '--skip-log-bin', '--max-connections=1000',
                '--character-set-server=utf8mb4',
                '--collation-server=utf8mb4_general_ci',
                '--innodb-buffer-pool-size=128M',
                # A throwaway test database: durability is not needed.
                '--innodb-flush-log-at-trx-commit=0',
                '--innodb-doublewrite=0']

    def processes(self):
        return (daemons.Process(
            NAME, self.argv(), ready=self._accepts,
            what='MariaDB on port %d' % self.port, stop_timeout=30),)

    def prepare(self):
        """Install on demand, initialise once."""
        debs.ensure(PACKAGES, log=self.log)
        if not os.path.isdir(os.path.join(self.datadir, 'mysql')):
            os.makedirs(self.dir, exist_ok=True)
            subprocess.run(
                ['mariadb-install-db', '--no-defaults',
                 '--datadir=' + self.datadir, '--user=' + self.user,
                 '--auth-root-authentication-method=socket',
                 '--auth-root-socket-user=' + self.user, '--skip-test-db'],
                check=True, capture_output=True)

    def _accepts(self):
        return (daemons.accepts(self.port)()
                and os.path.exists(self.socket))

    def sql(self, statements, database=None):
        argv = ['mariadb', '--no-defaults', '--socket=' + self.socket,
                '-u', self.user, '--batch', '--skip-column-names']
        if database:
            argv.append(database)
        return subprocess.run(argv, input=statements, text=True,
                              check=True, capture_output=True).stdout

    def ensure_database(self, name):
        """A database and a same-named user; returns its SQLAlchemy URL."""
        password = passwords.get(self.state_dir, 'mariadb-' + name)
        self.sql(
            "CREATE DATABASE IF NOT EXISTS `{n}`;\n"
            "CREATE USER IF NOT EXISTS '{n}'@'127.0.0.1' IDENTIFIED BY "
            "'{p}';\n"
            "ALTER USER '{n}'@'127.0.0.1' IDENTIFIED BY '{p}';\n"
            "GRANT ALL PRIVILEGES ON `{n}`.* TO '{n}'@'127.0.0.1';\n"
            .format(n=name, p=password))
        return ('mysql+pymysql://%s:%s@127.0.0.1:%d/%s?charset=utf8mb4'
                % (name, password, self.port, name))
