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

"""The cluster's side of heat-k8s: the manifests a cluster administrator
applies (the install guide's "Isolating projects" and "Cluster
hardening"), shipped inside the package so that an installation from
PyPI has them; ``heat-k8s-configure manifests NAME`` prints one.

Data and their reader only: it may import nothing of heat_k8s.
"""

import importlib.resources

# What `heat-k8s-configure manifests NAME` prints: NAME -> file here.
FILES = {
    'isolation': 'project-isolation.yaml',
    'hardening': 'cluster-hardening.yaml',
    'own-pods': 'own-pods-policy.yaml',
}


def text(name):
    """The manifest `name` (a key of FILES) as shipped."""
    return importlib.resources.files(__name__).joinpath(
        FILES[name]).read_text(encoding='utf-8')
