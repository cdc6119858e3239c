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

"""The ordered and the flat workload, written for every tool.

One table (ORDERED) says what the ordered workload holds and what waits
for what; the Heat template, the kubectl steps, the Helm chart and the
Ansible playbook are all derived from it, so the tools create the same
objects in the same order. Object names start with a per-run prefix.
"""

import json
import os

# (key, kind, keys it waits for): the database, its schema sync, the API.
ORDERED = (
    ('config', 'ConfigMap', ()),
    ('secret', 'Secret', ()),
    ('db', 'Deployment', ()),
    ('db-svc', 'Service', ('db',)),
    ('db-sync', 'Job', ('config', 'secret', 'db', 'db-svc')),
    ('api', 'Deployment', ('db-sync',)),
    ('api-svc', 'Service', ('api',)),
)
# How kubectl and Ansible apply it: each group at once, then wait for it.
STEPS = (('config', 'secret', 'db', 'db-svc'), ('db-sync',),
         ('api', 'api-svc'))
# Helm: everything up to the Job as pre-install hooks (key: weight).
HELM_HOOKS = {'config': 0, 'secret': 0, 'db': 0, 'db-svc': 0, 'db-sync': 1}
REPLICAS = {'db': 1, 'api': 3}
API_VERSIONS = {'ConfigMap': 'v1', 'Secret': 'v1', 'Service': 'v1',
                'Deployment': 'apps/v1', 'Job': 'batch/v1'}
IMAGE = 'registry.invalid/app:1'  # kwok runs no image
# kwok's nodes are tainted so that only pods meant for them land there.
KWOK_TOLERATION = {'key': 'kwok.x-k8s.io/node', 'operator': 'Exists',
                   'effect': 'NoSchedule'}


def _pod(app):
    return {'metadata': {'labels': {'app': app}},
            'spec': {'containers': [{'name': 'app', 'image': IMAGE}],
                     'tolerations': [KWOK_TOLERATION]}}


def body(key, kind, app):
    """The kind-specific part of an object: what Heat takes as properties."""
    if kind == 'ConfigMap':
        return {'data': {'app.conf': '[DEFAULT]\nkey = %s\n' % key}}
    if kind == 'Secret':
        return {'string_data': {'password': 'not-a-secret-' + key}}
    if kind == 'Service':
        return {'spec': {'selector': {'app': app},
                         'ports': [{'port': 80, 'targetPort': 8080}]}}
    if kind == 'Job':
        pod = _pod(app)
        pod['spec']['restartPolicy'] = 'Never'
        return {'spec': {'backoffLimit': 0, 'template': pod}}
    return {'spec': {'replicas': REPLICAS.get(key, 1),
                     'selector': {'matchLabels': {'app': app}},
                     'template': _pod(app)}}


def _app(prefix, key):
    """The pod label a Service selects: its workload's name."""
    return '%s-%s' % (prefix, key[:-len('-svc')] if key.endswith('-svc')
                      else key)


def manifest(kind, name, namespace, props):
    obj = {'apiVersion': API_VERSIONS[kind], 'kind': kind,
           'metadata': {'name': name, 'namespace': namespace}}
    for field, value in props.items():
        obj['stringData' if field == 'string_data' else field] = value
    return obj


def ordered_manifests(prefix, namespace):
    """[(key, manifest)] in the table's order."""
    return [(key, manifest(kind, '%s-%s' % (prefix, key), namespace,
                           body(key, kind, _app(prefix, key))))
            for key, kind, _after in ORDERED]


def flat_manifests(prefix, namespace, pairs):
    out = []
    for i in range(pairs):
        name = '%s-%d' % (prefix, i)
        out += [('cm-%d' % i, manifest('ConfigMap', name, namespace,
                                       body('cm', 'ConfigMap', name))),
                ('dep-%d' % i, manifest('Deployment', name, namespace,
                                        body('dep', 'Deployment', name)))]
    return out


# --- Heat ----------------------------------------------------------------

def _heat_resource(kind, name, props, after=()):
    res = {'type': 'OS::Kubernetes::' + kind,
           'properties': dict(props, name=name)}
    if after:
        res['depends_on'] = list(after)
    return res


def heat_ordered(prefix):
    return {'heat_template_version': '2021-04-16', 'resources': {
        key: _heat_resource(kind, '%s-%s' % (prefix, key),
                            body(key, kind, _app(prefix, key)), after)
        for key, kind, after in ORDERED}}


def heat_flat(prefix, pairs):
    resources = {}
    for key, obj in flat_manifests(prefix, '', pairs):
        props = {k: v for k, v in obj.items()
                 if k not in ('apiVersion', 'kind', 'metadata')}
        resources[key] = _heat_resource(obj['kind'],
                                        obj['metadata']['name'], props)
    return {'heat_template_version': '2021-04-16', 'resources': resources}


def heat_objects(prefix, pairs):
    """The flat workload as one OS::Kubernetes::Objects resource: every
    object applied together, no engine cost per object."""
    manifests = []
    for _key, obj in flat_manifests(prefix, '', pairs):
        del obj['metadata']['namespace']  # Heat's default namespace
        manifests.append(obj)
    return {'heat_template_version': '2021-04-16', 'resources': {
        'objects': {'type': 'OS::Kubernetes::Objects',
                    'properties': {'manifests': manifests}}}}


# --- Helm ----------------------------------------------------------------

def helm_chart(path, manifests, hooks=None):
    """A chart of fixed manifests; hooks maps keys to the weight of the
    pre-install hook they become (Helm runs hooks by weight, waiting for
    each weight's objects, a Job until it completes, before the next)."""
    hooks = hooks or {}
    os.makedirs(os.path.join(path, 'templates'), exist_ok=True)
    with open(os.path.join(path, 'Chart.yaml'), 'w') as f:
        f.write('apiVersion: v2\nname: bench\nversion: 0.1.0\n')
    for key, obj in manifests:
        obj = json.loads(json.dumps(obj))
        del obj['metadata']['namespace']  # the release's
        if key in hooks:
            obj['metadata']['annotations'] = {
                'helm.sh/hook': 'pre-install',
                'helm.sh/hook-weight': str(hooks[key])}
        with open(os.path.join(path, 'templates', key + '.yaml'), 'w') as f:
            json.dump(obj, f)  # JSON is YAML; no template expressions
    return path


# --- Ansible -------------------------------------------------------------

def ansible_playbook(path, steps):
    """A playbook applying each step's manifests in order, waiting on each
    object (Jobs until Complete) before the next task."""
    tasks = []
    for manifests in steps:
        for key, obj in manifests:
            task = {'name': key, 'kubernetes.core.k8s': {
                'state': 'present', 'definition': obj, 'wait': True,
                'wait_timeout': 300}}
            if obj['kind'] == 'Job':
                task['kubernetes.core.k8s']['wait_condition'] = {
                    'type': 'Complete', 'status': 'True'}
            tasks.append(task)
    play = [{'hosts': 'localhost', 'connection': 'local',
             'gather_facts': False, 'tasks': tasks}]
    with open(path, 'w') as f:
        json.dump(play, f)
    return path
