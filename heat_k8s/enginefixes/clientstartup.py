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

"""``openstack``'s start of clientdupkeyfix: a cliff command hook.

cliff loads, for each command it runs, the hooks registered under the
entry point group ``<application namespace>.<command_name>``
(``openstack.cli.stack_create`` for ``openstack stack create``;
cliff.command.Command._load_hooks) and calls their before() ahead of the
command's take_action(). heat-k8s registers ``RefuseDuplicateKeys`` for
the commands in COMMANDS (setup.cfg), so only they, and only when they
run, apply the fix to heatclient: the probe, the heatclient release and
the user's switch (``HEAT_K8S_CLIENT_DUPKEYFIX=false``) are checked as
heat-engine checks its fixes, and one log line (``openstack -v``) says
whether it was applied and why not. Nothing here may fail a command: a
fix that cannot apply is logged, and heatclient is left alone.
"""

import logging
import os

from cliff import hooks

from heat_k8s.enginefixes import fixlist

LOG = logging.getLogger(__name__)

NAME, = fixlist.CLIENT_FIXES
SWITCH = 'HEAT_K8S_CLIENT_DUPKEYFIX'
OFF = ('0', 'false', 'no', 'off')
# heatclient's commands that parse a template or an environment file
# (a preview is `stack create --dry-run`, `stack update --dry-run`).
COMMANDS = ('stack_create', 'stack_update', 'stack_adopt',
            'orchestration_template_validate')


def why_not(environ):
    """Why the fix is not for this client before probing, or None."""
    if environ.get(SWITCH, '').strip().lower() in OFF:
        return 'switched off (%s=%s)' % (SWITCH, environ[SWITCH])
    return None


def start(environ=os.environ):
    """Apply the fix unless switched off or heatclient changed; the
    reason it was not applied, or None. Never raises."""
    reason, found = why_not(environ), 'unknown'
    if reason is None:
        try:
            fix = fixlist.load(NAME)  # imports heatclient's modules
            found = fix.version()
            reason = fix.refusal(found) or fix.probe()
            if reason is None:
                fix.apply()
        except Exception as exc:
            reason = 'it failed: %s: %s' % (type(exc).__name__, exc)
    if reason is None:
        LOG.info('heat-k8s client fix %s applied to python-heatclient %s',
                 NAME, found)
    else:
        LOG.info('heat-k8s client fix %s not applied: %s', NAME, reason)
    return reason


class RefuseDuplicateKeys(hooks.CommandHook):
    """Applies the fix before the command reads its files."""

    def get_parser(self, parser):
        return parser

    def get_epilog(self):
        return ''

    def before(self, parsed_args):
        start()
        return parsed_args

    def after(self, parsed_args, return_code):
        return return_code
