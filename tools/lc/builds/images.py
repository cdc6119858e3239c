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

"""Container images built here, without a registry.

Each image is a recipe: Debian packages installed by mmdebstrap, files
from tools/images/, a pinned set of PyPI wheels in a venv and a few shell
steps run in the chroot; pause is our own static C program FROM scratch.
An image is tagged ``localhost/heat-k8s/<name>:<version>`` and cached as a
docker-archive tar under ``<cache>/images/`` named after a hash of its
recipe. podman's copy carries the hash as the label ``heat-k8s.recipe``,
so an image already in podman's store is neither rebuilt nor reloaded.
"""

import contextlib
import dataclasses
import fcntl
import hashlib
import inspect
import json
import os
import shlex
import shutil
import subprocess
import sys
import tarfile
import tempfile

from tools.lc import paths
from tools.lc.builds import go
from tools.lc.builds import recipes

MIRROR = 'http://deb.debian.org/debian'
RECIPE_LABEL = 'heat-k8s.recipe'
PODMAN = ('podman', '--runtime', '/usr/sbin/runc',
          '--cgroup-manager', 'cgroupfs')
# Where the wheels wait inside the chroot, as recipes.STAGE.
WHEELS = '/tmp/heat-k8s-wheels'  # noqa: S108
# Python of each suite: the wheels are chosen for it, whatever the host's.
DEBIAN_PYTHON = {'bookworm': '3.11.2'}
# glibc 2.36 in bookworm.
_WHEEL_PLATFORMS = ('linux_x86_64', 'manylinux2014_x86_64') + tuple(
    'manylinux_2_%d_x86_64' % minor for minor in range(17, 37))

_DPKG_OPTS = ('path-exclude=/usr/share/man/*',
              'path-exclude=/usr/share/info/*',
              'path-exclude=/usr/share/doc/*',
              'path-include=/usr/share/doc/*/copyright',
              'path-exclude=/usr/share/locale/*')
# The names the builder code hashed into every recipe (_BUILDER_SOURCE)
# reads; kept, so that the recipes' move changed no image's hash.
IMAGES_DIR = recipes.IMAGES_DIR
STAGE = recipes.STAGE
_PATH = recipes.PATH_ENV
tag = recipes.tag


def _file_digest(path):
    with open(path, 'rb') as f:
        return hashlib.sha256(f.read()).hexdigest()


def recipe(image, versions, images_dir=IMAGES_DIR):
    """Everything the image's content depends on, as a JSON-able dict."""
    fields = dataclasses.asdict(image)
    fields['files'] = [
        [src, dest, mode, _file_digest(os.path.join(images_dir, src))]
        for src, dest, mode in image.files]
    if image.requirements:
        fields['requirements'] = _file_digest(
            os.path.join(images_dir, image.requirements))
    return {
        'image': fields,
        'tag': tag(image, versions),
        'suite': versions['DEBIAN_SUITE'] if image.packages else '',
        'mirror': MIRROR if image.packages else '',
        'builder': _builder_digest(),
    }


def _builder_digest():
    """The builder code that shapes an image's content."""
    text = _BUILDER_SOURCE + repr(
        (DEBIAN_PYTHON, _WHEEL_PLATFORMS, _DPKG_OPTS))
    return hashlib.sha256(text.encode()).hexdigest()


def recipe_hash(image, versions, images_dir=IMAGES_DIR):
    text = json.dumps(recipe(image, versions, images_dir), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def images_cache():
    return os.path.join(paths.cache_dir(), 'images')


def archive_path(image, versions):
    return os.path.join(images_cache(), '%s-%s-%s.tar' % (
        image.name, tag(image, versions), recipe_hash(image, versions)))


def _import_changes(image, recipe_id):
    """`podman import --change` lines: the image's configuration."""
    changes = ['LABEL %s=%s' % (RECIPE_LABEL, recipe_id)]
    if image.entrypoint:
        changes.append('ENTRYPOINT ' + json.dumps(list(image.entrypoint)))
    if image.cmd:
        changes.append('CMD ' + json.dumps(list(image.cmd)))
    if image.user:
        changes.append('USER ' + image.user)
    if image.workdir:
        changes.append('WORKDIR ' + image.workdir)
    for name, value in image.env or (('PATH', _PATH),):
        changes.append('ENV %s=%s' % (name, value))
    for port in image.ports:
        changes.append('EXPOSE %d/tcp' % port)
    if image.stop_signal:
        changes.append('STOPSIGNAL ' + image.stop_signal)
    return changes


def _customize_script(image, versions):
    """Shell run in the chroot once packages and files are in."""
    lines = ['set -eu', 'export PATH=%s LANG=C.UTF-8' % _PATH]
    if image.debian_package:
        # The tag must tell the truth about the installed version.
        lines.append(
            'v=$(dpkg-query -W -f \'${Version}\' %s); v=${v#*:}; '
            'case "$v" in %s.*) ;; *) echo "%s is $v, not %s" >&2; '
            'exit 1 ;; esac' % (image.debian_package, tag(image, versions),
                                image.debian_package,
                                tag(image, versions)))
    if image.venv:
        lines += [
            'python3 -m venv %s' % image.venv,
            'PIP_NO_CACHE_DIR=1 %s/bin/pip install -q --no-index '
            '--find-links %s -r %s/requirements.txt' % (
                image.venv, WHEELS, STAGE),
            'export PATH=%s/bin:$PATH' % image.venv,
        ]
    lines.append(image.script)
    lines.append('rm -rf %s %s /var/cache/debconf/*-old '
                 '/var/lib/dpkg/*-old /var/log/apt /var/log/dpkg.log '
                 '/var/log/alternatives.log' % (STAGE, WHEELS))
    return '\n'.join(lines) + '\n'


def _mmdebstrap_argv(image, versions, stage, wheels, debs, output):
    argv = ['mmdebstrap', '--variant=minbase', '--mode=root',
            '--format=tar', '--quiet',
            '--include=' + ','.join(image.packages),
            # Every run shares one .deb cache: a cold build downloads once.
            '--skip=essential/unlink',
            '--setup-hook=mkdir -p "$1"/var/cache/apt/archives',
            '--setup-hook=sync-in %s /var/cache/apt/archives/' % debs,
            '--customize-hook=sync-out /var/cache/apt/archives %s' % debs,
            '--customize-hook=sync-in %s /' % stage]
    argv += ['--dpkgopt=' + o for o in _DPKG_OPTS]
    if wheels:
        argv += ['--customize-hook=mkdir -p "$1"%s' % WHEELS,
                 '--customize-hook=sync-in %s %s' % (wheels, WHEELS)]
    argv += ['--customize-hook=chroot "$1" sh %s/customize.sh' % STAGE,
             versions['DEBIAN_SUITE'], output, MIRROR]
    return argv


def _run(argv, **kwargs):
    proc = subprocess.run(argv, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True, **kwargs)
    if proc.returncode:
        raise RuntimeError('%s failed (%d):\n%s' % (
            ' '.join(shlex.quote(a) for a in argv[:6]), proc.returncode,
            proc.stdout[-4000:]))
    return proc.stdout


def _stage(image, versions, stage):
    """Lay out the image's files (and build script) as a rootfs overlay."""
    for src, dest, mode in image.files:
        target = os.path.join(stage, dest.lstrip('/'))
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(os.path.join(IMAGES_DIR, src), target)
        os.chmod(target, mode)
    inside = os.path.join(stage, STAGE.lstrip('/'))
    os.makedirs(inside, exist_ok=True)
    with open(os.path.join(inside, 'customize.sh'), 'w') as f:
        f.write(_customize_script(image, versions))
    if image.requirements:
        shutil.copyfile(os.path.join(IMAGES_DIR, image.requirements),
                        os.path.join(inside, 'requirements.txt'))
    # sync-in copies the directories' modes onto the image's own: give
    # them the modes a Debian root file system has.
    for root, dirs, _files in os.walk(stage):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)  # noqa: S103
    os.chmod(stage, 0o755)  # noqa: S103
    os.chmod(os.path.join(stage, 'tmp'), 0o1777)  # noqa: S103


def _wheels(image, versions, log):
    """Wheels of the image's pinned set for the suite's Python, once."""
    python = DEBIAN_PYTHON[versions['DEBIAN_SUITE']]
    major, minor = python.split('.')[:2]
    req = os.path.join(IMAGES_DIR, image.requirements)
    wheels = os.path.join(images_cache(), 'wheels', '%s-py%s-%s' % (
        image.name, python, _file_digest(req)[:16]))
    if os.path.exists(os.path.join(wheels, '.complete')):
        return wheels
    log('downloading the wheels of %s' % image.requirements)
    shutil.rmtree(wheels, ignore_errors=True)
    argv = [sys.executable, '-m', 'pip', 'download', '-q', '--no-deps',
            '--only-binary=:all:', '--python-version', python,
            '--implementation', 'cp', '--abi', 'cp%s%s' % (major, minor),
            '--dest', wheels, '-r', req]
    for platform in _WHEEL_PLATFORMS:
        argv += ['--platform', platform]
    _run(argv, env=_pip_env())
    open(os.path.join(wheels, '.complete'), 'w').close()
    # Wheels of the image's earlier pinned sets are not needed again.
    parent = os.path.dirname(wheels)
    for name in os.listdir(parent):
        if name.startswith(image.name + '-py') and name != os.path.basename(
                wheels):
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)
    return wheels


def _pip_env():
    """Only PyPI: the host's pip settings are not part of any recipe."""
    env = {k: v for k, v in os.environ.items() if not k.startswith('PIP_')}
    env['PIP_CACHE_DIR'] = os.path.join(paths.cache_dir(), 'pip')
    env['PIP_DISABLE_PIP_VERSION_CHECK'] = '1'
    cert = os.environ.get('PIP_CERT')
    if cert:
        env['PIP_CERT'] = cert  # how this host reaches PyPI, not content
    return env


def _rootfs_pause(image, workdir):
    binary = os.path.join(workdir, 'pause')
    _run(['gcc', '-Os', '-Wall', '-Werror', '-static', '-o', binary,
          os.path.join(IMAGES_DIR, 'pause.c')])
    _run(['strip', binary])
    rootfs = os.path.join(workdir, 'rootfs.tar')
    single_binary_rootfs(binary, 'pause', rootfs)
    return rootfs


def single_binary_rootfs(binary, name, rootfs):
    """A rootfs tar of one static binary at /<name>, owned by root."""
    with tarfile.open(rootfs, 'w') as tar:
        info = tar.gettarinfo(binary, arcname=name)
        info.uid = info.gid = 0
        info.uname = info.gname = 'root'
        info.mode = 0o755
        info.mtime = 0
        with open(binary, 'rb') as f:
            tar.addfile(info, f)


def _rootfs_debian(image, versions, workdir, log, essential=(),
                   mirrors=()):
    """The image's root file system as a tar in `workdir`.

    `essential`: directories of the staged files copied in before the
    packages install, for files their own scripts read; `mirrors`: apt
    sources besides MIRROR's suite (a "deb URI SUITE COMPONENT" line each).
    Neither shapes a container image (see agent_server).
    """
    stage = os.path.join(workdir, 'stage')
    os.makedirs(stage)
    _stage(image, versions, stage)
    wheels = _wheels(image, versions, log) if image.requirements else ''
    debs = os.path.join(paths.cache_dir(), 'debs', versions['DEBIAN_SUITE'])
    os.makedirs(debs, exist_ok=True)
    rootfs = os.path.join(workdir, 'rootfs.tar')
    argv = _mmdebstrap_argv(image, versions, stage, wheels, debs, rootfs)
    # Options go before the suite, output and mirror the argv ends with.
    hooks = []
    for path in essential:
        path = path.strip('/')
        hooks += ['--essential-hook=mkdir -p "$1"/%s' % path,
                  '--essential-hook=sync-in %s /%s' % (
                      os.path.join(stage, path), path)]
    argv = argv[:-3] + hooks + argv[-3:] + list(mirrors)
    # The chroot inherits the environment: none of the host's pip settings.
    env = {k: v for k, v in os.environ.items() if not k.startswith('PIP_')}
    _run(argv, env=env)
    return rootfs


def _podman_image_id(reference):
    proc = subprocess.run(
        list(PODMAN) + ['image', 'inspect', '--format', '{{.Id}}', reference],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _podman_label(reference):
    proc = subprocess.run(
        list(PODMAN) + ['image', 'inspect', '--format',
                        '{{index .Labels "%s"}}' % RECIPE_LABEL, reference],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return proc.stdout.strip() if proc.returncode == 0 else None


def _build(image, versions, log):
    """Build the image into podman's store and save its archive."""
    recipes.check_pin(image, versions)
    recipe_id = recipe_hash(image, versions)
    reference = recipes.ref(image.name, versions)
    archive = archive_path(image, versions)
    os.makedirs(images_cache(), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=images_cache(),
                                     prefix='build-') as workdir:
        if image.packages:
            rootfs = _rootfs_debian(image, versions, workdir, log)
        else:
            rootfs = _rootfs_pause(image, workdir)
        argv = list(PODMAN) + ['import', '--quiet']
        for change in _import_changes(image, recipe_id):
            argv += ['--change', change]
        with _replacing(reference):
            _run(argv + [rootfs, reference])
    _save(image, reference, archive)


@contextlib.contextmanager
def _replacing(reference):
    """The image the tag leaves goes, unless a container still uses it."""
    old = _podman_image_id(reference)
    yield
    if old and old != _podman_image_id(reference):
        subprocess.run(list(PODMAN) + ['rmi', old], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)


def _save(image, reference, archive):
    """podman's copy of the image as the cached docker-archive."""
    os.makedirs(images_cache(), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=images_cache(),
                                     prefix='save-') as workdir:
        partial = os.path.join(workdir, 'image.tar')
        _run(list(PODMAN) + ['save', '--quiet', '--format', 'docker-archive',
                             '-o', partial, reference])
        os.replace(partial, archive)
    _prune(image, archive)


def _prune(image, keep):
    """Older archives of the same image go: one per image is kept."""
    prefix = image.name + '-'
    for name in os.listdir(images_cache()):
        path = os.path.join(images_cache(), name)
        if (name.startswith(prefix) and name.endswith('.tar') and
                path != keep and name[len(prefix):].count('-') == 1):
            os.unlink(path)


@contextlib.contextmanager
def _build_lock():
    """One build at a time on this machine: they share the .deb cache."""
    os.makedirs(images_cache(), exist_ok=True)
    with open(os.path.join(images_cache(), '.build.lock'), 'w') as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def ensure(image, versions=None, log=print, load=True):
    """Build the image unless cached; load it into podman when `load`."""
    versions = versions or go.read_versions()
    reference = recipes.ref(image.name, versions)
    recipe_id = recipe_hash(image, versions)
    archive = archive_path(image, versions)
    if os.path.exists(archive) and (
            not load or _podman_label(reference) == recipe_id):
        return reference, archive
    # Loads too are one at a time: a test's build of the images it needs
    # may meet CI's background build of the same ones (.ci/run).
    with _build_lock():
        # Another process may have built or loaded it while this one waited.
        in_podman = _podman_label(reference) == recipe_id
        if os.path.exists(archive):
            pass
        elif in_podman:
            log('saving %s from podman' % reference)
            _save(image, reference, archive)
        else:
            log('building %s (recipe %s)' % (reference, recipe_id))
            _build(image, versions, log)
            in_podman = _podman_label(reference) == recipe_id
        if load and not in_podman:
            log('loading %s into podman' % reference)
            with _replacing(reference):
                _run(list(PODMAN) + ['load', '--quiet', '-i', archive])
    return reference, archive


def _selected(only):
    """The images named, or the default set (recipes.IMAGES): opt-in
    images (recipes.OPTIONAL_IMAGES) only when named."""
    if not only:
        return recipes.IMAGES
    unknown = sorted(set(only) - set(recipes.BY_NAME))
    if unknown:
        raise ValueError('unknown image(s) %s; known: %s' % (
            ', '.join(unknown), ', '.join(recipes.BY_NAME)))
    return tuple(i for i in recipes.ALL_IMAGES if i.name in only)


def build_all(log=print, only=None):
    """Build (or find cached) the images `only` names, or the default
    set; return their references."""
    versions = go.read_versions()
    return [ensure(i, versions, log)[0] for i in _selected(only)]


def archives(log=print):
    """Paths of docker-archive tars of every image, for `ctr import`."""
    versions = go.read_versions()
    return [ensure(i, versions, log)[1] for i in recipes.IMAGES]


# Read once, at import: the source of the code this process runs (a file
# edited later must not change the hashes of a running build).
_BUILDER_SOURCE = ''.join(inspect.getsource(f) for f in (
    _import_changes, _customize_script, _mmdebstrap_argv, _stage, _wheels,
    _rootfs_pause, single_binary_rootfs))
