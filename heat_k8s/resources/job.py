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

"""OS::Kubernetes::Job; what Kubernetes says about the kind is
declared in heat_k8s.kinds.KINDS['Job']."""

from heat.engine import attributes

from heat_k8s import kinds
from heat_k8s.kinds import fields
from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common


class Job(base.KubernetesResource):
    """A Kubernetes Job.

    Ready when the Job's Complete condition is True; failed at once when
    its Failed (or FailureTarget) condition is, with the failed pods' exit
    codes and messages, and after [kubernetes] pending_grace when no node
    can take its pods, with the scheduler's message; a suspended Job
    waits. A change to spec.template,
    selector, completions, completionMode, podFailurePolicy,
    backoffLimitPerIndex, managedBy or successPolicy replaces the Job (it
    runs again); other fields update in place. Suspend sets spec.suspend.
    """

    kind = 'Job'
    body_properties = {'spec': 'spec'}
    suspend_strategy = kinds.KINDS[kind].suspend
    extra_attributes = {
        'succeeded': common.Attr('Number of pods that succeeded.',
                                 attributes.Schema.INTEGER,
                                 lambda obj: fields.status_of(obj).get(
                                     'succeeded', 0)),
        'failed': common.Attr('Number of pods that failed.',
                              attributes.Schema.INTEGER,
                              lambda obj: fields.status_of(obj).get(
                                  'failed', 0)),
    }
    properties_schema = dict(common.common_properties(),
                             spec=common.spec_property())
    attributes_schema = common.attributes_schema(extra_attributes)
