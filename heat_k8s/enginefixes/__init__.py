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

"""Narrow fixes to Heat's engine, each asked for before it is applied.

Where Heat's own code is wrong, the fix goes upstream: each module's
change is kept as a patch against Heat's source in ``patches/``, so a
distribution can carry the patch instead. Until a Heat release has it,
heat-engine applies the module's runtime copy when it loads the plugin
(``startup.apply_all`` from the plugin shim), and only when

- the operator has not switched it off (``[heat_k8s_engine_fixes]``,
  ``options``),
- the installed Heat is one of the releases the fix declares
  (``RELEASES``; ``release`` finds the installed one), and
- the fix's ``probe()`` finds the code it replaces, unchanged.

Otherwise the fix is skipped with one log line naming it and the reason,
and heat-engine starts anyway. ``fixlist.FIXES`` lists them in the order
they are applied; ``fixlist.API_FIXES`` are those heat-api applies
too, through the paste filter of ``apistartup`` (heat-api loads no
plugin). ``fixlist.CLIENT_FIXES`` are fixes to python-heatclient, which
``openstack`` applies through the cliff command hook of ``clientstartup``
(checked the same way, switched by an environment variable); their
patches are against heatclient. ``uniquekeys`` imports PyYAML alone, so
that the client loads it without Heat.

This package imports Heat and may import nothing of heat_k8s outside
itself: ``heat_k8s.config`` lists its options, the plugin shim and heat-api's
paste pipeline start it.
"""
