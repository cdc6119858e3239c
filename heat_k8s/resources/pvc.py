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

"""OS::Kubernetes::PersistentVolumeClaim; what Kubernetes says about the
kind is declared in heat_k8s.kinds.KINDS['PersistentVolumeClaim']."""

from heat_k8s.resources.shared import base
from heat_k8s.resources.shared import common


class PersistentVolumeClaim(base.KubernetesResource):
    """A PersistentVolumeClaim.

    Ready when Bound, or while Pending when its storage class binds on
    first consumer (WaitForFirstConsumer: a pod using it binds it); failed
    when Lost, and after [kubernetes] pending_grace when nothing can bind
    it, with the volume controller's event (FailedBinding,
    ProvisioningFailed). The storage class is read on every poll. Only
    resources.requests (storage grows in place) and
    volumeAttributesClassName update in place: a change to any other spec
    field replaces the claim.
    """

    kind = 'PersistentVolumeClaim'
    body_properties = {'spec': 'spec'}
    properties_schema = dict(common.common_properties(),
                             spec=common.spec_property())
    attributes_schema = common.attributes_schema()
