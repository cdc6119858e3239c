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

"""A deployed control plane (templates/controlplane.yaml), asked as its
users ask it: the openstack CLI against the stack's own Keystone, whose
catalog leads to its Glance and Placement.

An image goes up with `openstack image create` and comes back with
`openstack image save`; Placement has no command in the CLI without the
osc-placement plugin, so its API is asked through a keystoneauth session
(the same token and catalog).
"""

import json
import os
import subprocess
import time

from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
import yaml

from tests.functional import cloud

TIMEOUT = 120
ENVIRONMENTS = os.path.join(cloud.REPO, 'environments')
# Every image either backend's control plane runs, 2026.1's included (the
# release upgrade starts from it).
IMAGES = ('mariadb', 'memcached', 'keystone', 'keystone-2026.1', 'glance',
          'placement', 'glance-2026.1', 'placement-2026.1')
# The tags each release runs here (what `release` picks).
with open(os.path.join(ENVIRONMENTS,
                       'localcloud-controlplane-images.yaml')) as _f:
    RELEASE_TAGS = yaml.safe_load(_f)['parameter_defaults']['release_tags']
# The real node's pods' memory cgroups (cgroup v1, the kubelet's
# cgroupfs driver).
CGROUP_MEMORY = '/sys/fs/cgroup/memory/kubepods'
# Placement's first microversion with the `name` filter; any would do.
PLACEMENT_VERSION = 'placement 1.14'


def admin_env(localcloud, auth_url, password):
    """OS_* of the stack's Keystone admin (none of the local cloud's)."""
    env = {k: v for k, v in localcloud.env.items()
           if not k.startswith('OS_')}
    env.update(OS_AUTH_URL=auth_url, OS_USERNAME='admin',
               OS_PASSWORD=password, OS_PROJECT_NAME='admin',
               OS_USER_DOMAIN_NAME='Default',
               OS_PROJECT_DOMAIN_NAME='Default',
               OS_IDENTITY_API_VERSION='3')
    return env


def openstack(env, *args):
    result = subprocess.run(['openstack', *args], env=env,
                            capture_output=True, text=True, timeout=TIMEOUT)
    assert result.returncode == 0, (args, result.stderr)
    return result.stdout


def upload(env, workdir, name):
    """`openstack image create` of a small random file: (the image's id,
    the file)."""
    original = os.path.join(workdir, name + '.raw')
    with open(original, 'wb') as f:
        f.write(os.urandom(256 * 1024))
    image = json.loads(openstack(
        env, 'image', 'create', '--disk-format', 'raw',
        '--container-format', 'bare', '--file', original, name,
        '-f', 'json'))
    assert image['status'] == 'active', image
    return image['id'], original


def saved_back(env, image_id, original):
    """Whether `openstack image save` gives `original`'s bytes back."""
    saved = original + '.saved'
    openstack(env, 'image', 'save', '--file', saved, image_id)
    with open(original, 'rb') as a, open(saved, 'rb') as b:
        return a.read() == b.read()


def image_round_trip(localcloud, auth_url, password, workdir, name):
    """Upload a small image file through the deployed Glance and save it
    back: (the image's id, whether the bytes came back equal)."""
    env = admin_env(localcloud, auth_url, password)
    image_id, original = upload(env, workdir, name)
    same = saved_back(env, image_id, original)
    openstack(env, 'image', 'delete', image_id)
    return image_id, same


def placement(auth_url, password):
    """(status of GET /resource_providers with the admin's token through
    the catalog, its body; status of the same request with a token that
    Keystone never issued)."""
    sess = ks_session.Session(auth=v3.Password(
        auth_url=auth_url, username='admin', password=password,
        project_name='admin', user_domain_id='default',
        project_domain_id='default'))
    headers = {'OpenStack-API-Version': PLACEMENT_VERSION}
    answer = sess.get('/resource_providers', headers=headers,
                      endpoint_filter={'service_type': 'placement',
                                       'interface': 'public'},
                      raise_exc=False)
    url = sess.get_endpoint(service_type='placement', interface='public')
    refused = ks_session.Session().get(
        url + '/resource_providers', raise_exc=False,
        headers=dict(headers, **{'X-Auth-Token': 'not-a-token'}))
    return answer.status_code, answer.json(), refused.status_code


def answers(localcloud, auth_url, password, workdir, name):
    """Every service asked once: what each answered, and how long it
    took from the first question."""
    started = time.monotonic()
    image_id, same = image_round_trip(localcloud, auth_url, password,
                                      workdir, name)
    status, body, refused = placement(auth_url, password)
    return {'image': image_id, 'same_bytes': same,
            'placement': status, 'providers': body.get('resource_providers'),
            'placement_without_token': refused,
            'seconds': time.monotonic() - started}


def assert_nothing_left(localcloud, name, prefix, env=None):
    """Stack `name` is gone (for the user of `env`, by default demo), and
    so is every object it made: named after it (Heat's names) or labelled
    with a service of `prefix`."""
    listed = cloud.run(
        ['openstack', 'stack', 'list', '--property', 'name=' + name, '-f',
         'json'], env=env or dict(localcloud.env, OS_CLOUD='demo'),
        timeout=120).stdout
    assert json.loads(listed) == []
    objects = json.loads(cloud.run(
        ['kubectl', 'get', 'all,configmap,secret,pvc,networkpolicy', '-A',
         '-o', 'json'], env=localcloud.env).stdout)['items']
    left = [o['kind'] + '/' + o['metadata']['name'] for o in objects
            if o['metadata']['name'].startswith(name) or (
                o['metadata'].get('labels') or {}).get(
                    'app.kubernetes.io/name', '').startswith(prefix)]
    assert left == []


def working_set_mib(localcloud, namespace):
    """MiB the pods of `namespace` use, as the kubelet counts a working set
    (usage less inactive page cache). The local cloud's real node is this
    machine, so its pods' cgroups are read here."""
    pods = json.loads(cloud.run(
        ['kubectl', '-n', namespace, 'get', 'pods', '-o', 'json'],
        env=localcloud.env).stdout)['items']
    return sum(_pod_working_set(pod['metadata']['uid'])
               for pod in pods) / 2 ** 20


def _pod_working_set(uid):
    for qos in ('', 'burstable/', 'besteffort/'):
        path = os.path.join(CGROUP_MEMORY, qos + 'pod' + uid)
        if os.path.isdir(path):
            break
    else:
        return 0  # not on the real node (kwok's) or gone
    with open(os.path.join(path, 'memory.usage_in_bytes')) as f:
        usage = int(f.read())
    with open(os.path.join(path, 'memory.stat')) as f:
        stat = dict(line.split() for line in f)
    return max(0, usage - int(stat.get('total_inactive_file', 0)))


def update_times(listed, stack):
    """(resource, IN_PROGRESS|COMPLETE[, 'nested']) -> the time of its
    first UPDATE event; 'nested' for the resources of `stack`'s nested
    stacks (Glance's API is `glance` in glance.yaml)."""
    when = {}
    for event in listed:
        action, _, state = event['resource_status'].partition('_')
        if action != 'UPDATE':
            continue
        key = (event['resource_name'], state)
        if event['stack_name'] != stack:
            key += ('nested',)
        when.setdefault(key, event['event_time'])
    return when


def running_tags(localcloud, prefix, services):
    """{service: the image tag it runs} on the real node, for each of
    `services` a stack of `prefix` runs: its Deployments and StatefulSets
    (Heat names them; their label names the service), labelled
    <prefix><service> or <prefix><service>-<part> (nova-compute runs
    nova's tag)."""
    tags = {}
    for kind in ('deployments', 'statefulsets'):
        listed = json.loads(cloud.run(
            ['kubectl', 'get', kind, '-A', '-o', 'json'],
            env=localcloud.env).stdout)['items']
        for item in listed:
            name = (item['metadata'].get('labels') or {}).get(
                'app.kubernetes.io/name', '')
            # nova-api, nova-compute, neutron-rpc...: nova, neutron.
            service = name[len(prefix):].split('-')[0] if name.startswith(
                prefix) else ''
            if service in services:
                image = item['spec']['template']['spec']['containers'][0][
                    'image']
                tags.setdefault(service, set()).add(image.rsplit(':', 1)[1])
    # One tag per service, whichever of its Deployments runs it.
    assert all(len(found) == 1 for found in tags.values()), tags
    return {service: found.pop() for service, found in tags.items()}
