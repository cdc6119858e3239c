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

"""Who else could use the caller's token: the rules, pure.

Every Kubernetes request carries the caller's Keystone token, which works
for every OpenStack service of its project until it expires. Two things
let someone other than the user reuse it: a server its owner controls (a
Magnum cluster's api_address), and a server nobody verified (TLS
verification off). Here are the rules and the words for both; the client
plugin applies them.
"""

MAGNUM_SWITCH = '[kubernetes] allow_magnum_clusters'
ROLES_OPTION = '[kubernetes] magnum_token_roles'

# What turned TLS verification off for the Kubernetes client: the option
# as the operator wrote it, and what to set instead.
OWN, FALLBACK, KUBECONFIG = 'clients_kubernetes', 'clients', 'kubeconfig'
TLS_OFF = {
    OWN: ('[clients_kubernetes] insecure = true',
          'set [clients_kubernetes] insecure = false, with ca_file naming '
          "the cluster's CA bundle"),
    FALLBACK: ('[clients] insecure = true, which the Kubernetes client '
               'inherits while [clients_kubernetes] insecure is unset',
               'set [clients_kubernetes] insecure = false (it overrides '
               '[clients] for Kubernetes alone), with [clients_kubernetes] '
               "ca_file naming the cluster's CA bundle"),
    KUBECONFIG: ('insecure-skip-tls-verify in [kubernetes] kubeconfig',
                 "remove it and give the cluster's certificate-authority"),
}


def insecure_source(own, fallback):
    """What turns TLS verification off (a TLS_OFF key), or None.

    As every Heat client reads it: [clients_kubernetes] insecure when set
    (own), else [clients] insecure (fallback).
    """
    if own is not None:
        return OWN if own else None
    return FALLBACK if fallback else None


def tls_off_warning(source, endpoint=None):
    """The warning for TLS verification turned off by `source`, about one
    endpoint, or about every endpoint (at heat-engine's start)."""
    cause, remedy = TLS_OFF[source]
    where = ('Kubernetes API %s' % endpoint if endpoint else
             'the Kubernetes APIs heat-engine reaches')
    return ('TLS verification of %s is off (%s): each request, with the '
            'credential it carries, goes to whatever server answers at '
            'that address. To verify it, %s.' % (where, cause, remedy))


def roles_beyond(roles, allowed):
    """The roles outside `allowed`, sorted; without case, as Keystone
    names roles and oslo.policy compares them."""
    allowed = {role.lower() for role in allowed}
    return sorted({role.lower() for role in roles} - allowed)


def token_refusal(roles, allowed):
    """Why a token with these roles may not go to a server its owner
    controls, or None when it may."""
    if not roles:
        # A project-scoped token always has a role: none known is unknown.
        return 'its roles are unknown'
    beyond = roles_beyond(roles, allowed)
    if beyond:
        return 'it carries the role%s %s' % (
            's' if len(beyond) > 1 else '', ', '.join(beyond))
    return None


def refused_token(where, reason, allowed):
    """The error of a token kept from a Magnum cluster's address."""
    return ('The Keystone token acting on this stack is not sent to %s: '
            '%s. That address is chosen by whoever controls the cluster, '
            'who could use the token for every OpenStack service of the '
            'project, so only a token whose roles are all in %s (%s) goes '
            'there. Act on the stack as a member of its project without '
            'other roles.' % (where, reason, ROLES_OPTION,
                              ', '.join(allowed) or 'none'))


def magnum_off(cluster):
    """The error of a cluster name that only Magnum could resolve, while
    Magnum clusters are off."""
    return ('cluster %r is not one of [kubernetes] clusters, and Magnum '
            'clusters are off: the Keystone token acting on the stack '
            'would go to the API address a Magnum cluster reports, which '
            'whoever controls that cluster chooses. Name a cluster of '
            '[kubernetes] clusters, or none for the default one (%s lets '
            'templates name Magnum clusters).' % (cluster, MAGNUM_SWITCH))
