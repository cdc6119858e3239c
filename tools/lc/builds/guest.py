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

"""The server image that Nova boots in tests (issue 37): Debian's kernel
and an initramfs of busybox, built here from two Debian packages.

A kernel Nova boots directly (Glance's kernel_id and ramdisk_id) rather
than a disk image: no partition table, boot loader or root filesystem to
make, nothing that needs loop devices or root; the initramfs is the whole
system (tools/images/guest/init). Cached under ``<cache>/guest/`` by the
kernel's package version and a hash of the files.
"""

import gzip
import hashlib
import io
import os
import shutil
import subprocess
import tempfile

from tools.lc import paths

GUEST_DIR = os.path.join(paths.TOOLS_DIR, 'images', 'guest')
KERNEL_PACKAGE = 'linux-image-amd64'
BUSYBOX_PACKAGE = 'busybox-static'
FILES = (('init', 'init', 0o755), ('udhcpc.sh', 'etc/udhcpc.sh', 0o755))
# The drivers the guest loads (tools/images/guest/modules), with what they
# depend on, in an order insmod can load them.
MODULES = 'modules'
KERNEL = 'vmlinuz'
RAMDISK = 'initrd.img'
# What the kernel is told: the serial console, which Nova logs (`openstack
# console log show`), and no root device to wait for.
COMMAND_LINE = 'console=ttyS0 panic=10 rdinit=/init'


def kernel_package():
    """The versioned kernel package the metapackage depends on."""
    out = subprocess.run(['apt-cache', 'depends', KERNEL_PACKAGE],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        line = line.strip()
        if line.startswith('Depends: linux-image-'):
            return line.split()[1]
    raise RuntimeError('%s depends on no kernel:\n%s' % (KERNEL_PACKAGE, out))


def package_version(package):
    out = subprocess.run(['apt-cache', 'show', '--no-all-versions', package],
                         capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        if line.startswith('Version: '):
            return line.split()[1]
    raise RuntimeError('no version of %s' % package)


def _key(kernel):
    digest = hashlib.sha256()
    for name in [n for n, _, _ in FILES] + [MODULES]:
        with open(os.path.join(GUEST_DIR, name), 'rb') as f:
            digest.update(name.encode() + b'\0' + f.read())
    digest.update(package_version(BUSYBOX_PACKAGE).encode())
    return '%s-%s-%s' % (kernel, package_version(kernel),
                         digest.hexdigest()[:12])


def ensure(log=print):
    """The directory holding vmlinuz and initrd.img, built when missing."""
    kernel = kernel_package()
    out = os.path.join(paths.cache_dir(), 'guest', _key(kernel))
    if os.path.exists(os.path.join(out, RAMDISK)):
        return out
    log('guest image: %s and %s' % (kernel, BUSYBOX_PACKAGE))
    with tempfile.TemporaryDirectory(prefix='heat-k8s-guest-') as work:
        subprocess.run(['apt-get', 'download', kernel, BUSYBOX_PACKAGE],
                       cwd=work, check=True, capture_output=True)
        root = os.path.join(work, 'root')
        for deb in sorted(os.listdir(work)):
            if deb.endswith('.deb'):
                subprocess.run(['dpkg-deb', '-x', os.path.join(work, deb),
                                root], check=True)
        staged = os.path.join(work, 'out')
        os.makedirs(staged)
        [vmlinuz] = [n for n in os.listdir(os.path.join(root, 'boot'))
                     if n.startswith('vmlinuz-')]
        shutil.copy(os.path.join(root, 'boot', vmlinuz),
                    os.path.join(staged, KERNEL))
        with open(os.path.join(staged, RAMDISK), 'wb') as f:
            f.write(gzip.compress(_initramfs(root), mtime=0))
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.rmtree(out, ignore_errors=True)
        os.rename(staged, out)
    return out


def _initramfs(root):
    """The newc cpio archive: busybox, the modules listed, our files."""
    entries = [('dev', 0o40755, b''), ('proc', 0o40755, b''),
               ('sys', 0o40755, b''), ('bin', 0o40755, b''),
               ('etc', 0o40755, b''), ('lib', 0o40755, b''),
               ('lib/modules', 0o40755, b''), ('tmp', 0o41777, b'')]
    with open(os.path.join(root, 'bin', 'busybox'), 'rb') as f:
        entries.append(('bin/busybox', 0o100755, f.read()))
    for name, path, mode in FILES:
        with open(os.path.join(GUEST_DIR, name), 'rb') as f:
            entries.append((path, 0o100000 | mode, f.read()))
    with open(os.path.join(GUEST_DIR, MODULES)) as f:
        wanted = f.read().split()
    found = {}
    for top, _, files in os.walk(os.path.join(root, 'lib', 'modules')):
        for n in files:
            if n.endswith('.ko'):
                with open(os.path.join(top, n), 'rb') as f:
                    found[n[:-3]] = f.read()
    order = load_order(wanted, {m: _depends(ko) for m, ko in found.items()})
    for module in order:
        entries.append(('lib/modules/%s.ko' % module, 0o100644,
                        found[module]))
    entries.append(('lib/modules/order', 0o100644,
                    ''.join(m + '\n' for m in order).encode()))
    return _cpio(entries)


def _depends(ko):
    """A module's `depends=` (its .modinfo section), as names."""
    start = ko.find(b'\0depends=')
    if start < 0:
        return []
    value = ko[start + 9:ko.index(b'\0', start + 1)].decode()
    return [d for d in value.split(',') if d]


def load_order(wanted, depends):
    """`wanted` and what they depend on, each after its dependencies."""
    order = []

    def visit(module, path=()):
        if module in order:
            return
        if module in path:
            raise RuntimeError('modules depend in a loop: %s'
                               % ' -> '.join(path + (module,)))
        if module not in depends:
            raise RuntimeError('no kernel module %s' % module)
        for dep in depends[module]:
            visit(dep, path + (module,))
        order.append(module)

    for module in wanted:
        visit(module)
    return order


def _cpio(entries):
    buf = io.BytesIO()
    for ino, (name, mode, data) in enumerate(
            entries + [('TRAILER!!!', 0, b'')], start=1):
        encoded = name.encode() + b'\0'
        nlink = 2 if mode & 0o40000 else 1
        header = '070701' + ''.join('%08X' % v for v in (
            ino, mode, 0, 0, nlink, 0, len(data), 0, 0, 0, 0,
            len(encoded), 0))
        buf.write(header.encode() + encoded)
        buf.write(b'\0' * (-buf.tell() % 4))
        buf.write(data)
        buf.write(b'\0' * (-buf.tell() % 4))
    return buf.getvalue()
