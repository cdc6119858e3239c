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

from heat_k8s.resources import astfix
from heat_k8s.resources import eventfix
from heat_k8s.resources import heatfix
from heat_k8s.resources import leafpace
from heat_k8s.resources import preemptfix
from heat_k8s.resources import purgefix
from heat_k8s.resources import strandfix
from heat_k8s.resources import threadfix
from heat_k8s.resources.registry import available_resource_mapping  # noqa: F401

# CPython 3.11.0-3.11.7 and 3.12.0-3.12.1 fail ast.parse on threads at once,
# which Heat's sync points use (heat_k8s.resources.astfix).
astfix.apply()
# Heat 27 shares one yaql parser between engine threads
# (heat_k8s.resources.heatfix).
heatfix.apply()
# Heat 27's rollback can cancel its own nested update
# (heat_k8s.resources.preemptfix).
preemptfix.apply()
# A traversal completed twice fails its stack on a referenced template
# (heat_k8s.resources.purgefix).
purgefix.apply()
# Heat 27 pauses 1 s per independent resource; the operator sets the pause
# (heat_k8s.resources.leafpace).
leafpace.apply()
# Heat 27 keeps every finished thread of a stack, and the stack with it
# (heat_k8s.resources.threadfix).
threadfix.apply()
# Heat 27 leaves a convergence stack IN_PROGRESS for ever when the engine
# checking it dies (heat_k8s.resources.strandfix).
strandfix.apply()
# Heat 27 fails a resource when its stack's thread group is full
# (heat_k8s.resources.eventfix).
eventfix.apply()
