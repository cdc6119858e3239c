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

"""The waiting layer: until an object is ready, or gone, or the deadline.

``policy`` states every rule a wait follows (the back-off, the hold, the
stuck graces, the crash limit, which API errors are retried) with its
figures, once: its ``Settings`` are the ``[kubernetes]`` options of the
same names, which ``heat_k8s.config`` declares from it. ``awaiter`` owns
the poll/watch/deadline state machine behind every check_*_complete: a
``Wait`` (what one wait remembers between polls) and an ``Awaiter``
handed the object as a ``Subject`` (read, watch, judge, pods, events,
describe) and its ``Settings``, which answers ready, poll again in N
seconds, or fails with the reason; ``reporting`` stores what a wait waits
on, rate-limited. Time comes from injected clocks, so tests replay
recorded objects without sleeping, and settings come in as arguments. It
may import ``heat_k8s.kinds`` and the client's errors
(``heat_k8s.client.apierrors``); never Heat, ``heat_k8s.config`` (which
imports Heat) nor ``heat_k8s.resources``, which turns its answers into
Heat's PollDelay and errors.
"""
