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

"""`tools/localcloud demo`: the example stack through the real CLI.

After `up`, as the ``demo`` user (``OS_CLOUD=demo``): ``openstack stack
create --wait`` of templates/example/app.yaml, then the stack's events and
outputs, then how to look at the result and how to tear down. Each command
is printed before it runs, so the output is a transcript a user can repeat.

A stack of the same name left by an earlier run is deleted first, so every
run shows a create from scratch (an update of an unchanged template would
show nothing).
"""

import datetime
import json
import os
import re
import shlex
import subprocess
import sys
import time

from tools.lc import fetch
from tools.lc import paths
from tools.lc.openstack import passwords

STACK_NAME = 'demo-app'
TEMPLATE = os.path.join(paths.REPO_DIR, 'templates', 'example', 'app.yaml')
# Heat's event lines (`stack create --wait`, `stack event list`):
# "<date> <time>Z [<event id>] [<stack>[.<resource>]]: <status> <reason>"
_EVENT = re.compile(r'^(\S+ \S+?)Z? (?:\S+ )?\[([^\]]+)\]: (\S+)')


def _rel(path):
    rel = os.path.relpath(path)
    return path if rel.startswith('..' + os.sep + '..') else rel


def _say(text=''):
    print(text, flush=True)


class Demo(object):

    def __init__(self, state_dir, exports, self_cmd, stack_name, log):
        self.state_dir = state_dir
        self.self_cmd = self_cmd
        self.stack = stack_name
        self.log = log
        # Only this cloud's settings: OS_* of another cloud would win.
        self.env = {k: v for k, v in os.environ.items()
                    if not k.startswith('OS_')}
        self.env.update(exports)

    def run(self, *argv, show=True, quiet=False, check=True):
        """Run `argv`, echoing its output live unless `quiet`; returns
        (exit code, output). openstackclient's complaints about plugins of
        other services it cannot load are left out."""
        if show:
            _say('$ ' + ' '.join(shlex.quote(a) for a in argv))
        proc = subprocess.Popen(argv, env=self.env, text=True,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        lines = []
        for line in proc.stdout:
            lines.append(line)
            if not quiet:
                sys.stdout.write(line)
                sys.stdout.flush()
        code = proc.wait()
        output = ''.join(lines)
        if check and code:
            raise SystemExit('localcloud: %s failed (exit %d):\n%s' % (
                ' '.join(argv[:3]), code, output))
        return code, output

    def parameters_file(self):
        """The hidden parameter in an environment file (mode 0600), so the
        password shows neither in the process list nor in the shell's
        history. Its value is generated once per state directory."""
        d = os.path.join(self.state_dir, 'demo')
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, 'parameters.yaml')
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, 'w') as f:  # JSON is YAML
            json.dump({'parameters': {'db_password': passwords.get(
                self.state_dir, 'demo-db-password', 24)}}, f, indent=2)
        return path

    def existing_status(self):
        code, out = self.run('openstack', 'stack', 'show', self.stack, '-f',
                             'value', '-c', 'stack_status', show=False,
                             quiet=True, check=False)
        return out.strip() if code == 0 else None

    def create(self):
        """`stack create --wait`, which prints Heat's events as they come;
        (succeeded, output, wall-clock seconds)."""
        started = time.monotonic()
        code, out = self.run('openstack', 'stack', 'create', '--wait',
                             '--poll', '1', '-t', _rel(TEMPLATE),
                             '-e', _rel(self.parameters_file()), self.stack,
                             check=False)
        return code == 0, out, time.monotonic() - started


def heat_duration(events, stack_name, action='CREATE'):
    """Seconds from the stack's "<ACTION>_IN_PROGRESS" event to its
    "<ACTION>_COMPLETE" in `openstack stack event list` output."""
    started = done = None
    for line in events.splitlines():
        m = _EVENT.match(line.strip())
        if not m or m.group(2) != stack_name:
            continue
        when = datetime.datetime.fromisoformat(m.group(1).replace('T', ' '))
        if m.group(3) == action + '_IN_PROGRESS':
            started, done = when, None
        elif m.group(3) == action + '_COMPLETE' and started:
            done = when
    if started and done:
        return (done - started).total_seconds()
    return None


def run(cluster, exports, self_cmd, stack_name=STACK_NAME,
        up_seconds=None, log=print):
    """The demo on the running cloud of `cluster` (a kubernetes.Cluster);
    `exports`: what `localcloud env` exports."""
    d = Demo(cluster.state_dir, exports, self_cmd, stack_name, log)
    _say()
    status = d.existing_status()
    if status:
        _say('# The stack %s exists (%s) from an earlier run: deleting it, '
             'so that the demo shows a create from scratch.'
             % (stack_name, status))
        d.run('openstack', 'stack', 'delete', '--yes', '--wait', stack_name)
        _say()
    _say('# As the demo user (OS_CLOUD=demo). Heat creates the resources '
         'in dependency order; each waits until its Kubernetes object is '
         'ready. --wait prints the events as they happen.')
    ok, events, seconds = d.create()
    _say()
    if not ok:
        d.run('openstack', 'stack', 'resource', 'list', stack_name,
              check=False)
        log('the example stack failed; the events above say why')
        return 1
    _say('# Outputs:')
    d.run('openstack', 'stack', 'output', 'show', '--all', stack_name,
          check=False)
    heat = heat_duration(events, stack_name)
    code, port = d.run('openstack', 'stack', 'output', 'show', stack_name,
                       'node_port', '-f', 'value', '-c', 'output_value',
                       show=False, quiet=True)
    url = 'http://127.0.0.1:%s/' % port.strip()
    _say()
    _say('# The site, through the web Service (kube-proxy serves node ports '
         'on 127.0.0.1):')
    _say('$ curl %s' % url)
    try:
        status, title = fetch_page(url)
    except OSError as e:
        log('the stack is complete but %s does not answer: %s' % (url, e))
        return 1
    _say('HTTP %d, title: %s' % (status, title))
    env_line = 'eval "$(%s env)"' % self_cmd
    ns = cluster.info.get('openstack', {}).get('projects', {}).get(
        'demo', '<demo project id>')
    _say('''
# Open %(url)s in a browser. Look at the result (the namespace is the demo
# project's ID):
  %(env)s     # OS_CLOUD=demo, KUBECONFIG (cluster admin), PATH
  openstack stack resource list %(stack)s
  openstack stack event list %(stack)s
  kubectl get all,configmap,secret -n %(ns)s
  # the same with the demo user's Keystone token, as Heat calls the API:
  kubectl --kubeconfig=/dev/null --server=%(api)s \\
    --certificate-authority=%(ca)s \\
    --token="$(openstack token issue -f value -c id)" get all -n %(ns)s

# Tear down:
  openstack stack delete --yes --wait %(stack)s
  %(self)s down          # --purge also removes the state directory
''' % {'env': env_line, 'stack': stack_name, 'ns': ns, 'self': self_cmd,
       'api': cluster.api_url, 'ca': _rel(cluster.ca_file), 'url': url})
    log('stack %s CREATE_COMPLETE: %.1fs wall clock for `openstack stack '
        'create --wait`%s; cloud up in %.1fs' % (
            stack_name, seconds,
            ' (Heat: %.0fs from CREATE started to completed)' % heat
            if heat is not None else '', up_seconds or 0))
    log('the site answers at %s: HTTP %d, "%s"' % (url, status, title))
    return 0 if status == 200 else 1


_TITLE = re.compile(r'<title[^>]*>(.*?)</title>', re.I | re.S)


def page_title(html):
    """The text of an HTML page's <title>, whitespace collapsed."""
    m = _TITLE.search(html)
    return ' '.join(m.group(1).split()) if m else None


def fetch_page(url, timeout=10):
    """(HTTP status, page title) of `url`."""
    import urllib.error
    import urllib.request
    try:
        with fetch.urlopen(url, timeout=timeout) as resp:
            return resp.status, page_title(resp.read().decode(
                'utf-8', 'replace'))
    except urllib.error.HTTPError as e:
        return e.code, page_title(e.read().decode('utf-8', 'replace'))
