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

"""A container that prints a secret before it exits, on the real node.

The value is a RandomSecret's: the template's author holds only its
reference. The container reads it from the stack's Secret and prints it,
upper-cased, in part, in base64 and in hex, then exits; Heat's engine
(in-process, convergence) fails the create with the exit code and the
log's tail, and no reason or event of the stack shows any of those.
"""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

import base64

from oslo_config import cfg

from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import sealing
from tests.functional import recording

PRINTS = ('echo "connecting with $PW"; '
          'echo "$PW" | tr a-z A-Z; '
          'echo "part: $(echo "$PW" | cut -c 3-14)"; '
          'printf %s "$PW" | base64 -w0; echo; '
          'printf %s "$PW" | od -An -tx1 | tr -d " \\n"; echo; '
          'echo "access denied"; exit 3')


def hot(resources):
    return {'heat_template_version': '2021-04-16', 'resources': resources}


class PrintedSecretTest(heat_cluster.ClusterTestCase):

    def setUp(self):
        super().setUp()
        # A container that exits at once reads ready for a moment.
        cfg.CONF.set_override('ready_hold_seconds', 5, group='kubernetes')

    def test_the_reason_shows_no_form_of_the_value(self):
        ref = {'get_attr': ['password', 'reference']}
        stack = self.create(hot({
            'password': {'type': 'OS::HeatK8s::RandomSecret'},
            'secret': {'type': 'OS::Kubernetes::Secret', 'properties': {
                'string_data': {'pw': ref}}},
            'web': {'type': 'OS::Kubernetes::Deployment', 'properties': {
                'timeout': 120, 'spec': {
                    'replicas': 1,
                    'selector': {'matchLabels': {'app': 'prints'}},
                    'template': {
                        'metadata': {'labels': {'app': 'prints'}},
                        'spec': {
                            'terminationGracePeriodSeconds': 1,
                            'containers': [{
                                'name': 'app', 'image': recording.BASE,
                                'imagePullPolicy': 'Never',
                                'command': ['sh', '-c', PRINTS],
                                'terminationMessagePolicy':
                                    'FallbackToLogsOnError',
                                'env': [{'name': 'PW', 'valueFrom': {
                                    'secretKeyRef': {
                                        'name': {'get_attr': [
                                            'secret', 'name']},
                                        'key': 'pw'}}}]}]}}}}}}))
        self.assertState(stack, 'CREATE', 'FAILED')
        value = sealing.open_text(stack['password'].FnGetAtt('reference'),
                                  stack.tenant_id, sensitive.keyring())
        reason = stack['web'].status_reason
        # The container ran and said so; only its values are gone.
        self.assertIn('exit code 3', reason)
        self.assertIn('access denied', reason)
        self.assertIn('<redacted>', reason)
        shown = [reason, str(stack.status_reason)] + [
            str(event.resource_status_reason) for event in self.events(stack)]
        raw = value.encode()
        for text in shown:
            for form in (value, value.upper(), value[2:14],
                         base64.b64encode(raw).decode(), raw.hex()):
                self.assertNotIn(form, text)
