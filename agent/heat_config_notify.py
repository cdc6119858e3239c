#!/usr/bin/env python3
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


"""heat-config-notify: signal a deployment's result to Heat.

``heat-config-notify <deployed dir>/<id>.json < signal data``, as the
dispatcher calls it (heat-agents' contract). The deployment's inputs say
how: ``deploy_signal_id`` is a URL to POST (or PUT, ``deploy_signal_verb``)
the data to (CFN_SIGNAL, TEMP_URL_SIGNAL); ``deploy_auth_url`` with
``deploy_user_id``, ``deploy_password``, ``deploy_project_id`` is
HEAT_SIGNAL: a Keystone token for the deployment's own user, Heat's
public endpoint from its catalog, then ``POST .../stacks/<stack>/resources/
<resource>/signal``. ZAQAR_SIGNAL is not supported. Standard library
only; ``OS_CACERT`` names a CA bundle for TLS endpoints.
"""

import json
import os
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

# Heat refuses JSON bodies over max_json_body_size (1 MiB).
MAX_SIZE = 950000
RETRIES = 8
# An OS::Heat::WaitConditionHandle's `signal` attribute (CFN_SIGNAL: a
# presigned URL, which heat-api-cfn's /waitcondition/ route takes by PUT
# only; HEAT_SIGNAL: its user's credentials and its resource) -> the
# deployment input notify() reads for it.
HANDLE_INPUTS = {
    'alarm_url': 'deploy_signal_id', 'auth_url': 'deploy_auth_url',
    'user_id': 'deploy_user_id', 'password': 'deploy_password',
    'project_id': 'deploy_project_id', 'region_name': 'deploy_region_name',
    'stack_id': 'deploy_stack_id', 'resource_name': 'deploy_resource_name',
    'queue_id': 'deploy_queue_id',
}


def trim(data, limit=MAX_SIZE):
    """Shorten deploy_stdout and deploy_stderr from their start until the
    JSON fits; the end of a log says most."""
    data = dict(data)
    text = json.dumps(data)
    excess = len(text) - limit
    for key in ('deploy_stdout', 'deploy_stderr'):
        if excess <= 0:
            break
        value = data.get(key) or ''
        cut = min(len(value), excess)
        data[key] = value[cut:]
        excess -= cut
    return data


def v3_url(auth_url):
    url = auth_url.rstrip('/')
    return url if url.endswith('/v3') else url + '/v3'


def token_request(inputs):
    return {'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'id': inputs['deploy_user_id'],
            'password': inputs['deploy_password']}}},
        'scope': {'project': {'id': inputs['deploy_project_id']}}}}


def endpoint(catalog, service_type, region=None, interface='public'):
    for service in catalog:
        if service.get('type') != service_type:
            continue
        for ep in service.get('endpoints', []):
            if ep.get('interface') == interface and (
                    not region or ep.get('region_id') == region or
                    ep.get('region') == region):
                return ep['url']
    raise LookupError('no %s %s endpoint%s in the catalog' % (
        interface, service_type, ' in ' + region if region else ''))


def signal_url(heat_endpoint, stack_id, resource_name):
    stack = '/'.join(urllib.parse.quote(part, safe='')
                     for part in stack_id.split('/'))
    return '%s/stacks/%s/resources/%s/signal' % (
        heat_endpoint.rstrip('/'), stack,
        urllib.parse.quote(resource_name, safe=''))


def _context():
    cafile = os.environ.get('OS_CACERT')
    return ssl.create_default_context(cafile=cafile) if cafile else None


def scheme(url):
    if urllib.parse.urlsplit(url).scheme not in ('http', 'https'):
        raise ValueError('not an http(s) URL: %s' % url)
    return url


def request(url, body=None, method='POST', headers=None):
    """(status, headers, body) with retries on connection errors and 5xx,
    as heat-agents' notifier retries."""
    data = None if body is None else json.dumps(body).encode()
    hdrs = {'Content-Type': 'application/json',
            'Accept': 'application/json'}
    hdrs.update(headers or {})
    delay = 0.5
    for attempt in range(RETRIES):
        # The URL comes from Heat (http or https, checked by scheme()).
        req = urllib.request.Request(scheme(url), data=data,  # noqa: S310
                                     method=method, headers=hdrs)
        try:
            with urllib.request.urlopen(  # noqa: S310
                    req, timeout=60, context=_context()) as resp:
                return resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as e:
            if e.code < 500 or attempt == RETRIES - 1:
                raise RuntimeError('%s %s: %s %s' % (
                    method, url, e.code, e.read()[:500])) from e
        except OSError:
            if attempt == RETRIES - 1:
                raise
        time.sleep(delay)
        delay *= 2


def heat_signal(inputs, data):
    _, headers, body = request(v3_url(inputs['deploy_auth_url']) +
                               '/auth/tokens', token_request(inputs))
    token = headers['X-Subject-Token']
    catalog = json.loads(body)['token'].get('catalog', [])
    heat = endpoint(catalog, 'orchestration', inputs.get('deploy_region_name'))
    url = signal_url(heat, inputs['deploy_stack_id'],
                     inputs['deploy_resource_name'])
    return request(url, data, headers={'X-Auth-Token': token})[0]


def notify(deployment, data):
    inputs = {i['name']: i.get('value') for i in deployment['inputs']}
    data = trim(data)
    if inputs.get('deploy_signal_id'):
        return request(inputs['deploy_signal_id'], data,
                       method=inputs.get('deploy_signal_verb') or 'POST')[0]
    if inputs.get('deploy_queue_id'):
        raise NotImplementedError('ZAQAR_SIGNAL is not supported')
    if inputs.get('deploy_auth_url'):
        return heat_signal(inputs, data)
    return None  # NO_SIGNAL: nobody waits


def handle_deployment(signal):
    """A wait condition handle's `signal` map as a deployment notify()
    signals (no inputs: NO_SIGNAL, nobody waits)."""
    inputs = [{'name': HANDLE_INPUTS[k], 'value': v}
              for k, v in sorted(signal.items()) if k in HANDLE_INPUTS]
    if signal.get('alarm_url'):
        inputs.append({'name': 'deploy_signal_verb', 'value': 'PUT'})
    return {'id': signal.get('resource_name') or 'wait-condition',
            'inputs': inputs}


def main(argv):
    if len(argv) < 2:
        sys.stderr.write('usage: heat-config-notify <deployment.json> '
                         '< <signal data.json>\n')
        return 1
    try:
        data = json.load(sys.stdin)
    except ValueError:
        data = {}
    with open(argv[1]) as f:
        deployment = json.load(f)
    status = notify(deployment, data)
    sys.stdout.write('signalled %s: %s\n' % (deployment['id'], status))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
