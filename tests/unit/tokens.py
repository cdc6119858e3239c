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

"""A caller's token source as the client plugin makes one, for tests."""


class ExpiredToken(object):
    """Gives a token the API server refuses, and records each refusal."""

    def __init__(self):
        self.refusals = []

    def __call__(self):
        return 'expired'

    def refused(self):
        self.refusals.append(True)
