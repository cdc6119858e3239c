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

"""OS::Kubernetes::CronJob; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['CronJob']."""

from heat_k8s import kinds
from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common


class CronJob(base.KubernetesResource):
    """A Kubernetes CronJob.

    Ready once it exists: it is a schedule, and its Jobs are its own.
    Every spec field updates in place; a generated name keeps to 52
    characters, room for the names of its Jobs. Suspend sets
    spec.suspend.
    """

    kind = 'CronJob'
    body_properties = {'spec': 'spec'}
    suspend_strategy = kinds.KINDS[kind].suspend
    properties_schema = dict(common.common_properties(),
                             spec=common.spec_property())
    attributes_schema = common.attributes_schema()
