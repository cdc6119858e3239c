# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Passwords and keys generated at run time into the state directory.

They live in ``<state>/secrets.json`` (mode 0600), are created on first use
and kept across restarts of the same state directory; nothing is committed.
"""

import base64
import json
import os
import secrets
import threading

FILE = 'secrets.json'
_lock = threading.Lock()


def _path(state_dir):
    return os.path.join(state_dir, FILE)


def _load(state_dir):
    try:
        with open(_path(state_dir)) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def get(state_dir, name, length=24):
    """The secret called `name`, generated (URL-safe, `length` chars)."""
    with _lock:
        return _get(state_dir, name,
                    lambda: secrets.token_urlsafe(length)[:length])


def key(state_dir, name):
    """The key called `name`: 32 random bytes, URL-safe base64."""
    with _lock:
        return _get(state_dir, name, lambda: base64.urlsafe_b64encode(
            secrets.token_bytes(32)).decode('ascii'))


def _get(state_dir, name, make):
    known = _load(state_dir)
    if name not in known:
        known[name] = make()
        os.makedirs(state_dir, exist_ok=True)
        fd = os.open(_path(state_dir), os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                     0o600)
        with os.fdopen(fd, 'w') as f:
            json.dump(known, f, indent=2, sort_keys=True)
    return known[name]
