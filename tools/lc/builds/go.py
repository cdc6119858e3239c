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

"""Build the control plane binaries from the Go module proxy.

Each component is a wrapper Go module under tools/gomod/<component>/ whose
go.mod is generated from tools/versions.env (``--update``) and committed
with its go.sum. Binaries land in ``<cache>/bin/<component>-v<version>/``;
a component whose directory is complete is not rebuilt.
"""

import dataclasses
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from tools.lc import paths


@dataclasses.dataclass(frozen=True)
class Component:
    name: str            # wrapper module directory and cache prefix
    version_key: str     # key in versions.env
    module: str          # the upstream module required by the wrapper
    binaries: dict       # binary name -> main package path
    ldflags: tuple = ()  # -X flags; {v} is the version without 'v'
    staging_from: str = ''   # module whose ./staging replaces we mirror
    replaces_from: str = ''  # module whose go.mod replace lines we copy
    sibling_replaces: tuple = ()  # modules pinned to the same version


_K8S_VERSION_PKG = 'k8s.io/component-base/version'

COMPONENTS = (
    Component(
        name='kubernetes', version_key='KUBERNETES_VERSION',
        module='k8s.io/kubernetes',
        binaries={c: 'k8s.io/kubernetes/cmd/' + c for c in (
            'kube-apiserver', 'kube-controller-manager',
            'kube-scheduler', 'kubectl', 'kubelet', 'kube-proxy')},
        ldflags=tuple(
            '-X %s.%s' % (pkg, flag) for pkg in (
                _K8S_VERSION_PKG, 'k8s.io/client-go/pkg/version')
            for flag in ('gitVersion=v{v}', 'gitMajor={major}',
                         'gitMinor={minor}', 'gitTreeState=clean',
                         'buildDate={date}')),
        staging_from='k8s.io/kubernetes'),
    Component(
        name='etcd', version_key='ETCD_VERSION',
        module='go.etcd.io/etcd/server/v3',
        binaries={'etcd': 'go.etcd.io/etcd/server/v3'},
        sibling_replaces=('go.etcd.io/etcd/api/v3',
                          'go.etcd.io/etcd/client/pkg/v3',
                          'go.etcd.io/etcd/client/v3',
                          'go.etcd.io/etcd/pkg/v3')),
    Component(
        name='kwok', version_key='KWOK_VERSION',
        module='sigs.k8s.io/kwok',
        binaries={'kwok': 'sigs.k8s.io/kwok/cmd/kwok'},
        ldflags=('-X sigs.k8s.io/kwok/pkg/consts.Version={v}',)),
    Component(
        name='k8s-keystone-auth',
        version_key='CLOUD_PROVIDER_OPENSTACK_VERSION',
        module='k8s.io/cloud-provider-openstack',
        binaries={'k8s-keystone-auth':
                  'k8s.io/cloud-provider-openstack/cmd/k8s-keystone-auth'},
        ldflags=('-X k8s.io/cloud-provider-openstack/pkg/version.'
                 'Version=v{v}',),
        replaces_from='k8s.io/cloud-provider-openstack'),
    # Our own main (tools/gomod/coredns/main.go) links only the plugins the
    # cluster DNS uses; upstream's main pulls ~1.5 GB of cloud SDK modules.
    Component(
        name='coredns', version_key='COREDNS_VERSION',
        module='github.com/coredns/coredns',
        binaries={'coredns': 'heatk8s.local/coredns'}),
    # The real node's NetworkPolicy controller; our own main
    # (tools/gomod/kube-network-policies/main.go) reads a kubeconfig, as
    # the node's other agents do, where upstream's reads a pod's
    # in-cluster configuration.
    Component(
        name='kube-network-policies',
        version_key='KUBE_NETWORK_POLICIES_VERSION',
        module='sigs.k8s.io/kube-network-policies',
        binaries={'kube-network-policies':
                  'heatk8s.local/kube-network-policies'}),
)


def read_versions():
    versions = {}
    with open(paths.VERSIONS_FILE) as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith('#'):
                key, _, value = line.partition('=')
                versions[key.strip()] = value.strip()
    return versions


def _own_main_digest(component):
    """For a wrapper with its own main, a digest of its files: a binary
    built from an older main must not pass for the current one."""
    if wrapper_module(component) not in component.binaries.values():
        return ''
    moddir = os.path.join(paths.GOMOD_DIR, component.name)
    digest = hashlib.sha256()
    for name in sorted(os.listdir(moddir)):
        with open(os.path.join(moddir, name), 'rb') as f:
            digest.update(name.encode() + b'\0' + f.read())
    return '-' + digest.hexdigest()[:12]


def bin_dir(component, versions):
    return os.path.join(paths.cache_dir(), 'bin', '%s-v%s%s' % (
        component.name, versions[component.version_key],
        _own_main_digest(component)))


def all_bin_dirs(versions=None):
    versions = versions or read_versions()
    return [bin_dir(c, versions) for c in COMPONENTS]


def _go_env():
    env = dict(os.environ, CGO_ENABLED='0', GOTOOLCHAIN='local',
               GOFLAGS='-mod=readonly')
    return env


def _go(args, cwd, env=None):
    subprocess.run(['go'] + args, cwd=cwd, check=True, env=env or _go_env())


def _module_gomod(module, version):
    """Download a module and return the text of its go.mod."""
    out = subprocess.run(
        ['go', 'mod', 'download', '-json', '%s@v%s' % (module, version)],
        check=True, capture_output=True, text=True,
        env=dict(_go_env(), GOFLAGS='')).stdout
    with open(json.loads(out)['GoMod']) as f:
        return f.read()


def _replace_block(gomod_text):
    """The lines inside the replace blocks and single replace lines."""
    lines, inside = [], False
    for line in gomod_text.splitlines():
        stripped = line.strip()
        if stripped.startswith('replace ('):
            inside = True
        elif inside and stripped == ')':
            inside = False
        elif inside and '=>' in stripped:
            lines.append(stripped)
        elif stripped.startswith('replace ') and '=>' in stripped:
            lines.append(stripped[len('replace '):])
    return lines


def wrapper_module(component):
    return 'heatk8s.local/' + component.name


def _tools(component):
    """Upstream main packages; the wrapper's own main needs no tool line."""
    own = wrapper_module(component)
    return sorted(pkg for pkg in component.binaries.values()
                  if pkg != own and not pkg.startswith(own + '/'))


def render_gomod(component, versions):
    """The wrapper go.mod text for a component."""
    version = versions[component.version_key]
    replaces = []
    if component.staging_from:
        # Kubernetes 1.X.Y pins its staging modules at v0.X.Y.
        staging = '0.' + version.split('.', 1)[1]
        for line in _replace_block(_module_gomod(component.module, version)):
            mod, target = [s.strip() for s in line.split('=>')]
            if target.startswith('./staging/'):
                replaces.append('%s => %s v%s' % (mod, mod, staging))
    if component.replaces_from:
        for line in _replace_block(_module_gomod(component.module, version)):
            if not re.search(r'=>\s*\.', line):
                replaces.append(line)
    for mod in component.sibling_replaces:
        replaces.append('%s => %s v%s' % (mod, mod, version))
    out = [
        '// Wrapper module: builds %s from the Go module proxy.'
        % ', '.join(component.binaries),
        '// Generated by `tools/localcloud build --update` from '
        'tools/versions.env.',
        'module ' + wrapper_module(component), '',
        'go 1.26.0', '',
        'require %s v%s' % (component.module, version)]
    tools = _tools(component)
    if tools:
        out += ['', 'tool (']
        out += ['\t' + pkg for pkg in tools]
        out.append(')')
    if replaces:
        out += ['', 'replace (']
        out += ['\t' + r for r in replaces]
        out.append(')')
    return '\n'.join(out) + '\n'


def update(versions, components=COMPONENTS):
    """Regenerate the wrapper go.mod/go.sum files from versions.env."""
    for component in components:
        moddir = os.path.join(paths.GOMOD_DIR, component.name)
        os.makedirs(moddir, exist_ok=True)
        with open(os.path.join(moddir, 'go.mod'), 'w') as f:
            f.write(render_gomod(component, versions))
        sumfile = os.path.join(moddir, 'go.sum')
        if os.path.exists(sumfile):
            os.unlink(sumfile)
        _go(['mod', 'tidy'], moddir, env=dict(_go_env(), GOFLAGS=''))


def check_pins(component, versions):
    """Fail when a committed go.mod disagrees with versions.env."""
    moddir = os.path.join(paths.GOMOD_DIR, component.name)
    with open(os.path.join(moddir, 'go.mod')) as f:
        text = f.read()
    want = '%s v%s' % (component.module, versions[component.version_key])
    if not re.search(r'^\s*(require\s+)?%s( // indirect)?$'
                     % re.escape(want), text,
                     re.MULTILINE):
        raise SystemExit('%s/go.mod does not pin %r; run '
                         '`tools/localcloud build --update`' % (moddir, want))


def _ldflags(component, version):
    major, minor = version.split('.')[:2]
    date = datetime.datetime.now(datetime.timezone.utc).strftime(
        '%Y-%m-%dT%H:%M:%SZ')
    flags = [f.format(v=version, major=major, minor=minor, date=date)
             for f in component.ldflags]
    return ' '.join(['-s', '-w'] + flags)


def is_built(component, versions):
    target = bin_dir(component, versions)
    return all(os.access(os.path.join(target, b), os.X_OK)
               for b in component.binaries)


def build_component(component, versions, log=print):
    target = bin_dir(component, versions)
    if is_built(component, versions):
        return False
    check_pins(component, versions)
    version = versions[component.version_key]
    moddir = os.path.join(paths.GOMOD_DIR, component.name)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    tmp = tempfile.mkdtemp(prefix='.%s-' % component.name,
                           dir=os.path.dirname(target))
    try:
        for binary, pkg in sorted(component.binaries.items()):
            log('building %s v%s (%s)' % (binary, version, pkg))
            # No VCS stamp: a wrapper's own main would change with every
            # commit of this repository, and so would the image keyed by it.
            _go(['build', '-trimpath', '-buildvcs=false', '-ldflags',
                 _ldflags(component, version), '-o',
                 os.path.join(tmp, binary), pkg], moddir)
        # Rename last so an interrupted build never looks complete.
        if os.path.isdir(target):
            shutil.rmtree(target)
        os.rename(tmp, target)
    finally:
        if os.path.isdir(tmp):
            shutil.rmtree(tmp)
    return True


def build(log=print):
    versions = read_versions()
    for component in COMPONENTS:
        build_component(component, versions, log=log)
    return all_bin_dirs(versions)


def main(argv):
    if '--update' in argv:
        update(read_versions())
    for d in build(log=lambda m: print(m, file=sys.stderr)):
        print(d)
