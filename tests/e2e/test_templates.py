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

"""templates/ and environments/ on the local cloud, through the CLI.

One top-level template (templates/identity.yaml) and one environment file
per backend:

* every environment passes `openstack orchestration template validate`,
  and `openstack stack create --dry-run` (which also validates the nested
  implementation templates) where the backend's services exist here;
* nova-docker: this cloud has no Nova, Glance or Neutron; the tests pin
  down exactly where that stops validation;
* kubernetes: the identity deployment is created, reconfigured (a rolling
  update of the Keystone API) and deleted for real;
* deployed-server-docker: created with NO_SIGNAL deployments (no agent
  runs here), then the docker-cmd configuration Heat publishes to the
  server is checked: containers, start order, the bootstrap run to
  completion before the service, config files, and where secrets are.
"""

import base64
import json
import os
import re
import time
import uuid

import pytest

from heat_k8s.secrecy import envelope
from tests.e2e import connect
from tests.e2e import controlplane_clients
from tests.e2e import leaks
from tests.e2e import stacks
from tests.e2e.identity import IDENTITY
from tests.e2e.identity import KUBE_ENVS
from tests.e2e.identity import STACK_TIMEOUT
from tests.e2e.identity import Kube
from tests.e2e.identity import admin_kubectl
from tests.e2e.identity import create_args
from tests.e2e.identity import env_args
from tests.e2e.identity import failures
from tests.e2e.identity import nested_stack
from tests.e2e.identity import outputs
from tests.e2e.identity import stack_create
from tests.e2e.identity import stack_delete
from tests.e2e.identity import validate
from tests.e2e.identity import wait_stack
from tests.functional import cloud
from tools.lc.kubernetes import storage

REPO = cloud.REPO
BACKENDS = ('kubernetes', 'deployed-server-docker', 'nova-docker')
ADMIN_PASSWORD = 'e2e-Admin-' + uuid.uuid4().hex[:12]
DOCKER_HOST_ADDRESS = '192.0.2.10'
KEYSTONE_CONF = '/var/lib/kolla/config_files/keystone.conf'
KEYSTONE_CONF_KEY = 'file.var_lib_kolla_config_files_keystone.conf'
WSGI_CONF = '/var/lib/kolla/config_files/wsgi-keystone.conf'
NOVA_UNAVAILABLE = ('HEAT-E99001 Service nova is not available for resource '
                    'type OS::Nova::Server, reason: nova compute endpoint '
                    'is not in service catalog.')


# ---------------------------------------------------------------------------
# validation


@pytest.mark.parametrize('envs', [
    ('kubernetes',), ('deployed-server-docker',), ('nova-docker',),
    ('kubernetes', 'disable-memcached'),
    ('deployed-server-docker', 'disable-memcached'),
], ids='+'.join)
def test_every_environment_validates(localcloud, envs):
    result = validate(localcloud, '-t', IDENTITY, *env_args(*envs))
    assert result.returncode == 0, result.stdout + result.stderr
    answer = json.loads(result.stdout)
    assert answer['Parameters']['admin_password']['NoEcho'] == 'true'
    registry = answer['Environment']['resource_registry']
    for abstract in ('OS::HeatK8s::ContainerHost',
                     'OS::HeatK8s::ContainerService',
                     'OS::HeatK8s::ContainerTask',
                     'OS::HeatK8s::Services::Memcached'):
        assert abstract in registry, registry
    if 'disable-memcached' in envs:
        assert registry['OS::HeatK8s::Services::Memcached'] == (
            'OS::Heat::None')


@pytest.mark.parametrize('backend', ['kubernetes', 'deployed-server-docker'])
def test_dry_run_validates_the_implementations(localcloud, backend):
    # `template validate` checks a provider resource's properties against
    # the nested template's parameters but does not validate the nested
    # template's own resources; a preview does.
    result = localcloud.run(
        'openstack', 'stack', 'create', '--dry-run', '-f', 'json',
        '-t', IDENTITY, *env_args(backend), '--parameter',
        'admin_password=' + ADMIN_PASSWORD, 'e2e-preview-' + backend,
        check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    preview = json.loads(result.stdout)
    assert preview['stack_name'] == 'e2e-preview-' + backend
    # Nested stacks come as lists of their resources.
    def types(resources):
        for r in resources:
            if isinstance(r, list):
                yield from types(r)
            else:
                yield r['resource_type']
    expected = {'kubernetes': {'OS::Kubernetes::Deployment',
                               'OS::Kubernetes::Job',
                               'OS::Kubernetes::Service'},
                'deployed-server-docker': {'OS::Heat::DeployedServer',
                                           'OS::Heat::StructuredDeployment',
                                           'OS::Heat::SoftwareDeployment'}}
    assert expected[backend] <= set(types(preview['resources']))
    # NB: a preview shows every resource's properties, secrets passed to
    # provider templates included (doc/source/user/backends.rst, Secrets).


@pytest.mark.parametrize('template,params', [
    ('services/kubernetes/container-service.yaml',
     ['ports=[{"name": "http", "port": 80}]', 'target={"namespace": ""}']),
    ('services/kubernetes/container-task.yaml', ['target={}']),
    ('services/docker/container-service.yaml',
     ['ports=[{"name": "http", "port": 80}]', 'target={"server": "x"}']),
    ('services/docker/container-task.yaml', ['target={"server": "x"}']),
    ('hosts/kubernetes.yaml', []),
    ('hosts/deployed-server.yaml', []),
])
def test_implementation_templates_validate(localcloud, template, params):
    args = ['-t', os.path.join(REPO, 'templates', template),
            '--parameter', 'name=svc']
    if 'services/' in template:
        args += ['--parameter', 'image=registry.example.com/svc:1']
    for param in params:
        args += ['--parameter', param]
    result = validate(localcloud, *args)
    assert result.returncode == 0, result.stdout + result.stderr


def test_nova_docker_stops_where_nova_is_missing(localcloud):
    """What nova-docker needs that this cloud lacks, precisely.

    The top-level template validates (above): `template validate` does not
    look inside provider templates. Inside, OS::Nova::Server is the only
    resource whose service is missing; the docker services it would run
    are the deployed-server-docker ones, created for real below.
    """
    types = {t['Resource Type'] for t in localcloud.openstack(
        'orchestration', 'resource', 'type', 'list')}
    assert 'OS::Nova::Server' not in types
    assert 'OS::Heat::DeployedServer' in types

    # The preview validates nested templates and stops at the server.
    result = localcloud.run(
        'openstack', 'stack', 'create', '--dry-run', '-t', IDENTITY,
        *env_args('nova-docker'), '--parameter',
        'admin_password=' + ADMIN_PASSWORD, 'e2e-preview-nova', check=False)
    assert result.returncode != 0
    assert NOVA_UNAVAILABLE in result.stderr, result.stderr
    assert 'resources.host<file://%s>' % os.path.join(
        REPO, 'templates', 'hosts', 'nova-docker.yaml') in result.stderr

    # The host template alone: the same error, and only that one - with it
    # ignored, everything else in the template validates.
    host = os.path.join(REPO, 'templates', 'hosts', 'nova-docker.yaml')
    result = validate(localcloud, '-t', host, '--parameter', 'name=h')
    assert result.returncode != 0
    assert NOVA_UNAVAILABLE in result.stderr
    result = validate(localcloud, '-t', host, '--parameter', 'name=h',
                      '--ignore-errors', '99001')
    assert result.returncode == 0, result.stdout + result.stderr
    params = json.loads(result.stdout)['Parameters']
    assert {'ContainerHostImage', 'ContainerHostFlavor',
            'ContainerHostNetwork'} <= set(params)


# ---------------------------------------------------------------------------
# kubernetes: create, reconfigure, delete


def of_the_stack(info, obj):
    """Whether `obj` is the stack's: named after the stack or its prefix,
    or labelled with one of its apps (other modules' stacks share the
    project namespace)."""
    meta = obj['metadata']
    app = (meta.get('labels') or {}).get('app.kubernetes.io/name', '')
    return (meta['name'].startswith((info['stack'], info['prefix']))
            or app.startswith(info['prefix']))


def stack_counts(kube, info, kinds):
    """{kind: how many objects of the stack}."""
    return {kind: sum(of_the_stack(info, obj) for obj in kube.items(kind))
            for kind in kinds}


@pytest.fixture(scope='module')
def kube_identity(localcloud):
    """templates/identity.yaml on Kubernetes, with a real volume: the
    database's claim gets one from the cluster's default StorageClass (no
    volume made by hand).
    """
    suffix = uuid.uuid4().hex[:6]
    info = {'stack': 'e2e-k8s-' + suffix, 'prefix': 'k%s-' % suffix}
    params = ['admin_password=' + ADMIN_PASSWORD,
              'prefix=' + info['prefix']]
    info['create_args'] = create_args(KUBE_ENVS, params)
    info['log_offsets'] = leaks.log_offsets(localcloud)
    try:
        shown = stack_create(localcloud, info['stack'], KUBE_ENVS, params)
        info['created'] = shown
        yield info
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait',
                       info['stack'], check=False)


@pytest.fixture(scope='module')
def kube(localcloud):
    return Kube(localcloud)


def _app(info, service):
    return info['prefix'] + service


def api_files(deployment):
    """Names of the ConfigMap and Secret a Deployment's pods mount."""
    volumes = deployment['spec']['template']['spec']['volumes']
    return {'configmap': volumes[0]['configMap']['name'],
            'secret': volumes[1]['secret']['secretName']}


def secret_file(secret, key):
    return base64.b64decode(secret['data'][key]).decode()


def test_kubernetes_create(localcloud, kube_identity, kube):
    info = kube_identity
    assert info['created']['stack_status'] == 'CREATE_COMPLETE', (
        failures(localcloud, info['stack']))
    out = outputs(localcloud, info['stack'])

    # Public and internal Services; the public endpoint is the output.
    public = kube.get('service', _app(info, 'keystone-public'))
    internal = kube.get('service', _app(info, 'keystone'))
    assert public['spec']['type'] == 'NodePort'
    assert out['public_endpoint'] == 'http://127.0.0.1:%d' % (
        public['spec']['ports'][0]['nodePort'])
    assert out['internal_endpoint'] == 'http://%s.%s.svc:5000' % (
        _app(info, 'keystone'), kube.namespace)
    assert out['auth_url'] == out['public_endpoint'] + '/v3'
    assert internal['spec']['selector'] == public['spec']['selector']

    # The API: replicas on controller nodes, a readiness probe, files from
    # the ConfigMap and the Secret, rolled out.
    [api] = kube.named('deployment', _app(info, 'keystone'))
    assert api['status']['readyReplicas'] == api['spec']['replicas'] == 2
    pod = api['spec']['template']['spec']
    assert pod['nodeSelector'] == {'role': 'controller'}
    [container] = pod['containers']
    assert container['readinessProbe']['httpGet'] == {
        'path': '/v3', 'port': 5000, 'scheme': 'HTTP'}
    mounts = {m['mountPath']: m for m in container['volumeMounts']}
    assert mounts[WSGI_CONF]['name'] == 'config'
    assert mounts[KEYSTONE_CONF]['name'] == 'secret-files'
    assert mounts[KEYSTONE_CONF]['subPath'] == KEYSTONE_CONF_KEY
    annotations = api['spec']['template']['metadata']['annotations']
    assert set(annotations) == {'heat-k8s.io/config-checksum',
                                'heat-k8s.io/secret-checksum'}
    pods = kube.items('pod', 'app.kubernetes.io/name=%s,'
                      'app.kubernetes.io/component=service'
                      % _app(info, 'keystone'))
    assert len(pods) == 2
    assert {p['spec']['nodeName'] for p in pods} == {'node-0'}
    # Spread over nodes where there are several (here one: both on it),
    # and evicted one at a time: the project's member made the budget.
    [spread] = pod['topologySpreadConstraints']
    assert spread['topologyKey'] == 'kubernetes.io/hostname'
    [budget] = kube.named('poddisruptionbudget', _app(info, 'keystone'))
    assert budget['spec']['maxUnavailable'] == 1
    assert budget['spec']['selector'] == api['spec']['selector']
    assert budget['status']['disruptionsAllowed'] == 1

    # keystone.conf, rendered by the plugin from its Jinja2 template into
    # the immutable Secret (it holds the database password); the other
    # files in an immutable ConfigMap.
    config = kube.get('configmap', pod['volumes'][0]['configMap']['name'])
    assert config['immutable'] is True
    assert set(config['data']) == {
        'var_lib_kolla_config_files_wsgi-keystone.conf',
        'var_lib_kolla_config_files_keystone-schema.py',
        'var_lib_kolla_config_files_task_failure.py',
        'var_lib_kolla_config_files_config.json'}
    secret = kube.get('secret', pod['volumes'][1]['secret']['secretName'])
    assert secret['immutable'] is True
    conf = secret_file(secret, KEYSTONE_CONF_KEY)
    assert 'debug = false\n' in conf
    assert 'memcache_servers = %s.%s.svc:11211\n' % (
        _app(info, 'memcached'), kube.namespace) in conf
    assert re.search(r'^connection = mysql\+pymysql://keystone:\w{32}@%s'
                     r'\.%s\.svc:3306/keystone$' % (
                         _app(info, 'mariadb'), kube.namespace),
                     conf, re.M), conf
    assert '{{' not in conf

    # MariaDB on a persistent volume (one writer: Recreate).
    [db] = kube.named('deployment', _app(info, 'mariadb'))
    assert db['spec']['strategy'] == {'type': 'Recreate'}
    [claim] = kube.named('persistentvolumeclaim', _app(info, 'mariadb'))
    assert claim['status']['phase'] == 'Bound'
    # The default StorageClass's: no class named, no volume made by hand.
    assert claim['spec']['storageClassName'] == 'standard'
    db_pod = db['spec']['template']['spec']
    assert {'name': 'data', 'persistentVolumeClaim': {
        'claimName': claim['metadata']['name']}} in db_pod['volumes']

    # The run-to-completion steps are Jobs, complete; no init containers.
    jobs = {j['metadata']['labels']['app.kubernetes.io/name']: j
            for j in kube.items('job')
            if j['metadata']['name'].startswith(info['stack'])}
    assert set(jobs) == {_app(info, 'keystone-db-create'),
                         _app(info, 'keystone-db-check'),
                         _app(info, 'keystone-db-expand'),
                         _app(info, 'keystone-db-contract'),
                         _app(info, 'keystone-bootstrap'),
                         _app(info, 'keystone-db-retire')}
    for job in jobs.values():
        assert job['status'].get('succeeded') == 1, job['status']
    for kind in ('deployment', 'job'):
        for obj in kube.items(kind):
            if obj['metadata']['name'].startswith(info['stack']):
                assert not obj['spec']['template']['spec'].get(
                    'initContainers'), obj['metadata']['name']
    for step in ('check', 'expand', 'contract'):
        spec = jobs[_app(info, 'keystone-db-' + step)]['spec']['template']
        assert spec['spec']['containers'][0]['args'] == [
            'python3', '/var/lib/kolla/config_files/keystone-schema.py',
            step]

    # Heat's order: database created, then the schema checked and
    # expanded, then the API, then contract and keystone-manage bootstrap
    # with the endpoints of the API's Services.
    def created(obj):
        return obj['metadata']['creationTimestamp']

    def done(job):
        return job['status']['completionTime']
    assert done(jobs[_app(info, 'keystone-db-create')]) <= created(
        jobs[_app(info, 'keystone-db-check')])
    assert done(jobs[_app(info, 'keystone-db-check')]) <= created(
        jobs[_app(info, 'keystone-db-expand')])
    assert done(jobs[_app(info, 'keystone-db-expand')]) <= created(api)
    assert created(public) <= created(
        jobs[_app(info, 'keystone-db-contract')])
    assert done(jobs[_app(info, 'keystone-db-contract')]) <= created(
        jobs[_app(info, 'keystone-bootstrap')])
    boot_env = {e['name']: e for e in jobs[_app(
        info, 'keystone-bootstrap')]['spec']['template']['spec'][
            'containers'][0]['env']}
    assert boot_env['OS_BOOTSTRAP_PUBLIC_URL']['value'] == (
        out['public_endpoint'])
    # The admin password reaches the Job from the Secret only.
    assert 'value' not in boot_env['OS_BOOTSTRAP_PASSWORD']
    assert boot_env['OS_BOOTSTRAP_PASSWORD']['valueFrom']['secretKeyRef'][
        'key'] == 'env.OS_BOOTSTRAP_PASSWORD'


def test_kubernetes_issues_tokens(localcloud, kube_identity):
    """The deployed Keystone answers on the stack's auth_url."""
    token = issue_token(localcloud, outputs(localcloud,
                                            kube_identity['stack']))
    assert token['project_id'] and token['user_id']


DEPLOYMENT_LABEL = 'heat-k8s.io/deployment'
PRIVILEGED_LABEL = 'heat-k8s.io/privileged'


def test_kubernetes_other_project_cannot_reach_the_database(
        localcloud, kube_identity, kube):
    """Project `other`'s pod cannot open a connection to the stack's
    MariaDB Service (the cloud's NetworkPolicy controller drops it),
    while a pod of the stack's own deployment, on the same node, can."""
    info = kube_identity
    app = _app(info, 'mariadb')
    service = kube.get('service', app)
    address = service['spec']['clusterIP']
    [database] = kube.named('deployment', app)
    template = database['spec']['template']
    image = template['spec']['containers'][0]['image']
    deployment = template['metadata']['labels'][DEPLOYMENT_LABEL]

    # The template's policy: MariaDB's pods admit the deployment's pods,
    # on its port, except its privileged ones (a compute node needs no
    # database).
    [policy] = kube.named('networkpolicy', app)
    assert policy['spec']['podSelector']['matchLabels'] == (
        database['spec']['selector']['matchLabels'])
    assert policy['spec']['ingress'] == [{
        'from': [{'podSelector': {
            'matchLabels': {DEPLOYMENT_LABEL: deployment},
            'matchExpressions': [{
                'key': PRIVILEGED_LABEL, 'operator': 'DoesNotExist'}]}}],
        'ports': [{'port': 3306, 'protocol': 'TCP'}]}]

    suffix = uuid.uuid4().hex[:6]
    own = 'own-client-' + suffix
    other = 'other-client-' + suffix
    codes = connect.run_connect_pods(localcloud, {
        ('demo', kube.namespace): connect.connect_pod(
            own, address, 3306, image, {DEPLOYMENT_LABEL: deployment}),
        ('other', localcloud.projects['other']): connect.connect_pod(
            other, address, 3306, image),
    })
    assert codes == {own: 0, other: 124}, codes


def issue_token(localcloud, out):
    """`openstack token issue` as the deployed Keystone's admin."""
    result = cloud.run(
        ['openstack', 'token', 'issue', '-f', 'json'],
        env=controlplane_clients.admin_env(localcloud, out['auth_url'],
                                           ADMIN_PASSWORD), timeout=120)
    return json.loads(result.stdout)


def test_kubernetes_no_secret_value_outside_its_secret(localcloud,
                                                       kube_identity, kube):
    """Every text a user or an operator reads, searched for the stack's
    secret values: only the Kubernetes Secrets hold them (and Heat's
    export the admin password, a top-level hidden parameter)."""
    info = kube_identity
    started = time.monotonic()
    collector = leaks.Collector(localcloud)
    try:
        places = (collector.heat(info['stack'], info['create_args']) +
                  collector.logs(info['log_offsets']) +
                  collector.kubernetes(kube.namespace) +
                  collector.database())
        needles = leaks.kube_needles(collector.secrets(kube.namespace),
                                     info['prefix'])
    finally:
        collector.close()
    print('kubernetes: %d places read in %.1fs' % (
        len(places), time.monotonic() - started))
    needles[ADMIN_PASSWORD] = 'admin password'
    assert set(needles.values()) == leaks.IDENTITY_NEEDLES
    problems = leaks.check(places, needles, leaks.HEAT_SOURCES | {
        'kubectl get', leaks.SECRET_DATA})
    assert not problems, problems


def _keystone_api(info, kube):
    """The Keystone API's app name, and the configuration its one
    Deployment mounts (api_files)."""
    app = _app(info, 'keystone')
    [api] = kube.named('deployment', app)
    return app, api_files(api)


def test_kubernetes_reconfigure_rolls_the_api(localcloud, kube_identity,
                                              kube, tmp_path):
    """An override in an environment file is a rolling reconfiguration."""
    info = kube_identity
    app, old_config = _keystone_api(info, kube)
    old_rs = {rs['metadata']['name'] for rs in kube.items(
        'replicaset', 'app.kubernetes.io/name=' + app)}
    [db_rs] = kube.named('replicaset', _app(info, 'mariadb'))

    overrides = tmp_path / 'keystone-overrides.yaml'
    overrides.write_text(
        'parameter_defaults:\n'
        '  KeystoneConfigOverrides:\n'
        '    debug: true\n'
        '    token: {expiration: 7200}\n'
        '  KeystoneIniOverrides:\n'
        '    DEFAULT: {max_param_size: 128}\n')
    localcloud.run('openstack', 'stack', 'update', '--existing',
                   '-e', str(overrides), info['stack'])
    shown = wait_stack(localcloud, info['stack'], 'UPDATE')
    assert shown['stack_status'] == 'UPDATE_COMPLETE', (
        failures(localcloud, info['stack']))

    [api] = kube.named('deployment', app)
    status = api['status']
    assert status['observedGeneration'] == api['metadata']['generation']
    assert (status['updatedReplicas'] == status['readyReplicas'] ==
            status['availableReplicas'] == api['spec']['replicas'])
    # A new ReplicaSet took over; the old one is scaled down.
    replicasets = {rs['metadata']['name']: rs for rs in kube.items(
        'replicaset', 'app.kubernetes.io/name=' + app)}
    new = set(replicasets) - old_rs
    assert len(new) == 1, replicasets.keys()
    assert replicasets[new.pop()]['status']['readyReplicas'] == 2
    for name in old_rs:
        assert replicasets[name]['spec']['replicas'] == 0
    # The Secret keystone.conf is rendered into was replaced, and the old
    # one removed; the ConfigMap did not change.
    new_config = api_files(api)
    assert new_config['configmap'] == old_config['configmap']
    assert new_config['secret'] != old_config['secret']
    conf = secret_file(kube.get('secret', new_config['secret']),
                       KEYSTONE_CONF_KEY)
    assert 'debug = true\n' in conf
    # The override changed one key of [token]; the rest is the default.
    assert '[token]\nprovider = fernet\nexpiration = 7200\n' in conf
    assert 'use_stderr = true\nmax_param_size = 128\n' in conf
    names = {c['metadata']['name'] for c in kube.items('secret')}
    assert old_config['secret'] not in names
    # Nothing else rolled.
    assert [rs['metadata']['name'] for rs in kube.named(
        'replicaset', _app(info, 'mariadb'))] == [db_rs['metadata']['name']]


def test_kubernetes_failed_rollout_rolls_back(localcloud, kube_identity,
                                              kube, tmp_path):
    """A rollout that fails fails the update; rollback restores the rest."""
    info = kube_identity
    app, config = _keystone_api(info, kube)
    conf = secret_file(kube.get('secret', config['secret']),
                       KEYSTONE_CONF_KEY)
    counts = stack_counts(kube, info, ('configmap', 'secret', 'deployment',
                                       'job'))
    # A token provider that does not exist: db_sync still runs, but the
    # new API pods never pass their readiness probe, and rollouts give up
    # after 15 s without progress (the overrides of the test above are
    # dropped). Several nested stacks failing at different moments:
    # tests/e2e/test_rollback.py.
    crash = tmp_path / 'crash.yaml'
    crash.write_text(
        'parameter_defaults:\n'
        '  KeystoneConfigOverrides: {token: {provider: no-such-provider}}\n'
        '  KubernetesProgressDeadline: 15\n')
    localcloud.run('openstack', 'stack', 'update', '--existing',
                   '-e', str(crash), '--rollback', 'enabled', info['stack'])
    status = stacks.settled(
        localcloud, info['stack'], STACK_TIMEOUT, lambda status: status in (
            'ROLLBACK_COMPLETE', 'ROLLBACK_FAILED', 'UPDATE_COMPLETE'))[
                'stack_status']
    assert status == 'ROLLBACK_COMPLETE', failures(localcloud,
                                                   info['stack'])
    events = localcloud.run('openstack', 'stack', 'event', 'list',
                            info['stack'], '--nested-depth', '2').stdout
    assert 'rollout failed: ProgressDeadlineExceeded' in events

    # The configuration before the update, and a working API. The
    # keystone nested stack had failed before the rollback reached it, so
    # Heat updates it back to the previous template rather than rolling it
    # back: the Secret is a new object (Heat does not reuse the one the
    # failed update replaced) with the previous content, and the failed
    # Deployment is replaced.
    [api] = kube.named('deployment', app)
    restored = api_files(api)
    assert restored['configmap'] == config['configmap']
    # The configuration before the update, whatever earlier tests made it
    # (e2e-2025.1 runs this without the reconfiguration above).
    assert secret_file(kube.get('secret', restored['secret']),
                       KEYSTONE_CONF_KEY) == conf
    assert api['status']['readyReplicas'] == 2
    assert 'no-such-provider' not in conf
    for deployment in kube.items('deployment'):
        if deployment['metadata']['name'].startswith(info['stack']):
            assert deployment['spec']['progressDeadlineSeconds'] == 600
    issue_token(localcloud, outputs(localcloud, info['stack']))
    # Nothing of the failed update is left behind.
    assert stack_counts(kube, info, counts) == counts
    assert [s['metadata']['name'] for s in kube.items(
        'secret', 'app.kubernetes.io/name=' + app)] == [restored['secret']]


def test_kubernetes_delete_leaves_nothing(localcloud, kube_identity, kube):
    info = kube_identity
    [claim] = kube.named('persistentvolumeclaim', _app(info, 'mariadb'))
    pv = json.loads(admin_kubectl(localcloud, 'get', 'pv', claim['spec'][
        'volumeName'], '-o', 'json'))
    [path] = storage.provisioned_paths([pv])
    assert os.path.isdir(os.path.join(path, 'mysql'))
    stack_delete(localcloud, info['stack'])
    left = ['%s/%s' % (kind, obj['metadata']['name'])
            for kind in ('deployment', 'replicaset', 'pod', 'job', 'service',
                         'configmap', 'secret', 'persistentvolumeclaim',
                         'networkpolicy')
            for obj in kube.items(kind) if of_the_stack(info, obj)]
    assert left == []
    # The claim is gone, and with it its volume and the data (Delete).
    def freed():
        names = [v['metadata']['name'] for v in json.loads(admin_kubectl(
            localcloud, 'get', 'pv', '-o', 'json'))['items']]
        return pv['metadata']['name'] not in names and not os.path.exists(
            path)
    cloud.wait_until(freed, 'the database volume and its directory removed',
                     interval=1)


# ---------------------------------------------------------------------------
# deployed-server-docker: what the agent would run


DATA_RE = re.compile(r'^DATA = json\.loads\(r"""(.*)"""\)$', re.M | re.S)


def script_data(deployment, private_key):
    """The data a files deployment's script writes on the host, its
    secrets opened with the host's key as the script does."""
    match = DATA_RE.search(deployment['config'])
    assert match, deployment['name']
    data = json.loads(match.group(1))
    assert data['secret_files'] == {} and data['secrets'] == {}
    if data.get('sealed'):
        data.update(envelope.open_envelope(private_key, data['sealed']))
    return data


@pytest.fixture(scope='module')
def host_key(tmp_path_factory):
    """A docker host key pair an operator made: (private PEM, an
    environment file's parameter_defaults lines giving its public key).
    Without an agent (NO_SIGNAL) the host cannot publish one."""
    private = cloud.run(['openssl', 'genpkey', '-algorithm', 'RSA',
                         '-pkeyopt', 'rsa_keygen_bits:2048']).stdout
    path = tmp_path_factory.mktemp('key') / 'server-key.pem'
    path.write_text(private)
    public = cloud.run(['openssl', 'pkey', '-in', str(path),
                        '-pubout']).stdout
    lines = '  ContainerHostPublicKey: |\n' + ''.join(
        '    %s\n' % line for line in public.splitlines())
    return private, lines


@pytest.fixture(scope='module')
def docker_identity(localcloud, tmp_path_factory, host_key):
    suffix = uuid.uuid4().hex[:6]
    info = {'stack': 'e2e-docker-' + suffix, 'prefix': 'd%s-' % suffix,
            'private_key': host_key[0]}
    no_signal = tmp_path_factory.mktemp('env') / 'no-signal.yaml'
    no_signal.write_text(
        'parameter_defaults:\n'
        '  ContainerHostSignalTransport: NO_SIGNAL\n'
        '  ContainerHostAgentGrace: 0\n'
        '  ContainerHostAddress: %s\n' % DOCKER_HOST_ADDRESS + host_key[1])
    try:
        info['created'] = stack_create(
            localcloud, info['stack'],
            ['deployed-server-docker', str(no_signal)],
            ['admin_password=' + ADMIN_PASSWORD, 'prefix=' + info['prefix']])
        host = nested_stack(localcloud, info['stack'], 'host')
        info['server'] = nested_stack(localcloud, host, 'server')
        info['metadata'] = localcloud.openstack(
            'stack', 'resource', 'metadata', host, 'server')
        yield info
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait',
                       info['stack'], check=False)


def test_docker_creates_without_an_agent(localcloud, docker_identity):
    info = docker_identity
    assert info['created']['stack_status'] == 'CREATE_COMPLETE', (
        failures(localcloud, info['stack']))
    out = outputs(localcloud, info['stack'])
    assert out['public_endpoint'] == 'http://%s:5000' % DOCKER_HOST_ADDRESS
    assert out['database_host'] == DOCKER_HOST_ADDRESS
    # The same deployments, through the software deployment API the agent
    # polls (POLL_SERVER_HEAT).
    polled = json.loads(localcloud.run(
        'openstack', 'software', 'deployment', 'metadata', 'show',
        info['server']).stdout)
    assert [d['id'] for d in polled] == [
        d['id'] for d in info['metadata']['deployments']]
    for deployment in polled:
        inputs = {i['name']: i.get('value') for i in deployment['inputs']}
        assert inputs['deploy_signal_transport'] == 'NO_SIGNAL'


def test_docker_published_configuration(docker_identity):
    p = docker_identity['prefix']
    deployments = docker_identity['metadata']['deployments']
    names = [d['name'] for d in deployments]
    by_name = {d['name']: d for d in deployments}
    services = ('mariadb', 'memcached', 'keystone-db-create',
                'keystone-db-check', 'keystone-db-expand', 'keystone',
                'keystone-db-contract', 'keystone-bootstrap',
                'keystone-db-retire')
    assert sorted(names) == sorted(
        '%s%s-%s' % (p, s, part) for s in services
        for part in ('1-files', '2-containers'))
    # Heat lists a server's deployments by name and the agent runs them in
    # that order: each service's files before its containers.
    assert names == sorted(names)
    for s in services:
        files = by_name['%s%s-1-files' % (p, s)]
        containers = by_name['%s%s-2-containers' % (p, s)]
        assert files['group'] == 'script'
        assert containers['group'] == 'docker-cmd'
        assert names.index(files['name']) < names.index(containers['name'])

    # Keystone: the API starts, then the health check waits for it; the
    # schema steps are tasks of their own, run to completion.
    keystone = by_name[p + 'keystone-2-containers']['config']
    assert set(keystone) == {p + 'keystone', p + 'keystone-ready'}
    order = sorted(keystone, key=lambda c: keystone[c]['start_order'])
    assert order == [p + 'keystone', p + 'keystone-ready']
    service = keystone[p + 'keystone']
    ready = keystone[p + 'keystone-ready']
    [expand] = by_name[p + 'keystone-db-expand-2-containers'][
        'config'].values()
    assert expand['detach'] is False
    assert expand['command'] == [
        'python3', '/var/lib/kolla/config_files/keystone-schema.py', 'expand']
    assert expand['image'] == service['image']
    assert service.get('detach', True) is True
    assert service['restart'] == 'always'
    assert service['net'] == 'host'
    assert ready['action'] == 'exec'
    assert ready['command'][0] == p + 'keystone'
    assert ready['command'][-1] == 'http://%s:5000/v3' % DOCKER_HOST_ADDRESS

    # Files: written by the files deployment, mounted read-only;
    # keystone.conf, rendered by Heat (OS::HeatK8s::RenderedFiles), is a
    # secret file (it holds the database password).
    for base, container in (
            ('/var/lib/heat-k8s/%skeystone-db-expand' % p, expand),
            ('/var/lib/heat-k8s/%skeystone' % p, service)):
        assert '%s/secret-files%s:%s:ro' % (
            base, KEYSTONE_CONF, KEYSTONE_CONF) in container['volumes']
        assert '%s/files%s:%s:ro' % (base, WSGI_CONF, WSGI_CONF) in (
            container['volumes'])
        assert container['env_file'] == base + '/secrets.env'
    assert 'KOLLA_CONFIG_STRATEGY=COPY_ALWAYS' in service['environment']
    data = script_data(by_name[p + 'keystone-1-files'],
                       docker_identity['private_key'])
    assert data['dir'] == base
    conf = data['secret_files'][KEYSTONE_CONF]
    assert 'memcache_servers = %s:11211\n' % DOCKER_HOST_ADDRESS in conf
    assert re.search(r'^connection = mysql\+pymysql://keystone:\w{32}@%s:'
                     r'3306/keystone$' % re.escape(DOCKER_HOST_ADDRESS),
                     conf, re.M), conf
    kolla = json.loads(
        data['config_files']['/var/lib/kolla/config_files/config.json'])
    assert kolla['command'] == '/usr/sbin/apache2 -DFOREGROUND'
    assert set(data['config_files']) == {
        WSGI_CONF, '/var/lib/kolla/config_files/config.json',
        '/var/lib/kolla/config_files/keystone-schema.py',
        '/var/lib/kolla/config_files/task_failure.py'}
    assert set(data['secret_files']) == {
        KEYSTONE_CONF,
        '/var/lib/kolla/config_files/fernet-keys/0',
        '/var/lib/kolla/config_files/fernet-keys/1'}

    # The database and its creation step.
    mariadb = by_name[p + 'mariadb-2-containers']['config']
    assert mariadb[p + 'mariadb']['volumes'][-1] == (
        '/var/lib/heat-k8s/%smariadb/data:/var/lib/mysql' % p)
    assert mariadb[p + 'mariadb-ready']['command'][-3:] == [
        'healthcheck.sh', '--connect', '--innodb_initialized']
    create = by_name[p + 'keystone-db-create-2-containers']['config']
    [task] = create.values()
    assert task['detach'] is False and task['start_order'] == 0
    assert 'DB_HOST=%s' % DOCKER_HOST_ADDRESS in task['environment']


def test_docker_reconfigure_replaces_only_what_changed(localcloud,
                                                       docker_identity):
    info = docker_identity
    before = {d['name']: d for d in info['metadata']['deployments']}
    localcloud.run('openstack', 'stack', 'update', '--existing',
                   '--parameter', 'debug=true', info['stack'])
    shown = wait_stack(localcloud, info['stack'], 'UPDATE')
    assert shown['stack_status'] == 'UPDATE_COMPLETE', (
        failures(localcloud, info['stack']))
    host = nested_stack(localcloud, info['stack'], 'host')
    after = {d['name']: d for d in localcloud.openstack(
        'stack', 'resource', 'metadata', host, 'server')['deployments']}
    assert set(after) == set(before)
    p = info['prefix']
    changed = {name for name in after
               if after[name]['id'] != before[name]['id']}
    # keystone.conf is in the API's files and in the schema steps' and the
    # bootstrap task's; new files, new containers (the files' config id is
    # in their environment).
    assert changed == {p + name + suffix
                       for name in ('keystone', 'keystone-db-check',
                                    'keystone-db-expand',
                                    'keystone-db-contract',
                                    'keystone-bootstrap')
                       for suffix in ('-1-files', '-2-containers')}
    for name in changed:
        inputs = {i['name']: i['value'] for i in after[name]['inputs']}
        assert inputs['deploy_action'] == 'UPDATE'
    data = script_data(after[p + 'keystone-1-files'],
                       docker_identity['private_key'])
    assert 'debug = true\n' in data['secret_files'][KEYSTONE_CONF]

    def files_id(deployments):
        return [e for e in deployments[p + 'keystone-2-containers'][
            'config'][p + 'keystone']['environment']
            if e.startswith('HEAT_K8S_FILES_ID=')]
    assert len(files_id(after)) == 1
    assert files_id(after) != files_id(before)


def test_docker_disable_memcached(localcloud, tmp_path, host_key):
    suffix = uuid.uuid4().hex[:6]
    name, prefix = 'e2e-nomc-' + suffix, 'n%s-' % suffix
    no_signal = tmp_path / 'no-signal.yaml'
    no_signal.write_text('parameter_defaults:\n'
                         '  ContainerHostSignalTransport: NO_SIGNAL\n' +
                         host_key[1])
    try:
        shown = stack_create(
            localcloud, name,
            ['deployed-server-docker', 'disable-memcached', str(no_signal)],
            ['admin_password=' + ADMIN_PASSWORD, 'prefix=' + prefix])
        assert shown['stack_status'] == 'CREATE_COMPLETE', (
            failures(localcloud, name))
        memcached = localcloud.openstack('stack', 'resource', 'show', name,
                                         'memcached')
        # Still listed under its abstract type, but no nested stack.
        assert memcached['resource_status'] == 'CREATE_COMPLETE'
        assert 'nested' not in {link['rel'] for link in memcached['links']}
        host = nested_stack(localcloud, name, 'host')
        deployments = localcloud.openstack(
            'stack', 'resource', 'metadata', host, 'server')['deployments']
        names = {d['name'] for d in deployments}
        # Only memcached is gone (see environments/disable-memcached.yaml
        # for why a resource-specific mapping would not do).
        assert sorted(names) == sorted(
            '%s%s-%s' % (prefix, s, part)
            for s in ('mariadb', 'keystone-db-create', 'keystone-db-check',
                      'keystone-db-expand', 'keystone', 'keystone-db-contract',
                      'keystone-bootstrap', 'keystone-db-retire')
            for part in ('1-files', '2-containers'))
        data = script_data([d for d in deployments
                            if d['name'] == prefix + 'keystone-1-files'][0],
                           host_key[0])
        conf = data['secret_files'][KEYSTONE_CONF]
        assert '[cache]\nenabled = false\n' in conf
    finally:
        localcloud.run('openstack', 'stack', 'delete', '-y', '--wait', name,
                       check=False)
