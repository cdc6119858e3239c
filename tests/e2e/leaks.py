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

"""Where a stack's secret values can be read: every place a user or an
operator reads, searched for needles (the secret values).

A place is (source, detail, text): the source says what was read (`event
show`, `heat-engine.log`, ...), the detail which one. Heat is read through
python-heatclient with one Keystone session (what `openstack stack ...`
shows is the same API answer, formatted), a few calls at a time; the
preview through the CLI, as its users type it. Nested stacks are followed
everywhere. Needles are named, never shown: a hit says which needle, where,
and the text around it with every needle masked.
"""

import base64
import collections
import concurrent.futures
import getpass
import json
import os
import re
import threading
import urllib.parse

from tests.e2e import stacks

WORKERS = 4
CONTEXT = 40
HEAT_LOGS = ('heat-engine.log', 'heat-api.log')
DEPLOYMENT_TYPES = ('OS::Heat::SoftwareDeployment',
                    'OS::Heat::StructuredDeployment')
SERVER_TYPES = ('OS::Heat::DeployedServer', 'OS::Nova::Server')
SOFTWARE_TYPES = DEPLOYMENT_TYPES + (
    'OS::Heat::SoftwareConfig', 'OS::Heat::StructuredConfig',
    'OS::Heat::SoftwareComponent', 'OS::Heat::MultipartConfig',
    'OS::Heat::CloudConfig', 'OS::Heat::DeployedServer')
# Where a secret value belongs: the Kubernetes Secret, the files the
# containers read; and, for a top-level hidden parameter, Heat's own
# export (that is how export and abandon recreate a stack).
SECRET_DATA = 'Secret data'
HOST_SECRET_FILE = 'host secret file'
# What the docker host's root sees of a container: its configuration,
# secret environment variables included (--env-file), as in /proc.
PODMAN_INSPECT = 'podman inspect'
EXPORT_PARAMETERS = 'stack export environment.parameters'
# Secret environment variables of templates/identity.yaml -> needle name.
SECRET_ENV = {'MARIADB_ROOT_PASSWORD': 'database root password',
              'MYSQL_PWD': 'database root password',
              'KEYSTONE_DB_PASSWORD': 'keystone database password',
              'OS_BOOTSTRAP_PASSWORD': 'admin password'}
# A secret variable's needle that SECRET_ENV does not name (another
# service's): '<container> <VARIABLE>', as secret_env_needles names it.
SECRET_VARIABLE = re.compile(r'[a-z0-9-]+ [A-Z][A-Z0-9_]*')
FERNET_KEY = re.compile(r'fernet-keys[/_](\d+)$')
# The generated secrets of templates/identity.yaml (at rotation 0) and the
# admin password: each must be found where it belongs, or the search read
# nothing.
IDENTITY_NEEDLES = {'admin password', 'database root password',
                    'keystone database password', 'Fernet key keystone/0',
                    'Fernet key keystone/1', 'Fernet key keystone-bootstrap/0'}
# templates/controlplane.yaml's: Keystone's, and each other service's
# database password and service user's password (the tasks that set them
# name them; the admin password is the same value everywhere).
CONTROLPLANE_NEEDLES = IDENTITY_NEEDLES | {
    '%s-db-create SERVICE_DB_PASSWORD' % s for s in ('glance', 'placement')
} | {'%s-service-user SERVICE_PASSWORD' % s for s in ('glance', 'placement')}
HEAT_DATABASE = "Heat's database"
HEAT_SOURCES = {HEAT_DATABASE, 'stack show', 'stack template show',
                'stack environment show',
                'stack file list', 'stack output show', 'stack resource show',
                'stack resource metadata', 'event list', 'stack event show',
                'stack export', EXPORT_PARAMETERS,
                'stack create --dry-run', 'heat-engine.log', 'heat-api.log'}

Place = collections.namedtuple('Place', 'source detail text')


def text(value):
    return value if isinstance(value, str) else json.dumps(
        value, sort_keys=True, default=str)


def log_offsets(localcloud):
    """Sizes of Heat's logs now: a collection reads what follows."""
    return {name: stacks.log_size(_log(localcloud, name))
            for name in HEAT_LOGS}


def _log(localcloud, name):
    return os.path.join(localcloud.state_dir, 'logs', name)


# ---------------------------------------------------------------------------
# needles


def secret_env_needles(env, service):
    """{value: needle name} of a service's secret environment."""
    return {value: SECRET_ENV.get(key, '%s %s' % (service, key))
            for key, value in env.items() if value}


def fernet_needle(path, value, service):
    match = FERNET_KEY.search(path)
    return match and {value.strip().rstrip('='): 'Fernet key %s/%s' % (
        service, match.group(1))}


def kube_needles(secrets, prefix):
    """{value: name} from the Kubernetes Secrets of services named
    <prefix>...: env.<VAR> keys and Fernet key files."""
    found = {}
    for secret in secrets:
        labels = secret['metadata'].get('labels') or {}
        app = labels.get('app.kubernetes.io/name', '')
        if not app.startswith(prefix):
            continue
        data = decoded(secret)
        service = app[len(prefix):]
        found.update(secret_env_needles(
            {k[len('env.'):]: v for k, v in data.items()
             if k.startswith('env.')}, service))
        for key, value in data.items():
            found.update(fernet_needle(key, value, service) or {})
    return found


def host_needles(root, prefix):
    """{value: name} from the services' files on a docker host:
    <root>/<prefix><service>/secrets.env and secret-files/."""
    found = {}
    for path, content in host_files(root, prefix):
        service = os.path.relpath(path, root).split(os.sep)[0][len(prefix):]
        if os.path.basename(path) == 'secrets.env':
            found.update(secret_env_needles(dict(
                line.split('=', 1) for line in content.splitlines()
                if '=' in line), service))
        elif '/secret-files/' in path:
            found.update(fernet_needle(path, content, service) or {})
    return found


def decoded(secret):
    return {key: base64.b64decode(value).decode(errors='replace')
            for key, value in (secret.get('data') or {}).items()}


def host_files(root, prefix, limit=1 << 20):
    """(path, text) of the services' files, their storage (data/) aside."""
    for name in sorted(os.listdir(root)):
        if not name.startswith(prefix):
            continue
        for top, dirs, files in os.walk(os.path.join(root, name)):
            if top == os.path.join(root, name):
                dirs[:] = [d for d in dirs if d != 'data']
            for file_name in sorted(files):
                path = os.path.join(top, file_name)
                if os.path.getsize(path) <= limit:
                    with open(path, errors='replace') as f:
                        yield path, f.read()


# ---------------------------------------------------------------------------
# searching


def spellings(value):
    """Every way value can be written where it leaks: as it is,
    JSON-escaped, URL-encoded, and base64-encoded alone or inside longer
    text (the middle of its encoding at each of the three alignments)."""
    raw = value.encode('utf-8')
    forms = {value, json.dumps(value)[1:-1], urllib.parse.quote(value, ''),
             base64.b64encode(raw).decode('ascii').rstrip('=')}
    for shift in range(3):
        encoded = base64.b64encode(b'\0' * shift + raw).decode('ascii')
        inner = encoded[4:-4]
        if len(inner) >= 16:   # shorter, and it would match by chance
            forms.add(inner)
    return forms


def spelled(needles):
    """needles {value: name} with every spelling of each value."""
    return {form: name for value, name in needles.items()
            for form in spellings(value)}


def where(places, needles):
    """{(source, detail): {needle name: masked context}} of every hit,
    in any spelling of the needles."""
    needles = spelled(needles)
    hits = {}
    for place in places:
        names = {name for value, name in needles.items()
                 if value in place.text}
        if names:
            shown = masked(place.text, needles)
            hits[(place.source, place.detail)] = {
                name: around(shown, '<%s>' % name) for name in names}
    return hits


def masked(content, needles):
    for value, name in sorted(needles.items(), key=lambda n: -len(n[0])):
        content = content.replace(value, '<%s>' % name)
    return content


def around(content, marker):
    """The text around the first `marker` (needles already masked)."""
    at = content.index(marker)
    return content[max(0, at - CONTEXT):at + len(marker) + CONTEXT].replace(
        '\n', '\\n')


def allowed(source, name):
    if source in (SECRET_DATA, HOST_SECRET_FILE):
        return True
    if source == PODMAN_INSPECT:   # the host's root: the variables only
        return name in SECRET_ENV.values() or SECRET_VARIABLE.fullmatch(
            name) is not None
    # A typed hidden parameter: Heat exports it in clear (its database
    # holds it encrypted: encrypt_parameters_and_properties).
    return source == EXPORT_PARAMETERS and name == 'admin password'


def leaks(hits):
    return {place: {n: c for n, c in names.items()
                    if not allowed(place[0], n)}
            for place, names in hits.items()
            if any(not allowed(place[0], n) for n in names)}


def kept(hits):
    """{needle name: [places]} of the hits in allowed places."""
    out = {}
    for place, names in hits.items():
        for name in names:
            if allowed(place[0], name):
                out.setdefault(name, []).append(place)
    return out


def describe(hits):
    """One line per place: source, detail, names and masked contexts."""
    lines = []
    for (source, detail), names in sorted(hits.items()):
        lines.append('%s: %s: %s' % (source, detail, ', '.join(sorted(
            names))))
        lines += ['    ...%s...' % names[n] for n in sorted(names)]
    return '\n'.join(lines)


# ---------------------------------------------------------------------------
# collecting


class Collector(object):
    """Every place a stack's values can be read, in a thread pool."""

    def __init__(self, localcloud, workers=WORKERS):
        self.localcloud = localcloud
        self.client = stacks.Heat(localcloud).client
        self.pool = concurrent.futures.ThreadPoolExecutor(workers)
        self.types = {}
        self.lock = threading.Lock()

    def map(self, fn, items):
        return list(self.pool.map(lambda item: fn(*item), items))

    def heat(self, stack, create_args):
        """Heat's places for the stack (nested ones included), its export
        and a preview of the same create under another name."""
        top = self.client.stacks.get(stack)
        ids = self.stack_ids(top.id)
        preview = self.pool.submit(self.preview, stack, create_args)
        places = self.export(top.id)
        places.append(Place('event list', '--nested-depth 10 --long', text(
            [e.to_dict() for e in self.client.events.list(
                top.id, nested_depth=10)])))
        for found in self.map(self.stack_places, [(i,) for i in ids]):
            places += found
        resources = [(sid, r) for sid in ids
                     for r in self.client.resources.list(sid)]
        for found in self.map(self.resource_places, [
                (sid, r) for sid, r in resources
                if r.resource_type not in SOFTWARE_TYPES]):
            places += found
        # One at a time: their `show` is an engine-to-engine call, and a
        # few such resource shows at once stalled this cloud's two engines
        # past the RPC timeout.
        for sid, r in resources:
            if r.resource_type in SOFTWARE_TYPES:
                places += self.resource_places(sid, r)
        events = [(sid, e) for sid in ids
                  for e in self.client.events.list(sid)]
        places += self.map(self.event_show, events)
        places.append(preview.result())
        return places

    def stack_ids(self, top_id):
        """The stack and every stack nested in it (`stack list --nested`)."""
        parents = {s.id: getattr(s, 'parent', None)
                   for s in self.client.stacks.list(show_nested=True)}
        ids, grew = [top_id], True
        while grew:
            more = [i for i, p in parents.items() if p in ids
                    and i not in ids]
            ids += more
            grew = bool(more)
        return ids

    def stack_places(self, sid):
        stacks_api = self.client.stacks
        shown = stacks_api.get(sid)
        name = '%s/%s' % (shown.stack_name, sid)
        places = [Place('stack show', name, text(shown.to_dict())),
                  Place('stack template show', name,
                        text(stacks_api.template(sid))),
                  Place('stack environment show', name,
                        text(stacks_api.environment(sid))),
                  Place('stack file list', name, text(stacks_api.files(sid)))]
        for output in stacks_api.output_list(sid)['outputs']:
            places.append(Place('stack output show', '%s %s' % (
                name, output['output_key']), text(stacks_api.output_show(
                    sid, output['output_key']))))
        return places

    def export(self, sid):
        """`stack export`, its top-level parameters apart."""
        exported = self.client.stacks.export(sid)
        env = exported.get('environment') or {}
        parameters = env.pop('parameters', {})
        return [Place(EXPORT_PARAMETERS, sid, text(parameters)),
                Place('stack export', sid, text(exported))]

    def resource_places(self, sid, resource):
        name = resource.resource_name
        detail = '%s %s' % (sid, name)
        attrs = self.attribute_names(resource)
        shown = self.client.resources.get(sid, name, with_attr=attrs)
        places = [Place('stack resource show', detail + ' --with-attr '
                        + ','.join(attrs), text(shown.to_dict())),
                  Place('stack resource metadata', detail, text(
                      self.client.resources.metadata(sid, name)))]
        physical = resource.physical_resource_id
        if resource.resource_type in DEPLOYMENT_TYPES and physical:
            places += self.deployment_places(detail, physical)
        if resource.resource_type in SERVER_TYPES and physical:
            places.append(Place(
                'software deployment metadata show', detail, text(
                    self.client.software_deployments.metadata(physical))))
        return places

    def attribute_names(self, resource):
        """Its type's attributes; a provider's are its nested outputs."""
        names = set(self.type_attributes(resource.resource_type))
        nested = [link['href'] for link in resource.links
                  if link['rel'] == 'nested']
        if nested and resource.physical_resource_id:
            outputs = self.client.stacks.output_list(
                resource.physical_resource_id)['outputs']
            names |= {o['output_key'] for o in outputs}
        return sorted(names)

    def type_attributes(self, type_name):
        with self.lock:
            if not self.types:
                # Only the registered types: an environment's alias of a
                # provider template is not one (its attributes are its
                # outputs), and asking would log a traceback in the engine.
                self.types = {t.resource_type: None for t in
                              self.client.resource_types.list()}
            if type_name in self.types and self.types[type_name] is None:
                self.types[type_name] = list(self.client.resource_types.get(
                    type_name).get('attributes', {}))
            return self.types.get(type_name) or []

    def deployment_places(self, detail, deployment_id):
        deployment = self.client.software_deployments.get(deployment_id)
        config = self.client.software_configs.get(deployment.config_id)
        return [Place('software deployment show', detail,
                      text(deployment.to_dict())),
                Place('software deployment output show --all', detail,
                      text(deployment.output_values)),
                Place('software config show', detail,
                      text(config.to_dict()))]

    def event_show(self, sid, event):
        shown = self.client.events.get(sid, event.resource_name, event.id)
        return Place('stack event show', '%s %s %s' % (
            sid, event.resource_name, event.id), text(shown.to_dict()))

    def preview(self, stack, create_args):
        """`stack create --dry-run`: the same create, another name."""
        result = self.localcloud.run(
            'openstack', 'stack', 'create', '--dry-run', '-f', 'json',
            *create_args, stack + '-leak-preview', check=False)
        return Place('stack create --dry-run', stack,
                     result.stdout + result.stderr)

    def logs(self, offsets, agent_logs=()):
        """Heat's logs since `offsets`, and the agents' logs whole."""
        places = []
        for name, offset in sorted(offsets.items()):
            places.append(Place(name, 'since the stack was created',
                                stacks.log_since(_log(self.localcloud, name),
                                                 offset)))
        for name in agent_logs:
            places.append(Place('docker host agent log', name,
                                stacks.log_since(_log(self.localcloud, name),
                                                 0)))
        return places

    def kubernetes(self, namespace):
        """kubectl get of every listable namespaced kind, the namespace
        itself; Secrets as their data (allowed) and the rest (not)."""
        kinds = self.kubectl('api-resources', '--namespaced=true',
                             '--verbs=list', '-o', 'name').split()
        listed = json.loads(self.kubectl(
            'get', ','.join(k for k in kinds if k != 'secrets'),
            '-n', namespace, '-o', 'json') or '{"items": []}')['items']
        listed.append(json.loads(self.kubectl(
            'get', 'namespace', namespace, '-o', 'json')))
        places = [Place('kubectl get', '%s %s' % (
            obj['kind'], obj['metadata']['name']), text(obj))
            for obj in listed]
        for secret in self.secrets(namespace):
            name = secret['metadata']['name']
            places.append(Place(SECRET_DATA, name, text(decoded(secret))))
            secret.pop('data', None)
            places.append(Place('kubectl get', 'Secret %s (all but data)'
                                % name, text(secret)))
        return places

    def secrets(self, namespace):
        return json.loads(self.kubectl('get', 'secrets', '-n', namespace,
                                       '-o', 'json'))['items']

    def kubectl(self, *args):
        # Kinds that cannot be listed here (an aggregated API down) leave
        # the others' answer intact.
        return self.localcloud.run('kubectl', *args, check=False).stdout

    def host(self, root, prefix):
        """The services' files on a docker host."""
        return [Place(HOST_SECRET_FILE if (
            '/secret-files/' in path or path.endswith('/secrets.env'))
            else 'host file', path, content)
            for path, content in host_files(root, prefix)]

    def database(self):
        """Heat's database, every table, as its operator dumps it (hidden
        parameters and properties are stored encrypted: heat.conf's
        encrypt_parameters_and_properties)."""
        socket = os.path.join(self.localcloud.state_dir, 'mariadb',
                              'mysqld.sock')
        dumped = self.localcloud.run(
            'mariadb-dump', '--no-defaults', '--socket=' + socket, '-u',
            getpass.getuser(), '--skip-extended-insert', '--no-create-info',
            'heat')
        return [Place(HEAT_DATABASE, 'heat', dumped.stdout)]

    def close(self):
        self.pool.shutdown()


def check(places, needles, sources):
    """Every needle in an allowed place, none elsewhere, and every source
    read (no test passes by reading nothing)."""
    hits = where(places, needles)
    problems = []
    unread = set(sources) - {p.source for p in places if p.text.strip()}
    if unread:
        problems.append('nothing read from: %s' % ', '.join(sorted(unread)))
    unseen = set(needles.values()) - set(kept(hits))
    if unseen:
        problems.append('not found where they belong: %s' % ', '.join(
            sorted(unseen)))
    leaked = leaks(hits)
    if leaked:
        problems.append('%d places show secret values:\n%s' % (
            len(leaked), describe(leaked)))
    return '\n'.join(problems)
