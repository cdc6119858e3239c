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

"""The directory to add to Heat's ``[DEFAULT] plugin_dirs``.

Heat skips ``__init__`` when it walks a plugin directory, so this module is
never loaded by Heat; it only serves the ``heat-k8s-plugin-dir`` command.

The shim, ``heat_k8s_plugin``, may import ``heat_k8s.resources`` (the
types' registry), ``heat_k8s.enginefixes`` (their start) and
``heat_k8s.client`` (the client plugin's warnings at start), and nothing
imports it; this module imports nothing of heat_k8s (``cmd.configure``
reads its path).
"""

import os


def path():
    return os.path.dirname(os.path.abspath(__file__))


def main():
    print(path())
