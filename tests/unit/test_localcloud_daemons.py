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

"""tools/lc/daemons.py with real processes and sockets."""

import http.server
import json
import os
import socket
import stat
import threading

import pytest

from tools.lc import daemons
from tools.lc import procs

SLEEP = '/bin/sleep'


class _Cluster(object):
    def __init__(self, state_dir):
        self.state_dir = str(state_dir)

    def port(self, name):
        return 1


class _Pair(daemons.Service):
    """Two sleeping processes; the second is ready once a flag is set."""

    DIR = 'pair'

    def __init__(self, cluster):
        super().__init__(cluster)
        self.ready_now = True
        self.prepared = 0

    def prepare(self):
        self.prepared += 1

    def processes(self):
        return (daemons.Process('first', [SLEEP, '60'], stop_timeout=5),
                daemons.Process('second', [SLEEP, '60'],
                                ready=lambda: self.ready_now,
                                what='the second', ready_timeout=0.5,
                                stop_timeout=5))


@pytest.fixture
def pair(tmp_path):
    svc = _Pair(_Cluster(tmp_path))
    yield svc
    svc.stop()


def test_start_runs_every_process_and_stop_ends_them(pair):
    pair.start()
    assert pair.running()
    assert procs.names(pair.state_dir) == ['first', 'second']
    pair.wait()
    pair.stop()
    assert not pair.running()
    assert procs.names(pair.state_dir) == []


def test_restart_replaces_only_the_named_process(pair):
    pair.start()
    first = procs.read(pair.state_dir, 'first')['pid']
    second = procs.read(pair.state_dir, 'second')['pid']
    pair.restart('second')
    assert procs.read(pair.state_dir, 'first')['pid'] == first
    assert procs.read(pair.state_dir, 'second')['pid'] != second
    assert pair.running()
    assert pair.prepared == 2


def test_wait_names_what_it_waited_for(pair):
    pair.ready_now = False
    pair.start()
    with pytest.raises(RuntimeError, match='waiting for the second'):
        pair.wait()


def test_restart_of_an_unknown_process_is_an_error(pair):
    with pytest.raises(KeyError):
        pair.restart('third')


class _Versions(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response({'/': 300, '/v3': 200}.get(self.path, 404))
        self.end_headers()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    httpd = http.server.HTTPServer(('127.0.0.1', 0), _Versions)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd.server_address[1]
    httpd.shutdown()
    httpd.server_close()


def _process(check):
    return daemons.Process('x', [SLEEP], ready=check)


def test_answers_accepts_the_statuses_it_is_given(server):
    url = 'http://127.0.0.1:%d' % server
    assert daemons.ready(_process(daemons.answers(url + '/v3')))
    assert not daemons.ready(_process(daemons.answers(url + '/')))
    assert daemons.ready(_process(daemons.answers(url + '/', (200, 300))))
    assert not daemons.ready(_process(daemons.answers(url + '/nothing')))


def test_accepts_is_ready_only_while_something_listens(server):
    assert daemons.ready(_process(daemons.accepts(server)))
    with socket.socket() as s:
        s.bind(('127.0.0.1', 0))
        closed = s.getsockname()[1]
    assert not daemons.ready(_process(daemons.accepts(closed)))


def test_written_files_are_private(tmp_path):
    path = str(tmp_path / 'conf' / 'service.conf')
    daemons.write_files({path: 'secret = 1\n'})
    with open(path) as f:
        assert f.read() == 'secret = 1\n'
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_an_exited_process_is_shown_from_its_last_traceback(tmp_path):
    """A hand-made uWSGI log: its banner and a worker's warning are cut,
    the traceback that ended it is not."""
    os.makedirs(tmp_path / 'logs')
    lines = ['*** Starting uWSGI ***\n'] + ['banner %d\n' % i
                                             for i in range(40)] + [
        'Traceback (most recent call last):\n',
        '  File "heat/wsgi/api.py", line 1, in <module>\n',
        'OSError: [Errno 98] Address already in use\n',
        '*** no app loaded. GAME OVER ***\n',
        '  from cgi import parse_header\n']
    (tmp_path / 'logs' / 'heat-api.log').write_text(''.join(lines))
    shown = procs.why_exited(str(tmp_path), 'heat-api')
    assert shown.startswith('Traceback (most recent call last):\n')
    assert shown.endswith('  from cgi import parse_header\n')
    (tmp_path / 'logs' / 'heat-api.log').write_text(''.join(lines[:41]))
    assert procs.why_exited(str(tmp_path), 'heat-api', lines=3) == (
        'banner 37\nbanner 38\nbanner 39\n')
    assert procs.why_exited(str(tmp_path), 'nothing') == '(no log)'


def test_ports_are_held_for_their_cloud_until_it_is_gone(tmp_path):
    registry = str(tmp_path / 'ports.json')
    clouds = [tmp_path / 'a', tmp_path / 'b']
    for c in clouds:
        c.mkdir()
    picked = [procs.free_port(str(c), registry) for c in clouds * 20]
    assert len(set(picked)) == 40
    low, high = procs.PORT_RANGE
    assert all(low <= p <= high for p in picked)
    with open(registry) as f:
        assert len(json.load(f)) == 40
    os.rmdir(clouds[0])
    procs.free_port(str(clouds[1]), registry)
    with open(registry) as f:
        held = json.load(f)
    assert set(held.values()) == {str(clouds[1])} and len(held) == 21


def test_a_port_in_use_is_not_picked(tmp_path, monkeypatch):
    with socket.socket() as taken:
        taken.bind(('127.0.0.1', 0))
        port = taken.getsockname()[1]
        monkeypatch.setattr(procs, 'PORT_RANGE', (port, port))
        with pytest.raises(RuntimeError, match='no free port'):
            procs.free_port(str(tmp_path), str(tmp_path / 'ports.json'))
