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

"""Keystone under uWSGI on loopback, configured and bootstrapped at run time.

keystone.conf, fernet and credential keys live in ``<state>/keystone``; the
database is MariaDB. First start: db_sync, key setup, bootstrap (admin,
RegionOne, the identity endpoints). Projects, users, roles, the Heat stack
domain and the catalog come from `keystone_setup.py` run in the cloud's
virtualenv, which is idempotent.
"""

import base64
import json
import os
import subprocess

from tools.lc import daemons
from tools.lc import fetch
from tools.lc.openstack import passwords

NAME = 'keystone'
REGION = 'RegionOne'
SETUP_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            'keystone_setup.py')
CONF = """\
[DEFAULT]
use_stderr = true
max_token_size = 255

[database]
connection = {db}
max_pool_size = 10
max_overflow = 20

[identity]
# bcrypt's minimum cost: every password authentication (each `openstack`
# command) pays it. Passwords here are random and the cloud is a test bed.
password_hash_rounds = 4

[token]
provider = fernet
expiration = {expiration}

[fernet_tokens]
key_repository = {dir}/fernet-keys
max_active_keys = 3

[fernet_receipts]
# keystone-manage bootstrap checks this repository too (MFA receipts).
key_repository = {dir}/fernet-keys

[credential]
key_repository = {dir}/credential-keys

[cache]
# Uncached, Keystone runs ~350 queries per token validation (0.5 s).
# An in-process cache is consistent because one uWSGI process serves.
enabled = true
backend = oslo_cache.dict
expiration_time = 600
"""


def _key_repository(path):
    """What `keystone-manage fernet_setup`/`credential_setup` write: a
    staged key "0" and a primary key "1", each a Fernet key (32 random
    bytes, URL-safe base64). Written here to save two keystone-manage
    runs (3 s each)."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    for name in ('0', '1'):
        key = os.path.join(path, name)
        if not os.path.exists(key):
            fd = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, 'w') as f:
                f.write(base64.urlsafe_b64encode(os.urandom(32)).decode())


# Keystone 30's default rule for validating a token, plus: a project reader
# may validate a token of a user of its own domain. k8s-keystone-auth
# validates a token with the token itself, and a trust-scoped token (what
# heat-engine uses once the user's token expires, with
# reauthentication_auth_method = trusts) is not its own token_subject.
# Validating needs the token, which already gives all validation tells.
POLICY = {'identity:validate_token': (
    'rule:admin_required or (role:reader and system_scope:all) or '
    'rule:service_role or rule:token_subject or '
    '(role:reader and user_domain_id:%(target.token.user.domain.id)s)')}


class Keystone(daemons.Service):

    PORT = NAME
    DIR = NAME

    def __init__(self, cluster, venv, log=print, token_expiration=3600):
        super().__init__(cluster, log, venv)
        self.conf = os.path.join(self.dir, 'keystone.conf')
        self.token_expiration = token_expiration

    @property
    def auth_url(self):
        return self.url + '/v3'

    def password(self, user):
        return passwords.get(self.state_dir, 'keystone-' + user)

    def _manage(self, *args, env=None):
        argv = [self.bin('keystone-manage'), '--config-file', self.conf]
        result = subprocess.run(argv + list(args), capture_output=True,
                                text=True, env=dict(os.environ, **(env or {})))
        if result.returncode:
            # The last lines say why; no secret is on the command line.
            raise RuntimeError('keystone-manage %s failed (exit %d): %s' % (
                args[0], result.returncode,
                '\n'.join(result.stderr.strip().splitlines()[-5:])))

    def configure(self, db_url):
        daemons.write_files({
            self.conf: CONF.format(db=db_url, dir=self.dir,
                                   expiration=self.token_expiration),
            # oslo.policy finds policy.yaml beside keystone.conf.
            os.path.join(self.dir, 'policy.yaml'): json.dumps(
                POLICY, indent=2),  # JSON is YAML
        })

    def bootstrap(self):
        """Schema, keys and the admin user; once per state directory."""
        stamp = os.path.join(self.dir, '.bootstrapped')
        if os.path.exists(stamp):
            return
        for repo in ('fernet-keys', 'credential-keys'):
            _key_repository(os.path.join(self.dir, repo))
        self._manage('db_sync')
        # The password goes by environment, not on a command line that
        # ps and error messages show.
        self._manage('bootstrap',
                     '--bootstrap-username', 'admin',
                     '--bootstrap-project-name', 'admin',
                     '--bootstrap-role-name', 'admin',
                     '--bootstrap-service-name', 'keystone',
                     '--bootstrap-region-id', REGION,
                     '--bootstrap-admin-url', self.auth_url,
                     '--bootstrap-public-url', self.auth_url,
                     '--bootstrap-internal-url', self.auth_url,
                     env={'OS_BOOTSTRAP_PASSWORD': self.password('admin')})
        open(stamp, 'w').close()

    def processes(self):
        argv = self.uwsgi('keystone.wsgi.api:application', 1, 4, '--env',
                          'OS_KEYSTONE_CONFIG_FILES=' + self.conf,
                          procname='keystone')
        return (daemons.Process(NAME, argv,
                                ready=daemons.answers(self.auth_url),
                                what='Keystone at ' + self.auth_url),)

    def admin_env(self):
        """The OS_* variables of the admin user (for OpenStack clients)."""
        return {'OS_AUTH_URL': self.auth_url, 'OS_IDENTITY_API_VERSION': '3',
                'OS_USERNAME': 'admin', 'OS_PASSWORD': self.password('admin'),
                'OS_PROJECT_NAME': 'admin', 'OS_USER_DOMAIN_NAME': 'Default',
                'OS_PROJECT_DOMAIN_NAME': 'Default', 'OS_REGION_NAME': REGION}

    def setup(self, spec):
        """Run keystone_setup.py with `spec`; returns its JSON answer."""
        spec = dict(spec, auth={
            'auth_url': self.auth_url, 'username': 'admin',
            'password': self.password('admin'), 'project_name': 'admin',
            'user_domain_name': 'Default',
            'project_domain_name': 'Default'}, region=REGION)
        # -I: the script's directory (lc/, with a kubernetes.py and a
        # venv.py) must not shadow the SDK's imports.
        out = subprocess.run([self.bin('python'), '-I', SETUP_SCRIPT],
                             input=json.dumps(spec), text=True,
                             capture_output=True)
        if out.returncode:
            raise RuntimeError('keystone setup failed:\n' + out.stderr)
        return json.loads(out.stdout)

    def token(self, user, project, domain='Default'):
        """A project-scoped token for `user` (for checks and tests)."""
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': user, 'domain': {'name': domain},
                'password': self.password(user)}}},
            'scope': {'project': {'name': project,
                                  'domain': {'name': domain}}}}}
        req = fetch.request(
            self.auth_url + '/auth/tokens', data=json.dumps(body).encode(),
            headers={'Content-Type': 'application/json'})
        with fetch.urlopen(req, timeout=10) as resp:
            return (resp.headers['X-Subject-Token'],
                    json.loads(resp.read())['token'])
