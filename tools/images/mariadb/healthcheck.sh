#!/bin/sh
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

# The checks of the official image's healthcheck.sh that our templates use:
#   --connect             the server accepts connections over the network
#                         (not the initialising server, which has none)
#   --innodb_initialized  InnoDB is up
# Root connects through the socket (unix_socket authentication).
set -u

query() {
    mariadb --no-defaults --protocol=socket --socket=/run/mysqld/mysqld.sock \
        -uroot --skip-column-names --batch -e "$1"
}

[ $# -gt 0 ] || set -- --connect
for check in "$@"; do
    case "$check" in
        --connect)
            [ "$(query 'SELECT @@skip_networking' 2>/dev/null)" = 0 ] ||
                { echo "healthcheck: no connection" >&2; exit 1; } ;;
        --innodb_initialized)
            [ "$(query "SELECT 1 FROM information_schema.ENGINES
                        WHERE engine = 'InnoDB'
                        AND support IN ('YES', 'DEFAULT', 'ENABLED')" \
                 2>/dev/null)" = 1 ] ||
                { echo "healthcheck: InnoDB not initialised" >&2; exit 1; } ;;
        *)
            echo "healthcheck: unknown check $check" >&2; exit 2 ;;
    esac
done
