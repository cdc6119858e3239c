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


"""`tools/devstack/run`: devstack for real, with the heat-k8s plugin."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

from tools.devstack import cluster
from tools.devstack import container
from tools.devstack import localconf
from tools.devstack import snapshots
from tools.lc.builds import go
from tools.lc.kubernetes import netpol

DEVSTACK_DIR = container.DEST + '/devstack'
CHECKOUT = container.DEST + '/' + snapshots.PLUGIN
KEYSTONE_URL = 'http://%s/identity/v3' % container.ADDRESS
CRD = '/srv/baselineadminnetworkpolicies-crd.yaml'
# pip through the host's CA bundle (a proxy's), into our cache.
PIP_CONF = '[global]\ncert = %s\ncache-dir = %s\n' % (
    container.HOST_CA, container.PIP_CACHE)


def _log(msg):
    print('devstack: %s' % msg, file=sys.stderr, flush=True)


def info_file():
    return os.path.join(container.state_dir(), 'info.json')


def read_info():
    try:
        with open(info_file()) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _save_info(info):
    with open(info_file(), 'w') as f:
        json.dump(info, f, indent=2, sort_keys=True)


def log_path(name):
    return os.path.join(container.state_dir(), 'logs', name + '.log')


def _cluster_command(*args, **kwargs):
    """tools.devstack.cluster in the container, as root, from the
    heat-k8s clone."""
    return container.exec_(
        ['python3', '-m', 'tools.devstack.cluster', '--bin-dir',
         container.BIN_DIR, '--keystone-url', KEYSTONE_URL] + list(args),
        user='root', workdir=CHECKOUT,
        env={'PYTHONDONTWRITEBYTECODE': '1',
             'HEAT_K8S_CACHE': cluster.STATE_DIR + '/cache'}, **kwargs)


def up(isolation_api=True, log=_log):
    """The container, /opt/stack, the cluster and local.conf: all but
    stack.sh."""
    if container.exists():
        raise SystemExit('%s exists: `tools/devstack/run down` first'
                         % container.NAME)
    why = snapshots.missing()
    if why:
        raise SystemExit(why)
    state = container.state_dir()
    container.network_down()
    shutil.rmtree(state, ignore_errors=True)
    stack_dir = os.path.join(state, 'stack')
    os.makedirs(stack_dir)
    commits = snapshots.clone_all(stack_dir)
    log('cloned %s' % ', '.join('%s %s' % (k, v[:10])
                                for k, v in sorted(commits.items())))
    image = container.ensure_image(log)
    bins = go.build(log=log)
    container.network_up()
    container.start(image, stack_dir, bins, container.cache_dir())
    # devstack's user owns DEST (the host's uid of the same number).
    container.exec_(['chown', '-R', 'stack:stack', container.DEST],
                    user='root')
    container.shell('cat > /etc/pip.conf && chmod 1777 %s'
                    % container.PIP_CACHE, user='root', input=PIP_CONF)
    args = []
    if isolation_api:
        # The CRD the local cloud's node installs, from the Go module cache.
        container.copy_in(netpol._crd_file(), CRD)
        args = ['--crd', CRD]
    found = json.loads(_cluster_command('up', *args).stdout)
    container.shell('cat > %s/local.conf' % DEVSTACK_DIR,
                    input=localconf.text(found))
    _save_info({'commits': commits, 'cluster': found})
    log('ready: %s; the cluster at %s' % (container.NAME,
                                          found['api_url']))
    return found


def run_devstack(script, log=_log):
    """./<script> in devstack's clone, as stack; output in its log file;
    returns (exit status, seconds)."""
    os.makedirs(os.path.dirname(log_path(script)), exist_ok=True)
    log('%s (output in %s)' % (script, log_path(script)))
    started = time.monotonic()
    with open(log_path(script), 'w') as out:
        status = container.exec_(['./' + script], check=False, stream=out,
                                 workdir=DEVSTACK_DIR).returncode
    took = time.monotonic() - started
    info = read_info()
    info.setdefault('runs', []).append(
        {'script': script, 'status': status, 'seconds': round(took, 1)})
    _save_info(info)
    log('%s exited %d after %.0fs' % (script, status, took))
    return status, took


def stack(log=_log):
    """stack.sh, then k8s-keystone-auth against devstack's Keystone."""
    status, took = run_devstack('stack.sh', log)
    if status == 0:
        _cluster_command('keystone-auth')
    return status, took


def down(purge=False, log=_log):
    container.remove()
    container.network_down()
    if purge:
        shutil.rmtree(container.state_dir(), ignore_errors=True)
    log('down' + (', %s removed' % container.state_dir() if purge else ''))


def cmd_up(args):
    up(isolation_api=not args.without_isolation_api)
    if not args.no_stack:
        status, _took = stack()
        return status
    return 0


def cmd_script(args):
    if args.command == 'stack':
        return stack()[0]
    return run_devstack(args.command + '.sh')[0]


def cmd_exec(args):
    return subprocess.run(
        list(container.PODMAN) + ['exec', '-it', '--user', container.USER,
                                  '--workdir', DEVSTACK_DIR,
                                  container.NAME] + args.argv).returncode


def cmd_down(args):
    down(purge=args.purge)
    return 0


def cmd_status(args):
    print(json.dumps(dict(read_info(), container=container.exists()),
                     indent=2, sort_keys=True))
    return 0


def parser():
    p = argparse.ArgumentParser(
        prog='tools/devstack/run',
        description='devstack (Keystone, MySQL, RabbitMQ, Heat, heat-k8s) '
                    'in a podman container booting systemd, off the '
                    'network but for PyPI and Debian; snapshots of its git '
                    'repositories from $%s.' % snapshots.ENV)
    sub = p.add_subparsers(dest='command', required=True)
    u = sub.add_parser('up', help='the container, /opt/stack, the cluster '
                       'and local.conf, then stack.sh')
    u.add_argument('--no-stack', action='store_true',
                   help='stop before stack.sh')
    u.add_argument('--without-isolation-api', action='store_true',
                   help='a cluster without the BaselineAdminNetworkPolicy '
                        'CRD (the plugin then stops devstack)')
    u.set_defaults(func=cmd_up)
    for name in ('stack', 'unstack', 'clean'):
        s = sub.add_parser(name, help='./%s.sh as stack' % name)
        s.set_defaults(func=cmd_script)
    e = sub.add_parser('exec', help='a command in the container as stack')
    e.add_argument('argv', nargs='+')
    e.set_defaults(func=cmd_exec)
    d = sub.add_parser('down', help='remove the container and its network')
    d.add_argument('--purge', action='store_true',
                   help='and /opt/stack (%s)' % container.state_dir())
    d.set_defaults(func=cmd_down)
    st = sub.add_parser('status', help='commits, cluster, runs and times')
    st.set_defaults(func=cmd_status)
    return p


def main(argv):
    args = parser().parse_args(argv)
    return args.func(args)
