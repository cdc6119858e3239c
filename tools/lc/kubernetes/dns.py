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

"""Cluster DNS: CoreDNS on the real node, answering the cluster zone only.

The binary is our wrapper build (tools/gomod/coredns); its image is that
static binary alone, imported with podman and cached as a docker-archive
keyed by the binary's hash. Nothing is forwarded: the machine reaches
nothing outside, so CoreDNS serves only the cluster's zones and refuses
other names at once instead of timing out on an upstream.
"""

import hashlib
import json
import os
import subprocess
import tempfile
import time
import urllib.error

from tools.lc.builds import go
from tools.lc.builds import images
from tools.lc.builds import recipes

NAMESPACE = 'kube-system'
NAME = 'coredns'
SERVICE_NAME = 'kube-dns'
LABELS = {'k8s-app': 'kube-dns'}
FIELD_MANAGER = 'localcloud'
# Above 1024: the container needs no capability to bind it; the Service
# maps port 53 onto it.
DNS_PORT = 1053
HEALTH_PORT = 8080
READY_PORT = 8181
# A non-root user of nothing in the image (the image has no passwd).
USER_ID = 65532
CONFIG_DIR = '/etc/coredns'
RECIPE_LABEL = 'heat-k8s.recipe'


def _component():
    return next(c for c in go.COMPONENTS if c.name == 'coredns')


# -- configuration ------------------------------------------------------


def corefile(cluster_domain='cluster.local', listen=':%d' % DNS_PORT,
             health=':%d' % HEALTH_PORT, ready=':%d' % READY_PORT,
             kubeconfig=None, log_queries=False):
    """The Corefile: the cluster zone and reverse zones, nothing else.

    `listen` is ``[address]:port``; an address adds a ``bind`` (a host
    test binds a 127.0.0.x). `kubeconfig` (its server and credentials)
    replaces the in-cluster service account, for CoreDNS outside a pod.
    """
    host, _, port = listen.rpartition(':')
    zones = [cluster_domain, 'in-addr.arpa', 'ip6.arpa']
    lines = [' '.join('%s:%s' % (z, port) for z in zones) + ' {',
             '    errors']
    if log_queries:
        lines.append('    log')
    if host:
        lines.append('    bind ' + host)
    lines += ['    health %s {' % health, '        lameduck 5s', '    }',
              '    ready ' + ready,
              '    kubernetes %s {' % ' '.join(zones)]
    if kubeconfig:
        lines.append('        kubeconfig ' + kubeconfig)
    # No fallthrough: no plugin follows, so a reverse name that is no
    # pod or Service answers NXDOMAIN rather than SERVFAIL.
    lines += ['        pods insecure', '        ttl 30', '    }',
              # The kubernetes plugin answers from its watch already; a
              # cached NXDOMAIN would hide a new Service for 30 s (as
              # kubeadm's Corefile, cache only other zones).
              '    cache 30 {',
              '        disable success ' + cluster_domain,
              '        disable denial ' + cluster_domain,
              '    }',
              '    loop', '    reload', '}']
    return '\n'.join(lines) + '\n'


def _checksum(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def manifests(cluster_domain='cluster.local', service_ip='10.0.0.10',
              image=None):
    """The objects of cluster DNS, in the order they are applied."""
    image = image or image_ref()
    core = corefile(cluster_domain)
    meta = {'namespace': NAMESPACE, 'labels': dict(LABELS)}
    rbac = 'rbac.authorization.k8s.io'
    container_ports = [
        {'name': 'dns', 'containerPort': DNS_PORT, 'protocol': 'UDP'},
        {'name': 'dns-tcp', 'containerPort': DNS_PORT, 'protocol': 'TCP'},
        {'name': 'health', 'containerPort': HEALTH_PORT,
         'protocol': 'TCP'},
        {'name': 'ready', 'containerPort': READY_PORT, 'protocol': 'TCP'},
    ]
    container = {
        'name': NAME, 'image': image,
        # Images are loaded into the node, never pulled.
        'imagePullPolicy': 'Never',
        'args': ['-conf', CONFIG_DIR + '/Corefile'],
        'ports': container_ports,
        'resources': {'requests': {'cpu': '50m', 'memory': '64Mi'},
                      'limits': {'memory': '170Mi'}},
        'readinessProbe': {
            'httpGet': {'path': '/ready', 'port': 'ready'},
            'periodSeconds': 2},
        'livenessProbe': {
            'httpGet': {'path': '/health', 'port': 'health'},
            'initialDelaySeconds': 30, 'timeoutSeconds': 5,
            'failureThreshold': 5},
        'securityContext': {
            'runAsNonRoot': True, 'runAsUser': USER_ID,
            'runAsGroup': USER_ID, 'allowPrivilegeEscalation': False,
            'readOnlyRootFilesystem': True,
            'capabilities': {'drop': ['ALL']},
            'seccompProfile': {'type': 'RuntimeDefault'}},
        'volumeMounts': [{'name': 'config', 'mountPath': CONFIG_DIR,
                          'readOnly': True}],
    }
    return [
        {'apiVersion': 'v1', 'kind': 'ServiceAccount',
         'metadata': dict(meta, name=NAME)},
        {'apiVersion': rbac + '/v1', 'kind': 'ClusterRole',
         'metadata': {'name': 'system:coredns', 'labels': dict(LABELS)},
         'rules': [
             {'apiGroups': [''], 'resources': [
                 'services', 'pods', 'namespaces'],
              'verbs': ['list', 'watch']},
             {'apiGroups': ['discovery.k8s.io'],
              'resources': ['endpointslices'],
              'verbs': ['list', 'watch']}]},
        {'apiVersion': rbac + '/v1', 'kind': 'ClusterRoleBinding',
         'metadata': {'name': 'system:coredns', 'labels': dict(LABELS)},
         'roleRef': {'apiGroup': rbac, 'kind': 'ClusterRole',
                     'name': 'system:coredns'},
         'subjects': [{'kind': 'ServiceAccount', 'name': NAME,
                       'namespace': NAMESPACE}]},
        {'apiVersion': 'v1', 'kind': 'ConfigMap',
         'metadata': dict(meta, name=NAME), 'data': {'Corefile': core}},
        {'apiVersion': 'apps/v1', 'kind': 'Deployment',
         'metadata': dict(meta, name=NAME),
         'spec': {
             'replicas': 1,
             'selector': {'matchLabels': dict(LABELS)},
             'template': {
                 'metadata': {
                     'labels': dict(LABELS),
                     # A new Corefile rolls the pod at once.
                     'annotations': {'localcloud/corefile-checksum':
                                     _checksum(core)}},
                 'spec': {
                     'serviceAccountName': NAME,
                     'priorityClassName': 'system-cluster-critical',
                     # The real node only: kwok nodes run nothing.
                     'nodeSelector': {'type': 'real'},
                     # Its own resolver must not be itself.
                     'dnsPolicy': 'Default',
                     'containers': [container],
                     'volumes': [{'name': 'config', 'configMap': {
                         'name': NAME,
                         'items': [{'key': 'Corefile',
                                    'path': 'Corefile'}]}}]}}}},
        {'apiVersion': 'v1', 'kind': 'Service',
         'metadata': dict(meta, name=SERVICE_NAME,
                          labels=dict(LABELS,
                                      **{'kubernetes.io/name': 'CoreDNS'})),
         'spec': {
             'selector': dict(LABELS), 'clusterIP': service_ip,
             'ports': [
                 {'name': 'dns', 'port': 53, 'protocol': 'UDP',
                  'targetPort': 'dns'},
                 {'name': 'dns-tcp', 'port': 53, 'protocol': 'TCP',
                  'targetPort': 'dns-tcp'}]}},
    ]


# -- applying -----------------------------------------------------------

_PLURALS = {'ServiceAccount': 'serviceaccounts', 'ConfigMap': 'configmaps',
            'Service': 'services', 'Deployment': 'deployments',
            'ClusterRole': 'clusterroles',
            'ClusterRoleBinding': 'clusterrolebindings'}


def object_path(obj):
    """The API path of one object (of the kinds manifests() returns)."""
    group_version = obj['apiVersion']
    prefix = '/api/v1' if group_version == 'v1' else '/apis/' + group_version
    namespace = obj['metadata'].get('namespace')
    if namespace:
        prefix += '/namespaces/' + namespace
    return '%s/%s/%s' % (prefix, _PLURALS[obj['kind']],
                         obj['metadata']['name'])


def deployment_status(deployment):
    """None when rolled out and available, else what is still missing."""
    spec, status = deployment['spec'], deployment.get('status', {})
    want = spec.get('replicas', 1)
    if status.get('observedGeneration', 0) < deployment['metadata'].get(
            'generation', 1):
        return 'the controller has not seen generation %s yet' % (
            deployment['metadata'].get('generation'))
    for field in ('updatedReplicas', 'readyReplicas', 'availableReplicas'):
        if status.get(field, 0) < want:
            return '%s %s of %s' % (field, status.get(field, 0), want)
    if status.get('replicas', 0) > want:
        return 'old replicas still terminating'
    return None


def _pod_problems(cluster):
    """Why the CoreDNS pods are not ready, in the kubelet's words."""
    pods = cluster.request('GET', '/api/v1/namespaces/%s/pods?'
                           'labelSelector=k8s-app%%3Dkube-dns'
                           % NAMESPACE)['items']
    out = []
    for pod in pods:
        name = pod['metadata']['name']
        for cond in pod.get('status', {}).get('conditions', []):
            if cond['type'] == 'PodScheduled' and cond['status'] != 'True':
                out.append('%s unschedulable: %s' % (
                    name, cond.get('message', '')))
        for cs in pod.get('status', {}).get('containerStatuses', []):
            waiting = cs.get('state', {}).get('waiting')
            if waiting:
                out.append('%s %s: %s' % (name, waiting.get('reason'),
                                          waiting.get('message', '')))
    return '; '.join(out) or 'no pod problem reported'


def deploy(cluster, log=print, timeout=120):
    """Apply the DNS objects server-side and wait for the Deployment."""
    for obj in manifests():
        cluster.request('PATCH', object_path(obj) + '?fieldManager=%s'
                        '&force=true' % FIELD_MANAGER, obj,
                        'application/apply-patch+yaml')
    log('cluster DNS applied; waiting for deployment %s/%s'
        % (NAMESPACE, NAME))
    path = object_path(next(o for o in manifests()
                            if o['kind'] == 'Deployment'))
    deadline = time.monotonic() + timeout
    missing = 'not read yet'
    while time.monotonic() < deadline:
        try:
            missing = deployment_status(cluster.request('GET', path))
        except (urllib.error.URLError, OSError) as exc:
            missing = str(exc)
        if missing is None:
            return
        time.sleep(1)
    raise RuntimeError('cluster DNS not available after %ss: %s; %s' % (
        timeout, missing, _pod_problems(cluster)))


# -- image --------------------------------------------------------------


def image_ref(versions=None):
    versions = versions or go.read_versions()
    return '%s/coredns:%s' % (recipes.REGISTRY, versions['COREDNS_VERSION'])


def _binary(log):
    """The built coredns binary (building it when missing)."""
    versions = go.read_versions()
    component = _component()
    go.build_component(component, versions, log=log)
    return os.path.join(go.bin_dir(component, versions), 'coredns')


def image_changes(recipe_id):
    """The image's configuration, as `podman import --change` lines."""
    return ['LABEL %s=%s' % (RECIPE_LABEL, recipe_id),
            'ENTRYPOINT ["/coredns"]',
            'USER %d:%d' % (USER_ID, USER_ID),
            'EXPOSE %d/udp' % DNS_PORT, 'EXPOSE %d/tcp' % DNS_PORT]


def _file_sha256(path):
    digest = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            digest.update(chunk)
    return digest.hexdigest()


def _recipe_id(binary_sha):
    # The configuration is part of the key; the label itself is not.
    text = json.dumps([binary_sha, image_changes('')[1:]])
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _podman(args):
    proc = subprocess.run(list(images.PODMAN) + args, capture_output=True,
                          text=True)
    if proc.returncode:
        raise RuntimeError('podman %s failed (%d): %s' % (
            args[0], proc.returncode, proc.stderr.strip()[-2000:]))
    return proc.stdout


def image_archive(log=print):
    """The image's docker-archive, built (binary and image) if needed."""
    binary = _binary(log)
    recipe_id = _recipe_id(_file_sha256(binary))
    reference = image_ref()
    cache = images.images_cache()
    archive = os.path.join(cache, 'coredns-%s-%s.tar' % (
        reference.rpartition(':')[2], recipe_id))
    if os.path.exists(archive):
        return archive
    log('building image %s (%s)' % (reference, recipe_id))
    os.makedirs(cache, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=cache, prefix='build-') as work:
        rootfs = os.path.join(work, 'rootfs.tar')
        images.single_binary_rootfs(binary, 'coredns', rootfs)
        argv = ['import', '--quiet']
        for change in image_changes(recipe_id):
            argv += ['--change', change]
        _podman(argv + [rootfs, reference])
        partial = os.path.join(work, 'image.tar')
        _podman(['save', '--quiet', '--format', 'docker-archive', '-o',
                 partial, reference])
        os.replace(partial, archive)
    _prune(cache, keep=archive)
    return archive


def _prune(cache, keep):
    """Archives of older binaries go: one is kept."""
    for name in os.listdir(cache):
        path = os.path.join(cache, name)
        if (name.startswith('coredns-') and name.endswith('.tar')
                and path != keep):
            os.unlink(path)
