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

"""``heat-k8s-configure``: write heat-k8s's settings into a heat.conf and
register the Kubernetes API in the Keystone catalog.

Run it with the Python of Heat's environment (where heat-k8s is
installed); the local cloud (``tools/localcloud``) and the devstack plugin
both use it. Every step is idempotent: a second run with the same
arguments changes nothing.

* ``[DEFAULT] plugin_dirs``: the current value (Heat's defaults when
  unset) plus heat-k8s's plugin directory, never twice; the plugin
  directory of another heat-k8s installation is replaced, as Heat would
  otherwise load two copies of the resource types.
* ``[kubernetes] api_url`` (``--api-url``) or none, so that the Keystone
  catalog is used (``--catalog``); ``default_namespace``; ``kubeconfig``
  (development only).
* ``[clients_kubernetes] ca_file`` and ``insecure``.
* ``--api-paste PATH`` (heat-api's ``api-paste.ini``): the ``heat_k8s``
  filter, which applies the engine fixes of heat-api
  (:mod:`heat_k8s.enginefixes.apistartup`), in every pipeline of
  ``[composite:api]``, before its application.
* ``--register-endpoint URL``: the ``kubernetes`` service and its public
  and internal endpoints in a region, created or corrected, with the
  credentials of ``--os-cloud`` (clouds.yaml) or the ``OS_*`` environment.

``heat-k8s-configure manifests NAME...`` prints the cluster manifests the
package ships (:mod:`heat_k8s.manifests`) for ``kubectl apply -f -``: the
project isolation, the cluster hardening, a project namespace's own-pods
NetworkPolicy.

The file is edited line by line (:mod:`heat_k8s.rendering.inifile`):
comments, other options and other sections stay as they are, and an
unchanged file is not rewritten.
"""

import argparse
import os
import sys
import tempfile

from heat_k8s import manifests
from heat_k8s import plugin
from heat_k8s.rendering import inifile

# Heat 27's default [DEFAULT] plugin_dirs (heat/common/config.py).
DEFAULT_PLUGIN_DIRS = ('/usr/lib64/heat', '/usr/lib/heat',
                       '/usr/local/lib/heat', '/usr/local/lib64/heat')
# The tail of the plugin directory of any heat-k8s installation.
_PLUGIN_DIR_TAIL = os.path.join('heat_k8s', 'plugin')
SERVICE_TYPE = 'kubernetes'
# heat-api's paste pipelines (Heat's api-paste.ini, 24 to 27): flavors.
PASTE_PIPELINES = 'composite:api'
PASTE_FLAVORS = ('default', 'standalone', 'custombackend', 'noauth')
PASTE_FILTER = 'heat_k8s'
PASTE_FACTORY = 'heat_k8s.enginefixes.apistartup:filter_factory'
SERVICE_NAME = 'kubernetes'
SERVICE_DESCRIPTION = 'Kubernetes API (Keystone tokens via k8s-keystone-auth)'
INTERFACES = ('public', 'internal')


def merge_plugin_dirs(current, ours):
    """The new plugin_dirs value: `current` (None: unset, so Heat's
    defaults) without other heat-k8s plugin directories, plus `ours`."""
    if current is None:
        dirs = list(DEFAULT_PLUGIN_DIRS)
    else:
        dirs = [d.strip() for d in current.split(',') if d.strip()]
    ours_norm = os.path.normpath(ours)
    kept = []
    for d in dirs:
        norm = os.path.normpath(d)
        if norm == ours_norm or norm.endswith(os.sep + _PLUGIN_DIR_TAIL):
            continue  # re-added once, at the end
        if norm not in (os.path.normpath(k) for k in kept):
            kept.append(d)
    return ','.join(kept + [ours])


def _validate_namespace_format(fmt):
    from heat_k8s import config  # imports Heat: only when needed
    keys = config.NAMESPACE_FORMAT_KEYS
    try:
        fmt % {k: 'x' for k in keys}
    except (KeyError, ValueError, TypeError) as e:
        raise SystemExit('heat-k8s-configure: --default-namespace %r: bad '
                         'format (%s); keys: %s'
                         % (fmt, e, ', '.join(keys)))


def settings(args, conf):
    """(section, key, value) triples to set; value None removes the key."""
    out = [('DEFAULT', 'plugin_dirs',
            merge_plugin_dirs(conf.get('DEFAULT', 'plugin_dirs'),
                              args.plugin_dir))]
    if args.api_url:
        out.append(('kubernetes', 'api_url', args.api_url))
    elif args.catalog:
        out.append(('kubernetes', 'api_url', None))
    if args.default_namespace:
        out.append(('kubernetes', 'default_namespace',
                    args.default_namespace))
    if args.kubeconfig is not None:
        out.append(('kubernetes', 'kubeconfig', args.kubeconfig or None))
    if args.ca_file:
        out.append(('clients_kubernetes', 'ca_file', args.ca_file))
    if args.insecure is not None:
        out.append(('clients_kubernetes', 'insecure',
                    'true' if args.insecure else 'false'))
    return out


def paste_settings(paste):
    """(section, key, value) triples that put our filter in each of
    heat-api's pipelines (an IniFile of api-paste.ini), just before the
    application that ends it."""
    out = [('filter:' + PASTE_FILTER, 'paste.filter_factory', PASTE_FACTORY)]
    for flavor in PASTE_FLAVORS:
        words = (paste.get(PASTE_PIPELINES, flavor) or '').split()
        if words and PASTE_FILTER not in words:
            out.append((PASTE_PIPELINES, flavor,
                        ' '.join(words[:-1] + [PASTE_FILTER, words[-1]])))
    return out


def edit(conf, changes):
    """Apply `changes` to the IniFile `conf`; the ones that changed it."""
    done = []
    for section, key, value in changes:
        if value is None:
            changed = conf.remove(section, key)
        else:
            changed = conf.set(section, key, value)
        if changed:
            done.append((section, key, value))
    return done


def write_in_place(path, text):
    """Replace `path` atomically, keeping its mode and (when allowed) its
    owner and group: heat.conf is usually root:heat 0640."""
    st = os.stat(path)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)),
                               prefix='.' + os.path.basename(path) + '.')
    try:
        with os.fdopen(fd, 'w', newline='') as f:
            f.write(text)
        os.chmod(tmp, st.st_mode & 0o7777)
        if (st.st_uid, st.st_gid) != (os.getuid(), os.getgid()):
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                pass
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def configure_file(args, out=sys.stdout, path=None, wanted=None):
    """Edit the file at path (heat.conf by default) to hold what
    wanted(args, conf) asks (settings() by default)."""
    path = path or args.config_file
    wanted = wanted or settings
    try:
        conf = inifile.IniFile.load(path)
    except FileNotFoundError:
        raise SystemExit('heat-k8s-configure: %s: no such file' % path)
    except inifile.ParseError as e:
        raise SystemExit('heat-k8s-configure: %s: %s' % (path, e))
    done = edit(conf, wanted(args, conf))
    if not done:
        print('%s: unchanged' % path, file=out)
        return False
    write_in_place(path, conf.text())
    for section, key, value in done:
        print('%s: [%s] %s %s' % (
            path, section, key,
            'removed' if value is None else '= ' + value), file=out)
    return True


# -- Keystone catalog ------------------------------------------------------

def ensure_service(conn, service_type, name, urls, region,
                   description='', log=None):
    """Create the service of `service_type` (unless one exists) and its
    endpoints `urls` ({interface: url}) in `region`; correct an endpoint
    whose URL differs. `conn` is an openstacksdk Connection. Returns
    the service."""
    found = list(conn.identity.services(type=service_type))
    if found:
        service = found[0]
    else:
        service = conn.identity.create_service(
            type=service_type, name=name, enabled=True,
            description=description)
        if log:
            log('created service %s (%s)' % (name, service_type))
    existing = {}
    for e in conn.identity.endpoints(service_id=service.id,
                                     region_id=region):
        existing.setdefault(e.interface, e)
    for interface, url in sorted(urls.items()):
        endpoint = existing.get(interface)
        if endpoint is None:
            conn.identity.create_endpoint(
                service_id=service.id, interface=interface, url=url,
                region_id=region, enabled=True)
            what = 'created'
        elif endpoint.url != url:
            conn.identity.update_endpoint(endpoint, url=url)
            what = 'updated'
        else:
            what = 'unchanged'
        if log:
            log('%s endpoint %s %s in %s: %s' % (
                service_type, interface, what, region, url))
    return service


def connect(os_cloud, region):
    """An openstacksdk Connection from clouds.yaml or the OS_* env."""
    import openstack  # Heat's environment has it (a Heat dependency)
    import openstack.exceptions
    try:
        return openstack.connect(cloud=os_cloud, region_name=region)
    except openstack.exceptions.ConfigException as e:
        raise SystemExit('heat-k8s-configure: no Keystone credentials: %s '
                         '(use --os-cloud or the OS_* variables)' % e)


def register(args, out=sys.stdout):
    import openstack.exceptions
    conn = connect(args.os_cloud, args.region)
    try:
        ensure_service(
            conn, args.service_type, SERVICE_NAME,
            {i: args.register_endpoint for i in args.interface or INTERFACES},
            args.region, SERVICE_DESCRIPTION,
            log=lambda msg: print(msg, file=out))
    except openstack.exceptions.SDKException as e:
        raise SystemExit('heat-k8s-configure: registering %s failed: %s'
                         % (args.register_endpoint, e))


# -- cluster manifests -------------------------------------------------------

def manifests_parser():
    p = argparse.ArgumentParser(
        prog='heat-k8s-configure manifests',
        description='Print the cluster manifests heat-k8s ships, as one '
                    'YAML stream for `kubectl apply -f -` (the install '
                    'guide says which, where and as whom).')
    p.add_argument('names', nargs='+', metavar='NAME',
                   choices=sorted(manifests.FILES),
                   help=', '.join('%s (%s)' % item for item in sorted(
                       manifests.FILES.items())))
    return p


def print_manifests(argv, out=None):
    names = manifests_parser().parse_args(argv).names
    (out or sys.stdout).write('---\n'.join(
        manifests.text(name) for name in names))
    return 0


# -- command line ------------------------------------------------------------

def parser():
    p = argparse.ArgumentParser(
        prog='heat-k8s-configure',
        description='Write heat-k8s settings into heat.conf and register '
                    'the Kubernetes API in the Keystone catalog. Options '
                    'not given are left as they are.',
        epilog='`heat-k8s-configure manifests NAME...` prints the cluster '
               'manifests heat-k8s ships (--help there).')
    p.add_argument('--config-file', metavar='PATH',
                   help="Heat's configuration file, edited in place "
                        '(e.g. /etc/heat/heat.conf)')
    p.add_argument('--plugin-dir', default=plugin.path(),
                   help='the directory added to [DEFAULT] plugin_dirs '
                        '(default: this installation\'s, %(default)s)')
    where = p.add_mutually_exclusive_group()
    where.add_argument('--api-url', metavar='URL',
                       help='set [kubernetes] api_url: every resource '
                            'without a cluster property uses this API')
    where.add_argument('--catalog', action='store_true',
                       help='remove [kubernetes] api_url, so that the '
                            'endpoint comes from the Keystone catalog')
    p.add_argument('--ca-file', metavar='PATH',
                   help='set [clients_kubernetes] ca_file, the CA bundle '
                        "that verifies the API server's certificate")
    p.add_argument('--insecure', action=argparse.BooleanOptionalAction,
                   help='set [clients_kubernetes] insecure (tests only)')
    p.add_argument('--default-namespace', metavar='FORMAT',
                   help='set [kubernetes] default_namespace, e.g. '
                        '"%%(project_id)s"')
    p.add_argument('--kubeconfig', metavar='PATH',
                   help='DEVELOPMENT ONLY: set [kubernetes] kubeconfig, '
                        "whose credentials then replace every caller's "
                        'Keystone token (for a cluster without '
                        'k8s-keystone-auth); "" removes it')
    p.add_argument('--api-paste', metavar='PATH',
                   help="heat-api's api-paste.ini, edited in place: our "
                        'filter in its pipelines, so that heat-api applies '
                        'the engine fixes it needs (dupkeyfix)')
    k = p.add_argument_group('Keystone catalog')
    k.add_argument('--register-endpoint', metavar='URL',
                   help='create (or correct) the kubernetes service and '
                        'its endpoints with this URL')
    k.add_argument('--region', default=os.environ.get('OS_REGION_NAME')
                   or 'RegionOne',
                   help='region of the endpoints (default: $OS_REGION_NAME '
                        'or RegionOne)')
    k.add_argument('--interface', action='append',
                   choices=('public', 'internal', 'admin'),
                   help='endpoint interface, repeatable (default: public '
                        'and internal)')
    k.add_argument('--service-type', default=SERVICE_TYPE,
                   help='catalog service type (default %(default)s; must '
                        'match [kubernetes] catalog_service_type)')
    k.add_argument('--os-cloud', default=os.environ.get('OS_CLOUD'),
                   help='cloud in clouds.yaml with admin credentials '
                        '(default: $OS_CLOUD, else the OS_* variables)')
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ['manifests']:
        return print_manifests(argv[1:])
    p = parser()
    args = p.parse_args(argv)
    if not (args.config_file or args.api_paste or args.register_endpoint):
        p.error('nothing to do: give --config-file, --api-paste and/or '
                '--register-endpoint')
    if args.default_namespace:
        _validate_namespace_format(args.default_namespace)
    if args.config_file:
        configure_file(args)
    if args.api_paste:
        configure_file(args, path=args.api_paste,
                       wanted=lambda _, paste: paste_settings(paste))
    if args.register_endpoint:
        register(args)
    return 0


if __name__ == '__main__':
    sys.exit(main())
