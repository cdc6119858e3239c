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

"""OS::Kubernetes::Deployment; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['Deployment']."""

from heat_k8s import kinds
from heat_k8s.resources.shared import base


class Deployment(base.ScaledWorkload):
    """A Kubernetes Deployment.

    Ready when rolled out: the controller has observed the latest
    generation and spec.replicas are updated, ready and available, with
    no old replica left and none still terminating (a replaced replica
    may still serve the old revision); failed when the rollout passes its
    progress deadline (ProgressDeadlineExceeded), so a failed rollout
    fails the update.
    It must then stay up, by the hold and crash rules of
    heat_k8s.waiting.policy ([kubernetes] ready_hold_seconds and
    crash_restarts).
    A change to spec.selector replaces the Deployment; other
    fields update in place. Suspend scales it to zero, resume scales it back.
    """

    kind = 'Deployment'
    suspend_strategy = kinds.KINDS[kind].suspend
