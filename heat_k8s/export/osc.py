# Copyright 2026 heat-k8s developers
#
#    Licensed under the Apache License, Version 2.0 (the "License"); you may
#    not use this file except in compliance with the License. You may obtain
#    a copy of the License at
#
#         http://www.apache.org/licenses/LICENSE-2.0
#
#    Unless required by applicable law or agreed to in writing, software
#    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
#    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
#    License for the specific language governing permissions and limitations
#    under the License.

"""``openstack stack kubernetes export``: the export as an openstack
client command, beside python-heatclient's ``stack`` commands.

Registered on heatclient's ``openstack.orchestration.v1`` command group;
the client's own Keystone session, interface and region are used.
"""

from osc_lib import exceptions
from osc_lib.command import command as osc_command


class ExportStack(osc_command.Command):
    """Print a stack's Kubernetes objects as plain manifests (YAML)."""

    def get_parser(self, prog_name):
        return _command().add_arguments(super().get_parser(prog_name))

    def take_action(self, parsed_args):
        command = _command()
        manager = self.app.client_manager
        try:
            text = command.export(manager.session, parsed_args,
                                  interface=manager.interface or 'public',
                                  region_name=manager.region_name or None)
        except command.ExportError as exc:
            raise exceptions.CommandError(str(exc)) from None
        self.app.stdout.write(text)


def _command():
    # Imported when the command runs: the client loads this module for
    # every `openstack` command, and the export's Kubernetes client costs
    # a quarter of a second to import.
    from heat_k8s.export import command
    return command
