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

"""``heat-k8s-export``: a stack's Kubernetes objects as plain manifests.

    heat-k8s-export [--os-cloud NAME] [--namespace NS] STACK > app.yaml
    kubectl apply -f app.yaml

The caller's Keystone credentials come from clouds.yaml (``--os-cloud``)
or the ``OS_*`` environment, as for the ``openstack`` client, which has
the same command as ``openstack stack kubernetes export``.
"""

import argparse
import sys

from keystoneauth1 import exceptions as ks_exceptions

from heat_k8s.export import command

PROG = 'heat-k8s-export'


def parser(config, argv):
    p = argparse.ArgumentParser(
        prog=PROG,
        description="Print a stack's Kubernetes objects (nested stacks "
                    'included) as a multi-document YAML, in dependency '
                    'order and without server-managed fields, for '
                    '`kubectl apply -f`.')
    config.register_argparse_arguments(p, argv or [])
    return command.add_arguments(p)


def main(argv=None):
    import openstack.config  # Heat's own dependency: always there
    argv = sys.argv[1:] if argv is None else argv
    config = openstack.config.OpenStackConfig()
    args = parser(config, argv).parse_args(argv)
    try:
        cloud = config.get_one(argparse=args)
        text = command.export(cloud.get_session(), args,
                              interface=cloud.get_interface() or 'public',
                              region_name=cloud.get_region_name() or None)
    except (command.ExportError, ks_exceptions.ClientException) as exc:
        print('%s: %s' % (PROG, str(exc).splitlines()[0] if str(exc) else
                          type(exc).__name__), file=sys.stderr)
        return 1
    sys.stdout.write(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())
