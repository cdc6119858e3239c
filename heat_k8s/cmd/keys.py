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

"""heat-k8s-keys: the operator's keys of secret references.

``generate`` prints a new key for ``[heat_k8s] sealing_keys`` or
``digest_key``; ``check`` says whether heat.conf's keys are usable and
which key seals (ids only, never a key), and exits 1 when a key is
missing or could be guessed, Heat's own ``auth_encryption_key`` among
them; ``digest-key`` prints the ``digest_key`` that
keeps the digests ``auth_encryption_key`` keys while it is unset (refused
when that key could be guessed); ``reseal PROJECT...`` moves the
projects' references to the newest key (heat_k8s.secrecy.resealing), on a
host with heat-engine's configuration and database.
"""

import argparse
import sys

from heat_k8s.secrecy import keyring


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog='heat-k8s-keys', description=__doc__.split('\n\n')[0])
    parser.add_argument('--config-file', action='append', default=[],
                        help="heat-engine's configuration (repeatable; "
                             'default: oslo.config\'s search, heat.conf).')
    sub = parser.add_subparsers(dest='command', required=True)
    sub.add_parser('generate', help='Print a new random key.')
    sub.add_parser('check', help="Check heat.conf's keys; print key ids.")
    sub.add_parser('digest-key', help='Print the digest_key that keeps '
                   'the digests keyed from auth_encryption_key.')
    reseal = sub.add_parser('reseal', help='Reseal projects under the '
                            'newest sealing key.')
    reseal.add_argument('projects', nargs='+', metavar='PROJECT_ID')
    args = parser.parse_args(argv)
    if args.command == 'generate':
        print(keyring.generate())
        return 0
    ring = _configured_keyring(args.config_file)
    if args.command == 'check':
        return _check(ring)
    if args.command == 'digest-key':
        return _digest_key(ring)
    if ring.sealing_problem:
        print('heat-k8s-keys: %s' % ring.sealing_problem, file=sys.stderr)
        return 1
    return _reseal(args.projects, ring)


def _check(ring):
    """0 when every key is usable and none could be guessed, else 1 with
    each finding (the option to set) on stderr."""
    if ring.key_ids:
        print('sealing keys (newest first): %s' % ' '.join(ring.key_ids))
    if not ring.digest_problem:
        print('digests keyed from %s' % ring.digest_source)
    found = ring.findings()
    for finding in found:
        print('heat-k8s-keys: %s' % finding, file=sys.stderr)
    return 1 if found else 0


def _digest_key(ring):
    from oslo_config import cfg
    if ring.digest_source == 'digest_key':
        print('heat-k8s-keys: digest_key is set already; digests are '
              'keyed from it', file=sys.stderr)
        return 1
    try:
        print(keyring.digest_key_from(cfg.CONF.auth_encryption_key))
    except keyring.KeyringError as exc:
        print('heat-k8s-keys: %s' % exc, file=sys.stderr)
        return 1
    return 0


def _configured_keyring(config_files):
    from heat.common import config as heat_config  # noqa: F401 (options)
    from oslo_config import cfg

    from heat_k8s.resources.shared import sensitive
    cfg.CONF([], project='heat', default_config_files=config_files or None)
    return sensitive.configured()


def _reseal(projects, ring):
    from heat.common import context

    from heat_k8s.secrecy import resealing
    status = 0
    for project in projects:
        counts = resealing.reseal_project(context.get_admin_context(),
                                          project, ring)
        print('%s: %d stacks, %d references resealed under %s, %d that do '
              'not open here' % (project, counts.stacks, counts.resealed,
                                 ring.key_ids[0], counts.unopened))
        if counts.busy:
            print('%s: in progress, not resealed (run again): %s'
                  % (project, ', '.join(sorted(counts.busy))))
            status = 2
    return status


if __name__ == '__main__':
    sys.exit(main())
