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
"""Creating objects through Heat compared with kubectl: requests and delay.

Two cases are created --repeat times each: (a) a ConfigMap and (b) a
Deployment of --replicas pods (kwok makes the pods Ready). Each case is
created three ways in every repetition, one after the other in the same
namespace and the same run:

heat
    A one-resource stack (OS::Kubernetes::ConfigMap or ::Deployment) is
    validated and created by Heat's engine in-process, as the functional
    tests do it (Heat's HeatTestCase harness, sqlite, fake RPC,
    scheduler.ENABLE_SLEEP on so readiness is really polled, the plugin
    reaching the API with [kubernetes] kubeconfig).
kubectl-cold / kubectl-warm
    ``kubectl apply -f`` of the same manifest, then for the Deployment
    ``kubectl wait --for=condition=Available`` (or, with --kubectl-wait
    rollout, ``kubectl rollout status``). "cold" runs with a fresh
    ``--cache-dir`` (no discovery or OpenAPI cache), "warm" with one that
    earlier invocations have filled.

Requests. Heat's requests are counted at the HTTP layer: every call of
kubernetes.client.rest.RESTClientObject.request made by the plugin's
ApiClient (the benchmark's own watch and setup clients are excluded) from
validate until the stack is created. kubectl's are read from its log
at -v=8: a "Request" line per HTTP request (the lines -v=6 shows as
"Response" with verb and URL) and the response headers, where
``X-From-Cache: 1`` marks a response kubectl's disk cache answered without
reaching the API server. "wire" requests are those that reached the
server; the breakdown lists verb and path with the namespace and object
name replaced by {ns} and {name} and only the names of query parameters.
A watch request (watch=true) is shown as WATCH.

Delay. A watch on ConfigMaps and one on Deployments of the namespace run
in threads of their own from the start (list, then watch from the list's
resourceVersion, so no event is missed) and note, on the monotonic clock,
when each object is first seen (a ConfigMap is ready then) and when a
Deployment is first seen with status.observedGeneration >=
metadata.generation and status.availableReplicas == spec.replicas. The
delay is the time from that moment to (heat) the resource's CREATE
COMPLETE state being stored (Resource.state_set returns) and (kubectl)
the exit of ``kubectl apply`` (ConfigMap) or of the wait command
(Deployment). "total" is the time from the start of the create (or of
``kubectl apply``) to the same end. Median and max over the repetitions
are printed, and the ratio heat/kubectl of the medians.

Nothing is asserted: the figures are printed as a table, and the last line
of the output is one JSON object with all of them. Progress goes to
stderr. Objects are created in a namespace of their own, deleted at the
end. Without --kubeconfig a cluster is started with ``tools/localcloud
--state-dir <tmp> up --kubernetes-only`` and stopped afterwards.

Run it with the Python that has Heat, kubernetes and heat_k8s installed::

    ~/.cache/heat-k8s/venv-dev/bin/python tools/benchmark single \\
        --kubeconfig ~/.cache/heat-k8s/localcloud/kubeconfig
"""

import argparse
import collections
import importlib.metadata
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import uuid

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LOCALCLOUD = os.path.join(REPO, 'tools', 'localcloud')
CASES = ('configmap', 'deployment')
CLIENTS = ('heat', 'kubectl-cold', 'kubectl-warm')
RESOURCE = 'bench'  # the logical resource name in the Heat stacks


def log(msg):
    print('benchmark: %s' % msg, file=sys.stderr, flush=True)


# --- manifests and templates ---------------------------------------------

def configmap_body(index):
    return {'data': {'bench.conf': '[DEFAULT]\nrun = %d\n' % index}}


def deployment_spec(app, replicas, min_ready_seconds=0):
    return {'replicas': replicas, 'minReadySeconds': min_ready_seconds,
            'selector': {'matchLabels': {'app': app}},
            'template': {
                'metadata': {'labels': {'app': app}},
                'spec': {'containers': [{
                    'name': 'app', 'image': 'registry.invalid/app:1'}]}}}


def heat_template(case, index, replicas, min_ready_seconds):
    if case == 'configmap':
        res = {'type': 'OS::Kubernetes::ConfigMap',
               'properties': configmap_body(index)}
    else:
        res = {'type': 'OS::Kubernetes::Deployment',
               'properties': {'spec': deployment_spec(
                   'heat-%d' % index, replicas, min_ready_seconds)}}
    return {'heat_template_version': '2021-04-16',
            'resources': {RESOURCE: res}}


def manifest(case, name, namespace, replicas, min_ready_seconds):
    meta = {'name': name, 'namespace': namespace}
    if case == 'configmap':
        return dict({'apiVersion': 'v1', 'kind': 'ConfigMap',
                     'metadata': meta}, **configmap_body(0))
    return {'apiVersion': 'apps/v1', 'kind': 'Deployment', 'metadata': meta,
            'spec': deployment_spec(name, replicas, min_ready_seconds)}


# --- readiness, seen by watches ------------------------------------------

def deployment_ready(obj):
    meta, spec = obj['metadata'], obj.get('spec') or {}
    status = obj.get('status') or {}
    return (status.get('observedGeneration', 0) >= meta.get('generation', 1)
            and status.get('availableReplicas', 0) ==
            spec.get('replicas', 1))


class Watcher(threading.Thread):
    """Notes when objects of one kind in a namespace appear and are ready."""

    def __init__(self, list_func, namespace, is_ready):
        super().__init__(daemon=True, name='watch-' + list_func.__name__)
        self.list_func = list_func
        self.namespace = namespace
        self.is_ready = is_ready
        self.seen, self.ready = {}, {}
        self.error = None
        self.listed = threading.Event()
        self.stopping = threading.Event()
        self.changed = threading.Condition()

    def _observe(self, obj, now):
        name = obj['metadata']['name']
        with self.changed:
            self.seen.setdefault(name, now)
            if name not in self.ready and self.is_ready(obj):
                self.ready[name] = now
            self.changed.notify_all()

    def _list(self):
        resp = self.list_func(self.namespace, _preload_content=False)
        now = time.monotonic()
        doc = json.loads(resp.data)
        for item in doc.get('items') or []:
            self._observe(item, now)
        return doc['metadata']['resourceVersion']

    def run(self):
        from kubernetes import watch
        from kubernetes.client import exceptions
        try:
            version = self._list()
        except Exception as exc:  # reported by wait_ready
            self.error = exc
            self.listed.set()
            return
        self.listed.set()
        while not self.stopping.is_set():
            try:
                for event in watch.Watch().stream(
                        self.list_func, self.namespace,
                        resource_version=version, timeout_seconds=2,
                        allow_watch_bookmarks=True, deserialize=False):
                    now = time.monotonic()
                    obj = event['object']
                    version = obj['metadata']['resourceVersion']
                    if event['type'] in ('ADDED', 'MODIFIED'):
                        self._observe(obj, now)
            except exceptions.ApiException as exc:
                if exc.status != 410:
                    self.error = exc
                    return
                version = self._list()  # expired: list again

    def wait_ready(self, name, timeout):
        """(first seen, ready) monotonic times of an object."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while name not in self.ready:
                left = deadline - time.monotonic()
                if self.error or left <= 0:
                    raise RuntimeError('watch did not see %s ready: %s' % (
                        name, self.error or 'timed out'))
                self.changed.wait(min(left, 1))
            return self.seen[name], self.ready[name]


# --- request accounting --------------------------------------------------

_NS = re.compile(r'/namespaces/[^/]+')
_NAMED = re.compile(r'(/namespaces/\{ns\}/[^/]+/)[^/]+')


def pattern(method, url):
    """'VERB /path?query-keys' with namespace and object names abstracted."""
    parts = urllib.parse.urlsplit(url)
    query = urllib.parse.parse_qs(parts.query, keep_blank_values=True)
    if query.get('watch') in (['true'], ['1']):
        method = 'WATCH'
    path = _NAMED.sub(r'\1{name}', _NS.sub('/namespaces/{ns}', parts.path))
    keys = sorted(k for k in query if k not in ('timeout', 'watch'))
    return '%s %s%s' % (method.upper(), path,
                        '?' + '&'.join(keys) if keys else '')


def kind_of_request(path_pattern):
    path = path_pattern.split(' ', 1)[1].split('?')[0]
    if path.startswith('/openapi'):
        return 'openapi'
    if '/namespaces/' in path or path.startswith('/api/v1/namespaces'):
        return 'object'
    return 'discovery'


class HeatRequests:
    """Counts the plugin's HTTP requests while recording."""

    def __init__(self):
        self.ignored = set()
        self.recorded = None

    def install(self, monkeypatch):
        from kubernetes.client import rest
        original = rest.RESTClientObject.request
        counter = self

        def request(client, method, url, *args, **kwargs):
            if counter.recorded is not None and (
                    id(client) not in counter.ignored):
                counter.recorded.append(pattern(method, url))
            return original(client, method, url, *args, **kwargs)
        monkeypatch(rest.RESTClientObject, 'request', request)

    def ignore(self, api_client):
        self.ignored.add(id(api_client.rest_client))


_KLOG_REQUEST = re.compile(r'"Request" verb="(\w+)" url="([^"]+)"')
_KLOG_RESPONSE = re.compile(r'"Response" .*headers=<\s*$')


def kubectl_requests(stderr):
    """[(pattern, from disk cache)] from a kubectl -v=8 log."""
    pending, done, lines = [], [], iter(stderr.splitlines())
    for line in lines:
        request = _KLOG_REQUEST.search(line)
        if request:
            pending.append(pattern(*request.groups()))
            continue
        if _KLOG_RESPONSE.search(line) and pending:
            cached = False
            for header in lines:
                if header.strip() == '>' or header.startswith(' >'):
                    break
                cached = cached or header.strip() == 'X-From-Cache: 1'
            done.append((pending.pop(0), cached))
    # A request without a logged response still went out (e.g. an error).
    return done + [(p, False) for p in pending]


# --- statistics and output -----------------------------------------------

def summary(values):
    return {'median': statistics.median(values), 'max': max(values),
            'min': min(values), 'values': [round(v, 3) for v in values]}


def ratio(a, b):
    return round(a / b, 2) if b > 0 else None


def breakdown(runs):
    """{pattern: mean count per run} over runs of [(pattern, cached)]."""
    wire, cached = collections.Counter(), collections.Counter()
    for run in runs:
        for path_pattern, from_cache in run:
            (cached if from_cache else wire)[path_pattern] += 1
    n = len(runs)
    return ({k: round(v / n, 2) for k, v in sorted(wire.items())},
            {k: round(v / n, 2) for k, v in sorted(cached.items())})


def report(results, info):
    out = {'info': info, 'cases': {}}
    lines = [LEGEND]
    for case in CASES:
        res = results[case]
        figures = {}
        for client in CLIENTS:
            runs = res[client]
            wire = [sum(1 for _, c in r['requests'] if not c) for r in runs]
            cached = [sum(1 for _, c in r['requests'] if c) for r in runs]
            per_pattern, cache_hits = breakdown(
                [r['requests'] for r in runs])
            figures[client] = {
                'requests': summary(wire),
                'cache_hits': summary(cached),
                'delay_s': summary([r['delay'] for r in runs]),
                'total_s': summary([r['total'] for r in runs]),
                'to_ready_s': summary([r['to_ready'] for r in runs]),
                'breakdown': per_pattern,
                'breakdown_cache_hits': cache_hits,
            }
            if client == 'heat':
                figures[client]['polls'] = summary(
                    [r['polls'] for r in runs])
        heat = figures['heat']
        figures['ratio_heat_over'] = {
            client: {metric: ratio(heat[metric]['median'],
                                   figures[client][metric]['median'])
                     for metric in ('requests', 'delay_s', 'total_s')}
            for client in CLIENTS[1:]}
        out['cases'][case] = figures
        lines += table(case, figures, info)
    print('\n'.join(lines))
    print(json.dumps(out, sort_keys=True))


LEGEND = '''\
requests  API requests that reached the server per create (median)
cache     kubectl requests its disk cache answered (median)
delay     object ready (seen by a watch) -> Heat CREATE_COMPLETE or the
          kubectl command's exit, seconds (median, max)
total     start of the create (or kubectl apply) -> the same end, seconds
to-ready  object created -> ready, seconds (the cluster's own time)'''


def table(case, figures, info):
    title = {'configmap': 'ConfigMap',
             'deployment': 'Deployment (%d replicas, minReadySeconds %d)'
             % (info['replicas'], info['min_ready_seconds'])}
    lines = ['', '%s, %d repetitions' % (title[case], info['repeat']),
             '%-18s %8s %6s %9s %9s %9s %9s' % (
                 'client', 'requests', 'cache', 'delay med', 'delay max',
                 'total med', 'to-ready')]
    for client in CLIENTS:
        f = figures[client]
        lines.append('%-18s %8g %6g %9.3f %9.3f %9.3f %9.3f' % (
            client, f['requests']['median'], f['cache_hits']['median'],
            f['delay_s']['median'], f['delay_s']['max'],
            f['total_s']['median'], f['to_ready_s']['median']))
    for client in CLIENTS[1:]:
        r = figures['ratio_heat_over'][client]
        lines.append('heat/%-13s %8s %6s %9s %9s %9s' % (
            client, r['requests'], '', r['delay_s'], '', r['total_s']))
    if 'polls' in figures['heat']:
        lines.append('heat readiness polls per create: median %g, max %g'
                     % (figures['heat']['polls']['median'],
                        figures['heat']['polls']['max']))
    for client in CLIENTS:
        lines.append('  %s requests per create (mean; wire):' % client)
        for path_pattern, count in figures[client]['breakdown'].items():
            lines.append('    %5g  %s' % (count, path_pattern))
        for path_pattern, count in figures[client][
                'breakdown_cache_hits'].items():
            lines.append('    %5g  %s  [kubectl disk cache]' % (
                count, path_pattern))
    return lines


# --- the two clients -----------------------------------------------------

class Kubectl:

    def __init__(self, binary, kubeconfig, namespace, workdir, args):
        self.binary = binary
        self.kubeconfig = kubeconfig
        self.namespace = namespace
        self.workdir = workdir
        self.args = args
        self.warm_cache = os.path.join(workdir, 'cache-warm')

    def run(self, argv, cache_dir):
        cmd = [self.binary, '--kubeconfig', self.kubeconfig,
               '--cache-dir', cache_dir, '-v=8'] + argv
        result = subprocess.run(cmd, capture_output=True, text=True,
                                timeout=self.args.timeout + 30)
        end = time.monotonic()
        if result.returncode:
            raise RuntimeError('%s failed (%d): %s' % (
                ' '.join(argv), result.returncode,
                result.stderr[-2000:]))
        return end, kubectl_requests(result.stderr)

    def write(self, case, name):
        path = os.path.join(self.workdir, name + '.json')
        with open(path, 'w') as f:
            json.dump(manifest(case, name, self.namespace,
                               self.args.replicas,
                               self.args.min_ready_seconds), f)
        return path

    def apply_args(self, path):
        argv = ['apply', '-f', path]
        if self.args.kubectl_apply == 'server':
            argv.append('--server-side')
        return argv

    def wait_args(self, name):
        target = 'deployment/' + name
        timeout = '--timeout=%ds' % self.args.timeout
        if self.args.kubectl_wait == 'rollout':
            return ['rollout', 'status', target, '-n', self.namespace,
                    timeout]
        return ['wait', '--for=condition=Available', target,
                '-n', self.namespace, timeout]

    def warm_up(self):
        """Fill the warm cache as earlier invocations would have."""
        for case in CASES:
            path = self.write(case, 'warmup-' + case)
            self.run(self.apply_args(path) + ['--dry-run=server'],
                     self.warm_cache)

    def create(self, case, name, cold):
        cache_dir = (tempfile.mkdtemp(prefix='cache-cold-', dir=self.workdir)
                     if cold else self.warm_cache)
        path = self.write(case, name)
        start = time.monotonic()
        end, requests = self.run(self.apply_args(path), cache_dir)
        if case == 'deployment':
            end, waited = self.run(self.wait_args(name), cache_dir)
            requests += waited
        if cold:
            shutil.rmtree(cache_dir, ignore_errors=True)
        return start, end, requests


def heat_test_case(bench):
    """A HeatTestCase whose single test runs the benchmark in it."""
    from tests.unit import heat_harness  # noqa: I001 (first: sets up Heat)

    import fixtures
    from heat.engine import resource
    from heat.engine import scheduler
    from oslo_config import cfg

    from heat_k8s.resources.shared import base

    class HeatBenchmark(heat_harness.KubernetesTestCase):

        offline = False

        def setUp(self):
            super().setUp()
            scheduler.ENABLE_SLEEP = True  # real readiness polling
            cfg.CONF.set_override('api_url', None, group='kubernetes')
            cfg.CONF.set_override('kubeconfig', bench.args.kubeconfig,
                                  group='kubernetes')
            cfg.CONF.set_override('default_namespace', bench.namespace,
                                  group='kubernetes')
            bench.requests.install(self._monkeypatch)
            self.completed, self.polls = {}, collections.Counter()
            original_state_set = resource.Resource.state_set
            original_check = base.KubernetesResource.check_create_complete
            case = self

            def state_set(res, action, status, *args, **kwargs):
                result = original_state_set(res, action, status, *args,
                                            **kwargs)
                if (action, status) == (res.CREATE, res.COMPLETE):
                    case.completed[res.stack.id] = time.monotonic()
                return result

            def check_create_complete(res, state):
                case.polls[res.stack.id] += 1
                return original_check(res, state)
            self._monkeypatch(resource.Resource, 'state_set', state_set)
            self._monkeypatch(base.KubernetesResource,
                              'check_create_complete', check_create_complete)
            self.poll_interval_max = cfg.CONF.kubernetes.poll_interval_max

        def _monkeypatch(self, owner, name, value):
            self.useFixture(fixtures.MonkeyPatch(
                '%s.%s.%s' % (owner.__module__, owner.__name__, name),
                value))

        def create(self, case, index):
            """(start, complete, object name, polls, requests)."""
            stack = self.parse(heat_template(
                case, index, bench.args.replicas,
                bench.args.min_ready_seconds))
            bench.requests.recorded = requests = []
            start = time.monotonic()
            stack.validate()
            stack.create()
            bench.requests.recorded = None
            if stack.state != (stack.CREATE, stack.COMPLETE):
                raise RuntimeError('stack create failed: %s'
                                   % stack.status_reason)
            return (start, self.completed[stack.id],
                    stack[RESOURCE].data()['name'], self.polls[stack.id],
                    [(p, False) for p in requests])

        def runTest(self):
            bench.run_all(self)

    return HeatBenchmark()


class Bench:

    def __init__(self, args, kubectl_binary, workdir):
        import kubernetes
        self.args = args
        self.namespace = 'bench-' + uuid.uuid4().hex[:8]
        self.requests = HeatRequests()
        config = kubernetes.client.Configuration()
        kubernetes.config.load_kube_config(config_file=args.kubeconfig,
                                           client_configuration=config)
        self.config = config
        self.admin = self.client()
        self.core = kubernetes.client.CoreV1Api(self.admin)
        self.kubectl = Kubectl(kubectl_binary, args.kubeconfig,
                               self.namespace, workdir, args)
        self.watchers = {}
        self.results = {case: {client: [] for client in CLIENTS}
                        for case in CASES}
        self.info = {}

    def client(self):
        import kubernetes
        api = kubernetes.client.ApiClient(self.config)
        self.requests.ignore(api)
        return api

    def setup(self):
        import kubernetes
        self.core.create_namespace({'metadata': {'name': self.namespace}})
        deadline = time.monotonic() + 60
        # Pods are refused until the serviceaccount controller has run.
        while not self.core.list_namespaced_service_account(
                self.namespace, field_selector='metadata.name=default').items:
            if time.monotonic() > deadline:
                raise RuntimeError('no default service account in '
                                   + self.namespace)
            time.sleep(0.2)
        self.watchers = {
            'configmap': Watcher(
                kubernetes.client.CoreV1Api(
                    self.client()).list_namespaced_config_map,
                self.namespace, lambda obj: True),
            'deployment': Watcher(
                kubernetes.client.AppsV1Api(
                    self.client()).list_namespaced_deployment,
                self.namespace, deployment_ready),
        }
        for watcher in self.watchers.values():
            watcher.start()
            watcher.listed.wait(30)

    def teardown(self):
        for watcher in self.watchers.values():
            watcher.stopping.set()
        try:
            self.core.delete_namespace(self.namespace)
        except Exception as exc:
            log('could not delete namespace %s: %s' % (self.namespace, exc))

    def record(self, case, client, start, end, name, requests, polls=None):
        seen, ready = self.watchers[case].wait_ready(name, self.args.timeout)
        run = {'name': name, 'delay': end - ready, 'total': end - start,
               'to_ready': ready - seen, 'requests': requests}
        if polls is not None:
            run['polls'] = polls
        self.results[case][client].append(run)
        log('%-10s %-12s %-28s delay %6.3fs total %6.3fs requests %d' % (
            case, client, name, run['delay'], run['total'],
            sum(1 for _, cached in requests if not cached)))

    def run_all(self, heat):
        self.info['poll_interval_max'] = heat.poll_interval_max
        self.kubectl.warm_up()
        for index in range(self.args.repeat):
            for case in CASES:
                start, end, name, polls, requests = heat.create(case, index)
                self.record(case, 'heat', start, end, name, requests, polls)
                for client in CLIENTS[1:]:
                    name = 'kubectl-%s-%s-%d' % (case[:6], client[8:], index)
                    start, end, requests = self.kubectl.create(
                        case, name, cold=client == 'kubectl-cold')
                    self.record(case, client, start, end, name, requests)


# --- cluster and tools ---------------------------------------------------

def find_kubectl(args, state_dir):
    if args.kubectl:
        return args.kubectl
    if os.environ.get('KUBECTL'):
        return os.environ['KUBECTL']
    if state_dir:  # the cluster we started: its own kubectl
        out = subprocess.run([LOCALCLOUD, '--state-dir', state_dir, 'env'],
                             capture_output=True, text=True, check=True)
        path = re.search(r"^export PATH='?([^'\n]*)", out.stdout, re.M)
        found = shutil.which('kubectl', path=path.group(1) if path else None)
        if found:
            return found
    found = shutil.which('kubectl')
    if found:
        return found
    # The kubectl localcloud builds with the control plane.
    out = subprocess.run([LOCALCLOUD, 'build'], capture_output=True,
                         text=True, check=True)
    for line in out.stdout.splitlines():
        candidate = os.path.join(line.strip(), 'kubectl')
        if os.access(candidate, os.X_OK):
            return candidate
    raise SystemExit('kubectl not found: give --kubectl')


def version_of(kubectl, kubeconfig):
    out = subprocess.run([kubectl, '--kubeconfig', kubeconfig, 'version',
                          '-o', 'json'], capture_output=True, text=True)
    try:
        doc = json.loads(out.stdout)
    except ValueError:
        return {}
    return {'kubectl': doc.get('clientVersion', {}).get('gitVersion'),
            'server': doc.get('serverVersion', {}).get('gitVersion')}


def parser():
    p = argparse.ArgumentParser(
        prog='benchmark single', description=__doc__.split('\n\n')[0],
        epilog='See the module docstring or doc/source/benchmark.rst.')
    p.add_argument('--kubeconfig',
                   help='admin kubeconfig of a running cluster (default: '
                   'start one with tools/localcloud and stop it after)')
    p.add_argument('--kubectl', help='kubectl binary (default: $KUBECTL, '
                   "the local cloud's, PATH)")
    p.add_argument('--repeat', type=int, default=5,
                   help='repetitions of each case (default 5)')
    p.add_argument('--replicas', type=int, default=3,
                   help='replicas of the Deployment (default 3)')
    p.add_argument('--min-ready-seconds', type=int, default=0,
                   help='minReadySeconds of the Deployment (default 0): '
                   'a slower rollout, to see how polling keeps up')
    p.add_argument('--kubectl-wait', choices=('condition', 'rollout'),
                   default='condition',
                   help='kubectl wait --for=condition=Available (default) '
                   'or kubectl rollout status')
    p.add_argument('--kubectl-apply', choices=('client', 'server'),
                   default='client',
                   help="client-side apply (kubectl's default) or "
                   '--server-side, as Heat applies')
    p.add_argument('--timeout', type=int, default=120,
                   help='seconds to wait for one object (default 120)')
    return p


def main(argv):
    args = parser().parse_args(argv)
    if args.repeat < 1:
        raise SystemExit('--repeat must be at least 1')
    workdir = tempfile.mkdtemp(prefix='heat-k8s-benchmark-')
    state_dir = None
    try:
        if not args.kubeconfig:
            state_dir = os.path.join(workdir, 'cloud')
            log('starting a cluster in %s' % state_dir)
            subprocess.run([LOCALCLOUD, '--state-dir', state_dir, 'up',
                            '--kubernetes-only'], check=True)
            args.kubeconfig = os.path.join(state_dir, 'kubeconfig')
        args.kubeconfig = os.path.abspath(os.path.expanduser(
            args.kubeconfig))
        kubectl = find_kubectl(args, state_dir)
        return run(args, kubectl, workdir)
    finally:
        if state_dir:
            subprocess.run([LOCALCLOUD, '--state-dir', state_dir, 'down'],
                           check=False)
        shutil.rmtree(workdir, ignore_errors=True)


def run(args, kubectl, workdir):
    import testtools

    bench = Bench(args, kubectl, workdir)
    case = heat_test_case(bench)
    bench.setup()
    log('namespace %s, kubectl %s' % (bench.namespace, kubectl))
    try:
        result = testtools.TestResult()
        case.run(result)
    finally:
        bench.teardown()
    if result.errors or result.failures:
        for _test, error in result.errors + result.failures:
            print(error, file=sys.stderr)
        return 1
    from heat import version as heat_version

    import heat_k8s
    bench.info.update(version_of(kubectl, args.kubeconfig))
    bench.info.update({
        'repeat': args.repeat, 'replicas': args.replicas,
        'min_ready_seconds': args.min_ready_seconds,
        'kubectl_wait': args.kubectl_wait,
        'kubectl_apply': args.kubectl_apply,
        'heat': heat_version.version_info.version_string(),
        'heat_k8s': importlib.metadata.version('heat-k8s'),
        'heat_k8s_path': os.path.dirname(heat_k8s.__file__)})
    report(bench.results, bench.info)
    return 0
