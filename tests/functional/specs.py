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

"""Templates and specs written by hand for the functional tests of the
resource types (test_resources, test_objects, test_progress): pods the
simulated node runs as their annotations (SIM) say.
"""

from tests import simulated

SIM = 'sim.heat-k8s.io/'


def pod_template(labels, annotations=None, image='registry.invalid/app:1',
                 restart='Always'):
    return {'metadata': {'labels': labels, 'annotations': annotations or {}},
            'spec': simulated.on_kwok({
                'restartPolicy': restart,
                'containers': [{'name': 'app', 'image': image}]})}


def deployment_spec(app, replicas=3, **kwargs):
    return {'replicas': replicas, 'selector': {'matchLabels': {'app': app}},
            'template': pod_template({'app': app}, **kwargs)}


def job_spec(annotations=None, image='registry.invalid/migrate:1',
             backoff_limit=0):
    return {'backoffLimit': backoff_limit,
            'template': pod_template({'job': 'x'}, annotations, image,
                                     restart='Never')}


def hot(resources, outputs=None):
    tmpl = {'heat_template_version': '2021-04-16', 'resources': resources}
    if outputs:
        tmpl['outputs'] = outputs
    return tmpl
