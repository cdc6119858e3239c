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

"""The compute control plane (templates/controlplane.yaml with Nova and
Neutron) as test_compute_cloud.py and test_compute_region.py create it:
its services and images, the environments that put it on the local
cloud's Kubernetes, the label of the operator's privileged project, and
the marker of what runs only when asked for.
"""

import os
import time

import pytest

from tests.e2e import controlplane_clients as clients
from tests.e2e import docker_stacks as dh

UPGRADE = os.environ.get('HEAT_K8S_TEST_COMPUTE') == '1'
FROM_RELEASE, TO_RELEASE = '2026.1', '2026.2'
SERVICES = ('keystone', 'glance', 'placement', 'neutron', 'nova')
# The compute control plane's images at the current release.
IMAGES = ('mariadb', 'memcached', 'rabbitmq', 'ovn') + SERVICES + (
    'nova-compute',)
KUBE_ENVS = [os.path.join(dh.ENVIRONMENTS, n) for n in (
    'kubernetes.yaml', 'localcloud-images.yaml',
    'localcloud-controlplane-images.yaml', 'localcloud-kubernetes.yaml')]
PRIVILEGED = 'pod-security.kubernetes.io/enforce=privileged'

# What runs when asked for: this module's upgrade, and nova-docker's
# Keystone on a server of test_compute_region.py's region.
asked_for = pytest.mark.skipif(
    not UPGRADE, reason='the compute release upgrade and nova-docker\'s '
    'Keystone under emulation run when asked for: HEAT_K8S_TEST_COMPUTE=1 '
    '(CI\'s budget: doc/source/testing.rst)')


def create(localcloud, project, heat, name, params, envs, what):
    """controlplane.yaml created as the operator project's stack `name`
    with params and envs, CREATE_COMPLETE; says how long it took and how
    much memory the project's pods use, as `what`."""
    started = time.monotonic()
    project.openstack('stack', 'create', '--timeout', str(
        dh.TIMEOUT // 60), *dh.create_args(dh.CONTROLPLANE, params, envs),
        name)
    shown = heat.wait(name, timeout=dh.TIMEOUT)
    assert shown.stack_status == 'CREATE_COMPLETE', (
        shown.stack_status_reason)
    print('\n%s: CREATE_COMPLETE after %.0fs, the project\'s pods using '
          '%.0f MiB' % (what, time.monotonic() - started,
                        clients.working_set_mib(localcloud,
                                                project.namespace)))
