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

"""The local cloud as the tests see it: start, stop, and wait helpers."""

import json
import os
import subprocess
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
LOCALCLOUD = os.path.join(REPO, 'tools', 'localcloud')


def run(argv, check=True, **kwargs):
    """Run a command; with check, a failure shows its output."""
    result = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if check and result.returncode:
        raise AssertionError('%s failed (%d):\n%s%s' % (
            ' '.join(argv), result.returncode, result.stdout,
            result.stderr))
    return result


def localcloud(state_dir, *args, check=True):
    return run([LOCALCLOUD, '--state-dir', state_dir] + list(args),
               check=check)


def xdist_controller(config):
    """Whether this process is pytest-xdist's controller (not a worker)."""
    return (config.pluginmanager.has_plugin('dsession')
            and not hasattr(config, 'workerinput'))


def cloud_info(state_dir):
    with open(os.path.join(state_dir, 'cloud.json')) as f:
        return json.load(f)


def pids(state_dir):
    run = os.path.join(state_dir, 'run')
    out = {}
    for name in os.listdir(run) if os.path.isdir(run) else ():
        with open(os.path.join(run, name)) as f:
            out[name[:-4]] = json.load(f)['pid']
    return out


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as f:
            return f.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except OSError:
        return False


def wait_until(check, what, timeout=60, interval=0.2):
    """Poll `check()` until it returns a truthy value, which is returned."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError('timed out after %ss waiting for %s (last: %r)'
                         % (timeout, what, last))
