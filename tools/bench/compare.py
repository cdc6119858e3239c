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

"""`tools/benchmark peers`: Heat, kubectl, Helm 4 and Ansible side by side.

Run inside the local cloud's client environment (``eval "$(tools/localcloud
env)"``): Heat is driven by the real CLI, ``openstack stack create --wait``,
as the demo user; the other tools use $KUBECONFIG (admin) in a namespace of
their own. Each repetition runs every tool once, one after the other, so
slow drifts of the shared machine touch all tools alike. Objects are
deleted after each create, outside the timing. See
doc/source/benchmark.rst for the columns.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid

from tools.bench import peers
from tools.bench import single
from tools.bench import workloads
from tools.lc.kubernetes import controlplane

ORDERED_TOOLS = ('kubectl', 'helm', 'heat', 'ansible')
FLAT_TOOLS = ('kubectl', 'helm', 'heat', 'heat-objects')
# A kwok node's default pod capacity: the cloud's three hold 330 pods.
NODE_PODS = 110
_LOG_TIME = r'^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+) \d+ INFO '


def log(msg):
    print('benchmark: %s' % msg, file=sys.stderr, flush=True)


def _run(argv, env=None, timeout=900):
    start = time.monotonic()
    out = subprocess.run(argv, capture_output=True, text=True, env=env,
                         timeout=timeout)
    if out.returncode:
        raise RuntimeError('%s failed (%d): %s' % (
            ' '.join(argv[:4]), out.returncode, (out.stderr or out.stdout)
            [-1500:]))
    return time.monotonic() - start, out


def _dump(path, manifests):
    with open(path, 'w') as f:
        json.dump({'apiVersion': 'v1', 'kind': 'List',
                   'items': [obj for _key, obj in manifests]}, f)
    return path


def _log_time(path, pattern, after):
    """Wall-clock time of the first line of a service log after `after`."""
    regex = re.compile(_LOG_TIME + '.*' + pattern)
    with open(path) as f:
        for line in f:
            found = regex.search(line)
            if found:
                when = datetime.datetime.strptime(
                    found.group(1), '%Y-%m-%d %H:%M:%S.%f').timestamp()
                if when >= after:
                    return when
    return None


class Tools:
    """Creates a workload with one tool and deletes it again."""

    def __init__(self, args, workdir):
        self.args = args
        self.workdir = workdir
        self.kubectl = shutil.which('kubectl')
        self.helm = peers.helm(log)
        self.ansible = os.path.join(peers.ansible_venv(log), 'bin')
        self.namespace = 'bench-' + uuid.uuid4().hex[:6]
        _run(self.kubectl_argv('create', 'namespace', self.namespace))
        # Pods are refused until the serviceaccount controller has run.
        while subprocess.run(self.kubectl_argv(
                'get', 'serviceaccount', 'default', '-n', self.namespace),
                capture_output=True).returncode:
            time.sleep(0.5)
        self.cache = os.path.join(workdir, 'kubectl-cache')
        _, token = _run(['openstack', 'token', 'issue', '-f', 'value',
                         '-c', 'project_id'])
        self.heat_namespace = token.stdout.strip()
        self.logs = os.path.join(os.environ['HEAT_K8S_STATE_DIR'], 'logs')
        self.nodes = []

    def add_nodes(self, pods):
        """kwok nodes enough for `pods` more pods (110 each), for this run."""
        names = ['%s-node-%d' % (self.namespace, i)
                 for i in range(-(-pods // NODE_PODS))]
        nodes = [{'apiVersion': 'v1', 'kind': 'Node', 'metadata': {
            'name': name, 'labels': {'type': 'kwok', 'role': 'bench'},
            'annotations': {controlplane.KWOK_NODE_ANNOTATION: 'fake'}},
            'spec': {'taints': [controlplane.KWOK_TAINT]}} for name in names]
        _dump(self.path('nodes.json'), [(None, n) for n in nodes])
        _run(self.kubectl_argv('apply', '-f', self.path('nodes.json')))
        self.nodes = names
        _run(self.kubectl_argv('wait', '--for=condition=Ready',
                               '--timeout=120s', *['node/' + n
                                                   for n in names]))

    def remove_nodes(self):
        if self.nodes:
            subprocess.run(self.kubectl_argv('delete', 'node', *self.nodes),
                           capture_output=True)

    def kubectl_argv(self, *argv):
        return [self.kubectl, '--kubeconfig', os.environ['KUBECONFIG']] + list(
            argv)

    def path(self, name):
        return os.path.join(self.workdir, name)

    # -- kubectl: apply each step, wait for its workloads; -v=8 counts ---

    def _kubectl(self, *argv):
        _, out = _run(self.kubectl_argv('--cache-dir', self.cache, '-v=8',
                                        *argv))
        return sum(1 for _, cached in single.kubectl_requests(out.stderr)
                   if not cached)

    def _kubectl_wait(self, manifests):
        targets = ['%s/%s' % (obj['kind'].lower(), obj['metadata']['name'])
                   for _key, obj in manifests
                   if obj['kind'] in ('Deployment', 'Job')]
        conditions = {t.split('/')[0] for t in targets}
        requests = 0
        for kind in sorted(conditions):
            requests += self._kubectl(
                'wait', '-n', self.namespace, '--timeout=300s',
                '--for=condition=%s' % (
                    'Complete' if kind == 'job' else 'Available'),
                *[t for t in targets if t.startswith(kind + '/')])
        return requests

    def kubectl_steps(self, prefix, steps, server_side=False):
        start, requests = time.monotonic(), 0
        for i, manifests in enumerate(steps):
            path = _dump(self.path('%s-%d.json' % (prefix, i)), manifests)
            requests += self._kubectl(
                'apply', '-f', path, *(['--server-side'] if server_side
                                       else []))
            requests += self._kubectl_wait(manifests)
        return {'total': time.monotonic() - start, 'requests': requests}

    def delete(self, prefix, manifests):
        _run(self.kubectl_argv('delete', '--ignore-not-found', '--wait',
                               '-f', _dump(self.path(prefix + '-all.json'),
                                           manifests)))

    # -- Helm ------------------------------------------------------------

    def helm_install(self, prefix, manifests, hooks=None):
        chart = workloads.helm_chart(self.path(prefix + '-chart'), manifests,
                                     hooks)
        took, _ = _run([self.helm, 'install', prefix, chart, '-n',
                        self.namespace, '--wait=watcher', '--wait-for-jobs',
                        '--timeout', '10m'])
        return {'total': took, 'requests': None}

    def helm_delete(self, prefix, manifests):
        _run([self.helm, 'uninstall', prefix, '-n', self.namespace,
              '--wait'])
        self.delete(prefix, manifests)  # the hooks

    # -- Ansible ---------------------------------------------------------

    def ansible_play(self, prefix, steps):
        book = workloads.ansible_playbook(self.path(prefix + '.json'), steps)
        env = dict(os.environ, K8S_AUTH_KUBECONFIG=os.environ['KUBECONFIG'],
                   ANSIBLE_LOCALHOST_WARNING='False',
                   ANSIBLE_PYTHON_INTERPRETER=os.path.join(
                       self.ansible, 'python'))
        took, _ = _run([os.path.join(self.ansible, 'ansible-playbook'),
                        '-i', 'localhost,', book], env=env)
        return {'total': took, 'requests': None}

    # -- Heat: the real CLI; the split from heat-api and heat-engine logs -

    def heat_create(self, prefix, template):
        path = self.path(prefix + '.yaml')
        with open(path, 'w') as f:
            json.dump(template, f)
        wall = time.time()
        took, _ = _run(['openstack', 'stack', 'create', '--wait', '--poll',
                        str(self.args.poll), '-t', path, prefix])
        end = wall + took
        posted = _log_time(os.path.join(self.logs, 'heat-api.log'),
                           r'Processing request: POST /v1/\w+/stacks$', wall)
        done = _log_time(os.path.join(self.logs, 'heat-engine.log'),
                         r'Stack CREATE COMPLETE \(%s\)' % re.escape(prefix),
                         wall)
        run = {'total': took, 'requests': None}
        if posted and done:
            run.update(to_api=posted - wall, in_heat=done - posted,
                       to_exit=end - done)
        return run

    def heat_delete(self, prefix):
        _run(['openstack', 'stack', 'delete', '--yes', '--wait', prefix])


def ordered(tools, tool, prefix):
    ns = tools.heat_namespace if tool == 'heat' else tools.namespace
    manifests = workloads.ordered_manifests(prefix, ns)
    by_key = dict(manifests)
    steps = [[(k, by_key[k]) for k in step] for step in workloads.STEPS]
    if tool == 'heat':
        run = tools.heat_create(prefix, workloads.heat_ordered(prefix))
        tools.heat_delete(prefix)
    elif tool == 'kubectl':
        run = tools.kubectl_steps(prefix, steps)
        tools.delete(prefix, manifests)
    elif tool == 'helm':
        run = tools.helm_install(prefix, manifests, workloads.HELM_HOOKS)
        tools.helm_delete(prefix, manifests)
    else:
        run = tools.ansible_play(prefix, steps)
        tools.delete(prefix, manifests)
    return run


def flat(tools, tool, prefix, pairs):
    manifests = workloads.flat_manifests(prefix, tools.namespace, pairs)
    if tool in ('heat', 'heat-objects'):
        template = (workloads.heat_flat if tool == 'heat' else
                    workloads.heat_objects)(prefix, pairs)
        run = tools.heat_create(prefix, template)
        tools.heat_delete(prefix)
        return run
    if tool == 'kubectl':
        run = tools.kubectl_steps(prefix, [manifests], server_side=True)
        tools.delete(prefix, manifests)
    else:
        run = tools.helm_install(prefix, manifests)
        tools.helm_delete(prefix, manifests)
    return run


def job_complete(obj):
    return any(c.get('type') == 'Complete' and c.get('status') == 'True'
               for c in (obj.get('status') or {}).get('conditions') or [])


def watchers(namespace, kubeconfig):
    """Watches noting when the namespace's workloads appear and are ready."""
    import kubernetes
    api = kubernetes.config.new_client_from_config(config_file=kubeconfig)
    found = {
        'Deployment': single.Watcher(
            kubernetes.client.AppsV1Api(api).list_namespaced_deployment,
            namespace, single.deployment_ready),
        'Job': single.Watcher(
            kubernetes.client.BatchV1Api(api).list_namespaced_job,
            namespace, job_complete)}
    for watcher in found.values():
        watcher.start()
        watcher.listed.wait(30)
    return found


def critical_path(watching, prefix):
    """The ordered chain's own time: each workload from first seen to ready
    (ConfigMaps, Secrets and Services count as ready when stored), summed
    along the longest chain of the dependency table."""
    longest = {}
    for key, kind, after in workloads.ORDERED:
        own = 0.0
        if kind in watching:
            seen, ready = watching[kind].wait_ready(
                '%s-%s' % (prefix, key), 60)
            own = ready - seen
        longest[key] = own + max([longest[a] for a in after] or [0])
    return max(longest.values())


# --- the run and its report ----------------------------------------------

def median(runs, field):
    values = [r[field] for r in runs if r.get(field) is not None]
    return round(statistics.median(values), 3) if values else None


def summarize(results):
    out = {}
    for workload, by_tool in results.items():
        rows = {tool: {f: median(runs, f) for f in (
            'total', 'requests', 'to_api', 'in_heat', 'to_exit',
            'critical_path')} for tool, runs in by_tool.items()}
        # Without kubectl in the run (--tools heat) there is no ratio.
        base = (rows.get('kubectl') or {}).get('total')
        for row in rows.values():
            row['ratio'] = (round(row['total'] / base, 2)
                            if base and row['total'] is not None else None)
        out[workload] = rows
    return out


def table(summary, info):
    lines = ['%d repetitions, medians in seconds; ratio = total / '
             "kubectl's total" % info['repeat']]
    for workload, rows in summary.items():
        lines += ['', workload, '%-22s %8s %6s %8s' % (
            'tool', 'total', 'ratio', 'requests')]
        for tool, row in rows.items():
            lines.append('%-22s %8s %6s %8s' % (
                tool, row['total'], row['ratio'],
                '-' if row['requests'] is None else row['requests']))
        for name in ('heat', 'heat-objects'):
            heat = rows.get(name) or {}
            if heat.get('in_heat') is not None:
                lines.append('  %s split: CLI start -> POST at heat-api %s, '
                             'POST -> stack COMPLETE %s, COMPLETE -> CLI '
                             'exit %s' % (name, heat['to_api'],
                                          heat['in_heat'], heat['to_exit']))
        path = (rows.get('kubectl') or {}).get('critical_path')
        if path is not None:
            lines.append("  critical path (the objects' own time, "
                         'measured on the kubectl runs): %s' % path)
    return lines


def parser():
    p = argparse.ArgumentParser(prog='benchmark peers',
                                description=__doc__.split('\n\n')[0])
    p.add_argument('--repeat', type=int, default=3,
                   help='repetitions of the ordered workload (default 3)')
    p.add_argument('--flat', type=int, default=100, metavar='N',
                   help='ConfigMap+Deployment pairs of the flat workload '
                   '(default 100; 400 for the large case; 0 skips it)')
    p.add_argument('--flat-repeat', type=int, default=1,
                   help='repetitions of the flat workload (default 1)')
    p.add_argument('--tools', default='kubectl,helm,heat,heat-objects,'
                   'ansible',
                   help='comma-separated subset (kubectl is the base; '
                   'heat-objects: the flat workload in one '
                   'OS::Kubernetes::Objects resource)')
    p.add_argument('--poll', type=int, default=1,
                   help='`openstack stack create --poll` seconds (default '
                   '1; the client default is 5)')
    return p


def main(argv):
    args = parser().parse_args(argv)
    chosen = args.tools.split(',')
    workdir = tempfile.mkdtemp(prefix='heat-k8s-peers-')
    tools = Tools(args, workdir)
    watching = watchers(tools.namespace, os.environ['KUBECONFIG'])
    results = {'ordered': {t: [] for t in ORDERED_TOOLS if t in chosen}}
    flat_name = 'flat %d pairs' % args.flat
    if args.flat:
        results[flat_name] = {t: [] for t in FLAT_TOOLS if t in chosen}
    try:
        for rep in range(args.repeat):
            for tool in results['ordered']:
                prefix = 'o-%s-%d-%s' % (tool, rep, uuid.uuid4().hex[:4])
                run = ordered(tools, tool, prefix)
                if tool == 'kubectl':
                    run['critical_path'] = critical_path(watching, prefix)
                log('ordered %-8s %s' % (tool, run))
                results['ordered'][tool].append(run)
        for watcher in watching.values():  # only the ordered runs need them
            watcher.stopping.set()
        if args.flat:
            tools.add_nodes(args.flat)
        for rep in range(args.flat_repeat if args.flat else 0):
            for tool in results[flat_name]:
                prefix = 'f-%s-%d-%s' % (tool, rep, uuid.uuid4().hex[:4])
                run = flat(tools, tool, prefix, args.flat)
                log('flat %-8s %s' % (tool, run))
                results[flat_name][tool].append(run)
    finally:
        for watcher in watching.values():
            watcher.stopping.set()
        tools.remove_nodes()
        subprocess.run(tools.kubectl_argv('delete', 'namespace',
                                          tools.namespace, '--wait=false'),
                       capture_output=True)
        shutil.rmtree(workdir, ignore_errors=True)
    info = {'repeat': args.repeat, 'flat_repeat': args.flat_repeat,
            'poll': args.poll, 'versions': _versions(tools)}
    summary = summarize(results)
    print('\n'.join(table(summary, info)))
    print(json.dumps({'info': info, 'summary': summary, 'runs': results},
                     sort_keys=True))
    return 0


def _versions(tools):
    found = {}
    for name, argv in (('helm', [tools.helm, 'version', '--short']),
                       ('ansible', [os.path.join(tools.ansible, 'ansible'),
                                    '--version']),
                       ('kubectl', [tools.kubectl, 'version', '--client'])):
        out = subprocess.run(argv, capture_output=True, text=True)
        found[name] = (out.stdout.splitlines() or [''])[0]
    return found
