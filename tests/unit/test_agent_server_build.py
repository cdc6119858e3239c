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

"""The nova-docker server image (tools/lc/builds/agent_server.py): what
its cache key covers and the files that decide how it boots. No build:
the key is computed for a kernel named here, from a copy of
tools/images."""

import os
import shutil

import pytest
import tomllib
import yaml

from tools.lc.builds import agent
from tools.lc.builds import agent_server
from tools.lc.builds import go
from tools.lc.builds import images

KERNEL = 'linux-image-6.1.0-99-amd64'
VERSION = '6.1.999-1'


def _file(name):
    with open(os.path.join(images.IMAGES_DIR, 'agent-server', name)) as f:
        return f.read()


@pytest.fixture
def images_dir(tmp_path):
    # As in the repository: agent/ is ../../agent from tools/images.
    copy = tmp_path / 'tools' / 'images'
    shutil.copytree(images.IMAGES_DIR, copy)
    shutil.copytree(os.path.join(images.IMAGES_DIR, '..', '..', 'agent'),
                    tmp_path / 'agent')
    return str(copy)


def _key(images_dir, versions=None, kernel=KERNEL, version=VERSION):
    return agent_server.key(versions or go.read_versions(), kernel, version,
                            images_dir)


def test_the_key_names_the_kernel_and_is_stable(images_dir):
    key = _key(images_dir)
    assert key.startswith('%s-%s-' % (KERNEL, VERSION))
    assert _key(images_dir) == key


def test_the_key_changes_with_the_kernel(images_dir):
    key = _key(images_dir)
    assert _key(images_dir, version='6.1.999-2') != key
    assert _key(images_dir, kernel='linux-image-6.1.0-98-amd64') != key


@pytest.mark.parametrize('name', [
    'agent-server/requirements.txt',     # the agent's pinned set
    'agent-server/cloud.cfg',            # a file of the server's
    'agent-server/initramfs-hook',       # one the kernel's postinst reads
    'keystone/requirements.txt',         # a preloaded image's recipe
    'mariadb/entrypoint',
    '../../agent/hooks/docker_cmd.py',   # the agent the image carries
])
def test_the_key_changes_with_a_file_that_goes_in(images_dir, name):
    key = _key(images_dir)
    with open(os.path.join(images_dir, name), 'a') as f:
        f.write('\n# changed\n')
    assert _key(images_dir) != key


def test_the_key_changes_with_a_preloaded_image_s_version(images_dir):
    versions = go.read_versions()
    key = _key(images_dir, versions)
    assert _key(images_dir, dict(versions, KEYSTONE_VERSION='0.0.1')) != key


def test_the_key_changes_with_the_packages(images_dir, monkeypatch):
    key = _key(images_dir)
    monkeypatch.setattr(agent_server, 'PACKAGES',
                        agent_server.PACKAGES + ('openssh-server',))
    assert _key(images_dir) != key


def test_cloud_init_reads_the_config_drive_only():
    config = yaml.safe_load(_file('cloud.cfg'))
    assert config['datasource_list'] == ['ConfigDrive', 'None']
    files = {dest: src for src, dest, _ in agent_server.FILES}
    assert files[agent_server.DATASOURCES] == 'agent-server/cloud.cfg'
    # After Debian's own 90_dpkg.cfg, which lists every datasource.
    assert os.path.basename(agent_server.DATASOURCES) > '90_dpkg.cfg'


def test_podman_s_store_is_where_the_images_were_loaded():
    storage = tomllib.loads(_file('storage.conf'))['storage']
    assert storage['driver'] == 'overlay'
    assert storage['graphroot'] == agent_server.GRAPHROOT
    files = {dest: src for src, dest, _ in agent_server.FILES}
    assert files[agent_server.STORAGE_CONF] == 'agent-server/storage.conf'


def test_the_kernel_mounts_the_whole_disk_as_root():
    args = agent_server.COMMAND_LINE.split()
    assert 'root=/dev/vda' in args and 'rw' in args
    assert args[-1] == 'console=ttyS0'   # the console Nova logs
    [root] = [line.split() for line in _file('fstab').splitlines()
              if line and not line.startswith('#')]
    assert root[:3] == ['/dev/vda', '/', 'ext4']


def test_the_initrd_loads_the_root_s_drivers():
    conf = _file('initramfs.conf').splitlines()
    assert 'MODULES=list' in conf and 'FSTYPE=ext4' in conf
    hook = _file('initramfs-hook').replace('\\\n', ' ')
    [loop] = [line for line in hook.splitlines()
              if line.startswith('for module in')]
    listed = loop.split(';')[0].split()[3:]
    assert listed == list(agent_server.INITRD_MODULES)
    # The postinst that makes the initrd finds them staged already.
    for src, dest, _ in agent_server.FILES:
        if 'initramfs' in src:
            assert any(dest.startswith(p + '/')
                       for p in agent_server.ESSENTIAL), dest


def test_the_venv_is_the_one_the_boot_script_checks():
    install = agent.install_module()
    image = agent_server.recipe(KERNEL, VERSION)
    assert image.venv == install.VENV
    assert '%s/%s' % (install.VENV, install.VENV_COMPLETE) in image.script
    agent_server.check_pins()


def test_a_pinned_set_without_the_agent_is_refused(images_dir):
    path = os.path.join(images_dir, agent_server.REQUIREMENTS)
    with open(path) as f:
        kept = [line for line in f if not line.startswith('os-apply-config')]
    with open(path, 'w') as f:
        f.writelines(kept)
    with pytest.raises(RuntimeError, match='os-apply-config==14.1.0'):
        agent_server.check_pins(images_dir)


def test_the_disk_holds_the_files_and_the_headroom_in_whole_gib():
    gib = agent_server.GIB
    assert agent_server.disk_gib_for(0) == 1
    assert agent_server.disk_gib_for(1) == 2
    assert agent_server.disk_gib_for(gib) == 2
    assert agent_server.disk_gib_for(int(1.5 * gib)) == 3


def test_the_image_carries_the_agent_the_boot_script_runs():
    carried = {dest for _, dest, _ in agent_server.agent_files()}
    install = agent.install_module()
    assert carried == {'%s/%s' % (agent_server.AGENT_HOME, src)
                       for src in ('install.py',) + tuple(install.FILES)}
    with open(os.path.join(images.IMAGES_DIR, '..', '..', 'templates',
                           'hosts', 'nova-docker.yaml')) as f:
        host = yaml.safe_load(f)
    assert host['parameters']['ContainerHostAgentInstaller']['default'] == (
        agent_server.AGENT_HOME + '/install.py')

