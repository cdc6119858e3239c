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

"""What heat-engine remembers across request contexts, for a while.

Heat builds a new request context, with a new Keystone session, for every
check_resource: without a memory across them, every resource would ask
Keystone again for the same endpoint and the same trust's token. Each
entry lives until its own expiry on an injected clock, so that tests
replay time without sleeping. Pure: no Heat, no network.
"""

import datetime
import threading
import time

CLOCK = time.monotonic  # seconds


class Expiring:
    """A mapping whose entries are forgotten at their own expiry."""

    def __init__(self, clock=CLOCK):
        self.clock = clock
        self._entries = {}  # key -> (value, clock() value it expires at)
        self._lock = threading.Lock()

    def get(self, key):
        """The value remembered for key, or None (never or expired)."""
        with self._lock:
            value, expires = self._entries.get(key, (None, None))
            if expires is not None and self.clock() >= expires:
                del self._entries[key]
                return None
            return value

    def put(self, key, value, lifetime):
        """Remember value for `lifetime` seconds; nothing if <= 0."""
        if lifetime <= 0:
            return
        with self._lock:
            now = self.clock()
            # Expired entries go at each write: the memory stays bounded by
            # what was stored within one lifetime.
            for old in [k for k, (_v, expires) in self._entries.items()
                        if now >= expires]:
                del self._entries[old]
            self._entries[key] = (value, now + lifetime)

    def forget(self, key):
        with self._lock:
            self._entries.pop(key, None)

    def __len__(self):
        with self._lock:
            return len(self._entries)


def seconds_left(expires, margin, now=None):
    """Seconds from now until `margin` seconds before a wall-clock expiry
    (an aware datetime, as Keystone states a token's), or 0 if unknown."""
    if expires is None:
        return 0
    now = now or datetime.datetime.now(datetime.timezone.utc)
    return max(0, (expires - now).total_seconds() - margin)
