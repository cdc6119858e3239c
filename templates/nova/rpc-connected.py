#!/usr/bin/env python3
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

"""Health check of a service that listens on nothing (nova-conductor,
nova-scheduler): ready while it holds a connection to its message
broker.

  rpc-connected.py PORT    exit 0 when this container's network namespace
                           has an ESTABLISHED TCP connection to PORT (the
                           broker's, e.g. 5672), else 1 with the reason

It reads /proc/net/tcp and /proc/net/tcp6 (the container's own sockets),
so it needs no tool the image may lack.
"""

import sys

ESTABLISHED = '01'


def connected(port, tables):
    """True when a row of the /proc/net/tcp tables is an established
    connection whose remote end is `port`."""
    suffix = ':%04X' % port
    for text in tables:
        for row in text.splitlines()[1:]:
            cols = row.split()
            if len(cols) > 3 and cols[2].endswith(suffix) and \
                    cols[3] == ESTABLISHED:
                return True
    return False


def main(argv):
    port = int(argv[1])
    tables = []
    for path in ('/proc/net/tcp', '/proc/net/tcp6'):
        try:
            with open(path) as f:
                tables.append(f.read())
        except OSError:
            continue  # no IPv6 in this namespace
    if connected(port, tables):
        return 0
    print('no established connection to port %d' % port)
    return 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
