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

"""Writing a page the documentation generates at build time."""

import os


def write(srcdir, page, text):
    """Write text to srcdir/page unless it already holds it (Sphinx would
    otherwise read the page as changed on every build)."""
    path = os.path.join(srcdir, page)
    try:
        with open(path, encoding='utf-8') as current:
            if current.read() == text:
                return path
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w', encoding='utf-8') as out:
        out.write(text)
    return path
