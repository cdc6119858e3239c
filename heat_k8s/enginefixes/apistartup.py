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

"""heat-api's start: the engine fixes that change what heat-api does.

heat-api parses the templates and environments of each request, but loads
no plugin (only heat-engine reads ``plugin_dirs``). Its paste pipeline
can load a filter, so the operator adds ours to ``api-paste.ini``::

    [filter:heat_k8s]
    paste.filter_factory = heat_k8s.enginefixes.apistartup:filter_factory

and puts ``heat_k8s`` in the ``heat-api`` pipeline(s). Building the
filter applies ``fixlist.API_FIXES`` as heat-engine applies its fixes
(switches, releases and probes, one log line); requests pass through
unchanged.
"""

from heat_k8s.enginefixes import fixlist
from heat_k8s.enginefixes import startup


def filter_factory(global_conf, **local_conf):
    """Paste's factory: applies the fixes once, returns a filter that
    passes each request on."""
    startup.apply_all(fixes=fixlist.API_FIXES)
    return lambda app: app
