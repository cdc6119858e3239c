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

"""Showing what a wait waits on, cheaply.

Every judgment of a waiting object yields a progress text
(heat_k8s.kinds.progress); a Reporter stores it (the resource's status
reason) only when it changed, and at most once per interval, so that a
watch delivering many versions or a fast poll costs one database write
every few seconds at most.
"""

from heat_k8s.waiting import awaiter


class Reporter:
    """store(text) a wait's progress when it changed, at most once every
    `interval` seconds of `clock` ([kubernetes] progress_interval)."""

    def __init__(self, store, interval, clock=awaiter.CLOCK):
        self.store, self.interval, self.clock = store, interval, clock

    def __call__(self, wait, text):
        """Store text for this wait if it is due; True when stored."""
        now = self.clock()
        if not text or text == wait.shown or (
                wait.shown_at is not None and
                now - wait.shown_at < self.interval):
            return False
        self.store(text)
        wait.shown, wait.shown_at = text, now
        return True
