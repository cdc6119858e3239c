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

"""Project a live object onto the shape of what a template asked for.

Observe-reality compares desired property values with the live object.
The live object carries defaults and fields other managers own, which are
not drift; only the fields the template sets are compared.
"""


def project(desired, live):
    """The parts of live at the paths present in desired.

    Maps keep only desired's keys; lists of equal length are projected
    item by item (a different length is itself drift, so live is kept);
    anything else is live's value.
    """
    if isinstance(desired, dict):
        live = live if isinstance(live, dict) else {}
        return {key: project(value, live.get(key))
                for key, value in desired.items()}
    if isinstance(desired, list) and isinstance(live, list) and len(
            desired) == len(live):
        return [project(d, v) for d, v in zip(desired, live)]
    return live
