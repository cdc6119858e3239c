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

"""How the plugin's narrow fixes to Heat are put in place: once."""

MARK = 'heat_k8s_patched'


def wrap_once(owner, name, wrapper):
    """Set owner.<name> to wrapper(owner.<name>), unless already done."""
    current = getattr(owner, name)
    if getattr(current, MARK, False):
        return
    patched = wrapper(current)
    setattr(patched, MARK, True)
    setattr(owner, name, patched)
