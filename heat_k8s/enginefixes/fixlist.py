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

"""The engine fixes, in the order heat-engine applies them.

Each is a module of this package with RELEASES (the first and last Heat
major release whose code it was checked against), probe() (None when the
code it replaces is there, else why not), apply() and restore(). A name
is the module's, the option's and the patch file's.
"""

import importlib

FIXES = ('astfix', 'yaqlfix', 'preemptfix', 'purgefix', 'leafpace',
         'threadfix', 'eventfix', 'cryptfix', 'strandfix', 'dupkeyfix')
# Heat's template parser: heat-api applies it too (apistartup).
API_FIXES = ('dupkeyfix',)
# Fixes to python-heatclient, which `openstack` applies (clientstartup);
# their patches are against heatclient's source.
CLIENT_FIXES = ('clientdupkeyfix',)


def load(name):
    """The module of fix `name`. It imports Heat's modules, which a Heat
    release may not have: the caller handles ImportError."""
    return importlib.import_module('%s.%s' % (__package__, name))
