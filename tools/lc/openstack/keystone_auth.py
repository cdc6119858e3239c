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

"""k8s-keystone-auth as kube-apiserver's token webhook.

The apiserver sends every bearer token it does not know itself to the
webhook (``authentication.k8s.io/v1beta1`` TokenReview), which validates it
with Keystone and answers with the Keystone user name, the project ID as a
group, and the project and roles as extra attributes. Its sync config
creates a namespace named by the project ID on a project's first request and
a RoleBinding ``<user-id>_<role>`` there for each of the token's roles, to a
ClusterRole of the same name. Authorization stays RBAC: the ClusterRoles
``member`` and ``reader`` are created here; ``admin`` is Kubernetes' own.

The syncer makes a bare namespace, for the cloud's projects as for those an
operator adds later; the cluster isolates it (tools.lc.kubernetes.netpol).
"""

import json
import os
import urllib.error

from tools.lc import daemons
from tools.lc import procs
from tools.lc.kubernetes import controlplane
from tools.lc.kubernetes import pki

NAME = 'k8s-keystone-auth'
# Projects whose tokens never get a namespace (the services' own project).
BLACKLISTED_PROJECTS = ('service',)
_RW = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete',
       'deletecollection']
_RO = ['get', 'list', 'watch']
# What a project `member` may manage in its project's namespace.
MEMBER_RULES = [
    {'apiGroups': [''], 'verbs': _RW,
     'resources': ['configmaps', 'secrets', 'pods', 'services',
                   'persistentvolumeclaims']},
    {'apiGroups': [''], 'verbs': _RO,
     'resources': ['pods/log', 'pods/status', 'services/status',
                   'persistentvolumeclaims/status', 'endpoints', 'events',
                   'serviceaccounts', 'resourcequotas', 'limitranges']},
    {'apiGroups': ['apps'], 'verbs': _RW,
     'resources': ['deployments', 'statefulsets', 'daemonsets',
                   'deployments/scale', 'statefulsets/scale']},
    {'apiGroups': ['apps'], 'verbs': _RO,
     'resources': ['replicasets', 'controllerrevisions',
                   'deployments/status', 'statefulsets/status',
                   'daemonsets/status']},
    {'apiGroups': ['batch'], 'verbs': _RW, 'resources': ['jobs', 'cronjobs']},
    {'apiGroups': ['batch'], 'verbs': _RO,
     'resources': ['jobs/status', 'cronjobs/status']},
    {'apiGroups': ['events.k8s.io'], 'verbs': _RO, 'resources': ['events']},
    {'apiGroups': ['discovery.k8s.io'], 'verbs': _RO,
     'resources': ['endpointslices']},
    # The service templates' policies; a member may also loosen the
    # namespace's default, which guards only its own project (the cluster's
    # baseline keeps other projects out of the rest).
    {'apiGroups': ['networking.k8s.io'], 'verbs': _RW,
     'resources': ['networkpolicies']},
    # A replicated service's disruption budget (Kubernetes' `edit` role
    # has it too).
    {'apiGroups': ['policy'], 'verbs': _RW,
     'resources': ['poddisruptionbudgets']},
    # A RoleBinding scopes this to the namespace object of its namespace.
    {'apiGroups': [''], 'verbs': ['get'], 'resources': ['namespaces']},
]


def _reader_rules():
    rules = []
    for rule in MEMBER_RULES:
        resources = [r for r in rule['resources'] if r != 'secrets']
        rules.append(dict(rule, resources=resources,
                          verbs=[v for v in rule['verbs'] if v in _RO]))
    return rules


CLUSTER_ROLES = {'member': MEMBER_RULES, 'reader': _reader_rules()}


class KeystoneAuth(daemons.Service):

    PORT = NAME
    DIR = NAME

    def __init__(self, cluster, keystone, log=print):
        super().__init__(cluster, log)
        self.keystone = keystone
        self.sync_config = os.path.join(self.dir, 'sync-config.yaml')
        self.webhook_config = os.path.join(self.dir, 'webhook.kubeconfig')

    def configure(self):
        """Files for the webhook and the apiserver's flags hook.

        Call before the apiserver starts: it reads the flags file.
        """
        pki.ensure_serving_cert(self.cluster.pki, NAME, ['IP:127.0.0.1'])
        sync = {'data-types-to-sync': ['projects', 'role_assignments'],
                'namespace-format': '%i',
                'projects-name-blacklist': list(BLACKLISTED_PROJECTS)}
        webhook = {
            'apiVersion': 'v1', 'kind': 'Config',
            'clusters': [{'name': NAME, 'cluster': {
                'server': 'https://127.0.0.1:%d/webhook' % self.port,
                'certificate-authority': self.cluster.ca_file}}],
            'users': [{'name': 'kube-apiserver', 'user': {}}],
            'contexts': [{'name': 'webhook', 'context': {
                'cluster': NAME, 'user': 'kube-apiserver'}}],
            'current-context': 'webhook',
        }
        flags = [
            '--authentication-token-webhook-config-file='
            + self.webhook_config,
            # k8s-keystone-auth answers only the v1beta1 TokenReview.
            '--authentication-token-webhook-version=v1beta1',
            '--authentication-token-webhook-cache-ttl=30s',
        ]
        daemons.write_files({  # JSON is YAML
            self.sync_config: json.dumps(sync, indent=2),
            self.webhook_config: json.dumps(webhook, indent=2),
            os.path.join(self.state_dir, controlplane.WEBHOOK_FLAGS_FILE):
                json.dumps(flags, indent=2)})

    def argv(self):
        return [self.cluster.binary(NAME),
                '--listen', '127.0.0.1:%d' % self.port,
                '--tls-cert-file', os.path.join(self.cluster.pki,
                                                NAME + '.crt'),
                '--tls-private-key-file', os.path.join(self.cluster.pki,
                                                       NAME + '.key'),
                '--keystone-url', self.keystone.auth_url,
                # It reads its policy/sync ConfigMaps and creates namespaces
                # and RoleBindings with the cluster admin's credential.
                '--kubeconfig', os.path.join(self.cluster.pki,
                                             'admin.kubeconfig'),
                '--sync-config-file', self.sync_config]

    def processes(self):
        """Needs Keystone up; it serves once the apiserver answers."""
        return (daemons.Process(
            NAME, self.argv(), ready=daemons.accepts(self.port),
            what='%s on port %d' % (NAME, self.port)),)

    def apply_cluster_roles(self):
        for name, rules in sorted(CLUSTER_ROLES.items()):
            role = {'apiVersion': 'rbac.authorization.k8s.io/v1',
                    'kind': 'ClusterRole',
                    'metadata': {'name': name, 'labels': {
                        'app.kubernetes.io/managed-by': 'localcloud'}},
                    'rules': rules}
            self.cluster.request(
                'PATCH', '/apis/rbac.authorization.k8s.io/v1/clusterroles/'
                '%s?fieldManager=localcloud&force=true' % name, role,
                'application/apply-patch+yaml')

    def can_read_namespace(self, token, namespace):
        """Whether `token` may read `namespace` (through the webhook)."""
        try:
            self.cluster.request('GET', '/api/v1/namespaces/' + namespace,
                                 token=token)
            return True
        except urllib.error.HTTPError as e:
            if e.code in (401, 403):
                return False
            raise

    def sync(self, user, project, project_id, timeout=30):
        """Authenticate once as `user`, so that the syncer creates the
        project's namespace and RoleBindings; waits until RBAC lets it read
        the namespace."""
        token = self.keystone.token(user, project)[0]
        procs.wait_for(lambda: self.can_read_namespace(token, project_id),
                       'Keystone user %s to read namespace %s'
                       % (user, project_id), timeout, NAME, self.state_dir)
