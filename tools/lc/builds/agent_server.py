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

"""The server image of environments/nova-docker.yaml (issue 37, step 3): a
Debian server that runs Heat's agent chain and podman, booted by Nova with
direct kernel boot.

What it is, and why:

- A Debian root file system made as the container images are (a recipe
  that `images` builds with mmdebstrap: packages, files from
  tools/images/agent-server/, a pinned pip set, shell steps), with
  systemd as init: agent/install.py, the boot script Heat hands the
  server, enables a systemd unit running os-collect-config.
- Its kernel and an initrd generated in the chroot, booted directly
  (Glance's kernel_id and ramdisk_id, as guest.py's test guest): no
  partition table or boot loader. The initrd holds only what mounts
  root=/dev/vda on a QEMU machine (virtio, ext4, the root's fsck) and the
  config drive's CD-ROM drivers (INITRD_MODULES): it is smaller, and
  unpacks faster under emulation. The kernel is the one guest.py boots,
  the host's apt candidate; Debian's updates and security sources are
  the build's too, and the build fails if it installed another version,
  since the cache key names it.
- cloud-init reads only the config drive (the Nova here forces one), and
  runs Heat's SOFTWARE_CONFIG user data (a part handler, then the user
  script). Networking is ifupdown with isc-dhcp-client, which cloud-init
  22.4 on Debian renders (its ENI renderer comes first there): DHCP on
  the first NIC when the drive has no network_data.json.
- The agent's virtualenv (agent/install.py's VENV, complete with its
  marker) with AGENT_PACKAGES and what they need, pinned in
  tools/images/agent-server/requirements.txt and installed from wheels
  fetched at build time: the server has no route to PyPI. en_US.UTF-8
  is generated: os-collect-config's local collector needs it.
- podman (crun; the containers use the host's network) with the identity
  stack's container images (CONTAINER_IMAGES, at recipes.ref's tags)
  already in its overlay store: the server needs no registry and unpacks
  nothing at boot. The host's podman loads them into the rootfs's store
  (the same version as Debian's in the image), then forgets its database,
  which holds the host's paths.
- The disk is the root file system as ext4 on the whole disk, made by
  `mkfs.ext4 -d` (no loop mount), sized to what it holds plus HEADROOM
  (the containers' layers and data) in whole GiB, converted to qcow2,
  which leaves out the unused blocks, for a smaller upload.

Cached under ``<cache>/agent-server/<key>/`` (vmlinuz, initrd.img,
disk.qcow2 and image.json) where the key names the kernel and hashes the
recipe (packages, files, pinned set, shell steps), the apt sources, the
container images' recipe hashes and this builder's code.
"""

import hashlib
import inspect
import json
import math
import os
import shutil
import tempfile
import time

from tools.lc import paths
from tools.lc.builds import agent
from tools.lc.builds import debs
from tools.lc.builds import go
from tools.lc.builds import guest
from tools.lc.builds import images
from tools.lc.builds import recipes

NAME = 'agent-server'
KERNEL = guest.KERNEL
RAMDISK = guest.RAMDISK
DISK = 'disk.qcow2'
MANIFEST = 'image.json'
# The whole disk is root (no partitions); the serial console is what Nova
# logs (`openstack console log show`).
COMMAND_LINE = 'root=/dev/vda rw console=ttyS0'
# The identity stack on the docker backend (templates/identity.yaml).
CONTAINER_IMAGES = ('mariadb', 'memcached', 'keystone')
GRAPHROOT = '/var/lib/containers/storage'
STORAGE_CONF = '/etc/containers/storage.conf'
DATASOURCES = '/etc/cloud/cloud.cfg.d/99_heat-k8s.cfg'
# Room on the root for the containers' layers, data and logs.
HEADROOM = 1 << 30
GIB = 1 << 30
SECURITY_MIRROR = 'http://deb.debian.org/debian-security'
PACKAGES = (
    'systemd', 'systemd-sysv', 'udev', 'dbus', 'initramfs-tools', 'zstd',
    'e2fsprogs', 'cloud-init', 'ifupdown', 'isc-dhcp-client', 'netbase',
    'python3', 'python3-venv', 'podman', 'crun', 'ca-certificates',
    'iproute2', 'curl')
FILES = (
    ('agent-server/cloud.cfg', DATASOURCES, 0o644),
    ('agent-server/storage.conf', STORAGE_CONF, 0o644),
    ('agent-server/fstab', '/etc/fstab', 0o644),
    ('agent-server/initramfs.conf',
     '/etc/initramfs-tools/conf.d/heat-k8s', 0o644),
    ('agent-server/initramfs-hook', '/etc/initramfs-tools/hooks/heat-k8s',
     0o755),
)
# The repository's agent/ (install.py and what it installs), where
# templates/hosts/nova-docker.yaml's boot script runs its installer
# (ContainerHostAgentInstaller).
AGENT_HOME = '/usr/share/heat-k8s-agent'


def agent_files():
    """FILES entries of agent/install.py and its sources."""
    return tuple(
        (os.path.join('..', '..', 'agent', src), '%s/%s' % (AGENT_HOME, src),
         0o755 if src.endswith('.py') else 0o644)
        for src in ('install.py',) + tuple(agent.install_module().FILES))


# Staged before the packages: the kernel's postinst makes the initrd
# with initramfs-tools' settings.
ESSENTIAL = ('/etc/initramfs-tools',)
REQUIREMENTS = 'agent-server/requirements.txt'
# The drivers the initrd loads (tools/images/agent-server/initramfs-hook):
# root=/dev/vda's, and the config drive's, which must be there when
# cloud-init looks (under emulation the root's udev found it too late).
INITRD_MODULES = ('virtio_pci', 'virtio_blk', 'virtio_net', 'crc32c_generic',
                  'ext4', 'ata_piix', 'ahci', 'sr_mod', 'isofs')


def _script(kernel, kernel_version):
    """Shell steps in the chroot, after the agent's venv is made."""
    install = agent.install_module()
    return '\n'.join([
        # The key names the kernel: it must be the one installed.
        'v=$(dpkg-query -W -f \'${Version}\' %s)' % kernel,
        '[ "$v" = "%s" ] || { echo "%s is $v, not %s: apt-get update on '
        'the host" >&2; exit 1; }' % (kernel_version, kernel,
                                       kernel_version),
        'for m in %s; do lsinitramfs /boot/initrd.img-* | '
        'grep -q "/$m\\.ko" || { echo "initrd without $m" >&2; exit 1; }; '
        'done' % ' '.join(INITRD_MODULES),
        'lsinitramfs /boot/initrd.img-* | grep -q "/e2fsck$" || '
        '{ echo "initrd without e2fsck" >&2; exit 1; }',
        '%s/bin/os-collect-config --help >/dev/null' % install.VENV,
        'touch %s/%s' % (install.VENV, install.VENV_COMPLETE),
        # The build machine's name and resolver are not the server's
        # (cloud-init sets its name, dhclient its resolver).
        'echo localhost >/etc/hostname',
        'rm -f /etc/resolv.conf',
        # os-collect-config's local collector restores the locale Python
        # reports, en_US.UTF-8 even for C.UTF-8 (its alias table), and
        # failed on every poll while it was not generated; cloud-init's
        # default locale, which it then leaves alone.
        "echo 'en_US.UTF-8 UTF-8' >/etc/locale.gen",
        'locale-gen',
        'update-locale LANG=en_US.UTF-8',
        # The server has no route to Debian's mirrors.
        'systemctl mask apt-daily.timer apt-daily-upgrade.timer',
    ]) + '\n'


def recipe(kernel, kernel_version):
    """The image's root file system as an `images` recipe."""
    return recipes.Image(
        name=NAME, version_key='DEBIAN_SUITE',
        packages=PACKAGES + (kernel,), files=FILES + agent_files(),
        requirements=REQUIREMENTS, venv=agent.install_module().VENV,
        script=_script(kernel, kernel_version))


def mirrors(suite):
    """apt sources besides images.MIRROR's suite: a server's updates."""
    return ['deb %s %s-updates main' % (images.MIRROR, suite),
            'deb %s %s-security main' % (SECURITY_MIRROR, suite)]


def check_pins(images_dir=images.IMAGES_DIR):
    """The pinned set holds agent/install.py's AGENT_PACKAGES."""
    with open(os.path.join(images_dir, REQUIREMENTS)) as f:
        lines = {line.strip().lower() for line in f}
    missing = [p for p in agent.install_module().AGENT_PACKAGES
               if p.lower() not in lines]
    if missing:
        raise RuntimeError('%s does not pin %s (agent/install.py): '
                           'regenerate it with pip freeze'
                           % (REQUIREMENTS, ', '.join(missing)))


def key(versions, kernel, kernel_version, images_dir=images.IMAGES_DIR):
    """The cache key: the kernel, and a hash of all that goes in."""
    text = json.dumps({
        'recipe': images.recipe(recipe(kernel, kernel_version), versions,
                                images_dir),
        'mirrors': mirrors(versions['DEBIAN_SUITE']),
        'containers': {n: images.recipe_hash(recipes.BY_NAME[n], versions,
                                             images_dir)
                       for n in CONTAINER_IMAGES},
        'builder': _BUILDER_SOURCE,
    }, sort_keys=True)
    return '%s-%s-%s' % (kernel, kernel_version,
                         hashlib.sha256(text.encode()).hexdigest()[:12])


def disk_gib_for(used):
    """The disk's size in GiB for `used` bytes of files."""
    return math.ceil((used + HEADROOM) / GIB)


def disk_gib(directory):
    """The built disk's virtual size in GiB: a flavor's smallest disk."""
    with open(os.path.join(directory, MANIFEST)) as f:
        return json.load(f)['disk_gib']


def _cache():
    return os.path.join(paths.cache_dir(), NAME)


def ensure(log=print):
    """The directory holding vmlinuz, initrd.img, disk.qcow2 and
    image.json, built when missing."""
    versions = go.read_versions()
    kernel = guest.kernel_package()
    kernel_version = guest.package_version(kernel)
    out = os.path.join(_cache(), key(versions, kernel, kernel_version))
    if os.path.exists(os.path.join(out, MANIFEST)):
        return out
    check_pins()
    debs.ensure({'qemu-utils': '/usr/bin/qemu-img'}, log=log)
    # Before the build lock, which images.ensure takes itself.
    archives = [images.ensure(recipes.BY_NAME[n], versions, log,
                              load=False)[1] for n in CONTAINER_IMAGES]
    with images._build_lock():
        if not os.path.exists(os.path.join(out, MANIFEST)):
            _build(versions, kernel, kernel_version, archives, out, log)
    return out


def _build(versions, kernel, kernel_version, archives, out, log):
    started = time.monotonic()
    os.makedirs(_cache(), exist_ok=True)
    with tempfile.TemporaryDirectory(dir=_cache(), prefix='build-') as work:
        log('server image: mmdebstrap with %s' % kernel)
        tar = images._rootfs_debian(
            recipe(kernel, kernel_version), versions, work, log,
            essential=ESSENTIAL, mirrors=mirrors(versions['DEBIAN_SUITE']))
        root = os.path.join(work, 'root')
        os.makedirs(root)
        images._run(['tar', '-C', root, '--numeric-owner', '--xattrs',
                     '--xattrs-include=*', '-xpf', tar])
        os.unlink(tar)
        log('server image: loading %s into its podman store'
            % ', '.join(CONTAINER_IMAGES))
        _preload(root, archives, versions)
        staged = os.path.join(work, 'out')
        os.makedirs(staged)
        for name, prefix in ((KERNEL, 'vmlinuz-'), (RAMDISK, 'initrd.img-')):
            [found] = [n for n in os.listdir(os.path.join(root, 'boot'))
                       if n.startswith(prefix)]
            shutil.copy(os.path.join(root, 'boot', found),
                        os.path.join(staged, name))
        log('server image: the disk')
        gib = _disk(root, work, os.path.join(staged, DISK))
        with open(os.path.join(staged, MANIFEST), 'w') as f:
            json.dump({'kernel': kernel, 'kernel_version': kernel_version,
                       'command_line': COMMAND_LINE, 'disk_gib': gib,
                       'containers': [recipes.ref(n, versions)
                                      for n in CONTAINER_IMAGES],
                       'build_seconds': round(time.monotonic() - started)},
                      f, indent=1, sort_keys=True)
        shutil.rmtree(out, ignore_errors=True)
        os.rename(staged, out)
    _prune(out)


def _preload(root, archives, versions):
    """The archives loaded into the rootfs's podman store."""
    graph = os.path.join(root, GRAPHROOT.lstrip('/'))
    # In /tmp: podman takes no runroot longer than 50 characters.
    with tempfile.TemporaryDirectory(prefix='heat-k8s-podman-') as run:
        podman = ['podman', '--root', graph, '--runroot', run, '--tmpdir',
                  os.path.join(run, 'libpod'), '--storage-driver', 'overlay',
                  '--events-backend', 'none']
        # The server's storage options, not this machine's.
        env = dict(os.environ, CONTAINERS_STORAGE_CONF=os.path.join(
            root, STORAGE_CONF.lstrip('/')))
        for archive in archives:
            images._run(podman + ['load', '--quiet', '-i', archive], env=env)
        listed = images._run(podman + ['images', '--format',
                                       '{{.Repository}}:{{.Tag}}'],
                             env=env).split()
    missing = [recipes.ref(n, versions) for n in CONTAINER_IMAGES
               if recipes.ref(n, versions) not in listed]
    if missing:
        raise RuntimeError('not in the server image: %s (it has %s)'
                           % (', '.join(missing), ', '.join(listed)))
    # podman's database records this machine's paths, which the server's
    # podman would refuse; it holds no image, and is made again at boot.
    shutil.rmtree(os.path.join(graph, 'libpod'))


def _disk(root, work, qcow2):
    """`root` as an ext4 file system on a whole disk, as qcow2; its GiB."""
    used = int(images._run(['du', '-s', '--block-size=1', root]).split()[0])
    gib = disk_gib_for(used)
    raw = os.path.join(work, 'disk.raw')
    with open(raw, 'wb') as f:
        f.truncate(gib * GIB)
    images._run(['mkfs.ext4', '-q', '-F', '-L', 'root', '-d', root, raw])
    images._run(['qemu-img', 'convert', '-O', 'qcow2', raw, qcow2])
    return gib


def _prune(keep):
    """Earlier builds go: the newest is the one used."""
    for name in os.listdir(_cache()):
        path = os.path.join(_cache(), name)
        if path != keep and not name.startswith('build-') and \
                os.path.isdir(path):
            shutil.rmtree(path, ignore_errors=True)


# Read once, at import, as images does: the code this process builds with.
_BUILDER_SOURCE = ''.join(inspect.getsource(f) for f in (
    _script, recipe, mirrors, _build, _preload, _disk)) + repr(
    (PACKAGES, FILES, ESSENTIAL, HEADROOM, GRAPHROOT, INITRD_MODULES))
