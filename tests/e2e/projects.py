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

"""A Keystone project and its member that an operator adds once the cloud
is up, with the namespace k8s-keystone-auth's syncer creates for it and
the NetworkPolicy the cluster gives that namespace."""

import contextlib
import json
import os
import secrets
import uuid

from tests.functional import cloud

ROLE = 'member'
DEFAULT_POLICY = 'allow-same-namespace'


def admin_kubectl(localcloud, *args, stdin=None, check=True):
    return cloud.run(['kubectl', *args], input=stdin, check=check,
                     env=localcloud.env, timeout=120)


class Project(object):
    """A Keystone project and its member, as the operator made them."""

    def __init__(self, localcloud, name, project_id, password, clouds_file):
        self.localcloud = localcloud
        self.name = name
        self.id = project_id
        self.namespace = project_id  # the syncer's namespace-format "%i"
        self.env = dict(localcloud.env, OS_CLIENT_CONFIG_FILE=clouds_file,
                        OS_CLOUD=name)
        self.password = password
        self._token = None

    def token(self):
        if self._token is None:
            issued = cloud.run(['openstack', 'token', 'issue', '-f', 'json'],
                               env=self.env, timeout=120)
            self._token = json.loads(issued.stdout)['id']
        return self._token

    def openstack(self, *args, check=True):
        """`openstack` as the member; the result (no check: refusals are
        what the attacks expect)."""
        return cloud.run(['openstack', *args], env=self.env, timeout=600,
                         check=check)

    def kubectl(self, *args, stdin=None):
        return self.localcloud.kubectl(self.token(), '-n', self.namespace,
                                       *args, stdin=stdin)


def clouds_file(localcloud, name, password, path):
    """The admin's clouds.yaml entry, for the new member."""
    with open(localcloud.env['OS_CLIENT_CONFIG_FILE']) as f:
        entry = json.load(f)['clouds']['admin']  # JSON is YAML
    entry['auth'].update(username=name, password=password,
                         project_name=name)
    with open(path, 'w') as f:
        json.dump({'clouds': {name: entry}}, f)
    os.chmod(path, 0o600)
    return str(path)


@contextlib.contextmanager
def new_project(localcloud, prefix, directory):
    """A new project `prefix-<random>` and its member (clouds.yaml in
    `directory`), deleted with its namespace afterwards."""
    name = '%s-%s' % (prefix, uuid.uuid4().hex[:6])
    password = secrets.token_urlsafe(18)
    admin = dict(os_cloud='admin')
    project = localcloud.openstack('project', 'create', '--domain',
                                   'Default', name, **admin)
    try:
        user = localcloud.openstack(
            'user', 'create', '--domain', 'Default', '--project', name,
            # One argument: a password may start with '-' (token_urlsafe
            # draws it), which argparse took for an option.
            '--password=' + password, name, **admin)
        localcloud.run('openstack', 'role', 'add', '--user', user['id'],
                       '--project', project['id'], ROLE, **admin)
        made = Project(localcloud, name, project['id'], password,
                       clouds_file(localcloud, name, password,
                                   os.path.join(directory, 'clouds.yaml')))
        # The member's first request makes the syncer create the namespace
        # and the member's RoleBinding; the controller then adds the
        # namespace's default NetworkPolicy.
        cloud.wait_until(
            lambda: made.kubectl('get', 'networkpolicy',
                                 DEFAULT_POLICY).returncode == 0,
            'namespace %s and its default policy' % made.namespace,
            timeout=90, interval=1)
        yield made
    finally:
        admin_kubectl(localcloud, 'delete', 'namespace', project['id'],
                      '--wait=false', '--ignore-not-found', check=False)
        localcloud.run('openstack', 'user', 'delete', '--domain', 'Default',
                       name, check=False, **admin)
        localcloud.run('openstack', 'project', 'delete', project['id'],
                       check=False, **admin)
