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

"""The console scripts, one module each: ``configure``
(heat-k8s-configure), ``exportstack`` (heat-k8s-export) and ``keys``
(heat-k8s-keys).

Each is a command line over the packages that do the work: it may import
any package of heat_k8s, and none imports it. A script imports Heat only
in the steps that need it, so that its help and argument errors need no
Heat configuration.
"""
