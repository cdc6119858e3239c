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


"""The Kubernetes heat-k8s is pointed at, run inside the devstack container.

The local cloud's control plane (tools.lc: etcd, kube-apiserver hardened as
the install guide asks, controller-manager, scheduler, kwok's fake nodes,
with the binaries the local cloud built) and k8s-keystone-auth as the API
server's token webhook, as an operator's cluster would be. `up` runs before
stack.sh: nothing of it needs Keystone (the webhook is configured, not yet
running), and the plugin's checks find the API server answering. It also
installs the BaselineAdminNetworkPolicy API (the CRD a network plugin
brings) unless told not to. `keystone-auth` runs once devstack's Keystone
is up. Both run as root: ``python3 -m tools.devstack.cluster ... up``. The
container's removal stops them.
"""

import argparse
import glob
import json
import os
import shutil
import sys

from tools.lc import procs
from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import netpol
from tools.lc.openstack import keystone_auth

STATE_DIR = '/srv/kubernetes'
# What devstack's user reads: the CA and the cluster administrator's
# kubeconfig (HEAT_K8S_CA_FILE, HEAT_K8S_ADMIN_KUBECONFIG).
CA_FILE = '/etc/kubernetes/ca.crt'
ADMIN_KUBECONFIG = '/etc/kubernetes/admin.kubeconfig'
KUBECTL = '/usr/local/bin/kubectl'


class Keystone(object):
    """devstack's Keystone, as KeystoneAuth needs it: its URL."""

    def __init__(self, url):
        self.auth_url = url


def _cluster(bin_dir):
    bins = sorted(glob.glob(os.path.join(bin_dir, '*')))
    return controlplane.Cluster(STATE_DIR, bins)


def _user_files(cluster, user):
    """The CA, the admin's kubeconfig (`user`'s alone) and kubectl, which
    the plugin runs as `user`."""
    os.makedirs(os.path.dirname(CA_FILE), exist_ok=True)
    shutil.copyfile(cluster.ca_file, CA_FILE)
    os.chmod(CA_FILE, 0o644)
    cluster.write_kubeconfig(ADMIN_KUBECONFIG, 'admin')
    with open(ADMIN_KUBECONFIG) as f:
        config = json.load(f)
    # The copy `user` reads, not the cluster's (in its private pki/).
    config['clusters'][0]['cluster']['certificate-authority'] = CA_FILE
    with open(ADMIN_KUBECONFIG, 'w') as f:
        json.dump(config, f, indent=2)
    shutil.chown(ADMIN_KUBECONFIG, user, user)
    # A copy: the builds' directories are root's alone (mkdtemp's mode).
    shutil.copyfile(cluster.binary('kubectl'), KUBECTL)
    os.chmod(KUBECTL, 0o755)  # noqa: S103 - a program for every user


def _apply_crd(cluster, path):
    crd = netpol.CRD + netpol.BASELINE_CRD
    with open(path, 'rb') as f:
        cluster.request('PATCH', crd + netpol.APPLY, f.read(),
                        'application/apply-patch+yaml')
    procs.wait_for(lambda: netpol.crd_established(
        cluster.request('GET', crd)), netpol.BASELINE_CRD, 60)


def up(args):
    cluster = _cluster(args.bin_dir)
    cluster.prepare()
    # The webhook's files and the API server's flags, before it starts.
    keystone_auth.KeystoneAuth(cluster, Keystone(args.keystone_url),
                               log=_log).configure()
    cluster.up()
    if args.crd:
        _apply_crd(cluster, args.crd)
    _user_files(cluster, args.user)
    json.dump({'api_url': cluster.api_url, 'ca_file': CA_FILE,
               'admin_kubeconfig': ADMIN_KUBECONFIG,
               'isolation_api': bool(args.crd)}, sys.stdout)


def start_keystone_auth(args):
    cluster = _cluster(args.bin_dir)
    auth = keystone_auth.KeystoneAuth(cluster, Keystone(args.keystone_url),
                                      log=_log)
    auth.start()
    auth.wait()
    auth.apply_cluster_roles()


def _log(msg):
    print('cluster: %s' % msg, file=sys.stderr, flush=True)


def main(argv):
    p = argparse.ArgumentParser(prog='python3 -m tools.devstack.cluster')
    p.add_argument('--bin-dir', required=True,
                   help='the local cloud\'s binaries, one directory each')
    p.add_argument('--keystone-url', default='',
                   help="devstack's Keystone, e.g. http://HOST/identity/v3")
    sub = p.add_subparsers(dest='command', required=True)
    u = sub.add_parser('up')
    u.add_argument('--crd', help='the BaselineAdminNetworkPolicy CRD file '
                   '(none: a cluster without the policy\'s API)')
    u.add_argument('--user', default='stack',
                   help='who may read the admin kubeconfig')
    sub.add_parser('keystone-auth')
    args = p.parse_args(argv)
    {'up': up, 'keystone-auth': start_keystone_auth}[args.command](args)


if __name__ == '__main__':
    main(sys.argv[1:])
