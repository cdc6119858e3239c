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

"""A readiness verdict and the wording of its messages.

Shared by the per-kind rules (readiness) and kubectl-wait conditions
(waitfor), so both answer in the same terms.
"""

import dataclasses

READY, PROGRESSING, FAILED = 'READY', 'PROGRESSING', 'FAILED'
# What a stuck verdict waits on, naming the grace the waiter gives it.
IMAGE_PULL, PENDING = 'image_pull', 'pending'

# Longest quoted text (a message, a value) kept in a verdict message.
MAX_TEXT = 200


@dataclasses.dataclass(frozen=True)
class Verdict:
    state: str          # READY | PROGRESSING | FAILED
    message: str = ''   # what is not ready, or the real failure reason
    # PROGRESSING on something the cluster keeps retrying but that rarely
    # heals by itself: an image that cannot be pulled (IMAGE_PULL), a pod
    # no node can take or a claim nothing can bind (PENDING). The waiter
    # gives it that grace, not the whole timeout; '' is not stuck.
    stuck: str = ''


def ready(message=''):
    return Verdict(READY, message)


def progressing(message):
    return Verdict(PROGRESSING, message)


def failed(message):
    return Verdict(FAILED, message)


def join(*parts):
    return '; '.join(p for p in parts if p)


def clip(text, limit=MAX_TEXT, keep_end=False):
    """`text` on one line, at most `limit` characters; keep_end keeps its
    end instead of its start (a log tail's last lines hold the error)."""
    text = ' '.join(str(text).split())
    if len(text) <= limit:
        return text
    return '...' + text[3 - limit:] if keep_end else text[:limit - 3] + '...'


def reason(item):
    """'Reason: message' of a condition, container state or pod status."""
    return clip(': '.join(str(item[k]) for k in ('reason', 'message')
                          if item.get(k)))
