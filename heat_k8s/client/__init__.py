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

"""The client layer: talking to a Kubernetes API server for Heat.

``clientplugin`` is Heat's client plugin ``kubernetes`` (the endpoint
from operator config, a Magnum cluster or the Keystone catalog; the
caller's Keystone token as bearer token), ``exposure`` the rules of where
that token may go (a Magnum cluster's roles, TLS verification turned off).
``kube`` makes the requests (server-side apply, get, delete with a uid
precondition, list), ``watches`` the watches of an object or of what
decides its readiness, ``transport`` sends them through whichever
generation of the kubernetes library is installed; ``apierrors`` turns
API errors into messages with the server's field paths and no secret
values; ``memory`` holds what heat-engine remembers across request
contexts for a while (catalog endpoints, trust tokens).
It may import ``heat_k8s.kinds`` and ``heat_k8s.config``; nothing here
decides readiness or replacement.
"""
