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

"""OS::Kubernetes::StatefulSet; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['StatefulSet']."""

from heat_k8s import kinds
from heat_k8s.resources.shared import base


class StatefulSet(base.ScaledWorkload):
    """A Kubernetes StatefulSet.

    Ready when rolled out: the controller has observed the latest
    generation, spec.replicas are ready and available, those above the
    partition run the update revision, and it is the current one.
    It must then stay up, by the hold and crash rules of
    heat_k8s.waiting.policy ([kubernetes] ready_hold_seconds and
    crash_restarts).
    Only
    replicas, ordinals, template, updateStrategy, revisionHistoryLimit,
    persistentVolumeClaimRetentionPolicy and minReadySeconds update in
    place: a change to another spec field (volumeClaimTemplates,
    serviceName, podManagementPolicy, selector) replaces the StatefulSet.
    A generated name keeps to 52 characters, room for its revision
    labels. Suspend scales it to zero, resume scales it back.
    """

    kind = 'StatefulSet'
    suspend_strategy = kinds.KINDS[kind].suspend
