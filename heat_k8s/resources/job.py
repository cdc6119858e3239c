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

"""OS::Kubernetes::Job."""

from heat.engine import attributes

from heat_k8s.resources import base


class Job(base.KubernetesResource):
    """A Kubernetes Job: complete when the Job completes, failed at once
    when it fails. A change to its pod template replaces the Job (runs it
    again)."""

    kind = 'Job'
    body_properties = {'spec': 'spec'}
    suspend_strategy = base.SUSPEND_FIELD
    extra_attributes = {
        'succeeded': base.Attr('Number of pods that succeeded.',
                               attributes.Schema.INTEGER,
                               lambda obj: base.status_of(obj).get(
                                   'succeeded', 0)),
        'failed': base.Attr('Number of pods that failed.',
                            attributes.Schema.INTEGER,
                            lambda obj: base.status_of(obj).get('failed', 0)),
    }
    properties_schema = dict(base.common_properties(),
                             spec=base.spec_property())
    attributes_schema = base.attributes_schema(extra_attributes)
