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

"""The Heat layer: one module per resource type, and what they share.

Each module here is one type a template names (a single Kubernetes kind's
module declares only data: its kind, body properties, attributes), and
``registry`` maps the type names to these classes for Heat's plugin
loader. Most modules bear their type's
name; three are shorter: ``pvc`` (OS::Kubernetes::PersistentVolumeClaim),
``generic`` (OS::Kubernetes::Resource) and ``files``
(OS::HeatK8s::RenderedFiles). What the types are built from (Heat's
lifecycle, the shared properties, the collaborators a resource holds)
is ``shared``; the pure rules they apply to objects (ownership labels,
object sets, projection) are in ``heat_k8s.kinds``, and the fixes to
Heat's engine are
``heat_k8s.enginefixes``. This layer may import every other layer; of
the others only the entry points (``heat_k8s.plugin``'s shim, ``cmd``)
import it.
"""
