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

"""tools/localcloud: build, start, inspect and stop the local cloud."""

import argparse
import os
import shlex
import shutil
import sys
import time

from lc import build
from lc import kubernetes
from lc import paths
from lc import procs


def _log(msg):
    print('localcloud: %s' % msg, file=sys.stderr, flush=True)


def cmd_build(args):
    if args.update:
        build.update(build.read_versions())
    for d in build.build(log=_log):
        print(d)


def cmd_up(args):
    if not args.kubernetes_only:
        raise SystemExit('localcloud: Keystone and Heat are not part of the '
                         'local cloud yet; use `up --kubernetes-only`.')
    started = time.monotonic()
    bins = build.build(log=_log)
    built = time.monotonic()
    cluster = kubernetes.Cluster(args.state_dir, bins)
    cluster.up()
    _log('kubernetes ready at %s in %.1fs (build check %.1fs); '
         'state in %s' % (cluster.api_url, time.monotonic() - built,
                          built - started, args.state_dir))
    _log('eval "$(%s env)"; kubectl get nodes' % _self(args))


def cmd_down(args):
    cluster = kubernetes.Cluster(args.state_dir)
    known = set(kubernetes.COMPONENTS)
    # Anything else we started (future components) first, then Kubernetes.
    for name in procs.names(args.state_dir):
        if name not in known:
            procs.stop(args.state_dir, name)
    cluster.down()
    if args.purge and os.path.isdir(args.state_dir):
        shutil.rmtree(args.state_dir)
    _log('stopped' + (' and removed %s' % args.state_dir
                      if args.purge else ''))


def cmd_status(args):
    cluster = kubernetes.Cluster(args.state_dir)
    if not cluster.info:
        print('no local cloud in %s' % args.state_dir)
        return 3
    status = cluster.status()
    for name, up in status.items():
        print('%-24s %s' % (name, 'running' if up else 'stopped'))
    ready = status['kube-apiserver'] and cluster.readyz()
    print('%-24s %s' % ('api', '%s (%s)' % (
        cluster.api_url, 'ready' if ready else 'not ready')))
    return 0 if ready and all(status.values()) else 1


def cmd_env(args):
    cluster = kubernetes.Cluster(args.state_dir)
    bins = cluster.info.get('bins') or build.all_bin_dirs()
    exports = {
        'HEAT_K8S_STATE_DIR': args.state_dir,
        'KUBECONFIG': cluster.kubeconfig,
        'PATH': os.pathsep.join(bins + [os.environ.get('PATH', '')]),
    }
    for key, value in exports.items():
        print('export %s=%s' % (key, shlex.quote(value)))


def cmd_restart(args):
    cluster = kubernetes.Cluster(args.state_dir)
    if args.component == 'kube-apiserver':
        cluster.restart_apiserver()
    else:
        cluster.stop(args.component)
        cluster.start(args.component)


def _self(args):
    return os.path.relpath(os.path.join(paths.TOOLS_DIR, 'localcloud'))


def parser():
    p = argparse.ArgumentParser(prog='localcloud', description=__doc__)
    p.add_argument('--state-dir', default=paths.default_state_dir(),
                   help='certificates, data, pids and logs (default: '
                   '$HEAT_K8S_STATE_DIR or ~/.cache/heat-k8s/localcloud)')
    sub = p.add_subparsers(dest='command', required=True)
    b = sub.add_parser('build', help='build the control plane binaries '
                       '(a no-op when cached)')
    b.add_argument('--update', action='store_true',
                   help='regenerate tools/gomod from tools/versions.env')
    b.set_defaults(func=cmd_build)
    u = sub.add_parser('up', help='start the local cloud')
    u.add_argument('--kubernetes-only', action='store_true',
                   help='only the Kubernetes control plane and kwok')
    u.set_defaults(func=cmd_up)
    d = sub.add_parser('down', help='stop what `up` started')
    d.add_argument('--purge', action='store_true',
                   help='also remove the state directory')
    d.set_defaults(func=cmd_down)
    sub.add_parser('status', help='show what runs').set_defaults(
        func=cmd_status)
    sub.add_parser('env', help='print shell exports').set_defaults(
        func=cmd_env)
    r = sub.add_parser('restart', help='restart one component')
    r.add_argument('component', choices=kubernetes.COMPONENTS)
    r.set_defaults(func=cmd_restart)
    return p


def main(argv):
    args = parser().parse_args(argv)
    args.state_dir = os.path.abspath(args.state_dir)
    return args.func(args) or 0
