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

"""The documentation's Sphinx extensions (doc/source/_ext), imported as
Sphinx imports them: by name, with their directory on the path."""

import importlib
import os
import sys

EXT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                   'doc', 'source', '_ext')


def load(name):
    if EXT not in sys.path:
        sys.path.insert(0, EXT)
    return importlib.import_module(name)
