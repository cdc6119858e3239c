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


"""The local.conf devstack runs with: Keystone, MySQL, RabbitMQ, Heat and
heat-k8s, off the network but for PyPI and Debian's packages."""

import secrets

from tools.devstack import container

TEMPLATE = '''[[local|localrc]]
# A throwaway container that only `podman exec` reaches.
ADMIN_PASSWORD={password}
DATABASE_PASSWORD=$ADMIN_PASSWORD
RABBIT_PASSWORD=$ADMIN_PASSWORD
SERVICE_PASSWORD=$ADMIN_PASSWORD
HOST_IP={host_ip}
LOGFILE=$DEST/logs/stack.sh.log
# Off the network: every repository is already in $DEST (a clone would
# die), no cloud image, no etcd binary (no etcd3), no host tuning.
ERROR_ON_CLONE=True
DOWNLOAD_DEFAULT_IMAGES=False
ENABLE_KSM=False
ENABLE_KSMTUNED=False
disable_all_services
enable_service key mysql rabbit
enable_plugin heat https://opendev.org/openstack/heat
enable_plugin heat-k8s https://opendev.org/openstack/heat-k8s
HEAT_K8S_API_URL={api_url}
HEAT_K8S_CA_FILE={ca_file}
HEAT_K8S_ADMIN_KUBECONFIG={admin_kubeconfig}
'''


def text(cluster, password=None):
    """local.conf for the cluster `cluster` describes (tools.devstack
    .cluster's answer to `up`)."""
    return TEMPLATE.format(
        password=password or secrets.token_hex(12),
        host_ip=container.ADDRESS, **{k: cluster[k] for k in (
            'api_url', 'ca_file', 'admin_kubeconfig')})
