# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""The cluster's default StorageClass: volumes are directories of this
machine, made and removed by kube-controller-manager's host-path
provisioner (``--enable-hostpath-provisioner``), as Kubernetes'
local-up-cluster.sh has it for one node."""

import os
import shutil
import urllib.error

PROVISIONER = 'kubernetes.io/host-path'
# Where the provisioner makes every volume (fixed in kube-controller-manager:
# /tmp/hostpath_pv/<uuid>); its deleter removes only paths under /tmp.
VOLUME_DIR = '/tmp/hostpath_pv'  # noqa: S108 (not ours to choose)
DEFAULT_CLASS = {
    'apiVersion': 'storage.k8s.io/v1', 'kind': 'StorageClass',
    'metadata': {'name': 'standard', 'annotations': {
        'storageclass.kubernetes.io/is-default-class': 'true'}},
    'provisioner': PROVISIONER,
    # A claim's volume goes with it (a stack's delete frees it).
    'reclaimPolicy': 'Delete',
    'volumeBindingMode': 'Immediate',
}


def apply(cluster):
    """The default StorageClass (server-side apply: idempotent)."""
    cluster.request(
        'PATCH', '/apis/storage.k8s.io/v1/storageclasses/%s?fieldManager='
        'localcloud&force=true' % DEFAULT_CLASS['metadata']['name'],
        DEFAULT_CLASS, 'application/apply-patch+yaml')


def provisioned_paths(volumes):
    """The directories the provisioner made for these PersistentVolumes."""
    paths = []
    for pv in volumes:
        annotations = pv['metadata'].get('annotations') or {}
        path = (pv['spec'].get('hostPath') or {}).get('path', '')
        if (annotations.get('pv.kubernetes.io/provisioned-by') ==
                PROVISIONER and os.path.dirname(path) == VOLUME_DIR):
            paths.append(path)
    return sorted(paths)


def volumes_of(cluster):
    """This cloud's provisioned directories ([] when its API is down)."""
    try:
        items = cluster.request('GET', '/api/v1/persistentvolumes')['items']
    except (urllib.error.URLError, OSError, KeyError):
        return []
    return provisioned_paths(items)


def remove(paths):
    """Remove volume directories (`down --purge`: the data goes with the
    state directory)."""
    for path in paths:
        shutil.rmtree(path, ignore_errors=True)
