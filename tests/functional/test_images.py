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

"""The images `tools/localcloud images` builds, run under podman.

Each service runs with host networking on an address of its own in
127.0.0.0/8 (BIND_ADDRESS, as on a docker host), and a second container
is its client, so a login really crosses the network. Every container
started here is removed at the end.

The opt-in images (the earlier Keystones, glance, placement and their
2026.1 releases, nova, nova-compute, neutron, rabbitmq and ovn:
recipes.OPTIONAL_IMAGES) are not built by a plain `tools/localcloud
images`. Their tests here run when asked for,
HEAT_K8S_TEST_IMAGES=glance,placement (or "all"), building the image's
current recipe if it is not the one cached; elsewhere they skip and say
so. The end-to-end tests run every one of them in a deployment
(tests/e2e: test_upgrade, test_docker_host, test_controlplane_upgrade,
test_compute_cloud), so CI, which builds them, does not pay twice.
"""

import http.client
import json
import os
import re
import secrets
import socket
import subprocess
import tempfile
import urllib.parse
import urllib.request
from xml.etree import ElementTree

import pytest

from tests.functional import kolla_images
from tests.functional.kolla_images import KOLLA_DIR
from tests.functional.kolla_images import PODMAN
from tests.functional.kolla_images import REPO
from tests.functional.kolla_images import ULIMITS
from tests.functional.kolla_images import database_server
from tests.functional.kolla_images import database_task
from tests.functional.kolla_images import identity_template
from tests.functional.kolla_images import keystone_config
from tests.functional.kolla_images import keystone_database
from tests.functional.kolla_images import kolla_dir
from tests.functional.kolla_images import pick
from tools.lc.builds import go
from tools.lc.builds import recipes

# The shared fixtures: the images, containers and a loopback address.
refs = kolla_images.refs
containers = kolla_images.containers
address = kolla_images.address

# The compute image's daemons: privileged (QEMU's /dev/kvm, ovs-vswitchd's
# taps), in a network namespace of their own, so that their bridges and
# taps go with the container.
PRIVILEGED_FLAGS = ULIMITS + ['--network', 'none', '--privileged']


def _port_open(address, port):
    try:
        with socket.create_connection((address, port), timeout=1):
            return True
    except OSError:
        return False


def _start_postgres(containers, refs, address, password):
    name = containers.start('postgres', refs['postgres'], env={
        'POSTGRES_USER': 'app', 'POSTGRES_DB': 'appdb',
        'POSTGRES_PASSWORD': password, 'BIND_ADDRESS': address})
    containers.wait(name, 'ready database', lambda: containers.exec(
        name, 'pg_isready', '-h', address, '-U', 'app', '-d', 'appdb')[0]
        == 0)
    return name


def test_pause(refs, containers):
    name = containers.start('pause', refs['pause'])
    inspect = json.loads(subprocess.run(
        PODMAN + ['inspect', name], stdout=subprocess.PIPE, text=True,
        check=True).stdout)[0]
    assert inspect['Config']['User'] == '65535:65535'
    assert inspect['State']['Running']
    subprocess.run(PODMAN + ['stop', '--time', '5', name], check=True,
                   stdout=subprocess.DEVNULL)
    code = subprocess.run(
        PODMAN + ['inspect', '--format', '{{.State.ExitCode}}', name],
        stdout=subprocess.PIPE, text=True).stdout.strip()
    # SIGTERM ends it at once with 0 (no SIGKILL after the grace time).
    assert code == '0'


def test_postgres_login(refs, containers, address):
    _start_postgres(containers, refs, address, 'secret-pw-1')
    code, out = containers.run(
        refs['postgres'], 'psql', '-h', address, '-U', 'app', '-d', 'appdb',
        '-tAc', 'SELECT current_user, current_database()',
        env={'PGPASSWORD': 'secret-pw-1'})
    assert out.strip() == 'app|appdb'
    code, out = containers.run(
        refs['postgres'], 'psql', '-h', address, '-U', 'app', '-d', 'appdb',
        '-c', 'SELECT 1', env={'PGPASSWORD': 'wrong'}, check=False)
    assert code != 0
    assert 'password authentication failed' in out


def test_mariadb_root_login_and_healthcheck(refs, containers, address):
    with tempfile.TemporaryDirectory() as conf_d:
        with open(os.path.join(conf_d, '90-test.cnf'), 'w') as f:
            f.write('[mysqld]\nmax_connections = 123\n'
                    'skip_name_resolve = ON\n')
        name = containers.start(
            'mariadb', refs['mariadb'],
            env={'MARIADB_ROOT_PASSWORD': 'root-pw-1',
                 'MARIADB_BIND_ADDRESS': address},
            volumes=['%s:/etc/mysql/conf.d:ro' % conf_d])
        containers.wait(name, 'healthy server', lambda: containers.exec(
            name, 'healthcheck.sh', '--connect', '--innodb_initialized')[0]
            == 0)
        # identity.yaml's database task: root over the network, MYSQL_PWD.
        code, out = containers.run(
            refs['mariadb'], 'sh', '-c',
            'mariadb -h "$DB_HOST" -u root -N -e '
            '"SELECT @@max_connections, CURRENT_USER()"',
            env={'DB_HOST': address, 'MYSQL_PWD': 'root-pw-1'})
        assert out.split() == ['123', 'root@%']
        code, out = containers.run(
            refs['mariadb'], 'mariadb', '-h', address, '-u', 'root',
            '-e', 'SELECT 1', env={'MYSQL_PWD': 'wrong'}, check=False)
        assert code != 0
        assert 'Access denied' in out
    # Only the address it was given: not 127.0.0.1.
    assert not _port_open(address.rsplit('.', 1)[0] + '.1', 3306)


def test_memcached_stats(refs, containers, address):
    port = pick(20000, 30000)
    containers.start('memcached', refs['memcached'], 'memcached', '-m', '64',
                     '-p', str(port), env={'BIND_ADDRESS': address})
    name = containers.names[-1]
    containers.wait(name, 'listening memcached',
                    lambda: _port_open(address, port))
    with socket.create_connection((address, port), timeout=5) as s:
        s.sendall(b'stats\r\n')
        data = b''
        while not data.endswith(b'END\r\n'):
            chunk = s.recv(4096)
            assert chunk, data
            data += chunk
    assert b'STAT limit_maxbytes 67108864' in data
    code, out = containers.exec(name, 'id', '-un')
    assert out.strip() == 'memcache'


@pytest.mark.parametrize('name', ['keystone'] + [
    'keystone-' + series for series in recipes.KEYSTONE_SERIES])
def test_keystone_manage_version(refs, containers, name):
    ref = refs[name] if name == 'keystone' else _opt_in_ref(name)
    code, out = containers.run(ref, 'keystone-manage', '--version')
    # The last line: oslo libraries warn on stderr before it.
    assert out.strip().splitlines()[-1] == recipes.tag(
        recipes.BY_NAME[name], go.read_versions())


def test_kolla_start_copies_config(refs, containers, tmp_path):
    volume = kolla_dir(str(tmp_path / 'kolla'), {
        'config_files': [
            {'source': '/var/lib/kolla/config_files/test.conf',
             'dest': '/etc/keystone/test.conf',
             'owner': 'keystone', 'perm': '0600'},
            {'source': '/var/lib/kolla/config_files/keys',
             'dest': '/etc/keystone/keys',
             'owner': 'keystone', 'perm': '0600'}],
        'command': 'sh -c "stat -c \'%U %a %n\' /etc/keystone/test.conf '
                   '/etc/keystone/keys /etc/keystone/keys/0 && '
                   'cat /etc/keystone/test.conf"'},
        {'test.conf': '[DEFAULT]\ndebug = true\n', 'keys/0': 'key0'})
    code, out = containers.run(refs['keystone'], volumes=[volume],
                               env={'KOLLA_CONFIG_STRATEGY': 'COPY_ALWAYS'})
    assert 'keystone 600 /etc/keystone/test.conf' in out
    assert 'keystone 700 /etc/keystone/keys\n' in out
    assert 'keystone 600 /etc/keystone/keys/0' in out
    assert '[DEFAULT]\ndebug = true' in out


def test_a_password_rotation_keeps_the_old_user_until_retired(
        refs, containers, address):
    """identity.yaml's database_password_rotation, its SQL: the new user
    is added beside the old one (both log in while the API rolls), then
    keystone_db_retire drops every earlier keystone user, and no other."""
    root_pw = database_server(containers, refs, address)
    passwords = {user: secrets.token_hex(12)
                 for user in ('keystone', 'keystone_1', 'keystone_2')}

    def login(user):
        return containers.run(
            refs['mariadb'], 'mariadb', '-h', address, '-u', user, '-N',
            '-e', 'SELECT CURRENT_USER()', 'keystone',
            env={'MYSQL_PWD': passwords[user]}, check=False)

    for user in ('keystone', 'keystone_1'):
        database_task(containers, refs, address, root_pw, 'database_create',
                       KEYSTONE_DB_USER=user,
                       KEYSTONE_DB_PASSWORD=passwords[user])
    assert [login(u)[0] for u in ('keystone', 'keystone_1')] == [0, 0]
    # An unrelated user whose name starts alike is not ours to drop.
    database_task(containers, refs, address, root_pw, 'database_create',
                   KEYSTONE_DB_USER='keystone_2x',
                   KEYSTONE_DB_PASSWORD=passwords['keystone_2'])

    code, out = database_task(containers, refs, address, root_pw,
                               'keystone_db_retire',
                               KEYSTONE_DB_USER='keystone_1')
    assert "retired: DROP USER 'keystone'@'%';" in out, out
    code, out = login('keystone')
    assert code != 0 and 'Access denied' in out, out
    assert login('keystone_1') == (0, 'keystone_1@%\n')
    code, out = containers.run(
        refs['mariadb'], 'mariadb', '-h', address, '-u', 'root', '-N', '-e',
        "SELECT user FROM mysql.user WHERE user LIKE 'keystone%' "
        'ORDER BY user', env={'MYSQL_PWD': root_pw})
    assert out.split() == ['keystone_1', 'keystone_2x']
    # Nothing left to retire: it says so and succeeds.
    code, out = database_task(containers, refs, address, root_pw,
                               'keystone_db_retire',
                               KEYSTONE_DB_USER='keystone_1')
    assert out.strip() == 'retired: none', out


def test_keystone_issues_a_token(refs, containers, address, tmp_path):
    """identity.yaml's steps on one host, as its docker backend runs them.

    MariaDB and memcached, the database task's own command, the schema
    steps' commands (check, expand), Apache with our wsgi-keystone.conf,
    contract, then keystone-manage bootstrap; a password gets a token.
    """
    resources = identity_template()
    admin_pw = secrets.token_hex(12)
    containers.start('memcached', refs['memcached'],
                     *resources['memcached']['properties']['command'],
                     env={'BIND_ADDRESS': address})
    config_dir = keystone_config(
        tmp_path, address, keystone_database(containers, refs, address))

    api_config = config_dir('keystone')
    for step in ('keystone_db_check', 'keystone_db_expand'):
        containers.run(refs['keystone'],
                       *resources[step]['properties']['command'],
                       volumes=[api_config])
    api = containers.start('keystone', refs['keystone'], volumes=[api_config],
                           env={'BIND_ADDRESS': address,
                                'KOLLA_CONFIG_STRATEGY': 'COPY_ALWAYS'})
    containers.wait(api, 'Keystone API', lambda: _port_open(address, 5000))
    url = 'http://%s:5000/v3' % address
    with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310
        assert json.loads(resp.read())['version']['status'] == 'stable'

    containers.run(refs['keystone'], *resources['keystone_db_contract'][
        'properties']['command'], volumes=[api_config])
    containers.run(
        refs['keystone'],
        volumes=[config_dir('keystone_bootstrap')],
        env={'OS_BOOTSTRAP_USERNAME': 'admin',
             'OS_BOOTSTRAP_PROJECT_NAME': 'admin',
             'OS_BOOTSTRAP_ROLE_NAME': 'admin',
             'OS_BOOTSTRAP_SERVICE_NAME': 'keystone',
             'OS_BOOTSTRAP_REGION_ID': 'RegionOne',
             'OS_BOOTSTRAP_PUBLIC_URL': url[:-3],
             'OS_BOOTSTRAP_INTERNAL_URL': url[:-3],
             'OS_BOOTSTRAP_ADMIN_URL': url[:-3],
             'OS_BOOTSTRAP_PASSWORD': admin_pw})
    body = {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': 'admin', 'domain': {'id': 'default'},
            'password': admin_pw}}},
        'scope': {'project': {'name': 'admin',
                              'domain': {'id': 'default'}}}}}
    req = urllib.request.Request(  # noqa: S310
        url + '/auth/tokens', data=json.dumps(body).encode(),
        headers={'Content-Type': 'application/json'})
    with urllib.request.urlopen(req, timeout=30) as resp:  # noqa: S310
        assert resp.status == 201
        assert resp.headers['X-Subject-Token']
        token = json.loads(resp.read())['token']
    assert token['project']['name'] == 'admin'
    assert [e['type'] for e in token['catalog']] == ['identity']


def test_wagtail_migrates_and_serves(refs, containers, address):
    _start_postgres(containers, refs, address, 'site-pw-1')
    env = {'DATABASE_URL': 'postgres://app:site-pw-1@%s:5432/appdb'
                           % address}
    code, out = containers.run(refs['wagtail'], 'site-migrate', env=env)
    assert 'Applying wagtailcore' in out
    port = pick(20000, 30000)
    name = containers.start('wagtail', refs['wagtail'],
                            env=dict(env, PORT=str(port),
                                     BIND_ADDRESS=address))
    containers.wait(name, 'web server', lambda: _port_open(address, port))
    url = 'http://%s:%d/' % (address, port)
    with urllib.request.urlopen(url, timeout=30) as resp:  # noqa: S310
        status, page = resp.status, resp.read().decode()
    assert status == 200
    title = re.search(r'<title>\s*(.*?)\s*</title>', page, re.S).group(1)
    # The home page the migration created, in Wagtail's welcome page.
    assert title.startswith('Home'), title
    css = re.search(r'href="(/static/css/[^"]+)"', page).group(1)
    with urllib.request.urlopen(url.rstrip('/') + css,  # noqa: S310
                                timeout=30) as resp:
        assert resp.status == 200


def _opt_in_wanted(name):
    """Asked for by HEAT_K8S_TEST_IMAGES (a name, or "all")."""
    wanted = {w.strip() for w in os.environ.get(
        'HEAT_K8S_TEST_IMAGES', '').split(',')}
    return name in wanted or 'all' in wanted


def _opt_in_ref(name):
    if not _opt_in_wanted(name):
        pytest.skip('the opt-in image %s is tested when asked for: '
                    'HEAT_K8S_TEST_IMAGES=%s (tests/e2e runs those a '
                    'template uses in a deployment)' % (name, name))
    out = subprocess.run(
        [os.path.join(REPO, 'tools', 'localcloud'), 'images', name],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        timeout=3600)
    assert out.returncode == 0, out.stdout
    return recipes.ref(name)


@pytest.fixture(scope='module')
def glance_ref():
    return _opt_in_ref('glance')


@pytest.fixture(scope='module')
def placement_ref():
    return _opt_in_ref('placement')


def _http(method, url, body=None, headers=None, chunked=False):
    """(status, headers, body) of one request; no redirect followed."""
    parsed = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parsed.hostname, parsed.port,
                                      timeout=60)
    try:
        if chunked:
            conn.request(method, parsed.path, body=iter([body[:7],
                                                         body[7:]]),
                         headers=headers or {}, encode_chunked=True)
        else:
            conn.request(method, parsed.path, body=body,
                         headers=headers or {})
        resp = conn.getresponse()
        return resp.status, dict(resp.getheaders()), resp.read()
    finally:
        conn.close()


def _service_dir(tmp, service, conf_name, conf, data_dirs, command):
    """A kolla config dir (volume) that runs `command` as the image's
    kolla_start does for a deployment: the configuration copied into
    /etc/<service>, the data directories (volumes) given to the
    service's user."""
    owner = '%s:%s' % (service, service)
    return kolla_dir(str(tmp), {
        'command': command,
        'config_files': [{
            'source': '%s/%s' % (KOLLA_DIR, conf_name),
            'dest': '/etc/%s/%s' % (service, conf_name),
            'owner': service, 'perm': '0600'}],
        'permissions': [{'path': d, 'owner': owner, 'recurse': True}
                        for d in data_dirs]}, {conf_name: conf})


def _wait_answering(containers, name, what, url):
    def answers():
        try:
            _http('GET', url)
            return True
        except OSError:
            return False
    containers.wait(name, what, answers, timeout=180)


GLANCE_CONF = """[DEFAULT]
enabled_backends = file:file
[database]
connection = sqlite:////var/lib/glance/db/glance.sqlite
[paste_deploy]
# No keystone in the pipeline: an unauthenticated admin context, which
# has no roles, so the rules from before Glance's RBAC defaults apply.
flavor =
[oslo_policy]
enforce_new_defaults = false
enforce_scope = false
[glance_store]
default_backend = file
[file]
filesystem_store_datadir = /var/lib/glance/images/
[os_glance_staging_store]
filesystem_store_datadir = /var/lib/glance/staging/
[os_glance_tasks_store]
filesystem_store_datadir = /var/lib/glance/tasks/
"""
GLANCE_DATA = ('/var/lib/glance/db', '/var/lib/glance/images')


def _glance(tmp_path, name, command, db, store=None):
    """Volumes that run `command` in glance's image with GLANCE_CONF on
    the database directory `db` (and the file store directory `store`)."""
    if store is None:
        store = db / 'images'
        store.mkdir(exist_ok=True)
    return [_service_dir(tmp_path / ('kolla-' + name), 'glance',
                         'glance-api.conf', GLANCE_CONF, GLANCE_DATA,
                         command),
            '%s:/var/lib/glance/db' % db,
            '%s:/var/lib/glance/images' % store]


def test_glance_schema_steps(glance_ref, containers, tmp_path):
    """db sync (the image's bootstrap) on a fresh database, and the
    rolling upgrade's expand, migrate and contract on another: each exits
    0 and `db check` then finds the schema current."""
    for steps in (['bootstrap'], ['db expand', 'db migrate', 'db contract']):
        db = tmp_path / ('db-%d' % len(steps))
        db.mkdir()
        for step in steps + ['db check']:
            volumes = _glance(tmp_path,
                              '%d-%s' % (len(steps), step.replace(' ', '-')),
                              'true' if step == 'bootstrap'
                              else 'glance-manage ' + step, db)
            env = {'KOLLA_BOOTSTRAP': ''} if step == 'bootstrap' else {}
            code, out = containers.run(glance_ref, volumes=volumes, env=env)
            if step == 'bootstrap':
                assert 'Database is synced successfully.' in out, out
        assert 'Database is up to date. No upgrades needed.' in out, out
        assert os.path.getsize(db / 'glance.sqlite') > 0


def test_glance_stores_images_on_its_volume(glance_ref, containers, address,
                                            tmp_path):
    """The API under uWSGI: the version document, an image uploaded with
    a length and one sent chunked, both in the file store's volume on the
    host, and read back whole."""
    db, store = tmp_path / 'db', tmp_path / 'images'
    db.mkdir()
    store.mkdir()
    containers.run(glance_ref, env={'KOLLA_BOOTSTRAP': ''},
                   volumes=_glance(tmp_path, 'sync', 'true', db, store))
    api = containers.start(
        'glance', glance_ref, env={'BIND_ADDRESS': address},
        volumes=_glance(tmp_path, 'api',
                        'uwsgi --ini /etc/uwsgi/glance-api.ini', db, store))
    url = 'http://%s:9292' % address
    _wait_answering(containers, api, 'Glance API', url + '/')
    status, _headers, body = _http('GET', url + '/')
    assert status == 300, body
    versions = json.loads(body)['versions']
    assert 'CURRENT' in [v['status'] for v in versions], versions

    json_headers = {'Content-Type': 'application/json'}
    status, _headers, body = _http('GET', url + '/v2/images')
    assert (status, json.loads(body)['images']) == (200, [])
    for chunked in (False, True):
        data = secrets.token_bytes(100000)
        status, _headers, body = _http(
            'POST', url + '/v2/images', json.dumps({
                'name': 'test-%s' % chunked, 'disk_format': 'raw',
                'container_format': 'bare'}).encode(), json_headers)
        assert status == 201, body
        image_id = json.loads(body)['id']
        status, _headers, body = _http(
            'PUT', url + '/v2/images/%s/file' % image_id, data,
            {'Content-Type': 'application/octet-stream'}, chunked=chunked)
        assert status == 204, body
        status, _headers, body = _http('GET', url + '/v2/images/' + image_id)
        image = json.loads(body)
        assert (image['status'], image['size']) == ('active', len(data))
        status, _headers, body = _http(
            'GET', url + '/v2/images/%s/file' % image_id)
        assert (status, body) == (200, data)
        # The bytes are in the volume, under the image's id.
        assert (store / image_id).read_bytes() == data


PLACEMENT_CONF = """[api]
auth_strategy = noauth2
[placement_database]
connection = sqlite:////var/lib/placement/db/placement.sqlite
"""


def test_placement_syncs_and_serves(placement_ref, containers, address,
                                    tmp_path):
    """placement-manage db sync (the image's bootstrap), then the API
    under uWSGI: the version document, a resource provider created and
    listed (noauth2: the token names the user)."""
    db = tmp_path / 'db'
    db.mkdir()

    def config(name, command):
        return [_service_dir(tmp_path / name, 'placement', 'placement.conf',
                             PLACEMENT_CONF, ['/var/lib/placement/db'],
                             command),
                '%s:/var/lib/placement/db' % db]

    code, out = containers.run(placement_ref, env={'KOLLA_BOOTSTRAP': ''},
                               volumes=config('sync', 'true'))
    assert os.path.getsize(db / 'placement.sqlite') > 0
    # One worker: each worker syncs Placement's traits into the database
    # as it loads the app, and two writers at once lock SQLite (MariaDB,
    # as deployed, takes both).
    api = containers.start(
        'placement', placement_ref, env={'BIND_ADDRESS': address},
        volumes=config('api', 'uwsgi --ini /etc/uwsgi/placement-api.ini '
                              '--processes 1'))
    url = 'http://%s:8778' % address
    _wait_answering(containers, api, 'Placement API', url + '/')
    status, _headers, body = _http('GET', url + '/')
    assert status == 200, body
    (version,) = json.loads(body)['versions']
    assert (version['id'], version['status']) == ('v1.0', 'CURRENT')

    status, _headers, body = _http('GET', url + '/resource_providers')
    assert status == 401, body
    headers = {'X-Auth-Token': 'admin', 'Content-Type': 'application/json',
               'OpenStack-API-Version': 'placement latest'}
    status, _headers, body = _http('POST', url + '/resource_providers',
                                   json.dumps({'name': 'rp-0'}).encode(),
                                   headers)
    assert status == 200, body
    status, _headers, body = _http('GET', url + '/resource_providers',
                                   headers=headers)
    assert status == 200, body
    assert [p['name'] for p in json.loads(body)['resource_providers']] == [
        'rp-0']


@pytest.fixture(scope='module')
def nova_ref():
    return _opt_in_ref('nova')


@pytest.fixture(scope='module')
def neutron_ref():
    return _opt_in_ref('neutron')


def _mariadb_databases(containers, refs, address, names):
    """MariaDB with databases `names` and one user owning them; the
    user's password (hex: no URL quoting in the connections)."""
    root_pw = database_server(containers, refs, address)
    password = secrets.token_hex(12)
    sql = ''.join('CREATE DATABASE %s; GRANT ALL ON %s.* TO app@"%%";'
                  % (n, n) for n in names)
    containers.run(refs['mariadb'], 'mariadb', '-h', address, '-u', 'root',
                   '-e', 'CREATE USER app@"%%" IDENTIFIED BY "%s"; %s'
                   % (password, sql), env={'MYSQL_PWD': root_pw})
    return 'mysql+pymysql://app:%s@%s/' % (password, address)


def _conf_volume(tmp_path, service, conf_name, text):
    path = tmp_path / conf_name
    path.write_text(text)
    return '%s:/etc/%s/%s:ro' % (path, service, conf_name)


def test_nova_schema_steps(nova_ref, refs, containers, address, tmp_path):
    """Nova's cell setup in its install guide's order on MariaDB: the API
    database, cell0 mapped, cell1 created, the cell databases synced;
    then both schemas are at their head and both cells are listed."""
    db = _mariadb_databases(containers, refs, address,
                            ('nova_api', 'nova_cell0', 'nova'))
    conf = _conf_volume(tmp_path, 'nova', 'nova.conf', (
        '[DEFAULT]\ntransport_url = rabbit://nova:unused@%s:5672/\n'
        '[api_database]\nconnection = %snova_api\n'
        '[database]\nconnection = %snova\n') % (address, db, db))
    for step in (['api_db', 'sync'], ['cell_v2', 'map_cell0'],
                 ['cell_v2', 'create_cell', '--name', 'cell1'],
                 ['db', 'sync']):
        containers.run(nova_ref, 'nova-manage', *step, volumes=[conf])
    _code, cells = containers.run(nova_ref, 'nova-manage', 'cell_v2',
                                  'list_cells', '--verbose', volumes=[conf])
    assert re.search(r'\| cell0 +\| 0{8}-0{4}-0{4}-0{4}-0{12} \|', cells)
    assert '%snova_cell0' % db in cells, cells
    assert '%snova ' % db in cells, cells
    assert re.search(r'\| cell1 +\|', cells), cells
    # Each schema has a revision (an empty database has none).
    for manage in ('api_db', 'db'):
        _code, version = containers.run(nova_ref, 'nova-manage', manage,
                                        'version', volumes=[conf])
        # The last line: Eventlet's deprecation warnings come first.
        assert re.fullmatch(r'[0-9a-f]{12}', version.split()[-1]), version


def test_neutron_schema_steps(neutron_ref, refs, containers, address,
                              tmp_path):
    """neutron-db-manage upgrade heads on MariaDB, as ML2/OVN's server
    runs it: every branch (expand, contract) is then at its head."""
    db = _mariadb_databases(containers, refs, address, ('neutron',))
    conf = _conf_volume(tmp_path, 'neutron', 'neutron.conf', (
        '[DEFAULT]\ncore_plugin = ml2\nservice_plugins = '
        'ovn-router\n[database]\nconnection = %sneutron\n') % db)
    _code, out = containers.run(neutron_ref, 'neutron-db-manage',
                                'upgrade', 'heads', volumes=[conf])
    assert 'OK' in out.split(), out
    _code, current = containers.run(neutron_ref, 'neutron-db-manage',
                                    'current', volumes=[conf])
    heads = re.findall(r'^(\w+) \(head\)$', current, re.M)
    # The neutron project's expand and contract branches.
    assert len(heads) >= 2, current


@pytest.fixture(scope='module')
def rabbitmq_ref():
    return _opt_in_ref('rabbitmq')


@pytest.fixture(scope='module')
def ovn_ref():
    return _opt_in_ref('ovn')


def _rabbitmq(containers, ref, name, address, data, ports, **env):
    """A broker on `address` with its data on the host's `data`, healthy
    by the image's health check."""
    name = containers.start(name, ref, env=dict(env, BIND_ADDRESS=address,
                                                **ports),
                            volumes=['%s:/var/lib/rabbitmq' % data])
    containers.wait(name, 'healthy broker', lambda: containers.exec(
        name, 'healthcheck.sh')[0] == 0, timeout=180)
    return name


def test_rabbitmq_user_survives_a_restart(rabbitmq_ref, containers, address,
                                          tmp_path):
    """A new broker as the rabbitmq user makes its cookie and the
    configured user (who authenticates; a wrong password does not), AMQP
    on its address only and no management listener; a second container
    on the same volume, without the user's variables, has the same
    cookie, user and a vhost the first made."""
    code, out = containers.run(rabbitmq_ref, 'ls', '-A', '/var/lib/rabbitmq')
    assert out.strip() == '', 'the image carries a cookie or a database'
    data = tmp_path / 'data'
    data.mkdir()
    password = secrets.token_hex(12)
    # epmd and the distribution on ports of their own: with host
    # networking the loopback is every other Erlang node's here too.
    ports = {'ERL_EPMD_PORT': str(pick(30000, 39999)),
             'RABBITMQ_DIST_PORT': str(pick(40000, 49999))}
    first = _rabbitmq(containers, rabbitmq_ref, 'rabbitmq', address, data,
                      ports, RABBITMQ_DEFAULT_USER='openstack',
                      RABBITMQ_DEFAULT_PASS=password)
    code, out = containers.exec(first, 'rabbitmqctl', 'authenticate_user',
                                'openstack', password)
    assert code == 0, out
    code, out = containers.exec(first, 'rabbitmqctl', 'authenticate_user',
                                'openstack', 'wrong')
    assert code != 0, out
    code, out = containers.exec(first, 'rabbitmq-diagnostics', '-q',
                                'listeners')
    assert 'Interface: %s, port: 5672, protocol: amqp,' % address in out, out
    assert 'http' not in out, out
    code, out = containers.exec(first, 'stat', '-c', '%U %a',
                                '/proc/1', '/etc/rabbitmq/rabbitmq.conf')
    # The broker's user; the file that holds the password is its alone.
    assert out.split()[::2] == ['rabbitmq', 'rabbitmq'], out
    assert out.split()[3] == '600', out
    assert password not in containers.logs(first)
    cookie = (data / '.erlang.cookie').read_text()
    assert re.fullmatch('[A-Z]{32}', cookie), 'not a new cookie'
    assert (data / 'mnesia' / 'rabbit@localhost').is_dir()
    code, out = containers.exec(first, 'rabbitmqctl', 'add_vhost', 'kept')
    assert code == 0, out
    subprocess.run(PODMAN + ['stop', '--time', '60', first], check=True,
                   stdout=subprocess.DEVNULL)
    code = subprocess.run(
        PODMAN + ['inspect', '--format', '{{.State.ExitCode}}', first],
        stdout=subprocess.PIPE, text=True).stdout.strip()
    assert code == '0', containers.logs(first)

    second = _rabbitmq(containers, rabbitmq_ref, 'rabbitmq-2', address,
                       data, ports)
    code, out = containers.exec(second, 'rabbitmqctl', '-q', 'list_vhosts')
    assert {'/', 'kept'} <= set(out.split()), out
    code, out = containers.exec(second, 'rabbitmqctl', 'authenticate_user',
                                'openstack', password)
    assert code == 0, out
    assert (data / '.erlang.cookie').read_text() == cookie


def test_ovn_northd_translates_nb_into_sb(ovn_ref, containers, address,
                                          tmp_path):
    """The NB and SB databases, created on their volumes, on their ports
    of `address`; ovn-northd between them; a logical switch added to NB
    from another container is a datapath in SB; SIGTERM stops the
    daemons cleanly."""
    servers = {}
    for db, port in (('nb', 6641), ('sb', 6642)):
        (tmp_path / db).mkdir()
        servers[db] = containers.start(
            'ovn-' + db, ovn_ref, 'ovn-' + db, env={'BIND_ADDRESS': address},
            volumes=['%s:/var/lib/ovn' % (tmp_path / db)])
        containers.wait(servers[db], 'OVN %s database' % db.upper(),
                        lambda port=port: _port_open(address, port))
        assert (tmp_path / db / ('ovn%s_db.db' % db)).exists()
    nb, sb = 'tcp:%s:6641' % address, 'tcp:%s:6642' % address
    northd = containers.start('ovn-northd', ovn_ref, 'ovn-northd',
                              env={'OVN_NB_DB': nb, 'OVN_SB_DB': sb})
    containers.wait(northd, 'active ovn-northd', lambda: 'Status: active' in
                    containers.exec(northd, 'ovn-appctl', '-t',
                                    '/run/ovn/ovn-northd.ctl', 'status')[1])
    containers.run(ovn_ref, 'ovn-nbctl', '--db=' + nb, 'ls-add', 'sw0')

    def datapath():
        code, out = containers.exec(servers['sb'], 'ovn-sbctl', '--db=' + sb,
                                    '--bare', '--columns=external_ids',
                                    'list', 'Datapath_Binding')
        return 'name=sw0' in out.split()
    containers.wait(northd, 'datapath of sw0', datapath, timeout=60)
    # SIGTERM ends each daemon with 0 (as PID 1 they ended on SIGSEGV).
    for name in (northd, servers['nb']):
        subprocess.run(PODMAN + ['stop', '--time', '30', name], check=True,
                       stdout=subprocess.DEVNULL)
        code = subprocess.run(
            PODMAN + ['inspect', '--format', '{{.State.ExitCode}}', name],
            stdout=subprocess.PIPE, text=True).stdout.strip()
        assert code == '0', containers.logs(name)


@pytest.fixture(scope='module')
def compute_ref():
    return _opt_in_ref('nova-compute')


def test_nova_compute_imports_debians_libvirt_binding(compute_ref,
                                                      containers):
    """nova-compute of NOVA_VERSION; the venv's Python imports Debian's
    libvirt binding, a libvirt new enough for Nova's driver."""
    _code, out = containers.run(compute_ref, 'nova-compute', '--version')
    assert out.strip().splitlines()[-1] == recipes.tag(
        recipes.BY_NAME['nova-compute'], go.read_versions())
    _code, out = containers.run(
        compute_ref, 'python3', '-c',
        'import sys, libvirt\n'
        'from nova.virt.libvirt import driver\n'
        'print(sys.executable, libvirt.__file__, libvirt.getVersion(),\n'
        '      "%d%03d%03d" % driver.MIN_LIBVIRT_VERSION)')
    # The last line: Eventlet's deprecation warnings come first.
    executable, module, version, minimum = out.split('\n')[-2].split()
    assert executable == '/var/lib/kolla/venv/bin/python3'
    assert module.startswith('/var/lib/kolla/venv/lib/python3'), module
    assert int(version) >= int(minimum), out


def _no_zombies(containers, name):
    _code, out = containers.exec(name, 'ps', '-eo', 'stat=,comm=')
    assert not [line for line in out.splitlines()
                if line.startswith('Z')], out


TINY_DOMAIN = """<domain type='kvm'>
  <name>tiny</name>
  <memory unit='MiB'>64</memory>
  <vcpu>1</vcpu>
  <os><type arch='x86_64'>hvm</type><boot dev='network'/></os>
  <devices><serial type='pty'/></devices>
</domain>
"""


def test_libvirtd_runs_a_kvm_domain(compute_ref, containers, tmp_path):
    """virtlogd and libvirtd (kolla_start, which gives /dev/kvm to group
    kvm) in two containers sharing /run/libvirt: the QEMU driver offers
    KVM for x86_64, and a transient domain without a disk runs under KVM
    as libvirt-qemu until destroyed."""
    if not os.path.exists('/dev/kvm'):
        pytest.skip('no /dev/kvm on this host')
    (tmp_path / 'run').mkdir()
    (tmp_path / 'log').mkdir()
    shared = ['%s:/run/libvirt' % (tmp_path / 'run'),
              '%s:/var/log/libvirt' % (tmp_path / 'log')]
    containers.start('virtlogd', compute_ref, 'virtlogd', volumes=shared,
                     flags=PRIVILEGED_FLAGS)
    kolla = kolla_dir(str(tmp_path / 'kolla'), {
        'command': 'libvirtd',
        'permissions': [{'path': '/dev/kvm', 'owner': 'root:kvm',
                         'perm': '0660'}]}, {'tiny.xml': TINY_DOMAIN})
    name = containers.start('libvirtd', compute_ref, volumes=shared + [kolla],
                            flags=PRIVILEGED_FLAGS + ['--device', '/dev/kvm'])

    def virsh(*args):
        return containers.exec(name, 'virsh', '-c', 'qemu:///system', *args)
    containers.wait(name, 'libvirtd answering',
                    lambda: virsh('version')[0] == 0)
    code, out = virsh('domcapabilities', '--virttype', 'kvm')
    assert code == 0, out
    assert '<domain>kvm</domain>' in out, out
    code, out = virsh('capabilities')
    assert code == 0, out
    # The test's own libvirtd wrote it.
    caps = ElementTree.fromstring(out)  # noqa: S314
    guests = {(g.find('arch').get('name'), d.get('type'))
              for g in caps.iter('guest') for d in g.iter('domain')}
    assert ('x86_64', 'kvm') in guests, out
    # QEMU's capability probes daemonized; PID 1 (tini) reaped them.
    _no_zombies(containers, name)

    code, out = virsh('create', KOLLA_DIR + '/tiny.xml')
    assert code == 0, out
    try:
        code, out = virsh('list', '--name', '--state-running')
        assert out.split() == ['tiny'], out
        code, out = virsh('qemu-monitor-command', 'tiny', '--hmp',
                          'info kvm')
        assert 'kvm support: enabled' in out, out
        _code, out = containers.exec(name, 'ps', '-C', 'qemu-system-x86',
                                     '-o', 'user=')
        assert out.split() == ['libvirt-qemu'], out
    finally:
        code, out = virsh('destroy', 'tiny')
    assert code == 0, out
    code, out = virsh('list', '--all', '--name')
    assert out.split() == [], out


def test_open_vswitch_netdev_bridge(compute_ref, containers):
    """ovsdb-server and ovs-vswitchd without the kernel module: br-int on
    the userspace (netdev) datapath with a tap port; ovn-controller runs
    against it, its southbound database unreachable."""
    name = containers.start('ovs', compute_ref, 'sleep', 'infinity',
                            flags=PRIVILEGED_FLAGS)
    sock = 'unix:/run/openvswitch/db.sock'
    for step in (
            ['mkdir', '-p', '/run/openvswitch', '/run/ovn'],
            ['ovsdb-tool', 'create', '/etc/openvswitch/conf.db',
             '/usr/share/openvswitch/vswitch.ovsschema'],
            ['ovsdb-server', '/etc/openvswitch/conf.db', '--remote=p' + sock,
             '--pidfile', '--detach'],
            ['ovs-vsctl', '--no-wait', 'init'],
            ['ovs-vswitchd', sock, '--pidfile', '--detach'],
            ['ovs-vsctl', 'add-br', 'br-int', '--', 'set', 'bridge',
             'br-int', 'datapath_type=netdev'],
            ['ovs-vsctl', 'add-port', 'br-int', 'tap0', '--', 'set',
             'interface', 'tap0', 'type=tap'],
            ['ovs-vsctl', 'set', 'open', '.',
             'external_ids:system-id=compute-test',
             'external_ids:ovn-remote=tcp:127.0.0.1:6642',
             'external_ids:ovn-encap-type=geneve',
             'external_ids:ovn-encap-ip=127.0.0.1',
             'external_ids:ovn-bridge-datapath-type=netdev'],
            ['ovn-controller', sock, '--pidfile', '--detach']):
        code, out = containers.exec(name, *step)
        assert code == 0, (step, out)
    code, out = containers.exec(name, 'ovs-appctl', 'dpctl/show')
    assert code == 0, out
    assert out.startswith('netdev@ovs-netdev:'), out
    ports = re.findall(r'port \d+: (\S+) \(tap\)', out)
    assert {'br-int', 'tap0'} <= set(ports), out
    code, out = containers.exec(name, 'ip', '-br', 'link', 'show', 'tap0')
    assert code == 0, out
    code, out = containers.exec(name, 'ovn-appctl', '-t', 'ovn-controller',
                                'connection-status')
    assert out.strip() == 'not connected', out
    _no_zombies(containers, name)
