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

"""Operator settings: [kubernetes], [clients_kubernetes] and [heat_k8s].

``[clients_kubernetes]`` is the per-client group every Heat client plugin
has (``endpoint_type``, ``ca_file``, ``cert_file``, ``key_file``,
``insecure``), falling back to ``[clients]``. Heat registers these groups
only for its in-tree clients, so it is registered here. ``[kubernetes]``
holds what is specific to Kubernetes; the options a wait follows are
declared from heat_k8s.waiting.policy, where their rules, defaults and
help are. ``[heat_k8s]`` holds the keys of secret references
(heat_k8s.secrecy.keyring).

It may import ``heat_k8s.enginefixes`` (whose options it lists) and
``heat_k8s.waiting.policy``, which imports no Heat.
"""

import copy

from heat.common import config as heat_config
from oslo_config import cfg

from heat_k8s.enginefixes import options as enginefix_options
from heat_k8s.waiting import policy

GROUP = 'kubernetes'
CLIENTS_GROUP = 'clients_kubernetes'
KEYS_GROUP = 'heat_k8s'

NAMESPACE_FORMAT_KEYS = ('project_id', 'project_name', 'project_domain_id',
                         'user_id', 'user_name', 'stack_id', 'stack_name')

kubernetes_opts = [
    cfg.URIOpt(
        'api_url',
        schemes=['http', 'https'],
        help='URL of the Kubernetes API server, e.g. '
             'https://k8s.example.com:6443. When set it overrides the '
             'Keystone catalog for resources that name no cluster. TLS '
             'settings come from [clients_kubernetes] (ca_file, insecure). '
             'An http:// URL is refused unless '
             'allow_insecure_http_for_testing is set.'),
    cfg.StrOpt(
        'catalog_service_type',
        default='kubernetes',
        help='Service type of the Kubernetes API in the Keystone catalog. '
             'The endpoint interface is [clients_kubernetes] endpoint_type '
             '(default: [clients] endpoint_type).'),
    cfg.StrOpt(
        'region_name',
        help='Region of the Kubernetes endpoint in the Keystone catalog. '
             'Default: the region Heat uses for other services '
             '([DEFAULT] region_name_for_services or the request region).'),
    cfg.StrOpt(
        'default_namespace',
        default='%(project_id)s',
        help='Namespace of resources that set no namespace property: a '
             'Python %%-format over the request and the stack. Keys: '
             + ', '.join(NAMESPACE_FORMAT_KEYS) + '. The default, one '
             'namespace per Keystone project named by the project ID, '
             'matches the namespace k8s-keystone-auth creates per project. '
             'The result must be a valid DNS-1123 label.'),
    cfg.DictOpt(
        'clusters',
        default={},
        help='Operator-named clusters a template may select with the '
             '"cluster" property: name:api_url pairs, e.g. '
             '"edge:https://10.0.0.5:6443". A cluster name not listed '
             'here is a Magnum cluster name or ID, refused unless '
             'allow_magnum_clusters is set.'),
    cfg.BoolOpt(
        'allow_magnum_clusters',
        default=False,
        help='Let the "cluster" property name a Magnum cluster (a name '
             'not in clusters). heat-engine then sends the Keystone token '
             'of the user or trust acting on the stack to the Magnum API '
             'and, with every Kubernetes request, to the api_address the '
             'cluster reports, a server whoever controls the cluster '
             'decides. That token works for every OpenStack service of '
             'the project until it expires, so only a token whose roles '
             'are all in magnum_token_roles is sent there. Off, a '
             'template naming a cluster not in clusters is refused at '
             'validation.'),
    cfg.ListOpt(
        'magnum_token_roles',
        default=['member', 'reader'],
        help='With allow_magnum_clusters: the Keystone roles a token may '
             'carry to a Magnum cluster\'s api_address. A token with any '
             'other role (an admin\'s or operator\'s acting on the stack) '
             'is refused before it is sent, and the resource fails saying '
             'so. Keystone puts implied roles in tokens, so a member\'s '
             'token carries reader too; roles compare without case.'),
    cfg.DictOpt(
        'cluster_ca_files',
        default={},
        help='CA bundle per operator-named cluster: name:path pairs. '
             'Clusters without one use [clients_kubernetes] ca_file.'),
    cfg.StrOpt(
        'field_manager',
        default='heat',
        help='Field manager name used for server-side apply. Fields set '
             'by other managers (e.g. an autoscaler owning replicas) are '
             'left alone unless a template sets them.'),
    cfg.IntOpt(
        'request_timeout',
        default=30,
        min=1,
        help='Timeout in seconds of one request to the Kubernetes API.'),
    cfg.IntOpt(
        'endpoint_cache_seconds',
        default=300,
        min=0,
        help='How long heat-engine remembers a Kubernetes API endpoint it '
             'found in the Keystone catalog or from Magnum, per Keystone, '
             'project, region, interface and cluster, so that each resource '
             'does not look it up again. A moved endpoint is used after at '
             'most this many seconds. 0 looks it up for every resource.'),
    # What a wait follows, declared with its rules in one table.
    *(cfg.IntOpt(name, default=default, min=bounds.minimum,
                 max=bounds.maximum, help=bounds.help)
      for name, default, bounds in policy.options()),
    cfg.StrOpt(
        'schema_version',
        help='Kubernetes minor version (e.g. "1.36") whose OpenAPI schema '
             'validates specs offline at template validate time. Default: '
             'the newest schema bundled with kubernetes-validate.'),
    cfg.BoolOpt(
        'allow_insecure_http_for_testing',
        default=False,
        help='FOR TESTING ONLY: accept http:// Kubernetes API endpoints '
             '(from api_url, clusters, the Keystone catalog or a Magnum '
             "cluster's API address). Every request carries the caller's "
             'Keystone token, which would cross the network in clear, so '
             'by default heat-engine refuses such an endpoint when it '
             'creates the client and names it in the error.'),
    cfg.StrOpt(
        'kubeconfig',
        help='FOR TESTING AND DEVELOPMENT ONLY: a kubeconfig file whose '
             'credentials are used for every request instead of the '
             "caller's Keystone token. Never set this in production: every "
             'stack would act with those credentials.'),
]


# Requests carry the caller's token only (heat_k8s.client.clientplugin).
_NO_CLIENT_CERTIFICATE = (
    'Must stay unset: heat-engine refuses to create the Kubernetes client '
    "when it is set, since the API server would authenticate Heat's "
    "certificate instead of the caller's Keystone token. The [clients] "
    'value is not used for Kubernetes.')


_INSECURE = (
    "If set, the Kubernetes API server's certificate is not verified, and "
    "every request's Keystone token goes to whatever server answers at "
    'the endpoint\'s address: for tests only. Unset, [clients] insecure '
    'applies (Heat\'s other clients\' setting). While verification is '
    'off, heat-engine logs a warning at start and for each endpoint, '
    'naming the option that turned it off.')


def _clients_kubernetes_opts():
    # Copies, so that defaults set on one group do not leak into Heat's.
    opts = [copy.deepcopy(opt) for opt in heat_config.clients_opts]
    for opt in opts:
        if opt.dest in ('cert_file', 'key_file'):
            opt.help = _NO_CLIENT_CERTIFICATE
        elif opt.dest == 'insecure':
            opt.help = _INSECURE
    return opts


clients_kubernetes_opts = _clients_kubernetes_opts()

keys_opts = [
    cfg.ListOpt(
        'sealing_keys', default=[], secret=True,
        help='Keys of secret references (OS::HeatK8s::RandomSecret), '
             'newest first: each 32 random bytes in URL-safe base64, as '
             '`heat-k8s-keys generate` prints them. The newest seals; '
             'every listed key opens what it sealed. To rotate: add a new '
             'key at the end on every heat-engine, then move it to the '
             'front, run `heat-k8s-keys reseal`, and only then remove the '
             "old key. Unset, nothing can be sealed; Heat's sample key, a "
             'key under 256 bits or one that is not random disables '
             'sealing. A key that could be guessed (text, a passphrase, a '
             'pattern) never seals; listed after a good key it still opens '
             'what it sealed, until resealed. heat-engine logs at start, '
             'in one line, which key is wrong.'),
    cfg.StrOpt(
        'digest_key', secret=True,
        help='Key of the fingerprints and content checksums that stand in '
             'for secret values (32 random bytes, URL-safe base64, as '
             '`heat-k8s-keys generate` prints it), apart from sealing_keys '
             'so that rotating those changes no digest. Derived per '
             'project, so a digest made in one project says nothing about '
             'another. Unset, derived from auth_encryption_key, which must '
             "then be random (not Heat's sample key, 128 bits or more, not "
             'text); otherwise every resource with secret values is refused '
             'and heat-engine logs at start that this option is to be set. '
             '`heat-k8s-keys digest-key` prints the value that keeps the '
             'digests auth_encryption_key gives. Changing it changes every '
             'digest once: the next update of each stack rewrites its '
             'Secrets and rolls the pods that use them.'),
    cfg.BoolOpt(
        'open_legacy_references', default=True,
        help='Open references made before key ids, with a key derived from '
             'auth_encryption_key. Turn off once `heat-k8s-keys reseal` '
             'has resealed every project (it changes no digest), and on a '
             'new cloud, which has no such references.'),
]

cfg.CONF.register_opts(kubernetes_opts, group=GROUP)
cfg.CONF.register_opts(clients_kubernetes_opts, group=CLIENTS_GROUP)
cfg.CONF.register_opts(keys_opts, group=KEYS_GROUP)


def list_opts():
    yield GROUP, kubernetes_opts
    yield CLIENTS_GROUP, clients_kubernetes_opts
    yield KEYS_GROUP, keys_opts
    yield from enginefix_options.list_opts()
