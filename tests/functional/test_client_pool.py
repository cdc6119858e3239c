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

"""One connection pool per endpoint, shared by callers with their own tokens.

The API server says who sent each request (a SelfSubjectReview answers
with the requester's user name): requests of two users, interleaved on one
shared client and connection, each arrive as their own user.
"""

from tests.unit import heat_harness  # noqa: F401  (first: sets up Heat)

# isort: split

import kubernetes

from heat_k8s.client import clientplugin
from heat_k8s.client import kube as kube_mod

REVIEW = {'apiVersion': 'authentication.k8s.io/v1',
          'kind': 'SelfSubjectReview'}


def service_account_token(admin, namespace, name):
    core = kubernetes.client.CoreV1Api(admin)
    core.create_namespaced_service_account(namespace,
                                           {'metadata': {'name': name}})
    answer = core.create_namespaced_service_account_token(
        name, namespace, {'spec': {'expirationSeconds': 600}})
    return answer.status.token


def test_two_tokens_on_one_pool_each_sent_with_its_own_request(admin,
                                                                 namespace):
    tokens = {name: service_account_token(admin, namespace, name)
              for name in ('alice', 'bob')}
    # The endpoint and TLS settings only: no credential on the client.
    conf = kubernetes.client.Configuration()
    conf.host = admin.configuration.host
    conf.ssl_ca_cert = admin.configuration.ssl_ca_cert
    shared = clientplugin._shared_api(conf)
    self_of = {name: kube_mod.Kube(shared, token=lambda t=token: t)
               for name, token in tokens.items()}

    seen = [self_of[name].request(
        'POST', '/apis/authentication.k8s.io/v1/selfsubjectreviews',
        body=REVIEW)['status']['userInfo']['username']
        for name in ('alice', 'bob', 'alice', 'bob')]

    account = 'system:serviceaccount:%s:%%s' % namespace
    assert seen == [account % 'alice', account % 'bob'] * 2
    # All four went over one connection of one pool.
    pools = shared.rest_client.pool_manager.pools
    assert len(pools) == 1
    assert pools[list(pools.keys())[0]].num_connections == 1
    assert clientplugin._shared_api(conf) is shared
