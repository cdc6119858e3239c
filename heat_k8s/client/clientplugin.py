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

"""Heat client plugin 'kubernetes': a Keystone-brokered Kubernetes client.

The endpoint comes from [kubernetes] api_url, an operator-named or Magnum
cluster, or the Keystone catalog; the bearer token is the caller's own
Keystone token, fetched before every request so that trust-scoped tokens
Heat uses for long operations are renewed when they expire. The token is
the only credential presented (no client certificate) and goes to https
endpoints only, unless [kubernetes] allow_insecure_http_for_testing. A
Magnum cluster, whose owner chooses its address, is off unless [kubernetes]
allow_magnum_clusters, and gets only tokens of the roles it allows
(heat_k8s.client.exposure); TLS verification turned off is logged. What the
catalog answered, and a trust's token, are remembered across contexts
(heat_k8s.client.memory), so each resource does not ask Keystone again.
"""

import threading
import urllib.parse
import weakref

from heat.common import exception
from heat.engine.clients import client_plugin
from kubernetes import client as k8s_client
from kubernetes import config as k8s_config
from kubernetes.client import exceptions as k8s_exceptions
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s import config  # noqa: F401  (registers the option groups)
from heat_k8s.client import exposure
from heat_k8s.client import kube
from heat_k8s.client import memory
from heat_k8s.client import transport

CLIENT_NAME = 'kubernetes'
CONF = cfg.CONF
LOG = logging.getLogger(__name__)


# A trust's token is shared until this long before it expires, so that a
# request started with it (a watch is the longest) ends before it does.
TOKEN_MARGIN = 120

# Across request contexts: what the catalog or Magnum said where a cluster
# is, and each trust's current token with its roles.
_endpoints = memory.Expiring()
_trust_tokens = memory.Expiring()

# One ApiClient, and so one connection pool, per endpoint and TLS settings,
# shared by every context: tokens go on each request (kube.Kube.token).
_api_clients = {}
_api_clients_lock = threading.Lock()
# Connections kept per pool: as many checks as an engine worker runs at
# once (oslo.messaging's executor_thread_pool_size default).
POOL_SIZE = 64

# Warnings already logged: a setting is reported once per process, not
# once per resource.
_warned = set()


class BearerToken:
    """The caller's current Keystone token, for each request of a context.

    A user's context carries the token of the user's request: Heat's token
    plugins hand it out without asking Keystone. A trust-scoped context
    (Heat acting for the user later) authenticates as the trustee; its
    token is shared with every context of the same trust, user and project
    until shortly before it expires.
    """

    def __init__(self, context):
        self._context = weakref.ref(context)

    def __call__(self):
        return self.current()[0]

    def current(self):
        """(the token, the names of its roles)."""
        ctx = self._live_context()
        if not ctx.trust_id:
            # The roles Keystone gave the request's token (X-Roles), or a
            # stored context's, loaded with its token.
            return ctx.keystone_session.get_token(), tuple(ctx.roles or ())
        # Safe to share: Keystone would give any context of this trust,
        # user and project a token of the same scope and roles.
        key = _trust_key(ctx)
        found = _trust_tokens.get(key)
        if found is None:
            access = ctx.auth_plugin.get_access(ctx.keystone_session)
            found = access.auth_token, tuple(access.role_names)
            _trust_tokens.put(key, found, memory.seconds_left(
                access.expires, _token_margin()))
        return found

    def refused(self):
        """The API refused the token (401): ask Keystone anew next time."""
        ctx = self._context()
        if ctx is not None and ctx.trust_id:
            _trust_tokens.forget(_trust_key(ctx))
            ctx.auth_plugin.invalidate()

    def _live_context(self):
        ctx = self._context()
        if ctx is None:
            raise exception.Error('Request context of the Kubernetes '
                                  'client no longer exists')
        return ctx


class MemberToken(BearerToken):
    """The caller's token for a server its owner controls (a Magnum
    cluster's api_address): only one whose roles are all in [kubernetes]
    magnum_token_roles, checked before each request, so that no admin's
    or operator's token goes there."""

    def __init__(self, context, where):
        super().__init__(context)
        self.where = where

    def __call__(self):
        token, roles = self.current()
        allowed = CONF.kubernetes.magnum_token_roles
        reason = exposure.token_refusal(roles, allowed)
        if reason is not None:
            raise exception.Error(exposure.refused_token(self.where, reason,
                                                         allowed))
        return token


def _trust_key(ctx):
    return (ctx.auth_url, ctx.trust_id, ctx.trustor_user_id, ctx.user_id,
            ctx.project_id)


def _token_margin():
    return max(TOKEN_MARGIN, CONF.kubernetes.watch_seconds +
               CONF.kubernetes.request_timeout)


def _warn_once(message, *args):
    if (message, args) not in _warned:
        _warned.add((message, args))
        LOG.warning(message, *args)


def _check_https(url, source):
    """Refuse an endpoint a Keystone token would reach in clear."""
    scheme = urllib.parse.urlsplit(url).scheme.lower()
    if scheme == 'https':
        return
    if scheme == 'http' and CONF.kubernetes.allow_insecure_http_for_testing:
        _warn_once('Kubernetes API %s from %s is http: Keystone tokens '
                   'cross the network in clear ([kubernetes] '
                   'allow_insecure_http_for_testing is set)', url, source)
        return
    raise exception.Error(
        "Kubernetes API %s from %s is not https: the caller's Keystone "
        'token would cross the network in clear. Use an https endpoint '
        '([kubernetes] allow_insecure_http_for_testing accepts http, for '
        'testing only).' % (url, source))


def _check_tls_verified(configuration, source):
    """Say once per endpoint that TLS verification is off, and why."""
    if not configuration.verify_ssl:
        _warn_once('%s', exposure.tls_off_warning(source,
                                                  configuration.host))


def _insecure_source():
    """What turns TLS verification off, read as Heat's _get_client_option
    reads `insecure`; None while it is on."""
    return exposure.insecure_source(CONF[config.CLIENTS_GROUP].insecure,
                                    CONF.clients.insecure)


def warn_at_start():
    """At heat-engine's start, the warning its configuration deserves:
    TLS verification of the Kubernetes client turned off. Never raises,
    as heat-engine must start."""
    try:
        source = (None if CONF.kubernetes.kubeconfig else
                  _insecure_source())
    except cfg.Error as exc:
        LOG.warning('heat-k8s could not read its TLS settings: %s', exc)
        return
    if source is not None:
        LOG.warning('%s', exposure.tls_off_warning(source))


def _is_magnum(cluster):
    """Whether a cluster name is Magnum's to resolve (not the operator's)."""
    return bool(cluster) and cluster not in CONF.kubernetes.clusters


def cluster_refusal(cluster):
    """Why a template may not name this cluster, or None: a Magnum
    cluster while [kubernetes] allow_magnum_clusters is off."""
    if (CONF.kubernetes.kubeconfig or not _is_magnum(cluster)
            or CONF.kubernetes.allow_magnum_clusters):
        return None
    return exposure.magnum_off(cluster)


def _check_no_client_certificate():
    """Refuse Heat's own certificate beside a user's token.

    The API server authenticates a client certificate before a bearer
    token, so the request would act as the certificate's identity instead
    of the user's. [clients] is every Heat client's fallback, set for other
    services' mutual TLS: it is ignored, and said so once.
    """
    for option in ('cert_file', 'key_file'):
        if getattr(CONF[config.CLIENTS_GROUP], option):
            raise exception.Error(
                '[%s] %s is set, but heat-k8s authenticates every '
                "Kubernetes request with the caller's Keystone token "
                'alone: the API server would authenticate a client '
                'certificate instead of the user. Remove the option.' % (
                    config.CLIENTS_GROUP, option))
        if CONF.clients[option]:
            _warn_once('[clients] %s is not presented to the Kubernetes '
                       "API: requests authenticate with the caller's "
                       'Keystone token alone', option)


def _shared_api(configuration):
    """The process's ApiClient for this endpoint and TLS settings."""
    key = (configuration.host, configuration.verify_ssl,
           configuration.ssl_ca_cert, configuration.ca_cert_data)
    with _api_clients_lock:
        api = _api_clients.get(key)
        if api is None:
            configuration.connection_pool_maxsize = POOL_SIZE
            api = _api_clients[key] = k8s_client.ApiClient(configuration)
        return api


class KubernetesClientPlugin(client_plugin.ClientPlugin):

    exceptions_module = k8s_exceptions

    def __init__(self, context):
        super().__init__(context)
        self._kubes = {}

    @property
    def service_types(self):
        return [CONF.kubernetes.catalog_service_type]

    @staticmethod
    def uses_catalog():
        """False when the operator configured where the API is."""
        return not (CONF.kubernetes.api_url or CONF.kubernetes.kubeconfig)

    def _create(self, version=None):
        return self.kube()

    def kube(self, cluster=None):
        """The kube.Kube for a cluster (None: the default one), cached.

        An empty name is the default cluster too: Heat passes an unset
        string property as '', and templates pass a parameter's '' on.
        """
        cluster = cluster or None
        if cluster not in self._kubes:
            if CONF.kubernetes.kubeconfig:
                api = k8s_client.ApiClient(self._kubeconfig(cluster))
                token = None
            else:
                api, token = self._keystone_brokered(cluster)
            self._kubes[cluster] = kube.Kube(
                api, field_manager=CONF.kubernetes.field_manager,
                timeout=CONF.kubernetes.request_timeout, token=token)
        return self._kubes[cluster]

    def _kubeconfig(self, cluster):
        conf = k8s_client.Configuration()
        k8s_config.load_kube_config(
            config_file=CONF.kubernetes.kubeconfig, context=cluster,
            client_configuration=conf, persist_config=False)
        _check_tls_verified(conf, exposure.KUBECONFIG)
        return conf

    def _keystone_brokered(self, cluster):
        """(the shared ApiClient, the token source) for a cluster."""
        _check_no_client_certificate()
        host, ca_file, ca_data, source = self._endpoint(cluster)
        _check_https(host, source)
        # debug stays False (the default): debug output shows headers. Not
        # set explicitly, as the setter changes process-wide logger levels.
        conf = k8s_client.Configuration()
        conf.host = host.rstrip('/')
        insecure = _insecure_source()
        conf.verify_ssl = insecure is None
        conf.ssl_ca_cert = ca_file
        transport.set_ca_data(conf, ca_data)
        _check_tls_verified(conf, insecure)
        if _is_magnum(cluster):
            token = MemberToken(self.context, 'Kubernetes API %s (%s)' % (
                conf.host, source))
        else:
            token = BearerToken(self.context)
        return _shared_api(conf), token

    def _endpoint(self, cluster):
        """(API URL, CA file, CA PEM data, where the URL came from) for a
        cluster name or None."""
        ca_file = self._get_client_option(CLIENT_NAME, 'ca_file')
        if cluster is None:
            if CONF.kubernetes.api_url:
                return (CONF.kubernetes.api_url, ca_file, None,
                        '[kubernetes] api_url')
            return (self._remembered(None, self._catalog_url), ca_file,
                    None, 'the Keystone catalog (service type %s)' %
                    CONF.kubernetes.catalog_service_type)
        if cluster in CONF.kubernetes.clusters:
            return (CONF.kubernetes.clusters[cluster],
                    CONF.kubernetes.cluster_ca_files.get(cluster, ca_file),
                    None, '[kubernetes] clusters (cluster %s)' % cluster)
        refusal = cluster_refusal(cluster)
        if refusal is not None:
            raise exception.Error(refusal)
        return self._remembered(cluster, self._magnum_endpoint) + (
            'the api_address of Magnum cluster %s' % cluster,)

    def _remembered(self, cluster, look_up):
        """What look_up(cluster) answers, remembered across contexts for
        [kubernetes] endpoint_cache_seconds under everything it depends
        on: Keystone, project, region, interface, service type, cluster."""
        key = (self.context.auth_url, self.context.project_id,
               CONF.kubernetes.region_name or self._get_region_name(),
               self._get_client_option(CLIENT_NAME, 'endpoint_type'),
               CONF.kubernetes.catalog_service_type, cluster)
        found = _endpoints.get(key)
        if found is None:
            found = look_up(cluster) if cluster else look_up()
            _endpoints.put(key, found, CONF.kubernetes.endpoint_cache_seconds)
        return found

    def _catalog_url(self):
        kwargs = {'service_type': CONF.kubernetes.catalog_service_type,
                  'endpoint_type': self._get_client_option(CLIENT_NAME,
                                                           'endpoint_type')}
        if CONF.kubernetes.region_name:
            kwargs['region_name'] = CONF.kubernetes.region_name
        return self.url_for(**kwargs)

    def _magnum_endpoint(self, cluster):
        magnum = self.clients.client_plugin('magnum')
        if magnum is None:
            raise exception.EntityNotFound(entity='Kubernetes cluster',
                                           name=cluster)
        try:
            found = magnum.client().clusters.get(cluster)
        except Exception as exc:
            if magnum.is_not_found(exc):
                raise exception.EntityNotFound(entity='Kubernetes cluster',
                                               name=cluster) from None
            raise
        if not getattr(found, 'api_address', None):
            raise exception.Error(
                'Magnum cluster %s has no API address yet (status %s)' % (
                    cluster, getattr(found, 'status', 'unknown')))
        ca = magnum.client().certificates.get(found.uuid)
        return found.api_address, None, getattr(ca, 'pem', None)

    def is_not_found(self, ex):
        return getattr(ex, 'status', None) == 404 and isinstance(
            ex, k8s_exceptions.ApiException)

    def is_conflict(self, ex):
        return getattr(ex, 'status', None) == 409 and isinstance(
            ex, k8s_exceptions.ApiException)

    def is_over_limit(self, ex):
        return getattr(ex, 'status', None) == 429 and isinstance(
            ex, k8s_exceptions.ApiException)
