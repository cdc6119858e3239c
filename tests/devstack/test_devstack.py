# Copyright 2026 heat-k8s developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""devstack for real: stack.sh with Keystone, MySQL, RabbitMQ, Heat and
heat-k8s in a podman container (tools/devstack/run), a devstack user's
stack through the plugin with the user's own token, the cluster's project
isolation, the plugin's warnings whole, then unstack.sh and clean.sh, and a
bad setting stopping devstack.

Only when asked: HEAT_K8S_TEST_DEVSTACK=1 (tox -e devstack; 12 minutes on two
cores, two thirds of it stack.sh; up to 15 on a busy machine).
HEAT_K8S_DEVSTACK_REUSE=1 keeps the container up afterwards and reuses one
whose stack.sh succeeded (the tests after clean.sh then need a fresh one).
"""

import configparser
import json
import os
import re
import shutil
import time

import pytest
import yaml

from heat_k8s import manifests
from heat_k8s.kinds import labels
from tools.devstack import cli
from tools.devstack import cluster
from tools.devstack import container
from tools.devstack import snapshots
from tools.lc.kubernetes import netpol

HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATE = os.path.join(HERE, 'templates', 'objects.yaml')
REUSE = os.environ.get('HEAT_K8S_DEVSTACK_REUSE') == '1'
TOOLS = ('podman', 'runc', 'slirp4netns', 'mmdebstrap', 'unshare',
         'nsenter', 'go')
# devstack's clouds.yaml: the demo user in the demo project, and admin.
MEMBER, ADMIN = 'devstack', 'devstack-admin'
WARNING = re.compile(r'\[WARNING\] (\S*/heat-k8s/devstack/[^:\s]+):(\d+) '
                     r'(.*)$')


def _why_not():
    if os.environ.get('HEAT_K8S_TEST_DEVSTACK') != '1':
        return ('devstack runs only when asked: HEAT_K8S_TEST_DEVSTACK=1 '
                '(tox -e devstack; about 12 minutes on two cores)')
    if os.geteuid() != 0:
        return 'devstack runs in a rootful podman container: run as root'
    for tool in TOOLS:
        if not shutil.which(tool):
            return 'no %s here (apt-get install podman runc slirp4netns ' \
                   'mmdebstrap golang)' % tool
    return snapshots.missing()


WHY_NOT = _why_not()
pytestmark = pytest.mark.skipif(bool(WHY_NOT), reason=WHY_NOT)


class Devstack(object):
    """The running devstack, as its users and its operator reach it."""

    def __init__(self, status, seconds):
        self.status, self.seconds = status, seconds
        self.info = cli.read_info()

    def openstack(self, cloud, *args):
        """`openstack ... -f json`; the answer (after the events that
        --wait prints)."""
        out = container.exec_(['openstack', '--os-cloud', cloud] +
                              list(args) + ['-f', 'json'], timeout=600)
        return json.loads(out.stdout[re.search(r'^[\[{]', out.stdout,
                                               re.MULTILINE).start():])

    def kubectl(self, *args):
        """As the cluster's administrator (what the test sees, never what
        Heat uses)."""
        return container.exec_(['kubectl', '--kubeconfig',
                                cluster.ADMIN_KUBECONFIG] + list(args),
                               timeout=120)

    def kube_json(self, *args):
        return json.loads(self.kubectl(*(args + ('-o', 'json'))).stdout)

    def host_path(self, path):
        """The host's view of a path under the container's /opt/stack."""
        return os.path.join(container.state_dir(), 'stack',
                            os.path.relpath(path, container.DEST))

    def log(self, script):
        with open(cli.log_path(script), errors='replace') as f:
            return f.read()


def _stacked():
    """The last run in the container: a stack.sh that succeeded."""
    runs = cli.read_info().get('runs') or [{}]
    if container.exists() and runs[-1].get('script') == 'stack.sh' and \
            runs[-1]['status'] == 0:
        return runs[-1]
    return None


@pytest.fixture(scope='module')
def devstack():
    run = REUSE and _stacked()
    if run:
        yield Devstack(run['status'], run['seconds'])
        return
    cli.down(purge=True)
    cli.up()
    yield Devstack(*cli.stack())
    if not REUSE:
        cli.down(purge=True)


def test_stack_sh_completes(devstack):
    assert devstack.status == 0, devstack.log('stack.sh')[-6000:]
    assert 'Services are running under systemd unit files.' in \
        devstack.log('stack.sh')
    print('stack.sh: %.0f s' % devstack.seconds)


def test_devstack_cloned_nothing(devstack):
    # ERROR_ON_CLONE=True made any clone fatal; what ran is the snapshots.
    for name, commit in devstack.info['commits'].items():
        head = container.exec_(['git', '-C', '%s/%s' % (container.DEST,
                                                        name),
                                'rev-parse', 'HEAD']).stdout.strip()
        assert commit == head, name
    assert 'Cloning into' not in devstack.log('stack.sh')


def test_heat_engine_loads_the_kubernetes_types(devstack):
    types = {t['Resource Type'] for t in devstack.openstack(
        MEMBER, 'orchestration', 'resource', 'type', 'list')}
    for kind in ('ConfigMap', 'Secret', 'Deployment', 'Namespace',
                 'Service', 'Job', 'Resource', 'Objects'):
        assert 'OS::Kubernetes::' + kind in types


def _heat_conf():
    conf = configparser.ConfigParser(interpolation=None, strict=False)
    conf.read_string(container.exec_(['cat', '/etc/heat/heat.conf']).stdout)
    return conf


def _stack_objects(devstack, namespace, stack_id):
    return devstack.kube_json(
        'get', 'configmaps,secrets,deployments', '-n', namespace,
        '-l', '%s=%s' % (labels.STACK_ID, stack_id))['items']


def test_a_member_creates_and_deletes_objects_with_their_token(devstack):
    # Heat holds no credential of the cluster's: the user's token is the
    # only one its requests can carry.
    conf = _heat_conf()
    assert not conf.has_option('kubernetes', 'kubeconfig')
    assert not conf.has_option('kubernetes', 'api_url')  # the catalog's
    for option in ('cert_file', 'key_file'):
        assert not conf.has_option('clients_kubernetes', option)
    token = devstack.openstack(MEMBER, 'token', 'issue')
    project, user = token['project_id'], token['user_id']
    container.copy_in(TEMPLATE, '/tmp/objects.yaml')
    started = time.monotonic()
    stack = devstack.openstack(MEMBER, 'stack', 'create', '--wait',
                               '--template', '/tmp/objects.yaml',
                               'devstack-objects')
    created = time.monotonic() - started
    assert stack['stack_status'] == 'CREATE_COMPLETE', stack
    outputs = {o['output_key']: o['output_value'] for o in devstack.openstack(
        MEMBER, 'stack', 'show', stack['id'])['outputs']}
    assert outputs['namespace'] == project
    kinds = sorted(o['kind'] for o in _stack_objects(devstack, project,
                                                     stack['id']))
    assert kinds == ['ConfigMap', 'Deployment', 'Secret']
    # k8s-keystone-auth's syncer binds a user's roles in the namespace when
    # it validates that user's token: the member's token reached the API.
    bindings = {b['metadata']['name'] for b in devstack.kube_json(
        'get', 'rolebindings', '-n', project)['items']}
    assert user + '_member' in bindings
    started = time.monotonic()
    container.exec_(['openstack', '--os-cloud', MEMBER, 'stack', 'delete',
                     '--yes', '--wait', stack['id']], timeout=600)
    deleted = time.monotonic() - started
    assert _stack_objects(devstack, project, stack['id']) == []
    print('stack create %.1f s, delete %.1f s' % (created, deleted))


def test_the_project_isolation_is_applied(devstack):
    baseline = devstack.kube_json('get', 'baselineadminnetworkpolicies',
                                  'default')
    assert baseline['metadata']['labels'][
        'app.kubernetes.io/part-of'] == 'heat-k8s'


def test_each_project_namespace_admits_its_own_pods(devstack):
    # The plugin gives each project's namespace the package's own-pods
    # policy (heat-k8s-configure manifests own-pods), as the checkout
    # devstack installed ships it.
    own_pods = devstack.host_path('%s/heat_k8s/manifests/%s' % (
        cli.CHECKOUT, manifests.FILES['own-pods']))
    with open(own_pods) as f:
        policy = yaml.safe_load(f)
    project = devstack.openstack(MEMBER, 'token', 'issue')['project_id']
    applied = devstack.kube_json('get', 'networkpolicy', '-n', project,
                                 policy['metadata']['name'])
    assert applied['spec'] == policy['spec'], applied
    assert applied['metadata']['labels'] == policy['metadata']['labels']


def _assert_whole(devstack, line):
    """A warning holds every piece of text its call in the plugin's source
    gives, in order (the strings' text between expansions)."""
    match = WARNING.search(line)
    path, lineno, message = match.group(1), int(match.group(2)), \
        match.group(3)
    with open(devstack.host_path(path)) as f:
        source = f.read().splitlines()[lineno - 1:]
    call = []
    for text in source:
        call.append(text)
        if not text.rstrip().endswith('\\'):
            break
    pieces = [piece.strip() for string in re.findall(
        r'"((?:[^"\\]|\\.)*)"', '\n'.join(call))
        for piece in re.split(r'\$\{[^}]*\}|\$\w+', string)
        if piece.strip()]
    assert pieces, call
    at = 0
    for piece in pieces:
        at = message.find(piece, at)
        assert at >= 0, (piece, line, call)
        at += len(piece)


def test_the_plugins_warnings_arrive_whole(devstack):
    # Those stack.sh printed (if any), and one this devstack's own warn
    # prints through the plugin: the isolation without an admin's
    # kubeconfig.
    logged = [line for line in devstack.log('stack.sh').splitlines()
              if WARNING.search(line)]
    out = container.shell(
        'source %s/functions-common && DEST=%s && source %s/settings && '
        'source %s/plugin.sh && HEAT_K8S_ADMIN_KUBECONFIG= '
        'apply_heat_k8s_project_isolation' % (
            cli.DEVSTACK_DIR, container.DEST, cli.CHECKOUT + '/devstack',
            cli.CHECKOUT + '/devstack')).stdout
    printed = [line for line in out.splitlines() if WARNING.search(line)]
    assert len(printed) == 1, out
    for line in logged + printed:
        _assert_whole(devstack, line)


def _heat_processes():
    """Heat's services (heat-k8s runs inside them), or anything that
    loaded heat_k8s."""
    return container.exec_(['pgrep', '-af', 'heat-engine|heat-api|heat_k8s'],
                           check=False, user='root').stdout.strip()


# What may name heat-k8s after clean.sh: its checkout (devstack removes
# none), the local.conf naming it, stevedore's cache of the entry points
# of the venv clean.sh removed (keyed by its paths' times, never read
# again; devstack leaves it for every project), the cluster's files (the
# operator's, not devstack's), logs, and the host's caches.
KEPT = ('/opt/stack/heat-k8s', '/opt/stack/devstack/local.conf',
        '/opt/stack/.cache/python-entrypoints', '/srv', '/etc/kubernetes',
        container.BIN_DIR, '/var/log', '/run/log', '/proc', '/sys', '/dev',
        container.PIP_CACHE, container.APT_CACHE)


def test_unstack_and_clean_leave_nothing_of_heat_k8s(devstack):
    assert cli.run_devstack('unstack.sh')[0] == 0, devstack.log('unstack.sh')
    assert _heat_processes() == ''
    assert cli.run_devstack('clean.sh')[0] == 0, devstack.log('clean.sh')
    prune = ' -o '.join('-path %s' % p for p in KEPT)
    found = container.shell(
        'find / \\( %s \\) -prune -o -type f -print0 | xargs -0 grep -lI '
        '-e heat_k8s -e heat-k8s 2>/dev/null; find / \\( %s \\) -prune '
        '-o -name "*heat[-_]k8s*" -print' % (prune, prune),
        user='root', check=False).stdout.split()
    assert found == []
    assert container.exec_(['python3', '-c', 'import heat_k8s'],
                           check=False).returncode != 0
    # The cluster keeps the isolation (its tenants' protection, shared with
    # whatever else uses it) and nothing Heat made.
    assert devstack.kube_json('get', 'configmaps,secrets,deployments', '-A',
                              '-l', labels.MANAGED_BY + '=' +
                              labels.MANAGER)['items'] == []


def _endpoint_scheme(devstack, scheme):
    """local.conf's HEAT_K8S_API_URL, with `scheme`."""
    conf = devstack.host_path(cli.DEVSTACK_DIR + '/local.conf')
    with open(conf) as f:
        text = f.read()
    with open(conf, 'w') as f:
        f.write(re.sub(r'HEAT_K8S_API_URL=\w+://',
                       'HEAT_K8S_API_URL=%s://' % scheme, text))


def _stack_stops(devstack):
    """stack.sh fails with one error line; that line."""
    status, _took = cli.run_devstack('stack.sh')
    assert status != 0
    errors = [line for line in devstack.log('stack.sh').splitlines()
              if '[ERROR]' in line]
    assert len(errors) == 1, errors
    return errors[0]


def test_an_http_endpoint_stops_devstack_naming_it(devstack):
    # After clean.sh: stack.sh stops before anything of Heat's or
    # heat-k8s's is installed or configured.
    _endpoint_scheme(devstack, 'http')
    error = _stack_stops(devstack)
    assert re.search(r'HEAT_K8S_API_URL=http://127\.0\.0\.1:\d+ is not '
                     r'https://', error), error
    assert container.exec_(['test', '-e', '/etc/heat'],
                           check=False).returncode != 0


def test_isolation_without_its_api_leaves_heat_as_heat_made_it(devstack):
    # The cluster loses the BaselineAdminNetworkPolicy API: stack.sh goes
    # as far as heat-k8s's post-config, which stops it before changing
    # Heat's configuration or the catalog.
    _endpoint_scheme(devstack, 'https')
    devstack.kubectl('delete', 'crd', netpol.BASELINE_CRD)
    error = _stack_stops(devstack)
    assert 'HEAT_K8S_PROJECT_ISOLATION=True' in error
    assert 'serves no BaselineAdminNetworkPolicy' in error
    for path in ('/etc/heat/heat.conf', '/etc/heat/api-paste.ini'):
        text = container.exec_(['cat', path]).stdout
        assert 'heat_k8s' not in text and 'kubernetes' not in text, path
    services = devstack.openstack(ADMIN, 'service', 'list')
    assert 'kubernetes' not in {s['Type'] for s in services}
