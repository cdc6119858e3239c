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

"""Export a stack's live Kubernetes objects as plain manifests.

A way out of Heat: ``heat-k8s-export`` and ``openstack stack kubernetes
export`` print the objects a stack's OS::Kubernetes::* resources manage, in
Heat's dependency order and without what the API server or Heat's own
bookkeeping added, so that ``kubectl apply`` recreates them elsewhere.
``order`` and ``manifests`` are pure (the API's JSON in, JSON and YAML
out); ``reader`` asks Heat and Kubernetes with the caller's Keystone
session; ``command`` is the command line both entry points share.

It may import ``heat_k8s.kinds`` (Heat's ownership keys are pure
``kinds.labels``) and ``heat_k8s.client`` (the Kubernetes API), never
Heat nor the Heat layer, so it runs where Heat is not installed.
"""
