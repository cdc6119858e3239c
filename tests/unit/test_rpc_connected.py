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

"""templates/nova/rpc-connected.py, the health check of nova-conductor and
nova-scheduler (they listen on nothing): ready while the container holds
an established connection to the broker's port. Its end to end run is
tests/e2e/test_compute_cloud.py (both services Ready, then reporting up).
"""

from tests.unit import scripts

# Hand-made, in /proc/net/tcp's layout: a listener on 8775, a connection
# to 10.96.0.12:5672 (0x1628) established, one to 3306 closing
# (TIME_WAIT, 06).
HANDMADE_TCP = (
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when '
    'retrnsmt   uid  timeout inode\n'
    '   0: 00000000:2247 00000000:0000 0A 00000000:00000000 00:00000000 '
    '00000000     0        0 1001 1 0 100 0 0 10 0\n'
    '   1: 0A55000B:A2C4 0C00600A:1628 01 00000000:00000000 02:000009C4 '
    '00000000   999        0 1002 2 0 20 4 30 10 -1\n'
    '   2: 0A55000B:B01A 0D00600A:0CEA 06 00000000:00000000 03:00001770 '
    '00000000     0        0 0 3 0\n')
HEADER_ONLY = HANDMADE_TCP.splitlines()[0] + '\n'


rpc = scripts.load('rpc_connected', 'templates', 'nova', 'rpc-connected.py')


def test_an_established_connection_to_the_port():
    assert rpc.connected(5672, [HANDMADE_TCP])


def test_a_listener_or_a_closing_connection_is_not_one():
    assert not rpc.connected(8775, [HANDMADE_TCP])   # its own listener
    assert not rpc.connected(3306, [HANDMADE_TCP])   # TIME_WAIT
    assert not rpc.connected(5673, [HANDMADE_TCP])


def test_either_table_will_do():
    assert rpc.connected(5672, [HEADER_ONLY, HANDMADE_TCP])
    assert not rpc.connected(5672, [HEADER_ONLY, HEADER_ONLY])
    assert not rpc.connected(5672, [])
