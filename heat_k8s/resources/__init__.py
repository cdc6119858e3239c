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

``base`` holds Heat's lifecycle for every type (create, update, delete,
check, suspend, adopt) in lifecycle order; its mixins say what the object
is (``manifest``: name, namespace, manifest, validation) and read and wait
for it (``live``: verdict, attributes, observe reality, the edge to
``heat_k8s.waiting``). ``common`` has the properties and attributes every
type shares; a type's module only declares data (its kind, body
properties, attributes). ``registry`` maps type names to classes for
Heat's plugin loader. ``objects`` puts many objects behind one resource,
each seen by ``members`` as the ``generic`` resource it would be, planned
by ``objectset`` (pure). ``labels`` (ownership), ``projection`` (observe
reality), ``sensitive`` (hidden property values), ``literal`` (checks at
`template validate`), ``templated`` and
``files`` (rendered configuration) serve them. The fixes to Heat's engine
are a package of their own, ``heat_k8s.enginefixes``. This layer may
import every other layer; the others never import it. This package's own
import pulls no Heat module, so the pure helpers here load without Heat.
"""
