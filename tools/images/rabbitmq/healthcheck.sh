#!/bin/bash
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

# Healthy when the broker's AMQP listener on port 5672 (of BIND_ADDRESS, as
# the entrypoint has it) takes a connection: the broker opens it only once
# booted, after the default user is made. A connection that sends nothing
# leaves no line in the log (a half AMQP handshake leaves three, each
# probe), and no Erlang VM starts as rabbitmq-diagnostics' would.
set -u

address="${BIND_ADDRESS:-127.0.0.1}"
if ! exec 3<>"/dev/tcp/$address/5672"; then
    echo "healthcheck: nothing listens on $address:5672" >&2
    exit 1
fi
exec 3>&-
