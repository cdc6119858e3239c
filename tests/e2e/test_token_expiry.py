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

"""A create that waits longer than the user's Keystone token lives.

This module runs its own cloud, whose Keystone issues tokens for
TOKEN_LIFETIME seconds (`tools/localcloud up --token-expiration`), kwok
only: the real node is the session cloud's.
Set HEAT_K8S_E2E_SHORT_TOKEN_STATE_DIR to the state directory of
such a cloud already running to use that one instead.

The plugin fetches the context's token before every Kubernetes request. By
default Heat's engine holds the user's own token from the create request,
so the first poll after it expires is refused (HTTP 401). Two settings
make the create outlive the token:

* heat.conf `[DEFAULT] reauthentication_auth_method = trusts`: the engine
  works with the stack's trust and keystoneauth renews the trust-scoped
  token as it expires;
* Keystone's policy must let a trust-scoped token be validated with
  itself, which is how k8s-keystone-auth validates every token. Keystone's
  default `identity:validate_token` rule refuses it: `rule:token_subject`
  compares the caller (the trustor, impersonated) with the token's user_id
  (the trustee, Heat's service user).

The local cloud makes both settings (tools/lc/openstack/heat.py and
keystone.py); the fixture checks they are there. doc/source/install.rst
tells operators.
"""

import datetime
import json
import os
import time

import pytest

from tests.e2e import conftest
from tests.e2e import stacks

# Seconds. Keystone has no lower bound; every client here renews tokens
# that expire within 120 s anyway (keystoneauth's margin), so a short
# lifetime costs a token request per call and nothing else.
TOKEN_LIFETIME = 30
# kube-apiserver caches a token webhook's answer this long
# (--authentication-token-webhook-cache-ttl,
# tools/lc/openstack/keystone_auth.py):
# an expired token is still accepted until its cached answer runs out.
WEBHOOK_CACHE_TTL = 30
MARGIN = 5

def assert_reauthentication_configured(state_dir):
    """The local cloud's defaults: what lets a create outlive a token."""
    with open(os.path.join(state_dir, 'heat', 'heat.conf')) as f:
        assert 'reauthentication_auth_method = trusts' in f.read()
    with open(os.path.join(state_dir, 'keystone', 'policy.yaml')) as f:
        rule = json.load(f)['identity:validate_token']
    assert 'user_domain_id:%(target.token.user.domain.id)s' in rule


@pytest.fixture(scope='module')
def short_token_cloud():
    given = os.environ.get('HEAT_K8S_E2E_SHORT_TOKEN_STATE_DIR')
    if given:
        assert_reauthentication_configured(given)
        yield conftest.LocalCloud(given)
        return
    with conftest.own_kwok_cloud('tokens', '--token-expiration',
                                 str(TOKEN_LIFETIME)) as own:
        assert_reauthentication_configured(own.state_dir)
        yield own


def _expires_in(token):
    expires = datetime.datetime.fromisoformat(
        token['expires'].replace('Z', '+00:00'))
    return (expires - datetime.datetime.now(datetime.timezone.utc)
            ).total_seconds()


@pytest.mark.own_cloud
def test_create_outlives_the_users_token(short_token_cloud):
    localcloud = short_token_cloud
    heat = stacks.Heat(localcloud)
    app = stacks.unique('e2e-token')

    # The user's token, as `openstack stack create` gets one, lives
    # TOKEN_LIFETIME seconds.
    token = localcloud.token('demo')
    assert 0 < _expires_in(token) <= TOKEN_LIFETIME
    created = time.monotonic()
    stack_id = stacks.create(localcloud, stacks.unique('token'),
                             'slow.yaml', {'app': app})
    heat.wait_resource(stack_id, 'slow', lambda r: (
        r.resource_status == 'CREATE_IN_PROGRESS'
        and r.physical_resource_id), 'the Deployment created')

    # The Deployment is held unready until every token issued before the
    # create has expired and kube-apiserver has forgotten it; the
    # resource polls it all along.
    hold_until = time.monotonic() + (
        max(_expires_in(token), 0) + WEBHOOK_CACHE_TTL + MARGIN)
    while time.monotonic() < hold_until:
        stack = heat.stack(stack_id)
        assert stack.stack_status == 'CREATE_IN_PROGRESS', (
            '%s after %.0fs: the engine lost access to Kubernetes when a '
            'token expired (see the module docstring): %s' % (
                stack.stack_status, time.monotonic() - created,
                stack.stack_status_reason))
        time.sleep(min(5, max(hold_until - time.monotonic(), 0)))
    stale = localcloud.kubectl(token['id'], 'get', 'deployments', '-n',
                               localcloud.projects['demo'])
    assert stale.returncode != 0
    assert 'Unauthorized' in stale.stderr or (
        'provide credentials' in stale.stderr), stale.stderr

    stacks.release(localcloud, app)
    stack = heat.wait(stack_id, timeout=120)
    assert stack.stack_status == 'CREATE_COMPLETE', stack.stack_status_reason
    stacks.assert_matches_heat(heat, localcloud, stack_id)
    stacks.delete(localcloud, heat, stack_id)
    assert stacks.stack_objects(localcloud, stack_id) == []
