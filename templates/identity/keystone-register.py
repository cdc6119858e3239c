#!/usr/bin/env python3
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

"""A service's registration in the deployed Keystone, idempotent.

Runs as a ContainerTask in the service's own image (keystoneauth1 and
python-keystoneclient come with every OpenStack service), with Keystone's
admin credentials from the environment (OS_AUTH_URL, OS_USERNAME,
OS_PASSWORD, OS_PROJECT_NAME, OS_REGION_NAME; the password is a secret
of the task, never a value in Heat):

  keystone-register.py user     the service's project (SERVICE_PROJECT),
                                its user (SERVICE_USER, SERVICE_PASSWORD;
                                an existing user gets the password) and
                                its roles there (SERVICE_ROLES, comma-
                                separated; a missing role is created)
  keystone-register.py catalog  the service (SERVICE_NAME, SERVICE_TYPE,
                                SERVICE_DESCRIPTION) and its public,
                                internal and admin endpoints in
                                OS_REGION_NAME (ENDPOINT_PUBLIC,
                                ENDPOINT_INTERNAL, ENDPOINT_ADMIN); an
                                endpoint whose URL changed is updated

Run again, each step finds what it made and changes only what differs.
Exit 1 with the reason on the last line (and in the termination log on
Kubernetes) when Keystone refuses a request.
"""

import os
import sys
import time

TERMINATION_LOG = '/dev/termination-log'
DOMAIN = 'default'
INTERFACES = ('public', 'internal', 'admin')
# Seconds to keep asking a Keystone that does not answer yet.
CONNECT_TIMEOUT = 120


def fail(reason):
    print(reason, file=sys.stderr, flush=True)
    try:
        with open(TERMINATION_LOG, 'w') as f:
            f.write(reason)
    except OSError:
        pass  # not on Kubernetes
    sys.exit(1)


def env(name, default=None):
    value = os.environ.get(name, default)
    if value is None:
        fail('keystone-register: %s is not set' % name)
    return value


def client():
    # Imported here: the image's libraries, not this host's.
    from keystoneauth1 import exceptions
    from keystoneauth1 import session
    from keystoneauth1.identity import v3
    from keystoneclient.v3 import client as v3client

    auth = v3.Password(
        auth_url=env('OS_AUTH_URL'), username=env('OS_USERNAME', 'admin'),
        password=env('OS_PASSWORD'),
        project_name=env('OS_PROJECT_NAME', 'admin'),
        user_domain_id=DOMAIN, project_domain_id=DOMAIN)
    sess = session.Session(auth=auth)
    deadline = time.monotonic() + CONNECT_TIMEOUT
    while True:
        try:
            sess.get_token()
            break
        except exceptions.ConnectFailure as exc:
            if time.monotonic() > deadline:
                fail('keystone-register: Keystone at %s does not answer: '
                     '%s' % (env('OS_AUTH_URL'), exc))
            time.sleep(2)
    return v3client.Client(session=sess, interface='internal',
                           region_name=env('OS_REGION_NAME', None) or None)


def one(found, what):
    if len(found) > 1:
        fail('keystone-register: %d %s; expected one' % (len(found), what))
    return found[0] if found else None


def shared(find, create, what):
    """What `find` finds, else what `create` makes. Other services'
    tasks may make it at the same moment (the `service` project and
    role): a conflict means one did, so find it again."""
    from keystoneauth1 import exceptions
    found = one(find(), what)
    if found is not None:
        return found
    try:
        made = create()
    except exceptions.Conflict:
        print('%s: made meanwhile by another task' % what)
        return one(find(), what)
    print('%s: created' % what)
    return made


def ensure_user(ks):
    name, project_name = env('SERVICE_USER'), env('SERVICE_PROJECT',
                                                  'service')
    project = shared(
        lambda: ks.projects.list(domain=DOMAIN, name=project_name),
        lambda: ks.projects.create(project_name, DOMAIN,
                                   description='Service users'),
        'project %s' % project_name)
    user = one(ks.users.list(domain=DOMAIN, name=name),
               'users named %s' % name)
    if user is None:
        user = ks.users.create(name, domain=DOMAIN,
                               password=env('SERVICE_PASSWORD'),
                               default_project=project)
        print('user %s created' % name)
    else:
        # The password may have been rotated: set it, whatever it was.
        ks.users.update(user, password=env('SERVICE_PASSWORD'))
        print('user %s: password set' % name)
    for role_name in filter(None, env('SERVICE_ROLES', 'service').split(',')):
        role = shared(lambda: ks.roles.list(name=role_name),
                      lambda: ks.roles.create(role_name),
                      'role %s' % role_name)
        ks.roles.grant(role, user=user, project=project)
        print('user %s has role %s on project %s' % (
            name, role_name, project_name))


def ensure_catalog(ks):
    name, kind = env('SERVICE_NAME'), env('SERVICE_TYPE')
    region = env('OS_REGION_NAME', 'RegionOne')
    service = one([s for s in ks.services.list(type=kind)
                   if s.name == name], '%s services named %s' % (kind, name))
    if service is None:
        service = ks.services.create(
            name, type=kind, description=env('SERVICE_DESCRIPTION', ''))
        print('service %s (%s) created' % (name, kind))
    for interface in INTERFACES:
        url = env('ENDPOINT_' + interface.upper())
        endpoint = one(ks.endpoints.list(service=service,
                                         interface=interface,
                                         region=region),
                       '%s endpoints of %s in %s' % (interface, name,
                                                     region))
        if endpoint is None:
            ks.endpoints.create(service, url, interface=interface,
                                region=region)
            print('%s endpoint %s created' % (interface, url))
        elif endpoint.url != url:
            ks.endpoints.update(endpoint, url=url)
            print('%s endpoint %s (was %s)' % (interface, url,
                                                endpoint.url))
        else:
            print('%s endpoint %s' % (interface, url))


STEPS = {'user': ensure_user, 'catalog': ensure_catalog}


def main(step):
    from keystoneauth1 import exceptions
    try:
        STEPS[step](client())
    except exceptions.ClientException as exc:
        fail('keystone-register %s: Keystone refused: %s' % (step, exc))


if __name__ == '__main__':
    if sys.argv[1:2] not in (['user'], ['catalog']) or len(sys.argv) != 2:
        sys.exit('usage: keystone-register.py user|catalog')
    main(sys.argv[1])
