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

"""Files rendered from Jinja2 templates into ConfigMaps and Secrets.

Through Heat's engine against the real cluster: the content Kubernetes
holds, a rollout when an environment file changes one override, and a
rendered Secret that nothing Heat shows or stores gives away.
"""

from tests.functional import heat_cluster  # first: sets up Heat

# isort: split

import base64
import json

from heat_k8s.rendering import checksum
from tests import simulated
from tests.functional import cloud

API_CONF_J2 = """\
[DEFAULT]
# Verbose logging for debugging.
debug = {{ debug | lower }}

[database]
connection = mysql+pymysql://api:{{ db.password }}@{{ db.host }}/api
max_retries = {{ db.max_retries }}

[keystone_authtoken]
{% for server in memcached %}
# memcached {{ loop.index }}: {{ server }}
{% endfor %}
memcached_servers = {{ memcached | join(',') }}
"""

CONFIG_TEMPLATE = {
    'heat_template_version': '2021-04-16',
    'parameters': {
        'api_overrides': {'type': 'json', 'default': {}},
        'api_ini_overrides': {'type': 'json', 'default': {}},
    },
    'resources': {
        'config': {'type': 'OS::Kubernetes::ConfigMap', 'properties': {
            'templates': {'api.conf': {'get_file': 'api.conf.j2'}},
            'values': {'debug': False,
                       'db': {'host': 'db', 'password': 'not-secret',
                              'max_retries': 10},
                       'memcached': ['mc-0:11211', 'mc-1:11211']},
            'value_overrides': {'get_param': 'api_overrides'},
            'ini_overrides': {'api.conf': {'get_param': 'api_ini_overrides'}},
            'data': {'policy.yaml': '{}'},
        }},
        'api': {'type': 'OS::Kubernetes::Deployment', 'properties': {'spec': {
            'replicas': 2,
            'selector': {'matchLabels': {'app': 'api'}},
            'template': {
                'metadata': {'labels': {'app': 'api'}, 'annotations': {
                    'checksum/config': {'get_attr': ['config', 'checksum']}}},
                'spec': simulated.on_kwok({'containers': [{
                    'name': 'api', 'image': 'registry.invalid/api:1',
                    'volumeMounts': [{'name': 'config',
                                      'mountPath': '/etc/api'}]}],
                    'volumes': [{'name': 'config', 'configMap': {
                        'name': {'get_attr': ['config', 'name']}}}]})}}}},
    },
}

SECRET = 'Rend3red-s3cret-passw0rd'
SECRET_TEMPLATE = {
    'heat_template_version': '2021-04-16',
    'parameters': {'db_password': {'type': 'string', 'hidden': True}},
    'resources': {
        'credentials': {'type': 'OS::Kubernetes::Secret', 'properties': {
            'templates': {
                'db.conf': '[database]\n'
                           'connection = mysql://api:{{ password }}@db/api\n',
                'password': '{{ password }}',
            },
            'values': {'password': {'get_param': 'db_password'}},
            'ini_overrides': {'db.conf': {'database': {
                'backup_password': {'get_param': 'db_password'}}}},
        }},
    },
    'outputs': {'checksum': {'value': {
        'get_attr': ['credentials', 'checksum']}}},
}


class RenderingTest(heat_cluster.ClusterTestCase):

    def make_stack(self, template, parameter_defaults=None, params=None,
                   existing=None):
        """`stack create`, or `stack update` of existing, with the
        template's file and an environment file's parameter_defaults."""
        env = {'parameters': params or {},
               'parameter_defaults': parameter_defaults or {}}
        files = {'api.conf.j2': API_CONF_J2}
        if existing is not None:
            return self.update(existing, template, env, files)
        return self.create(template, env, files)

    def live_config(self, stack):
        return self.core.read_namespaced_config_map(
            stack['config'].data()['name'], self.ns)

    def test_rendered_content_and_a_rollout_when_an_override_changes(self):
        stack = self.make_stack(CONFIG_TEMPLATE, parameter_defaults={
            'api_ini_overrides': {'database': {'max_pool_size': 5}}})
        self.assertState(stack, 'CREATE', 'COMPLETE')
        live = self.live_config(stack)
        self.assertEqual({'api.conf', 'policy.yaml'}, set(live.data))
        self.assertEqual("""\
[DEFAULT]
# Verbose logging for debugging.
debug = false

[database]
connection = mysql+pymysql://api:not-secret@db/api
max_retries = 10
max_pool_size = 5

[keystone_authtoken]
# memcached 1: mc-0:11211
# memcached 2: mc-1:11211
memcached_servers = mc-0:11211,mc-1:11211
""", live.data['api.conf'])
        first = stack['config'].FnGetAtt('checksum')
        self.assertEqual(checksum.content(live.data), first)
        deployment = stack['api'].data()['name']
        old_sets = {rs.metadata.name for rs in self.replica_sets(deployment)}
        old_pods = {p.metadata.name for p in self.pods()}
        self.assertEqual(2, len(old_pods))

        # An environment file changes one nested key; the rest stays.
        stack = self.make_stack(CONFIG_TEMPLATE, parameter_defaults={
            'api_overrides': {'debug': True, 'db': {'host': 'db.example'}},
            'api_ini_overrides': {'database': {'max_pool_size': 5}}},
            existing=stack)
        self.assertState(stack, 'UPDATE', 'COMPLETE')
        text = self.live_config(stack).data['api.conf']
        self.assertIn('debug = true\n', text)
        self.assertIn('api:not-secret@db.example/api\n', text)
        self.assertIn('max_retries = 10\n', text)
        second = stack['config'].FnGetAtt('checksum')
        self.assertNotEqual(first, second)

        live = self.apps.read_namespaced_deployment(deployment, self.ns)
        self.assertEqual(second, live.spec.template.metadata.annotations[
            'checksum/config'])
        self.assertEqual(2, live.status.updated_replicas)
        new_sets = {rs.metadata.name for rs in self.replica_sets(deployment)
                    if rs.spec.replicas} - old_sets
        self.assertEqual(1, len(new_sets), new_sets)
        new_set = new_sets.pop()

        def rolled():
            pods = self.pods()
            return not {p.metadata.name for p in pods} & old_pods and all(
                ref.name == new_set for p in pods
                for ref in p.metadata.owner_references) and len(pods) == 2
        cloud.wait_until(rolled, 'the old pods to go', timeout=60)

    def replica_sets(self, deployment):
        return [rs for rs in self.apps.list_namespaced_replica_set(
            self.ns, label_selector='app=api').items
            if any(ref.name == deployment
                   for ref in rs.metadata.owner_references or ())]

    def pods(self):
        return [p for p in self.core.list_namespaced_pod(
            self.ns, label_selector='app=api').items
            if not p.metadata.deletion_timestamp]

    def test_a_rendered_secret_appears_nowhere_in_heat(self):
        stack = self.make_stack(SECRET_TEMPLATE,
                                params={'db_password': SECRET})
        self.assertState(stack, 'CREATE', 'COMPLETE')
        rsrc = stack['credentials']
        live = self.core.read_namespaced_secret(rsrc.data()['name'], self.ns)
        files = {key: base64.b64decode(value).decode()
                 for key, value in live.data.items()}
        self.assertEqual(SECRET, files['password'])
        self.assertEqual('[database]\n'
                         'connection = mysql://api:%s@db/api\n'
                         'backup_password = %s\n' % (SECRET, SECRET),
                         files['db.conf'])
        self.assertEqual(rsrc.FnGetAtt('checksum'),
                         self.output(stack, 'checksum'))

        shown = self.shown(stack, rsrc)
        forms = (SECRET, base64.b64encode(SECRET.encode()).decode(),
                 base64.b64encode(files['db.conf'].encode()).decode(),
                 'mysql://api:%s' % SECRET)
        for text in shown:
            for form in forms:
                self.assertNotIn(form, text)
        self.assertNotIn('last-applied-configuration',
                         json.dumps(live.metadata.annotations or {}))

        # A render failing at create (its values come from another
        # resource, so template validate could not render it) does not
        # quote the value it failed on.
        failing = json.loads(json.dumps(SECRET_TEMPLATE))
        props = failing['resources']['credentials']['properties']
        props['templates'] = {'x': '{{ users[password] }}'}
        props['values']['users'] = {'get_attr': ['other', 'status']}
        props.pop('ini_overrides')
        failing['resources']['other'] = {'type': 'OS::Kubernetes::ConfigMap'}
        stack = self.make_stack(failing, params={'db_password': SECRET})
        self.assertState(stack, 'CREATE', 'FAILED')
        self.assertIn('x, line 1: UndefinedError', stack.status_reason)
        self.assertIn('the details are withheld', stack.status_reason)
        for text in self.shown(stack, stack['credentials']):
            self.assertNotIn(SECRET, text)
        self.assertEqual([], self.core.list_namespaced_secret(
            self.ns, label_selector='heat.openstack.org/stack-id=%s'
            % stack.id).items)

    def shown(self, stack, rsrc):
        """Everything Heat stores or shows about the stack and resource."""
        shown = [str(stack.status_reason), str(rsrc.status_reason),
                 json.dumps(rsrc.data()),
                 json.dumps(rsrc._stored_properties_data, default=str)]
        if rsrc.resource_id:
            shown += [json.dumps(rsrc.FnGetAtt('show'), default=str),
                      json.dumps(rsrc.FnGetAtt('status'), default=str),
                      str(rsrc.FnGetAtt('checksum'))]
        for event in self.events(stack):
            shown.append(json.dumps(event.resource_properties, default=str))
            shown.append(str(event.resource_status_reason))
        return shown
