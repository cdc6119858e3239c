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

"""The resource types, for Heat's plugin loader: the OS::Kubernetes::*
types (one per kind, OS::Kubernetes::Resource for any object and
OS::Kubernetes::Objects for many) and the OS::HeatK8s::* types that make
no Kubernetes object (RenderedFiles, RandomSecret, Requires)."""

from heat_k8s.resources import configmap
from heat_k8s.resources import cronjob
from heat_k8s.resources import daemonset
from heat_k8s.resources import deployment
from heat_k8s.resources import files
from heat_k8s.resources import generic
from heat_k8s.resources import job
from heat_k8s.resources import namespace
from heat_k8s.resources import objects
from heat_k8s.resources import pod
from heat_k8s.resources import pvc
from heat_k8s.resources import random_secret
from heat_k8s.resources import requires
from heat_k8s.resources import secret
from heat_k8s.resources import service
from heat_k8s.resources import statefulset

KUBERNETES_TYPES = {
    'OS::Kubernetes::Namespace': namespace.Namespace,
    'OS::Kubernetes::ConfigMap': configmap.ConfigMap,
    'OS::Kubernetes::Secret': secret.Secret,
    'OS::Kubernetes::Pod': pod.Pod,
    'OS::Kubernetes::Job': job.Job,
    'OS::Kubernetes::CronJob': cronjob.CronJob,
    'OS::Kubernetes::Deployment': deployment.Deployment,
    'OS::Kubernetes::StatefulSet': statefulset.StatefulSet,
    'OS::Kubernetes::DaemonSet': daemonset.DaemonSet,
    'OS::Kubernetes::Service': service.Service,
    'OS::Kubernetes::PersistentVolumeClaim': pvc.PersistentVolumeClaim,
    'OS::Kubernetes::Resource': generic.Resource,
}

RESOURCE_TYPES = dict(
    KUBERNETES_TYPES,
    # Many objects of any kinds behind one resource (no order among them).
    **{'OS::Kubernetes::Objects': objects.Objects},
    # Not Kubernetes objects: files for backends without a ConfigMap,
    # secrets Heat only refers to, and a check between composed services.
    **{'OS::HeatK8s::RenderedFiles': files.RenderedFiles,
       'OS::HeatK8s::RandomSecret': random_secret.RandomSecret,
       'OS::HeatK8s::Requires': requires.Requires})


def available_resource_mapping():
    return dict(RESOURCE_TYPES)
