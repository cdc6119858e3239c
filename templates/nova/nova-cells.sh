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

# Nova's cells in its install guide's order, idempotent (templates/nova.yaml
# runs it after the API database's schema, through kolla_start): cell0
# mapped, cell1 created (or, when it exists, its transport and database
# set again from nova.conf, which a rotated password changes), then every
# cell's schema. As the nova user; nova-manage reads /etc/nova/nova.conf.
set -eu

manage() {
  setpriv --reuid=nova --regid=nova --init-groups nova-manage "$@"
}

manage cell_v2 map_cell0
cell1=$(manage cell_v2 list_cells 2>/dev/null |
  sed -n 's/^| cell1 *| \([0-9a-f-]*\) .*/\1/p')
if [ -n "$cell1" ]; then
  manage cell_v2 update_cell --cell_uuid "$cell1"
else
  manage cell_v2 create_cell --name cell1 --verbose
fi
manage db sync
manage cell_v2 list_cells
