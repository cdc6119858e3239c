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

"""Pods that try a connection on the real node, run as a project member.

A probe pod exits 0 when its connection opens within CONNECT_TIMEOUT
seconds, non-zero otherwise (124: timed out, the node's NetworkPolicy
controller dropped it); the caller compares exit codes.
"""

import json
import time

# Seconds a probe pod waits for its connection (a dropped SYN is retried
# after 1 s and 3 s: the controller may learn a new pod's address late).
CONNECT_TIMEOUT = 6
BASE_IMAGE = 'localhost/heat-k8s/base:bookworm'


def probe_pod(name, command, image=BASE_IMAGE, labels=None):
    """A pod running `command` once, limited to CONNECT_TIMEOUT seconds."""
    return {
        'apiVersion': 'v1', 'kind': 'Pod',
        'metadata': {'name': name, 'labels': dict(labels or {})},
        'spec': {
            'restartPolicy': 'Never',
            'automountServiceAccountToken': False,
            'enableServiceLinks': False,
            'terminationGracePeriodSeconds': 0,
            'containers': [{
                'name': 'connect', 'image': image,
                'imagePullPolicy': 'IfNotPresent',
                'command': ['timeout', str(CONNECT_TIMEOUT)] + command,
            }]}}


def connect_pod(name, address, port, image=BASE_IMAGE, labels=None,
                delay=0):
    """A pod that exits 0 when it opens a TCP connection to address:port
    (bash's /dev/tcp), `delay` seconds after it starts."""
    return probe_pod(name, ['bash', '-c',
                            'sleep $2; exec 3<>"/dev/tcp/$0/$1"',
                            address, str(port), str(delay)], image, labels)


def run_pods(localcloud, pods):
    """Run {(token, namespace, pod name): pod} at once; {pod name: exit
    code}."""
    for (token, namespace, _), pod in pods.items():
        result = localcloud.kubectl(token, '-n', namespace, 'create',
                                    '-f', '-', stdin=json.dumps(pod))
        assert result.returncode == 0, result.stderr
    codes = {}
    deadline = time.monotonic() + 60 + CONNECT_TIMEOUT
    try:
        while len(codes) < len(pods):
            assert time.monotonic() < deadline, codes
            time.sleep(1)
            for (token, namespace, name) in pods:
                if name in codes:
                    continue
                shown = json.loads(localcloud.kubectl(
                    token, '-n', namespace, 'get', 'pod', name, '-o', 'json',
                    check=True).stdout)
                for status in shown['status'].get('containerStatuses', []):
                    done = status['state'].get('terminated')
                    if done:
                        codes[name] = done['exitCode']
    finally:
        for (token, namespace, name) in pods:
            localcloud.kubectl(token, '-n', namespace, 'delete', 'pod',
                               name, '--wait=false', '--ignore-not-found')
    return codes


def run_connect_pods(localcloud, pods):
    """Run {(os_cloud, namespace): pod} at once; {pod name: exit code}."""
    tokens = {project: localcloud.token(project)['id']
              for project, _ in pods}
    return run_pods(localcloud, {
        (tokens[project], namespace, pod['metadata']['name']): pod
        for (project, namespace), pod in pods.items()})
