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

"""Debian packages the local cloud runs (MariaDB, RabbitMQ), on demand."""

import os
import shutil
import subprocess

_updated = []


def _sudo():
    if os.geteuid() == 0:
        return []
    if shutil.which('sudo'):
        return ['sudo', '-n']
    raise RuntimeError('installing Debian packages needs root or sudo')


def ensure(packages, log=print):
    """Install `packages` ({package: a file it installs}) when missing."""
    missing = sorted(p for p, f in packages.items() if not os.path.exists(f))
    if not missing:
        return False
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    if not _updated:
        log('apt-get update')
        subprocess.run(_sudo() + ['apt-get', 'update', '-q'], check=True,
                       env=env, stdout=subprocess.DEVNULL)
        _updated.append(True)
    log('apt-get install %s' % ' '.join(missing))
    # Package scripts may try to start the services; the launcher runs its
    # own instances instead (a policy-rc.d usually forbids that anyway).
    subprocess.run(_sudo() + ['apt-get', 'install', '-y', '-q',
                              '--no-install-recommends'] + missing,
                   check=True, env=env, stdout=subprocess.DEVNULL)
    return True
