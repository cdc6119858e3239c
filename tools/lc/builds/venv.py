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

"""The cloud's Python virtualenvs: Heat's and Keystone's, and the client's.

``<cache>/venv/cloud-<key>`` holds Keystone, Heat, uWSGI and everything
they import; ``<cache>/venv/client-<key>`` holds only the command line a
user types (python-openstackclient, python-heatclient and heat-k8s's
``openstack stack kubernetes export``). The client has its own because
``openstack`` loads every client plugin installed beside it: in the cloud
virtualenv (Heat pulls in some twenty service clients) each command spent
1.3 s before it did anything, 0.85 s in the client's own. Each key derives
from that virtualenv's pins in tools/versions.env and the Python version,
so it is created once (minutes) and reused (a warm start checks a marker
file). heat-k8s itself is installed editable; that step re-runs only when
its packaging files change.

``tools/localcloud up --heat-series <series>`` runs the cloud on an older
supported Heat: its cloud virtualenv, ``cloud-<series>-<key>``, holds that
series' Heat and Keystone (tools/versions.env) and everything else as
that series' upper-constraints pin it (tools/constraints/), heat-k8s
included, as an operator's Heat environment would be built.
"""

import hashlib
import os
import shutil
import subprocess
import sys

from tools.lc import paths
from tools.lc.builds import go

CLOUD = 'cloud'
CLIENT = 'client'
PACKAGES = {
    CLOUD: (
        ('openstack-heat', 'HEAT_VERSION'),
        ('keystone', 'KEYSTONE_VERSION'),
        ('uwsgi', 'UWSGI_VERSION'),
        ('python-openstackclient', 'OPENSTACKCLIENT_VERSION'),
        ('python-heatclient', 'HEATCLIENT_VERSION'),
        ('python-blazarclient', 'BLAZARCLIENT_VERSION'),
        ('PyMySQL', 'PYMYSQL_VERSION'),
        ('kubernetes', 'KUBERNETES_PYTHON_VERSION'),
    ),
    CLIENT: (
        ('python-openstackclient', 'OPENSTACKCLIENT_VERSION'),
        ('python-heatclient', 'HEATCLIENT_VERSION'),
        ('kubernetes', 'KUBERNETES_PYTHON_VERSION'),
    ),
}
# The series the default pins above stand for; older ones, for --heat-series.
NEWEST_SERIES = '2026.2'
SERIES = ('2025.1', '2025.2', '2026.1', NEWEST_SERIES)
# An older series' cloud: these pinned from tools/versions.env, the rest
# of PACKAGES[CLOUD] as the series' upper-constraints pin them.
SERIES_PINNED = (('openstack-heat', 'HEAT_%s_VERSION'),
                 ('keystone', 'KEYSTONE_%s_VERSION'),
                 ('uwsgi', 'UWSGI_VERSION'))
COMPLETE = '.complete'
PACKAGE_STAMP = '.heat-k8s-stamp'
PACKAGING_FILES = ('setup.cfg', 'setup.py', 'pyproject.toml',
                   'requirements.txt')


def older_series(series):
    """`series` if it is an older supported one (its own pins and
    constraints), None for the newest (the default pins)."""
    if series in (None, NEWEST_SERIES):
        return None
    if series not in SERIES:
        raise ValueError('no Heat series %s; supported: %s'
                         % (series, ', '.join(SERIES)))
    return series


def constraints(series):
    """The series' upper-constraints file (tools/constraints/)."""
    return os.path.join(paths.REPO_DIR, 'tools', 'constraints',
                        'upper-constraints-%s.txt' % series)


def requirements(versions=None, which=CLOUD, series=None):
    versions = versions or go.read_versions()
    if which == CLOUD and older_series(series):
        suffix = series.replace('.', '_')
        pinned = ['%s==%s' % (name, versions[key % suffix if '%' in key
                                               else key])
                  for name, key in SERIES_PINNED]
        named = {name for name, _ in SERIES_PINNED}
        return pinned + [
            name for name, _ in PACKAGES[CLOUD]
            if name not in named and name != 'python-blazarclient']
    return ['%s==%s' % (name, versions[key]) for name, key in PACKAGES[which]]


def key(versions=None, which=CLOUD, series=None):
    py = '%d.%d' % sys.version_info[:2]
    lines = [py] + requirements(versions, which, series)
    if which == CLOUD and older_series(series):
        with open(constraints(series), 'rb') as f:
            lines.append(hashlib.sha256(f.read()).hexdigest())
    digest = hashlib.sha256('\n'.join(lines).encode()).hexdigest()[:12]
    return 'py%s-%s' % (py, digest)


def path(versions=None, which=CLOUD, series=None):
    name = which if not (which == CLOUD and older_series(series)) else (
        '%s-%s' % (which, series))
    return os.path.join(paths.cache_dir(), 'venv',
                        '%s-%s' % (name, key(versions, which, series)))


def bin_dir(venv=None):
    return os.path.join(venv or path(), 'bin')


def _run(argv, **kwargs):
    out = subprocess.run(argv, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True, **kwargs)
    if out.returncode:
        raise RuntimeError('%s failed:\n%s' % (' '.join(argv), out.stdout))


def ensure(log=print, repo=paths.REPO_DIR, series=None):
    """Both virtualenvs, created when missing, with heat-k8s (re)installed
    when changed; the cloud's path (`series`' cloud for an older one)."""
    for which in (CLOUD, CLIENT):
        _ensure(which, log, repo, series if which == CLOUD else None)
    return path(series=series)


def _ensure(which, log, repo, series=None):
    venv = path(which=which, series=series)
    pip = [os.path.join(venv, 'bin', 'python'), '-m', 'pip', '-q',
           '--disable-pip-version-check']
    install = pip + ['install']
    tools = ['pip', 'setuptools', 'wheel', 'pbr']
    if older_series(series):
        install += ['-c', constraints(series)]
        # 2025.1's yaql imports pkg_resources, which setuptools 81 removed.
        tools = ['pip', 'setuptools<81', 'wheel', 'pbr']
    if not os.path.exists(os.path.join(venv, COMPLETE)):
        # A venv is not relocatable (script shebangs hold its path), so it
        # is built in place and marked complete last; a partial one is
        # removed and built again.
        if os.path.isdir(venv):
            shutil.rmtree(venv)
        log('creating the %s virtualenv %s (takes minutes)' % (which, venv))
        _run([sys.executable, '-m', 'venv', venv])
        _run(install + ['--upgrade'] + tools)
        _run(install + requirements(which=which, series=series))
        open(os.path.join(venv, COMPLETE), 'w').close()
    stamp = _packaging_digest(repo)
    stamp_file = os.path.join(venv, PACKAGE_STAMP)
    try:
        with open(stamp_file) as f:
            current = f.read()
    except OSError:
        current = None
    if current != stamp:
        log('installing heat-k8s from %s into the %s virtualenv'
            % (repo, which))
        _run(install + ['--no-build-isolation', '-e', repo],
             env=dict(os.environ, PBR_VERSION='0.1.0'))
        with open(stamp_file, 'w') as f:
            f.write(stamp)


def _packaging_digest(repo):
    h = hashlib.sha256(os.path.realpath(repo).encode())
    for name in PACKAGING_FILES:
        try:
            with open(os.path.join(repo, name), 'rb') as f:
                h.update(name.encode() + b'\0' + f.read())
        except FileNotFoundError:
            pass
    return h.hexdigest()
