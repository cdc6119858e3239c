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

"""Heat imports every module in its plugin_dirs; this one loads ours.

Set ``[DEFAULT] plugin_dirs`` to include this directory; the console script
``heat-k8s-plugin-dir`` prints its path.
"""

from heat_k8s.client import clientplugin
from heat_k8s.enginefixes import startup
from heat_k8s.resources.registry import available_resource_mapping  # noqa: F401
from heat_k8s.resources.shared import sensitive

# The engine fixes this Heat needs and the operator allows, each probed
# first; one log line says which were applied and which skipped, and why
# (heat_k8s.enginefixes). Nothing here stops heat-engine.
startup.apply_all()

# TLS verification of the Kubernetes client turned off is said at start,
# naming the option (heat_k8s.client.exposure).
clientplugin.warn_at_start()

# One log line: the keys of secret references and digests, or what they
# refuse and which option to set (never a key; never stops heat-engine).
sensitive.announce()
