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

"""The container images the templates run, as data: one recipe each.

An `Image` says what goes in (Debian packages, files from tools/images/, a
pinned pip set, shell steps run in the chroot) and how it runs (entrypoint,
user, environment, ports); `images` builds it. Its tag comes from
tools/versions.env or from the Debian package it is named after.
"""

import dataclasses
import os

from tools.lc import paths
from tools.lc.builds import go

REGISTRY = 'localhost/heat-k8s'
IMAGES_DIR = os.path.join(paths.TOOLS_DIR, 'images')
# Where the files of a recipe wait inside the chroot (not the host's /tmp);
# removed before the image is taken.
STAGE = '/tmp/heat-k8s-stage'  # noqa: S108
# PATH of an image that does not set its own.
PATH_ENV = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'

# The upstream version a Debian package gives an image's tag, per suite;
# the build checks the installed package really has it.
DEBIAN_TAGS = {
    'bookworm': {'postgresql-15': '15', 'mariadb-server': '10.11',
                 'memcached': '1.6', 'rabbitmq-server': '3.10',
                 'ovn-central': '23.03'},
}


@dataclasses.dataclass(frozen=True)
class Image:
    name: str
    version_key: str = ''      # versions.env key of the tag, or
    debian_package: str = ''   # the Debian package whose version tags it
    packages: tuple = ()       # Debian packages (none: FROM scratch)
    files: tuple = ()          # (file under tools/images, path, mode)
    requirements: str = ''     # pinned pip set under tools/images
    venv: str = ''             # where the pip set goes
    pin: str = ''              # requirement that must match version_key
    script: str = ''           # shell steps in the chroot, last
    entrypoint: tuple = ()
    cmd: tuple = ()
    user: str = ''
    workdir: str = ''
    env: tuple = ()            # (name, value)
    ports: tuple = ()
    stop_signal: str = ''


_APACHE_ENV = (
    ('APACHE_RUN_USER', 'www-data'), ('APACHE_RUN_GROUP', 'www-data'),
    # Not under /run, which a runtime may mount empty.
    ('APACHE_RUN_DIR', '/var/lib/apache2/run'),
    ('APACHE_PID_FILE', '/var/lib/apache2/run/apache2.pid'),
    ('APACHE_LOCK_DIR', '/var/lib/apache2/lock'),
    ('APACHE_LOG_DIR', '/var/log/apache2'))

_KEYSTONE = Image(
    name='keystone', version_key='KEYSTONE_VERSION',
    # curl: the docker backend's HTTP health check runs in the image.
    packages=('ca-certificates', 'curl', 'passwd', 'python3',
              'python3-venv', 'apache2', 'libapache2-mod-wsgi-py3'),
    files=(('kolla/kolla_start', '/usr/local/bin/kolla_start', 0o755),),
    requirements='keystone/requirements.txt',
    venv='/var/lib/kolla/venv', pin='keystone',
    # Apache listens only where wsgi-keystone.conf says, logs to the
    # container's output, and runs without apache2ctl.
    script='useradd --system --user-group --home-dir /var/lib/keystone '
           '--create-home --shell /usr/sbin/nologin keystone\n'
           'install -d -o keystone -g keystone /etc/keystone '
           '/var/log/keystone\n'
           'install -d /var/lib/kolla/config_files /var/lib/apache2/run '
           '/var/lib/apache2/lock\n'
           'rm -f /etc/apache2/sites-enabled/*\n'
           ': > /etc/apache2/ports.conf\n'
           'echo "ServerName localhost" > '
           '/etc/apache2/conf-enabled/servername.conf\n'
           'a2enmod -q wsgi\n'
           'ln -sf /dev/stderr /var/log/apache2/error.log\n'
           'ln -sf /dev/stdout /var/log/apache2/access.log\n'
           'ln -sf /dev/stdout '
           '/var/log/apache2/other_vhosts_access.log\n',
    cmd=('kolla_start',),
    env=(('PATH', '/var/lib/kolla/venv/bin:' + PATH_ENV),
         ('LANG', 'C.UTF-8'), ('KOLLA_SERVICE_NAME', 'keystone')) +
    _APACHE_ENV,
    ports=(5000,))

def _earlier(image, series):
    """`image`'s recipe for an earlier release: recipe <name>-<series>,
    tagged by <KEY>_<SERIES>_VERSION (<KEY>_VERSION its version key), with
    that release's pinned set beside its own (<dir>/requirements-<series>.txt);
    nova-compute's are nova's."""
    suffix = series.replace('.', '_')
    return dataclasses.replace(
        image, name='%s-%s' % (image.name, series),
        version_key=image.version_key.replace(
            '_VERSION', '_%s_VERSION' % suffix),
        requirements=image.requirements.replace(
            '.txt', '-%s.txt' % series))


# OpenStack series of the earlier Keystone releases built besides
# KEYSTONE_VERSION's, oldest first: recipes keystone-<series>, the same
# recipe with that release's pinned set.
KEYSTONE_SERIES = ('2025.2', '2026.1')
_EARLIER_KEYSTONES = tuple(_earlier(_KEYSTONE, s) for s in KEYSTONE_SERIES)

def _openstack_service(name, version_key, pin, port, dirs, script='',
                       more_apis=(), packages=()):
    """An OpenStack API served by Debian's uWSGI from a pinned venv.

    Kolla's layout as the keystone image has it: the venv in
    /var/lib/kolla/venv, configuration copied in by kolla_start from
    /var/lib/kolla/config_files (config.json), KOLLA_BOOTSTRAP runs the
    service's schema sync as the service's user. /etc/uwsgi/<name>-api.ini
    serves the API on BIND_ADDRESS:<port>; each (<api>, <port>) of
    `more_apis` is /etc/uwsgi/<api>.ini, from <name>/<api>-uwsgi.ini;
    `packages` are the Debian packages it needs besides.
    """
    return Image(
        name=name, version_key=version_key,
        # curl: the docker backend's HTTP health check runs in the image.
        packages=('ca-certificates', 'curl', 'passwd', 'python3',
                  'python3-venv', 'uwsgi-core', 'uwsgi-plugin-python3') +
        tuple(packages),
        files=(('kolla/kolla_start', '/usr/local/bin/kolla_start', 0o755),
               ('%s/%s-api-uwsgi.ini' % (name, name),
                '/etc/uwsgi/%s-api.ini' % name, 0o644)) + tuple(
            ('%s/%s-uwsgi.ini' % (name, api), '/etc/uwsgi/%s.ini' % api,
             0o644) for api, _port in more_apis),
        requirements='%s/requirements.txt' % name,
        venv='/var/lib/kolla/venv', pin=pin,
        script='useradd --system --user-group --home-dir /var/lib/%s '
               '--create-home --shell /usr/sbin/nologin %s\n'
               'install -d -o %s -g %s %s\n'
               'install -d /var/lib/kolla/config_files\n' % (
                   name, name, name, name, ' '.join(dirs)) + script,
        cmd=('kolla_start',),
        env=(('PATH', '/var/lib/kolla/venv/bin:' + PATH_ENV),
             ('LANG', 'C.UTF-8'), ('KOLLA_SERVICE_NAME', name)),
        ports=(port,) + tuple(p for _api, p in more_apis))


# Glance's API (glance.wsgi.api; 33.0.0 has no standalone glance-api any
# more) with the file store: /var/lib/glance/images is where a deployment
# mounts its volume, staging and tasks beside it. The paste pipeline and
# the metadata definitions come from the wheel's data files (the venv's
# etc/glance), where glance looks for them: /etc/glance.
_GLANCE = _openstack_service(
    'glance', 'GLANCE_VERSION', 'glance', 9292,
    ('/etc/glance', '/var/log/glance', '/var/lib/glance/images',
     '/var/lib/glance/staging', '/var/lib/glance/tasks'),
    script='install -m 644 /var/lib/kolla/venv/etc/glance/'
           'glance-api-paste.ini /etc/glance/\n'
           'cp -r /var/lib/kolla/venv/etc/glance/metadefs /etc/glance/\n')
# Placement's API (placement.wsgi.api), /etc/placement/placement.conf.
_PLACEMENT = _openstack_service(
    'placement', 'PLACEMENT_VERSION', 'openstack-placement', 8778,
    ('/etc/placement', '/var/log/placement'))

# Nova (issue 37), one image for all its services: the compute API
# (nova.wsgi.osapi_compute, /etc/uwsgi/nova-api.ini) and the metadata API
# (nova.wsgi.metadata, /etc/uwsgi/nova-metadata.ini) under uWSGI;
# nova-conductor, nova-scheduler, nova-compute, nova-manage and nova-status
# from the venv. /etc/nova/nova.conf. KOLLA_BOOTSTRAP runs nova-manage
# api_db sync (neutron's: neutron-db-manage upgrade heads).
_NOVA = _openstack_service(
    'nova', 'NOVA_VERSION', 'nova', 8774,
    ('/etc/nova', '/var/log/nova', '/var/lib/nova/instances'),
    # The APIs' paste pipeline, from the wheel's data files to where Nova
    # looks (api_paste_config, relative to /etc/nova).
    script='install -m 644 /var/lib/kolla/venv/etc/nova/api-paste.ini '
           '/etc/nova/\n',
    more_apis=(('nova-metadata', 8775),))
# A compute node of Nova (issue 37): nova-compute from nova's venv, with
# the daemons it drives beside it, one container each, the command (or
# config.json's) saying which: libvirtd with QEMU/KVM, and ML2/OVN's
# ovsdb-server, ovs-vswitchd (the netdev datapath: no kernel module
# needed) and ovn-controller. Root, privileged, with /dev/kvm; libvirt's
# and OVS's state (/run/libvirt, /var/lib/libvirt, /run/openvswitch, the
# OVS database, /var/lib/nova/instances) shared between its containers.
# /run arrives empty (the build's is cleaned): /run/openvswitch and
# /run/ovn, which OVS's and OVN's daemons do not make, are the
# deployment's (config.json's permissions make a missing path). libvirtd
# wants virtlogd beside it (QEMU's console logs, libvirt's default
# stdio_handler): its own container, sharing /run/libvirt and
# /var/log/libvirt.
# No configuration of its own: libvirtd.conf and qemu.conf absent (libvirt's
# built-in defaults) and no OVS database (/etc/openvswitch/conf.db, a link
# into /var/lib/openvswitch: ovsdb-tool create on a node's first start,
# as ovs-ctl does).
_NOVA_COMPUTE = dataclasses.replace(
    _NOVA, name='nova-compute',
    # Not libvirt-daemon-system: systemd units, polkitd, logrotate and
    # libvirt's default network, none of use in a container; its users
    # and directories are made below. dmidecode: its Recommends, libvirt
    # reads the host's SMBIOS with it. genisoimage: config drives.
    # iptables: the uplink's source NAT (compute-node.sh).
    packages=('ca-certificates', 'passwd', 'python3', 'python3-venv', 'tini',
              'libvirt-daemon', 'libvirt-daemon-driver-qemu',
              'libvirt-clients', 'python3-libvirt', 'qemu-system-x86',
              'qemu-utils', 'dmidecode', 'openvswitch-switch', 'ovn-host',
              'iproute2', 'iptables', 'genisoimage'),
    files=(('kolla/kolla_start', '/usr/local/bin/kolla_start', 0o755),),
    # QEMU runs as libvirt-qemu in group kvm, as Debian's
    # libvirt-daemon-system makes them: uid and gid 64055 (Debian's
    # allocation), so a volume's instance files keep their owner. /dev/kvm
    # arrives with the host's owner and mode (here root, 0600): the
    # deployment gives it to group kvm (config.json's permissions).
    script=_NOVA.script +
    'getent group kvm >/dev/null || groupadd --system kvm\n'
    'groupadd --system libvirt\n'
    'groupadd --system --gid 64055 libvirt-qemu\n'
    'useradd --system --uid 64055 --gid kvm --groups libvirt-qemu '
    '--home-dir /var/lib/libvirt --no-create-home '
    '--shell /usr/sbin/nologin libvirt-qemu\n'
    'install -d -m 711 /var/lib/libvirt /var/lib/libvirt/images '
    '/var/lib/libvirt/boot /var/cache/libvirt /var/cache/libvirt/qemu\n'
    'install -d -m 750 -o libvirt-qemu -g libvirt-qemu '
    '/var/lib/libvirt/qemu /var/lib/libvirt/qemu/channel '
    '/var/lib/libvirt/qemu/channel/target\n'
    'install -d /etc/libvirt/qemu /var/log/libvirt/qemu\n'
    # Servers' NICs checksum what they send: OVS's userspace conntrack
    # (security groups) drops a TCP packet whose checksum virtio left to
    # the host (conntrack_l4csum_err, seen with the guest behind a router),
    # and Nova has no setting for libvirt's <host csum='off'/>.
    'dpkg-divert --quiet --rename --divert /usr/bin/qemu-system-x86_64.real '
    '/usr/bin/qemu-system-x86_64\n'
    'printf \'#!/bin/sh\\nexec /usr/bin/qemu-system-x86_64.real '
    '-global virtio-net-pci.csum=off "$@"\\n\' '
    '>/usr/bin/qemu-system-x86_64\n'
    'chmod 755 /usr/bin/qemu-system-x86_64\n'
    # Debian's libvirt binding, built for this libvirt and this Python
    # (the venv's is /usr/bin/python3): only its modules, linked into the
    # venv, rather than libvirt-python compiled against libvirt-dev, or a
    # .pth that would put all of dist-packages (Debian's ovs) on its path.
    'ln -s /usr/lib/python3/dist-packages/libvirt* "$(python3 -c '
    "'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])')\"\n",
    # PID 1 reaps orphans: QEMU's capability probes daemonize, and libvirtd
    # as PID 1 leaves them zombies, waiting 40 s on each (-s: a subreaper
    # too, where a pod's pause is PID 1). OVS's and OVN's daemons end on
    # SIGTERM by raising it again: that exit (143) is a clean stop, as in
    # the ovn image.
    entrypoint=('tini', '-s', '-e', '143', '--'),
    ports=())
# Neutron (issue 37): its API (neutron.wsgi.api; 29.0.0 has no
# neutron-server) under uWSGI; neutron-rpc-server, neutron-periodic-workers,
# neutron-ovn-metadata-agent, neutron-ovn-agent and neutron-db-manage from
# the venv. ML2/OVN (doc/source/user/controlplane.rst says why).
_NEUTRON = _openstack_service(
    'neutron', 'NEUTRON_VERSION', 'neutron', 9696,
    ('/etc/neutron', '/etc/neutron/plugins/ml2', '/var/log/neutron',
     '/var/lib/neutron'),
    # The API's paste pipeline, as for Nova.
    script='install -m 644 /var/lib/kolla/venv/etc/neutron/api-paste.ini '
           '/etc/neutron/\n',
    # ovsdb-client: the OVN driver reads the databases' schemas with it.
    packages=('openvswitch-common',))

# RabbitMQ for Nova's and Neutron's RPC: Debian's broker as the rabbitmq
# user, node rabbit@localhost, AMQP on 5672 (BIND_ADDRESS), no plugins
# (the management plugin off), the user RABBITMQ_DEFAULT_USER /
# RABBITMQ_DEFAULT_PASS made on a new database in /var/lib/rabbitmq (the
# volume), its Erlang cookie made there at first start. Health check:
# /usr/local/bin/healthcheck.sh (a connection to the AMQP listener, no
# Erlang VM started).
_RABBITMQ = Image(
    name='rabbitmq', debian_package='rabbitmq-server',
    packages=('rabbitmq-server',),
    files=(('rabbitmq/entrypoint', '/usr/local/bin/docker-entrypoint.sh',
            0o755),
           ('rabbitmq/healthcheck.sh', '/usr/local/bin/healthcheck.sh',
            0o755)),
    # No cookie or database of the build's: each container's are its own.
    # The entrypoint writes rabbitmq.conf as the rabbitmq user.
    script='rm -rf /var/lib/rabbitmq/.erlang.cookie /var/lib/rabbitmq/mnesia '
           '/var/log/rabbitmq/*\n'
           "echo '[].' > /etc/rabbitmq/enabled_plugins\n"
           'chown rabbitmq:rabbitmq /etc/rabbitmq\n',
    entrypoint=('docker-entrypoint.sh',), cmd=('rabbitmq-server',),
    env=(('PATH', PATH_ENV), ('LANG', 'C.UTF-8'),
         ('RABBITMQ_NODENAME', 'rabbit@localhost')),
    ports=(5672,))
# OVN's central part for Neutron's ML2/OVN: the northbound and southbound
# databases and ovn-northd, chosen by the command (`ovn-nb`, `ovn-sb`,
# `ovn-northd` with OVN_NB_DB and OVN_SB_DB), as the ovn user; the
# databases in /var/lib/ovn (the volume). Health checks: `ovn-appctl -t
# /run/ovn/ovnnb_db.ctl ovsdb-server/list-dbs` (ovnsb_db likewise),
# `ovn-appctl -t /run/ovn/ovn-northd.ctl status`.
_OVN = Image(
    name='ovn', debian_package='ovn-central',
    packages=('ovn-central', 'passwd', 'tini'),
    files=(('ovn/entrypoint', '/usr/local/bin/docker-entrypoint.sh',
            0o755),),
    script='useradd --system --user-group --home-dir /var/lib/ovn '
           '--no-create-home --shell /usr/sbin/nologin ovn\n'
           'rm -rf /var/lib/ovn/* /var/log/ovn/*\n'
           'install -d -o ovn -g ovn /var/lib/ovn\n',
    # On SIGTERM the daemons clean up and raise it again, which PID 1
    # cannot take (they then end on SIGSEGV, 139): tini is PID 1, and
    # forwards signals; the exit a SIGTERM gives (143) it reports as 0.
    entrypoint=('tini', '-e', '143', '--', 'docker-entrypoint.sh'),
    env=(('PATH', PATH_ENV), ('LANG', 'C.UTF-8')),
    ports=(6641, 6642))

IMAGES = (
    Image(
        name='pause', version_key='PAUSE_VERSION',
        files=(('pause.c', '/pause', 0o755),),
        entrypoint=('/pause',), user='65535:65535'),
    Image(
        name='base', version_key='DEBIAN_SUITE',
        packages=('ca-certificates',), cmd=('/bin/bash',)),
    Image(
        name='postgres', debian_package='postgresql-15',
        packages=('postgresql-15',),
        files=(('postgres/entrypoint', '/usr/local/bin/docker-entrypoint.sh',
                0o755),),
        # Debian's package made a cluster of its own; ours is PGDATA.
        script='rm -rf /var/lib/postgresql/15 /etc/postgresql/15\n'
               'install -d -o postgres -g postgres -m 700 '
               '/var/lib/postgresql/data\n',
        entrypoint=('docker-entrypoint.sh',), cmd=('postgres',),
        env=(('PATH', '/usr/lib/postgresql/15/bin:' + PATH_ENV),
             ('PGDATA', '/var/lib/postgresql/data'), ('LANG', 'C.UTF-8')),
        ports=(5432,), stop_signal='SIGINT'),
    Image(
        name='mariadb', debian_package='mariadb-server',
        packages=('mariadb-server', 'mariadb-client'),
        files=(('mariadb/entrypoint', '/usr/local/bin/docker-entrypoint.sh',
                0o755),
               ('mariadb/healthcheck.sh', '/usr/local/bin/healthcheck.sh',
                0o755),
               ('mariadb/mariadb.cnf', '/etc/mysql/mariadb.cnf', 0o644)),
        # The package initialised a datadir; ours starts empty so the
        # entrypoint sets root's password. The address is the entrypoint's.
        script='rm -rf /var/lib/mysql/*\n'
               "sed -i '/^bind-address/d' "
               '/etc/mysql/mariadb.conf.d/50-server.cnf\n'
               'mkdir -p /etc/mysql/conf.d\n',
        entrypoint=('docker-entrypoint.sh',), cmd=('mariadbd',),
        env=(('LANG', 'C.UTF-8'),), ports=(3306,)),
    Image(
        name='memcached', debian_package='memcached',
        packages=('memcached',),
        files=(('memcached/entrypoint',
                '/usr/local/bin/docker-entrypoint.sh', 0o755),),
        entrypoint=('docker-entrypoint.sh',), cmd=('memcached',),
        user='memcache', ports=(11211,)),
    _KEYSTONE,
    Image(
        name='wagtail', version_key='WAGTAIL_VERSION',
        packages=('ca-certificates', 'passwd', 'python3', 'python3-venv'),
        files=(('wagtail/local_settings.py', STAGE + '/local.py', 0o644),
               ('wagtail/site-migrate', '/usr/local/bin/site-migrate',
                0o755),
               ('wagtail/site-serve', '/usr/local/bin/site-serve', 0o755)),
        requirements='wagtail/requirements.txt',
        venv='/opt/wagtail/venv', pin='wagtail',
        # 'site' is a Python module, so the project is mysite (the name
        # Wagtail's tutorial uses); its static files are collected here.
        script='cd /opt/wagtail\n'
               'wagtail start mysite\n'
               'install -m 644 %s/local.py mysite/mysite/settings/\n'
               'cd mysite\n'
               'DJANGO_SETTINGS_MODULE=mysite.settings.production '
               'python manage.py collectstatic --noinput -v 0\n'
               'useradd --system --user-group --home-dir /opt/wagtail '
               '--shell /usr/sbin/nologin wagtail\n'
               'install -d -o wagtail -g wagtail media\n' % STAGE,
        cmd=('site-serve',), user='wagtail',
        workdir='/opt/wagtail/mysite',
        env=(('PATH', '/opt/wagtail/venv/bin:' + PATH_ENV),
             ('DJANGO_SETTINGS_MODULE', 'mysite.settings.production'),
             ('PYTHONUNBUFFERED', '1'), ('LANG', 'C.UTF-8')),
        ports=(8080,)),
)
# The series before theirs (glance-2026.1, placement-2026.1, nova-2026.1,
# nova-compute-2026.1, neutron-2026.1): where the control plane's release
# upgrade starts from (tests/e2e).
UPGRADE_SERIES = '2026.1'
_EARLIER_SERVICES = tuple(
    _earlier(i, UPGRADE_SERIES)
    for i in (_GLANCE, _PLACEMENT, _NOVA, _NOVA_COMPUTE, _NEUTRON))
# Built only when named (`tools/localcloud images glance placement`), so
# that `up` and `demo` build only what the example runs: the earlier
# releases (an upgrade's start) and the control plane's other services.
# The tests that run them name them; their functional tests run where
# they are built (tests/functional/test_images.py).
OPTIONAL_IMAGES = (_EARLIER_KEYSTONES + (_GLANCE, _PLACEMENT) +
                   _EARLIER_SERVICES + (_NOVA, _NOVA_COMPUTE, _NEUTRON,
                                        _RABBITMQ, _OVN))
# A Debian host booting systemd, for programs that run services as
# systemd units (devstack: tools/devstack/): `stack`, devstack's user, may
# sudo. Never a pod's image: the node does not import it.
_DEVSTACK_HOST = Image(
    name='devstack-host', version_key='DEBIAN_SUITE',
    packages=('systemd', 'systemd-sysv', 'dbus', 'sudo', 'passwd', 'git',
              'python3', 'lsb-release', 'iproute2', 'iputils-ping',
              'ca-certificates', 'curl', 'openssl', 'procps', 'psmisc',
              'netbase'),
    script='useradd --shell /bin/bash --home-dir /opt/stack --create-home '
           'stack\n'
           'chmod 755 /opt/stack\n'
           "echo 'stack ALL=(ALL) NOPASSWD: ALL' > /etc/sudoers.d/stack\n"
           'chmod 440 /etc/sudoers.d/stack\n',
    cmd=('/sbin/init',), env=(('PATH', PATH_ENV), ('LANG', 'C.UTF-8')),
    stop_signal='SIGRTMIN+3')
HOST_IMAGES = (_DEVSTACK_HOST,)
ALL_IMAGES = IMAGES + OPTIONAL_IMAGES + HOST_IMAGES
BY_NAME = {i.name: i for i in ALL_IMAGES}
# Recipes whose image is another recipe's repository at another tag
# (<name>-<series>: <name>).
REPOSITORY = {i.name: i.name.rpartition('-')[0]
              for i in _EARLIER_KEYSTONES + _EARLIER_SERVICES}

def tag(image, versions):
    if image.version_key:
        return versions[image.version_key]
    return DEBIAN_TAGS[versions['DEBIAN_SUITE']][image.debian_package]


def ref(name, versions=None):
    """Full reference of the image called `name`."""
    versions = versions or go.read_versions()
    return '%s/%s:%s' % (REGISTRY, REPOSITORY.get(name, name),
                         tag(BY_NAME[name], versions))


def refs(versions=None):
    """name -> full reference of every image (opt-in ones too)."""
    versions = versions or go.read_versions()
    return {i.name: ref(i.name, versions) for i in ALL_IMAGES}


def check_pin(image, versions, images_dir=IMAGES_DIR):
    """The pinned pip set installs the version the image is tagged with."""
    if not image.pin:
        return
    want = '%s==%s' % (image.pin, tag(image, versions))
    with open(os.path.join(images_dir, image.requirements)) as f:
        lines = [line.strip().lower() for line in f]
    if want.lower() not in lines:
        raise RuntimeError(
            '%s does not pin %s (tools/versions.env): regenerate it with '
            'pip freeze' % (image.requirements, want))
