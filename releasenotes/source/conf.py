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

"""Sphinx configuration of the release notes on their own
(``sphinx-build -W -b html releasenotes/source releasenotes/build/html``
from the top directory). The documentation includes the same notes
(doc/source/releasenotes.rst)."""

project = 'heat-k8s Release Notes'
copyright = '2026, heat-k8s developers'
author = 'heat-k8s developers'
# Release notes carry their own versions, from git tags.
release = ''
version = ''

extensions = [
    'reno.sphinxext',
]

root_doc = 'index'
exclude_patterns = []
pygments_style = 'sphinx'
html_theme = 'alabaster'
html_static_path = []
