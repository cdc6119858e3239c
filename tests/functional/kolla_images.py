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

"""The images `tools/localcloud images` builds, run under podman by tests:
the images (refs), the containers a test starts and removes (Containers),
a loopback address of its own, and identity.yaml's Keystone set up step by
step (keystone_database, keystone_config). tests/functional/test_images.py
and test_keystone_releases.py share them.
"""

import base64
import json
import os
import secrets
import subprocess
import time
import uuid

import jinja2
import pytest
import yaml

from tools.lc.builds import images
from tools.lc.builds import recipes

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

PODMAN = list(images.PODMAN)
ULIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024']
RUN_FLAGS = ULIMITS + ['--network', 'host']


@pytest.fixture(scope='module')
def refs():
    """Build (or find) every image the way a user does."""
    out = subprocess.run(
        [os.path.join(REPO, 'tools', 'localcloud'), 'images'],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=3600)
    assert out.returncode == 0, out.stdout
    return recipes.refs()


class Containers:
    """Starts containers and removes every one of them afterwards."""

    def __init__(self):
        self.prefix = 'heat-k8s-images-test-%s-' % uuid.uuid4().hex[:6]
        self.names = []

    def start(self, name, image, *args, env=None, volumes=(),
              flags=RUN_FLAGS):
        name = self.prefix + name
        self.names.append(name)
        argv = PODMAN + ['run', '--detach', '--name', name] + list(flags)
        for key, value in sorted((env or {}).items()):
            argv += ['--env', '%s=%s' % (key, value)]
        for volume in volumes:
            argv += ['--volume', volume]
        subprocess.run(argv + [image] + list(args), check=True,
                       stdout=subprocess.DEVNULL)
        return name

    def run(self, image, *args, env=None, volumes=(), check=True):
        """Run a container to completion; return (exit code, output)."""
        name = self.prefix + 'run-%d' % len(self.names)
        self.names.append(name)
        argv = PODMAN + ['run', '--rm', '--name', name] + RUN_FLAGS
        for key, value in sorted((env or {}).items()):
            argv += ['--env', '%s=%s' % (key, value)]
        for volume in volumes:
            argv += ['--volume', volume]
        out = subprocess.run(argv + [image] + list(args),
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, timeout=300)
        if check:
            assert out.returncode == 0, out.stdout
        return out.returncode, out.stdout

    def exec(self, name, *args):
        out = subprocess.run(PODMAN + ['exec', name] + list(args),
                             stdout=subprocess.PIPE,
                             stderr=subprocess.STDOUT, text=True, timeout=60)
        return out.returncode, out.stdout

    def logs(self, name):
        return subprocess.run(PODMAN + ['logs', name],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True).stdout

    def wait(self, name, what, check, timeout=120):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if check():
                return
            state = subprocess.run(
                PODMAN + ['inspect', '--format', '{{.State.Running}}', name],
                stdout=subprocess.PIPE, text=True).stdout.strip()
            if state != 'true':
                pytest.fail('%s exited before %s:\n%s'
                            % (name, what, self.logs(name)))
            time.sleep(1)
        pytest.fail('%s: no %s after %ds:\n%s'
                    % (name, what, timeout, self.logs(name)))

    def remove_all(self):
        for name in self.names:
            subprocess.run(PODMAN + ['rm', '--force', '--time', '2', name],
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)


@pytest.fixture
def containers():
    c = Containers()
    yield c
    c.remove_all()


def pick(low, high):
    return low + secrets.randbelow(high - low + 1)


@pytest.fixture
def address():
    """A loopback address no other test run uses."""
    return '127.%d.%d.%d' % (pick(100, 250),
                             pick(0, 255), pick(2, 250))


def fernet_key():
    return base64.urlsafe_b64encode(secrets.token_bytes(32)).decode()


KOLLA_DIR = '/var/lib/kolla/config_files'


def kolla_dir(tmp, config, files):
    os.makedirs(tmp, exist_ok=True)
    with open(os.path.join(tmp, 'config.json'), 'w') as f:
        json.dump(config, f)
    for path, text in files.items():
        full = os.path.join(tmp, path)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w') as f:
            f.write(text)
    return '%s:%s:ro' % (tmp, KOLLA_DIR)


def identity_template():
    with open(os.path.join(REPO, 'templates', 'identity.yaml')) as f:
        return yaml.safe_load(f)['resources']


def render_keystone_conf(values):
    with open(os.path.join(REPO, 'templates', 'identity',
                           'keystone.conf.j2')) as f:
        return jinja2.Template(f.read()).render(**values)


def database_task(containers, refs, address, root_pw, task, **env):
    """Run one of identity.yaml's database tasks (its own command)."""
    return containers.run(
        refs['mariadb'],
        *identity_template()[task]['properties']['command'],
        env=dict(env, DB_HOST=address, DB_PORT='3306', MYSQL_PWD=root_pw))


def database_server(containers, refs, address):
    """identity.yaml's MariaDB, healthy; its root password."""
    root_pw = secrets.token_hex(12)
    db = containers.start('mariadb', refs['mariadb'], env={
        'MARIADB_ROOT_PASSWORD': root_pw, 'BIND_ADDRESS': address})
    containers.wait(db, 'healthy server', lambda: containers.exec(
        db, *identity_template()['database']['properties']['health_check'][
            'command'])[0] == 0)
    return root_pw


def keystone_database(containers, refs, address):
    """MariaDB with identity.yaml's keystone database and user.

    Returns the user's password: hex, as 29.x's db_sync crashes on a
    URL-encoded one.
    """
    root_pw = database_server(containers, refs, address)
    db_pw = secrets.token_hex(12)
    database_task(containers, refs, address, root_pw, 'database_create',
                   KEYSTONE_DB_USER='keystone', KEYSTONE_DB_PASSWORD=db_pw)
    return db_pw


def kolla_json(resource):
    """The config.json identity.yaml gives `resource` (its kolla_config)."""
    return dict(identity_template()[resource]['properties']['kolla_config'])


def keystone_config(tmp_path, address, db_pw):
    """identity.yaml's Keystone files: config_dir(resource) -> volume,
    the Fernet keys only for a resource the template gives them."""
    conf = render_keystone_conf({
        'debug': False, 'token': {'provider': 'fernet', 'expiration': 3600},
        'fernet_keys': 2, 'memcached_servers': [address + ':11211'],
        'database': {'user': 'keystone', 'password': db_pw, 'host': address,
                     'port': 3306, 'name': 'keystone'}})
    files = {'keystone.conf': conf}
    # As the template ships them, the schema steps' helper beside them.
    for name in ('wsgi-keystone.conf', 'keystone-schema.py',
                 'task_failure.py'):
        with open(os.path.join(REPO, 'templates', 'identity', name)) as f:
            files[name] = f.read()
    keys = {'fernet-keys/0': fernet_key(), 'fernet-keys/1': fernet_key()}

    def config_dir(resource, name=None, command=None):
        given = identity_template()[resource]['properties']
        config = kolla_json(resource)
        if command:
            config['command'] = command
        return kolla_dir(str(tmp_path / (name or resource)), config,
                          dict(files, **keys) if 'secret_files' in given
                          else files)
    return config_dir
