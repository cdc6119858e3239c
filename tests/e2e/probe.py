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

"""Clients that ask a service twice a second while it is updated.

TokenProbe issues a token with a password, validates it, and validates a
token issued before the probe started (it must stay valid across an
upgrade or a key rotation). ServiceProbe asks another service's API
(Glance's image list, Placement's resource providers) with a token, at
the endpoint the catalog gives. Every request opens a new connection, as
most clients' first request does: a replica that stops while a client
holds a kept-alive connection to it is a different question.
"""

import json
import threading
import time
import urllib.error
import urllib.request

TIMEOUT = 10
# After a failure a client waits a moment, as real ones do (and the probe
# does not spin on refused connections).
RETRY_AFTER = 0.1
# Between rounds: a client asking twice a second finds an outage of a
# second; a busy loop only spent the CPU of a CPU-bound suite (each
# round issues a token: Keystone checks a password hash).
ROUND_PAUSE = 0.5


class _Probe(threading.Thread):
    """Rounds of requests until stopped; each request timed, each failure
    kept with its time (what the report and the outages are made of)."""

    def __init__(self):
        super().__init__(daemon=True)
        self.latencies = []
        # (monotonic time, what, error) of every failed request.
        self.failures = []
        self.successes = []
        self._stop_event = threading.Event()

    def _timed(self, what, call, *args):
        started = time.monotonic()
        try:
            result = call(*args)
        except (urllib.error.URLError, OSError, KeyError) as exc:
            self.failures.append((started, what, str(exc)))
            time.sleep(RETRY_AFTER)
            return None
        self.latencies.append(time.monotonic() - started)
        self.successes.append(started)
        return result

    def round(self):
        raise NotImplementedError

    def run(self):
        while not self._stop_event.is_set():
            self.round()
            self._stop_event.wait(ROUND_PAUSE)

    def stop(self):
        self._stop_event.set()
        self.join(TIMEOUT + 5)
        return self.report()

    def report(self):
        latencies = sorted(self.latencies)
        p99 = latencies[int(0.99 * (len(latencies) - 1))] if latencies else 0
        outages = self.outages()
        return {'requests': len(self.latencies) + len(self.failures),
                'failures': len(self.failures), 'p99': p99,
                'outages': len(outages), 'down': sum(outages),
                'median': latencies[len(latencies) // 2] if latencies else 0,
                'longest_gap': self.longest_gap(),
                'first_failures': self.failures[:3]}

    def outages(self):
        """[seconds] of each run of failures: from its first failure to
        the next success."""
        runs, successes = [], sorted(self.successes)
        for started, _what, _error in sorted(self.failures):
            after = [s for s in successes if s > started]
            end = after[0] if after else time.monotonic()
            if runs and runs[-1][1] == end:
                continue  # the same run of failures
            runs.append((started, end))
        return [end - start for start, end in runs]

    def longest_gap(self):
        """Seconds of the longest outage (0 without failures)."""
        return max(self.outages(), default=0.0)

    def describe(self):
        report = self.report()
        return ('%(requests)d requests, %(failures)d failed, median '
                '%(median).3fs, p99 %(p99).3fs; %(outages)d outages, '
                '%(down).1fs in all, the longest %(longest_gap).1fs'
                % report)


def _request(url, method='GET', body=None, headers=None):
    """The response's headers and body; the stack's own http:// URLs."""
    request = urllib.request.Request(  # noqa: S310
        url, data=body, method=method,
        headers=dict(headers or {}, **{'Content-Type': 'application/json',
                                       'Connection': 'close'}))
    with urllib.request.urlopen(  # noqa: S310
            request, timeout=TIMEOUT) as resp:
        return resp.headers, resp.read()


def _password_body(user, password, project):
    return json.dumps({'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': user, 'domain': {'id': 'default'},
            'password': password}}},
        'scope': {'project': {'name': project,
                              'domain': {'id': 'default'}}}}}).encode()


class TokenProbe(_Probe):

    def __init__(self, auth_url, password, user='admin', project='admin'):
        super().__init__()
        self.auth_url = auth_url.rstrip('/')
        self.body = _password_body(user, password, project)
        self.first_token = self._issue()

    def _request(self, method, path, body=None, headers=None):
        return _request(self.auth_url + path, method, body, headers)[0]

    def _issue(self):
        return self._request('POST', '/auth/tokens',
                             self.body)['X-Subject-Token']

    def _validate(self, token):
        self._request('GET', '/auth/tokens', headers={
            'X-Auth-Token': token, 'X-Subject-Token': token})

    def accepts(self, token):
        """Whether Keystone says `token` is valid (asked with a new one)."""
        try:
            self._request('GET', '/auth/tokens', headers={
                'X-Auth-Token': self._issue(), 'X-Subject-Token': token})
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return False
            raise
        return True

    def round(self):
        token = self._timed('issue', self._issue)
        if token:
            self._timed('validate', self._validate, token)
        self._timed('validate the first token', self._validate,
                    self.first_token)


class ServiceProbe(_Probe):
    """GET `path` of the service of `service_type` (its public endpoint
    in the catalog) with a token issued when the probe starts."""

    def __init__(self, auth_url, password, service_type, path,
                 user='admin', project='admin'):
        super().__init__()
        headers, body = _request(
            auth_url.rstrip('/') + '/auth/tokens', 'POST',
            _password_body(user, password, project))
        self.token = headers['X-Subject-Token']
        catalog = json.loads(body)['token']['catalog']
        self.url = [e['url'] for s in catalog if s['type'] == service_type
                    for e in s['endpoints']
                    if e['interface'] == 'public'][0].rstrip('/') + path

    def _get(self):
        _request(self.url, headers={'X-Auth-Token': self.token})

    def round(self):
        self._timed('GET ' + self.url, self._get)


def control_plane(auth_url, password):
    """A probe per service of templates/controlplane.yaml, started."""
    probes = {'keystone': TokenProbe(auth_url, password),
              'glance': ServiceProbe(auth_url, password, 'image',
                                     '/v2/images'),
              'placement': ServiceProbe(auth_url, password, 'placement',
                                        '/resource_providers')}
    for one in probes.values():
        one.start()
    return probes
