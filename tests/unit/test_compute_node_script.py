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

"""templates/nova/compute-node.sh's libvirtd step on a node without KVM:
kvm is refused in words, qemu goes on to wait for virtlogd."""

import os
import subprocess
import tempfile
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SCRIPT = os.path.join(REPO, 'templates', 'nova', 'compute-node.sh')


def _libvirtd(tmp, virt_type, timeout=5):
    env = dict(os.environ, VIRT_TYPE=virt_type,
               KVM_DEVICE=os.path.join(tmp, 'no-kvm'))
    try:
        return subprocess.run(['sh', SCRIPT, 'libvirtd'], env=env,
                              capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None


class NoKvmTest(unittest.TestCase):

    def setUp(self):
        self.tmp = self.enterContext(tempfile.TemporaryDirectory())

    def test_kvm_without_the_device_says_so(self):
        out = _libvirtd(self.tmp, 'kvm')
        self.assertEqual(1, out.returncode)
        self.assertIn('virt_type kvm, but this node has no ', out.stderr)
        self.assertIn('compute_virt_type qemu', out.stderr)

    def test_qemu_without_the_device_waits_for_virtlogd(self):
        # No virtlogd socket here: still waiting when the test stops it.
        self.assertIsNone(_libvirtd(self.tmp, 'qemu', timeout=2))
