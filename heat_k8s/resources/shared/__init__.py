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

"""What the resource types are built from; none of it is a type itself.

``base`` is Heat's lifecycle for every Kubernetes type in one class to
read top to bottom (KubernetesResource, on KubernetesBase): what the
object is, its manifest, readiness and checks, then create, update,
delete, check, suspend, adopt and show, in that order. It holds two
collaborators with a small interface each: ``handle`` (``self.object``:
the object in its cluster, read, written, deleted, its events and pods,
messages redacted) and ``waits`` (``self.waits``: the edge to
``heat_k8s.waiting`` in Heat's terms), and calls ``checks`` (the offline
checks of one object), ``literal`` (checks at `template validate`, on the
values known there) and ``sensitive`` (hidden property values as
fingerprints, made by ``heat_k8s.secrecy`` with heat.conf's keys).
``common`` has the properties and attributes every type shares;
``templated`` (files rendered from templates) and ``references``
(the references_only property) serve the types that need them.
``anyobject`` is any object given as a whole manifest: what
OS::Kubernetes::Resource (``generic``) is, and what ``members`` makes of
each object of OS::Kubernetes::Objects.

It imports Heat and the layers below (``kinds``, ``client``,
``waiting``, ``rendering``, ``secrecy``), never a resource type.
"""
