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


"""The git repositories devstack would clone, from local snapshots.

devstack clones nothing that already exists in /opt/stack, and with
ERROR_ON_CLONE=True dies on any clone it would make: each project below is
cloned here from a snapshot (a git directory) first. Snapshots are looked
for in HEAT_K8S_DEVSTACK_SNAPSHOTS (default /work/.mirror), as
``openstack+<name>/repo`` (the layout of the developers' `fetch`),
``<name>.git`` or ``<name>``. heat-k8s itself is a clone of this checkout,
with its uncommitted changes.
"""

import os
import shutil
import subprocess

from tools.lc import paths

ENV = 'HEAT_K8S_DEVSTACK_SNAPSHOTS'
DEFAULT_DIR = '/work/.mirror'
# What stack.sh clones with Keystone, MySQL, RabbitMQ and Heat's plugin
# (devstack itself runs from its clone).
PROJECTS = ('devstack', 'requirements', 'keystone', 'heat')
PLUGIN = 'heat-k8s'


class Missing(Exception):
    """No snapshot of a project: the message says where it was looked for."""


def snapshot_dir():
    return os.environ.get(ENV) or DEFAULT_DIR


def _candidates(name, top):
    return (os.path.join(top, 'openstack+' + name, 'repo'),
            os.path.join(top, name + '.git'), os.path.join(top, name))


def _is_git_dir(path):
    return subprocess.run(
        ['git', '--git-dir=' + path, 'rev-parse', '--verify', '-q', 'HEAD'],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0


def find(name, top=None):
    """The git directory of project `name`'s snapshot."""
    top = top or snapshot_dir()
    for path in _candidates(name, top):
        git_dir = os.path.join(path, '.git') if os.path.isdir(
            os.path.join(path, '.git')) else path
        if os.path.isdir(git_dir) and _is_git_dir(git_dir):
            return git_dir
    raise Missing(
        'no snapshot of openstack/%s in %s (%s: a git directory at %s); '
        'bring one with the fetch tool (github:openstack/%s)' % (
            name, top, ENV, ' or '.join(_candidates(name, top)), name))


def missing(top=None, projects=PROJECTS):
    """Why the snapshots cannot be used, or '' when they all exist."""
    for name in projects:
        try:
            find(name, top)
        except Missing as e:
            return str(e)
    return ''


def _git(*args, cwd=None):
    return subprocess.run(['git'] + list(args), cwd=cwd, check=True,
                          capture_output=True, text=True).stdout.strip()


def clone_all(dest, top=None):
    """Clone every project into `dest` (devstack's DEST); returns
    {name: commit} of what was cloned, heat-k8s included."""
    commits = {}
    for name in PROJECTS:
        target = os.path.join(dest, name)
        # A local clone: only the checked-out tree's objects are needed
        # (a snapshot may lack some old blob).
        _git('clone', '--quiet', find(name, top), target)
        commits[name] = _git('rev-parse', 'HEAD', cwd=target)
    commits[PLUGIN] = clone_checkout(os.path.join(dest, PLUGIN))
    return commits


def clone_checkout(target):
    """This checkout at HEAD, plus what is being tried: its uncommitted
    changes and new files (not those git ignores); returns HEAD's
    commit."""
    _git('clone', '--quiet', paths.REPO_DIR, target)
    diff = subprocess.run(['git', 'diff', '--binary', 'HEAD'],
                          cwd=paths.REPO_DIR, check=True,
                          capture_output=True).stdout
    if diff:
        subprocess.run(['git', 'apply', '--whitespace=nowarn'], cwd=target,
                       input=diff, check=True, capture_output=True)
    new = _git('ls-files', '--others', '--exclude-standard', '-z',
               cwd=paths.REPO_DIR)
    for name in filter(None, new.split('\0')):
        os.makedirs(os.path.dirname(os.path.join(target, name)),
                    exist_ok=True)
        shutil.copy2(os.path.join(paths.REPO_DIR, name),
                     os.path.join(target, name))
    return _git('rev-parse', 'HEAD', cwd=target)
