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
  keystone-register.py remove-user     the user, and the project and
                                roles `user` made once nothing else is
                                assigned on them
  keystone-register.py remove-catalog  the endpoints `catalog` made; the
                                service and the region too once no
                                endpoint is left in them, if `catalog`
                                made them

Run again, each step finds what it made and changes only what differs.
REGISTERED_BY names the control plane in a Keystone it does not deploy
(templates/keystone-existing.yaml), and everything the steps make there
carries it: users, projects, roles, services and regions in their
description, endpoints in an attribute of their own (registered_by). What
does not carry it is another owner's: a user of the same name is refused
(its password is not ours to set), and so is an endpoint of the same
service type in the region (the catalog would send clients to either),
naming the endpoint and its owner; nothing of theirs is changed. A
public endpoint there must be https:// unless PUBLIC_HTTP is `true` (the
operator's explicit consent: tokens and passwords would cross the network
in clear). The remove steps, run when the stack is deleted, delete only
what carries the mark; run again after a failure, they finish the job.
Without REGISTERED_BY (the control plane's own Keystone) they do nothing:
that Keystone goes with the stack.
Exit 1 with the reason on the last line (and in the termination log on
Kubernetes) when a step refuses or Keystone refuses a request.
"""

import os
import sys
import time

from task_failure import fail

DOMAIN = 'default'
INTERFACES = ('public', 'internal', 'admin')
# Seconds to keep asking a Keystone that does not answer yet.
CONNECT_TIMEOUT = 120
# The description of the regions and services earlier releases made,
# before marks named their stack.
LEGACY_MARK = 'registered by heat-k8s'


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
    # Keystone where this task reached it, not the catalog's: a Keystone
    # the control plane does not deploy has no endpoint in its region.
    return v3client.Client(session=sess, interface='internal',
                           endpoint_override=env('OS_AUTH_URL'))


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
    user = one(ks.users.list(domain=DOMAIN, name=name),
               'users named %s' % name)
    owner = registered_by()
    if user is not None and owner and (
            getattr(user, 'description', None) != owner):
        # Short: Heat shows the end of a long termination message.
        fail('keystone-register: Keystone already has a user %s that this '
             'control plane did not make; choose another user prefix'
             % name)
    project = shared(
        lambda: ks.projects.list(domain=DOMAIN, name=project_name),
        lambda: ks.projects.create(project_name, DOMAIN,
                                   description=described('Service users')),
        'project %s' % project_name)
    if user is None:
        mark = {'description': owner} if owner else {}
        user = ks.users.create(name, domain=DOMAIN,
                               password=env('SERVICE_PASSWORD'),
                               default_project=project, **mark)
        print('user %s created' % name)
    else:
        # The password may have been rotated: set it, whatever it was.
        ks.users.update(user, password=env('SERVICE_PASSWORD'))
        print('user %s: password set' % name)
    for role_name in role_names():
        mark = {'description': described('')} if owner else {}
        role = shared(lambda: ks.roles.list(name=role_name),
                      lambda: ks.roles.create(role_name, **mark),
                      'role %s' % role_name)
        ks.roles.grant(role, user=user, project=project)
        print('user %s has role %s on project %s' % (
            name, role_name, project_name))


def role_names():
    return [n for n in env('SERVICE_ROLES', 'service').split(',') if n]


def registered_by():
    return os.environ.get('REGISTERED_BY') or None


def described(description):
    """description with this stack's mark, in a Keystone it does not
    deploy."""
    owner = registered_by()
    if not owner:
        return description
    return '%s; %s' % (description, owner) if description else owner


def marked(thing):
    """Whether this stack made thing (a project, role, service or region),
    or an earlier release did (which goes once empty, as this stack's)."""
    owner = registered_by()
    return bool(owner) and (
        getattr(thing, 'description', None) or '').endswith(
            (owner, LEGACY_MARK))


def owner_of(endpoint, region):
    """Who registered endpoint in region, in a few words (Heat shows a
    termination message's last 200 characters)."""
    owner = getattr(endpoint, 'registered_by', None)
    if not owner:
        return "not marked as any heat-k8s stack's"
    return 'registered by %s' % owner.replace(' (region %s)' % region, '')


def find_service(ks):
    name, kind = env('SERVICE_NAME'), env('SERVICE_TYPE')
    return one([s for s in ks.services.list(type=kind) if s.name == name],
               '%s services named %s' % (kind, name))


def region_name():
    # A Keystone the control plane does not deploy has no default region.
    if registered_by():
        return env('OS_REGION_NAME')
    return env('OS_REGION_NAME', 'RegionOne')


def ensure_region(ks, region):
    # Keystone makes an endpoint's missing region itself, unmarked.
    shared(lambda: [r for r in ks.regions.list() if r.id == region],
           lambda: ks.regions.create(id=region, description=described('')),
           'region %s' % region)


def of_kind(ks, kind, region):
    """The endpoints of `kind` services in region."""
    ids = {s.id for s in ks.services.list(type=kind)}
    return [e for e in ks.endpoints.list(region=region)
            if e.service_id in ids]


def adopt_earlier(ks, endpoints, region, urls):
    """Mark what an earlier release registered here: an unmarked endpoint
    at this stack's URL for its interface, in a region that release made
    (its description was LEGACY_MARK; regions were one stack's)."""
    made = [r for r in ks.regions.list() if r.id == region and (
        getattr(r, 'description', None) == LEGACY_MARK)]
    for endpoint in endpoints if made else ():
        if (not getattr(endpoint, 'registered_by', None) and
                urls.get(endpoint.interface) == endpoint.url):
            ks.endpoints.update(endpoint, registered_by=registered_by())
            endpoint.registered_by = registered_by()
            print('%s endpoint %s: an earlier release\'s, marked' % (
                endpoint.interface, endpoint.url))


def refuse_others(endpoints, kind, region):
    """Fail, naming it, on an endpoint of a `kind` service in region that
    this stack did not register: the catalog would send clients to
    either, and it is not ours to change."""
    for endpoint in endpoints:
        if not ours(endpoint):
            fail('keystone-register: region %s already lists %s %s '
                 'endpoint %s (%s): kept; name another region'
                 % (region, endpoint.interface, kind, endpoint.id,
                    owner_of(endpoint, region)))


def ours(endpoint):
    return getattr(endpoint, 'registered_by', None) == registered_by()


def refuse_clear_text(url):
    if url.startswith('https://'):
        return
    if os.environ.get('PUBLIC_HTTP') != 'true':
        fail('keystone-register: the public endpoint %s is not https://: '
             'in a Keystone the control plane does not deploy, tokens and '
             'passwords would cross the network in clear; serve it over '
             'TLS, or consent in so many words '
             '(ExistingKeystonePublicHttp: true)' % url)


def ensure_catalog(ks):
    name, kind = env('SERVICE_NAME'), env('SERVICE_TYPE')
    region = region_name()
    urls = {i: env('ENDPOINT_' + i.upper()) for i in INTERFACES}
    owner = registered_by()
    # Every refusal before the first change.
    if owner:
        refuse_clear_text(urls['public'])
        endpoints = of_kind(ks, kind, region)
        adopt_earlier(ks, endpoints, region, urls)
        refuse_others(endpoints, kind, region)
    service = find_service(ks)
    if service is None:
        service = ks.services.create(
            name, type=kind,
            description=described(env('SERVICE_DESCRIPTION', '')))
        print('service %s (%s) created' % (name, kind))
    if owner:
        ensure_region(ks, region)
    mark = {'registered_by': owner} if owner else {}
    for interface, url in urls.items():
        endpoint = one([e for e in ks.endpoints.list(
            service=service, interface=interface, region=region)
            if ours(e) or not owner],
            '%s endpoints of %s in %s' % (interface, name, region))
        if endpoint is None:
            ks.endpoints.create(service, url, interface=interface,
                                region=region, **mark)
            print('%s endpoint %s created' % (interface, url))
        elif endpoint.url != url:
            ks.endpoints.update(endpoint, url=url)
            print('%s endpoint %s (was %s)' % (interface, url,
                                                endpoint.url))
        else:
            print('%s endpoint %s' % (interface, url))


def remove_user(ks):
    name = env('SERVICE_USER')
    if not registered_by():
        print('user %s goes with its Keystone' % name)
        return
    user = one(ks.users.list(domain=DOMAIN, name=name),
               'users named %s' % name)
    if user is None:
        print('user %s: already gone' % name)
    elif getattr(user, 'description', None) != registered_by():
        print('user %s: not made by this control plane, kept' % name)
    else:
        gone(lambda: ks.users.delete(user), 'user %s' % name)
    # What `user` made for it, once no one else holds a role through it
    # (other services' tasks share them and may still run).
    project_name = env('SERVICE_PROJECT', 'service')
    for project in ks.projects.list(domain=DOMAIN, name=project_name):
        if marked(project) and not ks.role_assignments.list(
                project=project):
            gone(lambda: ks.projects.delete(project),
                 'project %s' % project_name)
    for role_name in role_names():
        for role in ks.roles.list(name=role_name):
            if marked(role) and not ks.role_assignments.list(role=role):
                gone(lambda: ks.roles.delete(role), 'role %s' % role_name)


def remove_catalog(ks):
    name = env('SERVICE_NAME')
    if not registered_by():
        print('service %s goes with its Keystone' % name)
        return
    region = region_name()
    service = find_service(ks)
    if service is not None:
        for endpoint in ks.endpoints.list(service=service, region=region):
            if ours(endpoint):
                gone(lambda: ks.endpoints.delete(endpoint),
                     '%s endpoint %s' % (endpoint.interface, endpoint.url))
            else:
                print('%s endpoint %s: %s, kept' % (
                    endpoint.interface, endpoint.url,
                    owner_of(endpoint, region)))
        if marked(service) and not ks.endpoints.list(service=service):
            gone(lambda: ks.services.delete(service), 'service %s' % name)
    made = [r for r in ks.regions.list() if r.id == region and marked(r)]
    if made and not ks.endpoints.list(region=region):
        gone(lambda: ks.regions.delete(made[0]), 'region %s' % region)


def gone(delete, what):
    """delete(), which another service's task may have done already."""
    from keystoneauth1 import exceptions
    try:
        delete()
        print('%s deleted' % what)
    except exceptions.NotFound:
        print('%s: deleted meanwhile by another task' % what)


STEPS = {'user': ensure_user, 'catalog': ensure_catalog,
         'remove-user': remove_user, 'remove-catalog': remove_catalog}


def main(step):
    from keystoneauth1 import exceptions
    try:
        STEPS[step](client())
    except exceptions.ClientException as exc:
        fail('keystone-register %s: Keystone refused: %s' % (step, exc))


if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in STEPS:
        sys.exit('usage: keystone-register.py %s' % '|'.join(STEPS))
    main(sys.argv[1])
