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

"""Sphinx configuration: offline, no theme beyond what Sphinx installs."""

import importlib.metadata
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '_ext'))
# The reference is generated from this tree's heat_k8s even when another
# version of the package is installed.
sys.path.insert(0, os.path.abspath(os.path.join(HERE, '..', '..')))

project = 'heat-k8s'
copyright = '2026, heat-k8s developers'
author = 'heat-k8s developers'
try:
    release = importlib.metadata.version('heat-k8s')
except importlib.metadata.PackageNotFoundError:
    release = ''
version = release

extensions = [
    'oslo_config.sphinxext',   # .. show-options:: [kubernetes] reference
    'reno.sphinxext',          # .. release-notes:: from releasenotes/notes
    'resource_reference',      # writes reference/resources.rst
    'template_graph',          # writes user/controlplane-graph.inc
]

root_doc = 'index'
exclude_patterns = []
pygments_style = 'sphinx'
html_theme = 'alabaster'
html_theme_options = {'description': 'Kubernetes objects in Heat templates'}
html_static_path = []
html_last_updated_fmt = None
