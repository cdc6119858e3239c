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

"""Templates and an environment that write a key twice, and what the fix
says of them: tests/unit/test_dupkeyfix.py (heat-engine, heat-api) and
tests/unit/test_clientdupkeyfix.py (the client) refuse the same texts.
"""

# Hand-made templates: the first `image` is lost without the fix.
TWICE = '''heat_template_version: 2021-04-16
resources:
  web:
    type: OS::Heat::None
    properties:
      image: nginx:1.27
      replicas: 2
      image: nginx:1.25
'''
TWICE_JSON = '''{"heat_template_version": "2021-04-16",
 "resources": {"web": {"type": "OS::Heat::None",
                       "properties": {"image": "a",
                                      "image": "b"}}}}
'''
ENV_TWICE = '''parameters:
  size: 1
parameter_defaults: {}
parameters:
  size: 2
'''
LEGAL = '''heat_template_version: 2021-04-16
parameters:
  base: &base {type: string, default: a}
  other:
    <<: *base
    default: b
resources:
  one: {type: OS::Heat::None, properties: {image: x}}
  two: {type: OS::Heat::None, properties: {image: x, "1": one, 1: two}}
'''


MESSAGE = ("Duplicate key 'image' in one mapping (lines 6 and 8): Heat "
           'would keep only the last value')
