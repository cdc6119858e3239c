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

"""Keeping secret values secret: the operator's keys and what is made
with them.

``keyring`` (the operator's keys, derived per purpose and project),
``keystrength`` (whether a key's text could be guessed), ``digests``
(everything keyed with them that stands in for a secret value: the
HMAC checksums of secret content, the fingerprints Heat stores in a
value's place), ``sealing`` (secret references), ``envelope`` (data
sealed to a docker host's own key) and ``resealing`` (moving a project's
references to the newest key, in Heat's database). All but ``resealing``
are pure; ``resealing`` alone imports Heat (its database), and only
``heat-k8s-keys`` imports it. The package may import
``heat_k8s.rendering.checksum`` (the canonical form of content, which
``digests`` keys) and nothing else of heat_k8s; what reads the keys from
heat.conf is the Heat layer's (``resources.shared.sensitive``).
"""
