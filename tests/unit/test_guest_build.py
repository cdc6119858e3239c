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

"""The guest's initramfs (tools/lc/builds/guest.py): its drivers' load
order and the archive the kernel unpacks. The dependency table is
hand-made, after the `depends=` of Debian's 6.1 modules."""

import pytest

from tools.lc.builds import guest

# virtio_pci's and virtio_net's, as their .modinfo lists them.
HANDMADE_DEPENDS = {
    'virtio_ring': [], 'virtio': ['virtio_ring'],
    'virtio_pci_modern_dev': [], 'virtio_pci_legacy_dev': [],
    'virtio_pci': ['virtio_ring', 'virtio_pci_modern_dev',
                   'virtio_pci_legacy_dev', 'virtio'],
    'failover': [], 'net_failover': ['failover'],
    'virtio_net': ['virtio_ring', 'virtio', 'net_failover'],
}


def test_each_module_loads_after_what_it_depends_on():
    order = guest.load_order(['virtio_net', 'virtio_pci'], HANDMADE_DEPENDS)
    assert sorted(order) == sorted(HANDMADE_DEPENDS)
    for module, deps in HANDMADE_DEPENDS.items():
        for dep in deps:
            assert order.index(dep) < order.index(module), (dep, module)


def test_a_missing_module_or_a_loop_is_an_error():
    with pytest.raises(RuntimeError, match='no kernel module isofs'):
        guest.load_order(['isofs'], HANDMADE_DEPENDS)
    with pytest.raises(RuntimeError, match='a -> b -> a'):
        guest.load_order(['a'], {'a': ['b'], 'b': ['a']})


def test_depends_is_read_from_modinfo():
    ko = b'\x7fELF...\0license=GPL\0depends=scsi_mod,cdrom\0intree=Y\0'
    assert guest._depends(ko) == ['scsi_mod', 'cdrom']
    assert guest._depends(b'\0depends=\0vermagic=6.1\0') == []
    assert guest._depends(b'\0license=GPL\0') == []


def _unpack(archive):
    """The newc archive read back: {name: (mode, data)}."""
    files, at = {}, 0
    while True:
        header = archive[at:at + 110].decode()
        assert header[:6] == '070701'
        fields = [int(header[6 + 8 * i:14 + 8 * i], 16) for i in range(13)]
        mode, size, namesize = fields[1], fields[6], fields[11]
        at += 110
        name = archive[at:at + namesize - 1].decode()
        at += namesize + (-(110 + namesize) % 4)
        assert at % 4 == 0
        if name == 'TRAILER!!!':
            return files
        files[name] = (mode, archive[at:at + size])
        at += size + (-size % 4)


def test_the_archive_holds_each_entry_aligned():
    archive = guest._cpio([('bin', 0o40755, b''),
                           ('init', 0o100755, b'#!/bin/sh\n'),
                           ('lib/x.ko', 0o100644, b'\0' * 5)])
    assert _unpack(archive) == {'bin': (0o40755, b''),
                                'init': (0o100755, b'#!/bin/sh\n'),
                                'lib/x.ko': (0o100644, b'\0' * 5)}
    assert len(archive) % 4 == 0
