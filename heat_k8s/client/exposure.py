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
for every OpenStack service of its project until it expires. A server its
owner controls (a Magnum cluster's api_address) could reuse it: here are
the rules and the words for it; the client plugin applies them.
"""

MAGNUM_SWITCH = '[kubernetes] allow_magnum_clusters'
ROLES_OPTION = '[kubernetes] magnum_token_roles'

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
