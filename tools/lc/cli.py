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

from tools.lc import demo
from tools.lc import docker_host
from tools.lc import openstack_cloud
from tools.lc import paths
from tools.lc import procs
from tools.lc.builds import agent_server
from tools.lc.builds import go
from tools.lc.builds import images
from tools.lc.builds import recipes
from tools.lc.builds import venv
from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import node as node_mod
from tools.lc.kubernetes import node_host
from tools.lc.kubernetes import storage
from tools.lc.openstack import heat
from tools.lc.openstack import keystone


def _log(msg):
    print('localcloud: %s' % msg, file=sys.stderr, flush=True)


def cmd_build(args):
    if args.update:
        go.update(go.read_versions())
    for d in go.build(log=_log):
        print(d)
    # The OpenStack side too: the functional tests run its `openstack`
    # before any `up` would create it (a fresh machine has none).
    print(venv.ensure(log=_log, series=args.heat_series))


def cmd_up(args):
    started = time.monotonic()
    bins = go.build(log=_log)
    built = time.monotonic()
    cluster = controlplane.Cluster(args.state_dir, bins)
    cluster.info['node'] = not args.kwok_only
    if cluster.info['node']:
        node_mod.Node(cluster).check_host()

    def start_kubernetes():
        cluster.up()
        if cluster.info['node']:
            node_mod.Node(cluster, log=_log).up()
            for index in range(1, args.nodes):
                _add_node(cluster, index)

    if args.kubernetes_only:
        flags = os.path.join(args.state_dir, controlplane.WEBHOOK_FLAGS_FILE)
        if os.path.exists(flags):  # left by a full `up`: no Keystone now
            os.unlink(flags)
        cluster.info.pop('venv', None)
        cluster.info.pop(node_mod.PODS_REACH, None)
        start_kubernetes()
        _log('kubernetes ready at %s in %.1fs (build check %.1fs); '
             'state in %s' % (cluster.api_url, time.monotonic() - built,
                              built - started, args.state_dir))
        _log('eval "$(%s env)"; kubectl get nodes' % _self(args))
        return
    venv_dir = venv.ensure(log=_log, series=args.heat_series)
    ready = time.monotonic()
    _log('build check %.1fs, virtualenv check %.1fs' % (
        built - started, ready - built))
    cluster.info['venv'] = venv_dir
    # Keystone's public API, as an operator's clusters reach it (a control
    # plane on it: environments/existing-keystone.yaml), and Heat's CFN
    # API, as servers reach it (heat_metadata_server_url).
    cluster.info[node_mod.PODS_REACH] = [keystone.NAME, heat.API_CFN]
    cluster.info['heat_series'] = args.heat_series or venv.NEWEST_SERIES
    if args.token_expiration:
        cluster.info.setdefault('openstack', {})['token_expiration'] = (
            args.token_expiration)
    cluster.save()
    openstack = openstack_cloud.OpenStack(cluster, venv_dir, log=_log)
    openstack.up(start_kubernetes)
    _log('local cloud ready in %.1fs (%.1fs after the checks); state in %s'
         % (time.monotonic() - started, time.monotonic() - ready,
            args.state_dir))
    _log('eval "$(%s env)"; openstack stack list; kubectl get nodes'
         % _self(args))


def cmd_down(args):
    cluster = controlplane.Cluster(args.state_dir)
    # Volumes outlive a plain `down` (as etcd, which names them).
    volumes = storage.volumes_of(cluster) if (
        args.purge and cluster.info) else []
    openstack_cloud.OpenStack(cluster, cluster.info.get('venv')).down()
    known = set(controlplane.COMPONENTS)
    # Anything else we started (future components) first, then Kubernetes.
    known.update(node_mod.COMPONENTS)
    for name in procs.names(args.state_dir):
        if name not in known:
            procs.stop(args.state_dir, name)
    for index in cluster.info.get(node_mod.FURTHER, ()):
        node_mod.Node(cluster, log=_log, index=index).down()
    node_mod.Node(cluster, log=_log).down()
    cluster.down()
    storage.remove(volumes)
    if args.purge:
        docker_host.remove_run_roots(args.state_dir)
    if args.purge and os.path.isdir(args.state_dir):
        shutil.rmtree(args.state_dir)
    _log('stopped' + (' and removed %s' % args.state_dir
                      if args.purge else ''))


def cmd_images(args):
    for ref in images.build_all(log=_log, only=args.names or None):
        print(ref)
    cluster = controlplane.Cluster(args.state_dir)
    node = node_mod.Node(cluster, log=_log) if cluster.info.get(
        'node') else None
    if node and node.status().get('containerd'):
        # A running node gets what was just built (opt-in images too).
        node.load_images()


def cmd_agent_server(args):
    print(agent_server.ensure(log=_log))


def cmd_docker_host(args):
    if args.stop:
        docker_host.stop(args.state_dir, args.stack)
        return
    env = dict(os.environ, **env_exports(args.state_dir))
    config = docker_host.stack_agent_config(env, args.stack)
    docker_host.start(args.state_dir, args.stack, config, log=_log)


def cmd_status(args):
    cluster = controlplane.Cluster(args.state_dir)
    if not cluster.info:
        print('no local cloud in %s' % args.state_dir)
        return 3
    status = cluster.status()
    if cluster.info.get('node'):
        status.update(node_mod.Node(cluster).status())
        for index in cluster.info.get(node_mod.FURTHER, ()):
            node = node_mod.Node(cluster, index=index)
            status.update({node.proc(name): up
                           for name, up in node.status().items()})
    openstack = None
    if cluster.info.get('venv'):  # a full `up`, not --kubernetes-only
        openstack = openstack_cloud.OpenStack(cluster, cluster.info['venv'])
        status.update(openstack.status())
    for name, up in status.items():
        print('%-24s %s' % (name, 'running' if up else 'stopped'))
    ready = status['kube-apiserver'] and cluster.readyz()
    print('%-24s %s' % ('api', '%s (%s)' % (
        cluster.api_url, 'ready' if ready else 'not ready')))
    for name, (url, up) in (openstack.endpoints().items()
                            if openstack else ()):
        ready = ready and up
        print('%-24s %s (%s)' % (name, url, 'ready' if up else 'not ready'))
    return 0 if ready and all(status.values()) else 1


def env_exports(state_dir):
    """What `env` exports: the CLIs on PATH, the admin kubeconfig and, for
    a full cloud, clouds.yaml with OS_CLOUD=demo."""
    cluster = controlplane.Cluster(state_dir)
    bins = cluster.info.get('bins') or go.all_bin_dirs()
    if cluster.info.get('venv'):
        # The client's `openstack` before the cloud's (which loads every
        # service client Heat installs: 0.5-0.8 s more per command).
        client = venv.path(which=venv.CLIENT)
        if os.path.isdir(client):
            bins = bins + [venv.bin_dir(client)]
        bins = bins + [venv.bin_dir(cluster.info['venv'])]
    exports = {
        'HEAT_K8S_STATE_DIR': state_dir,
        'KUBECONFIG': cluster.kubeconfig,
        'PATH': os.pathsep.join(bins + [os.environ.get('PATH', '')]),
    }
    if cluster.info.get('venv'):
        exports['OS_CLIENT_CONFIG_FILE'] = os.path.join(state_dir,
                                                        openstack_cloud.CLOUDS_FILE)
        exports['OS_CLOUD'] = 'demo'
        # Keystone as pods reach it (ExistingKeystoneInternalEndpoint).
        exports['HEAT_K8S_PODS_KEYSTONE'] = node_host.host_url(
            cluster.port(keystone.NAME))
    return exports


def cmd_env(args):
    for key, value in env_exports(args.state_dir).items():
        print('export %s=%s' % (key, shlex.quote(value)))


def cmd_demo(args):
    args.kubernetes_only = False
    up_started = time.monotonic()
    cmd_up(args)
    return demo.run(controlplane.Cluster(args.state_dir),
                    env_exports(args.state_dir),
                    self_cmd=_self(args), stack_name=args.stack_name,
                    up_seconds=time.monotonic() - up_started, log=_log)


def cmd_node(args):
    cluster = controlplane.Cluster(args.state_dir)
    further = cluster.info.get(node_mod.FURTHER, [])
    if not cluster.info.get('node') or not node_mod.Node(
            cluster).status().get('containerd'):
        raise SystemExit('localcloud: no real node-0 runs in %s'
                         % args.state_dir)
    if args.action == 'add':
        index = max(further, default=0) + 1
        _add_node(cluster, index, args.images, args.taint)
        print(node_mod.config.name(index))
        return
    index = _node_index(args.name, further)
    node = _node(cluster, index)
    if args.action == 'power-off':
        node.power_off()
    elif args.action == 'power-on':
        node.boot(cluster.info.get('node_images', {}).get(args.name))
    else:  # remove
        node.power_off(forget=True)
        cluster.request('DELETE', '/api/v1/nodes/' + args.name)
        cluster.info[node_mod.FURTHER] = [i for i in further if i != index]
        cluster.save()


def _add_node(cluster, index, images=None, taints=()):
    """Boot node `index` and note it (its images and taints, for its
    power-on)."""
    further = cluster.info.setdefault(node_mod.FURTHER, [])
    if index not in further:
        further.append(index)
    cluster.info.setdefault('node_images', {})[
        node_mod.config.name(index)] = images
    cluster.info.setdefault('node_taints', {})[
        node_mod.config.name(index)] = list(taints or ())
    cluster.save()
    _node(cluster, index).boot(images)


def _node(cluster, index):
    name = node_mod.config.name(index)
    taints = cluster.info.get('node_taints', {}).get(name, ())
    return node_mod.Node(cluster, log=_log, index=index, taints=taints)


def _node_index(name, further):
    for index in further:
        if node_mod.config.name(index) == name:
            return index
    raise SystemExit('localcloud: no further node %s (these are: %s; '
                     'node-0 runs on the host and powers off with `down`)'
                     % (name, ', '.join(node_mod.config.name(i)
                                        for i in further) or 'none'))


def cmd_restart(args):
    cluster = controlplane.Cluster(args.state_dir)
    if args.component in openstack_cloud.PROCESSES:
        if not cluster.info.get('venv'):
            raise SystemExit('localcloud: %s is not part of this cloud '
                             '(started with --kubernetes-only)'
                             % args.component)
        openstack_cloud.OpenStack(cluster, cluster.info['venv'],
                        log=_log).restart(args.component)
    elif args.component in node_mod.COMPONENTS:
        node = node_mod.Node(cluster, log=_log)
        procs.stop(args.state_dir, args.component)
        procs.start(args.state_dir, args.component, node.argv(
            args.component))
    elif args.component == 'kube-apiserver':
        cluster.restart_apiserver()
    else:
        cluster.stop(args.component)
        cluster.start(args.component)


def _self(args):
    cmd = os.path.relpath(os.path.join(paths.TOOLS_DIR, 'localcloud'))
    if args.state_dir != os.path.abspath(paths.default_state_dir()):
        cmd += ' --state-dir ' + shlex.quote(args.state_dir)
    return cmd


def parser():
    p = argparse.ArgumentParser(prog='localcloud', description=__doc__)
    p.add_argument('--state-dir', default=paths.default_state_dir(),
                   help='certificates, data, pids and logs (default: '
                   '$HEAT_K8S_STATE_DIR or ~/.cache/heat-k8s/localcloud)')
    sub = p.add_subparsers(dest='command', required=True)
    b = sub.add_parser('build', help='build the control plane binaries and '
                       'the virtualenvs (a no-op when cached)')
    b.add_argument('--update', action='store_true',
                   help='regenerate tools/gomod from tools/versions.env')
    _heat_series_argument(b)
    b.set_defaults(func=cmd_build)
    u = sub.add_parser('up', help='start the local cloud: Kubernetes, '
                       'MariaDB, RabbitMQ, Keystone, k8s-keystone-auth, '
                       'Heat')
    u.add_argument('--kubernetes-only', action='store_true',
                   help='only Kubernetes: the control plane, the real node '
                   'and kwok')
    u.add_argument('--kwok-only', action='store_true',
                   help='no real node: pods run on kwok\'s fake nodes only')
    u.add_argument('--nodes', type=int, default=1, metavar='N',
                   help='real nodes (default 1): node-0 on the host, the '
                   'others each a machine of its own (`node`)')
    u.add_argument('--token-expiration', type=int, metavar='SECONDS',
                   help='lifetime of Keystone tokens (default 3600; kept '
                   'for later `up`s of the same state directory)')
    _heat_series_argument(u)
    u.set_defaults(func=cmd_up)
    d = sub.add_parser('down', help='stop what `up` started')
    d.add_argument('--purge', action='store_true',
                   help='also remove the state directory')
    d.set_defaults(func=cmd_down)
    i = sub.add_parser('images', help='build the images the templates run '
                       '(from Debian packages, Go modules and PyPI; cached '
                       'by content) and load them into podman')
    i.add_argument('names', nargs='*', help='only these images (default: '
                   'all but the opt-in ones, built only when named: %s)'
                   % ', '.join(i.name for i in recipes.OPTIONAL_IMAGES))
    i.set_defaults(func=cmd_images)
    sub.add_parser('agent-server', help="build the nova-docker server "
                   "image (kernel, initrd, qcow2 root disk; cached by "
                   "content) and print its directory").set_defaults(
        func=cmd_agent_server)
    h = sub.add_parser('docker-host', help="make this machine the docker "
                       "host of a stack's OS::Heat::DeployedServer: start "
                       "the heat-config agent with the host's agent_config")
    h.add_argument('stack', help='stack name or id (its `host` resource)')
    h.add_argument('--stop', action='store_true', help='stop the agent')
    h.set_defaults(func=cmd_docker_host)
    sub.add_parser('status', help='show what runs').set_defaults(
        func=cmd_status)
    sub.add_parser('env', help='print shell exports').set_defaults(
        func=cmd_env)
    m = sub.add_parser('demo', help='`up`, then create the example stack '
                       '(templates/example/app.yaml) as the demo user and '
                       'show its events and outputs')
    m.add_argument('--stack-name', default=demo.STACK_NAME,
                   help='default: %(default)s; an existing stack of this '
                   'name is deleted first')
    _heat_series_argument(m)
    m.set_defaults(func=cmd_demo, token_expiration=None, kwok_only=False,
                   nodes=1)
    n = sub.add_parser('node', help='a further real node: add one, cut its '
                       'power, boot it again, or remove it')
    n.add_argument('action', choices=('add', 'power-off', 'power-on',
                                      'remove'))
    n.add_argument('name', nargs='?', help='the node (not for `add`)')
    n.add_argument('--images', nargs='*', metavar='REF',
                   help='with `add`: import only these images (default: '
                   'all that node-0 runs)')
    n.add_argument('--taint', action='append', default=[],
                   metavar='KEY=VALUE:EFFECT',
                   help='with `add`: a taint the node has from its '
                   'registration on (repeatable)')
    n.set_defaults(func=cmd_node)
    r = sub.add_parser('restart', help='restart one component')
    r.add_argument('component', choices=controlplane.COMPONENTS +
                   node_mod.COMPONENTS + tuple(
        n for n in openstack_cloud.PROCESSES if n != 'epmd'))
    r.set_defaults(func=cmd_restart)
    return p


def _heat_series_argument(command):
    command.add_argument(
        '--heat-series', choices=venv.SERIES,
        default=os.environ.get('HEAT_K8S_HEAT_SERIES') or None,
        help='the OpenStack series whose Heat and Keystone the cloud runs, '
        'installed with its upper-constraints (default: $HEAT_K8S_HEAT_'
        'SERIES or %s, the newest)' % venv.NEWEST_SERIES)


def main(argv):
    args = parser().parse_args(argv)
    args.state_dir = os.path.abspath(args.state_dir)
    return args.func(args) or 0
