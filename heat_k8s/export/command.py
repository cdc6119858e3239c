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

"""The export's command line, shared by heat-k8s-export and the
``openstack stack kubernetes export`` command."""

from heat_k8s.export import manifests
from heat_k8s.export import reader

ExportError = reader.ExportError


# option: (metavar, help); no metavar: a flag
OPTIONS = {
    '--namespace': ('<namespace>', 'Put every namespaced object in this '
                    "namespace (and rename the stack's Namespace object to "
                    'it).'),
    '--include-secret-values': (None, 'Export the values of Secrets. '
                                'Without it, Secrets keep their keys with '
                                'empty values and an annotation saying so.'),
    '--kubernetes-url': ('<url>', 'Kubernetes API to read from. Default: '
                         "the endpoint of the 'kubernetes' service in the "
                         'Keystone catalog.'),
    '--kubernetes-cacert': ('<ca-file>', 'CA bundle of the Kubernetes API. '
                            "Default: the cloud's (--os-cacert)."),
}


def add_arguments(parser):
    parser.add_argument('stack', metavar='<stack>',
                        help='Name or ID of the stack to export.')
    for option, (metavar, text) in OPTIONS.items():
        if metavar:
            parser.add_argument(option, metavar=metavar, help=text)
        else:
            parser.add_argument(option, action='store_true', help=text)
    return parser


def _comments(resource, obj):
    comments = [reader.describe(resource)]
    if manifests.VALUES_OMITTED in (obj['metadata'].get('annotations') or {}):
        comments.append('Secret values omitted (--include-secret-values '
                        'exports them): fill them in before applying.')
    return comments


def export(session, args, interface='public', region_name=None):
    """The stack's objects as a multi-document YAML text.

    Raises ExportError saying why not.
    """
    source = reader.StackReader(session, interface=interface,
                                region_name=region_name,
                                kubernetes_url=args.kubernetes_url,
                                kubernetes_cacert=args.kubernetes_cacert)
    entries = []
    for resource, live in source.objects(args.stack):
        obj = manifests.plain(live)
        if not args.include_secret_values:
            obj = manifests.without_secret_values(obj)
        entries.append((_comments(resource, obj), obj))
    if args.namespace:
        entries = manifests.in_namespace(entries, args.namespace)
    header = ['Kubernetes objects of stack %s, in dependency order '
              '(heat-k8s export).' % args.stack]
    return manifests.to_yaml(manifests.namespaces_first(entries), header)
