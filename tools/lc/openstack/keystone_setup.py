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

"""Idempotent Keystone setup, run inside the cloud's virtualenv.

Reads a JSON spec on stdin (see keystone.py and lc/openstack_cloud.py): roles,
domains, projects, users with their role assignments, and catalog services
with their endpoints. Prints the IDs of what it made as JSON. One process
instead of dozens of `openstack` CLI calls keeps `up` fast.
"""

import json
import sys

import openstack

from heat_k8s.cmd import configure


def _domain(conn, name):
    return conn.identity.find_domain(name, ignore_missing=False)


def ensure_domain(conn, name):
    domain = conn.identity.find_domain(name)
    return domain or conn.identity.create_domain(name=name, enabled=True)


def ensure_role(conn, name):
    return conn.identity.find_role(name) or conn.identity.create_role(
        name=name)


def ensure_project(conn, name, domain):
    d = _domain(conn, domain)
    return (conn.identity.find_project(name, domain_id=d.id)
            or conn.identity.create_project(name=name, domain_id=d.id,
                                            enabled=True))


def ensure_user(conn, spec):
    d = _domain(conn, spec.get('domain', 'Default'))
    user = conn.identity.find_user(spec['name'], domain_id=d.id)
    if user is None:
        user = conn.identity.create_user(
            name=spec['name'], domain_id=d.id, password=spec['password'],
            enabled=True)
    for role in spec.get('roles', ()):
        project = ensure_project(conn, spec['project'],
                                 spec.get('project_domain', 'Default'))
        conn.identity.assign_project_role_to_user(
            project, user, conn.identity.find_role(role,
                                                   ignore_missing=False))
    for role in spec.get('domain_roles', ()):
        conn.identity.assign_domain_role_to_user(
            d, user, conn.identity.find_role(role, ignore_missing=False))
    return user


def ensure_service(conn, spec, region):
    # The same idempotent code heat-k8s-configure registers the
    # kubernetes endpoint with.
    return configure.ensure_service(
        conn, spec['type'], spec['name'], spec['urls'], region,
        spec.get('description', ''))


def main():
    spec = json.load(sys.stdin)
    conn = openstack.connect(auth_type='password', auth=spec['auth'],
                             region_name=spec['region'])
    out = {'domains': {}, 'projects': {}, 'users': {}, 'services': {}}
    for name in spec.get('roles', ()):
        ensure_role(conn, name)
    for name in spec.get('domains', ()):
        out['domains'][name] = ensure_domain(conn, name).id
    for p in spec.get('projects', ()):
        out['projects'][p['name']] = ensure_project(
            conn, p['name'], p.get('domain', 'Default')).id
    for u in spec.get('users', ()):
        out['users'][u['name']] = ensure_user(conn, u).id
    for s in spec.get('services', ()):
        out['services'][s['type']] = ensure_service(
            conn, s, spec['region']).id
    json.dump(out, sys.stdout)


if __name__ == '__main__':
    main()
