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

"""Bad input through Heat's real engine: `template validate` and `stack
create` (EngineService.validate_template and create_stack, in-process).

Heat 27 validates a template with strict_validate off, so these run
through heat_k8s.resources.shared.literal; each wrong value must be
refused by both, naming the property and the field path, and stack
create must store nothing.
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import copy

from oslo_config import cfg

from tests.unit.heat_harness import deployment
from tests.unit.heat_harness import template


def _spec(**changes):
    spec = copy.deepcopy(deployment()['properties']['spec'])
    spec.update(changes)
    return spec


def _typed(type_name, **props):
    return {'type': 'OS::Kubernetes::' + type_name, 'properties': props}


class BadInputTest(heat_harness.KubernetesTestCase):

    def assertRefused(self, tmpl, *fragments, params=None):
        """Refused by template validate and by stack create alike."""
        answer = self.template_validate(tmpl, params)
        self.assertIn('Error', answer, 'template validate accepted it')
        created = self.create_refused(tmpl, params)
        for fragment in fragments:
            self.assertIn(fragment, answer['Error'])
            self.assertIn(fragment, created)
        return answer['Error']

    def assertAccepted(self, tmpl, params=None):
        answer = self.template_validate(tmpl, params)
        self.assertNotIn('Error', answer, answer.get('Error'))

    def test_a_valid_template_passes(self):
        self.assertAccepted(template({'web': deployment()}))

    # --- spec: the OpenAPI schema and its formats --------------------------

    def test_replicas_beyond_int32(self):
        self.assertRefused(
            template({'web': deployment(_spec(replicas=4294967296))}),
            'resources.web.properties.spec',
            'spec.replicas: 4294967296 is out of range for int32')

    def test_negative_replicas(self):
        self.assertRefused(
            template({'web': deployment(_spec(replicas=-1))}),
            'resources.web.properties.spec',
            'spec.replicas: Invalid value: -1: must be greater than or '
            'equal to 0')

    def test_replicas_three(self):
        self.assertRefused(
            template({'web': deployment(_spec(replicas='three'))}),
            'resources.web.properties.spec',
            "spec.replicas: 'three' is not of type 'integer'")

    def test_unknown_field_in_a_spec(self):
        spec = _spec()
        spec['template']['spec']['containers'][0]['imagePolicy'] = 'x'
        self.assertRefused(template({'web': deployment(spec)}),
                           'resources.web.properties.spec',
                           'spec.template.spec.containers[0]',
                           "'imagePolicy' was unexpected")

    def test_container_port_out_of_range(self):
        spec = _spec()
        spec['template']['spec']['containers'][0]['ports'] = [
            {'containerPort': 80000}]
        self.assertRefused(
            template({'web': deployment(spec)}),
            'spec.template.spec.containers[0].ports[0].containerPort: '
            'Invalid value: 80000: must be between 1 and 65535')

    # --- labels --------------------------------------------------------------

    def test_label_key_in_the_labels_property(self):
        self.assertRefused(
            template({'web': deployment(labels={'my label': 'x'})}),
            'resources.web.properties.labels',
            "metadata.labels: Invalid value 'my label'")

    def test_label_value_in_the_labels_property(self):
        self.assertRefused(
            template({'web': deployment(labels={'tier': 'a' * 64})}),
            'resources.web.properties.labels',
            "(key 'tier'): must be no more than 63 characters")

    def test_label_in_a_pod_template(self):
        spec = _spec()
        spec['template']['metadata']['labels']['version'] = '1.0 beta'
        self.assertRefused(
            template({'web': deployment(spec)}),
            'resources.web.properties.spec',
            "spec.template.metadata.labels: Invalid value '1.0 beta'")

    def test_annotation_key(self):
        self.assertRefused(
            template({'web': deployment(annotations={'a/b/c': 'x'})}),
            'resources.web.properties.annotations',
            "metadata.annotations: Invalid value 'a/b/c'")

    def test_label_key_in_a_generic_manifest(self):
        self.assertRefused(
            template({'r': _typed('Resource', manifest={
                'apiVersion': 'v1', 'kind': 'ServiceAccount',
                'metadata': {'name': 'sa', 'labels': {'-x': 'y'}}})}),
            'resources.r.properties.manifest',
            "metadata.labels: Invalid value '-x'")

    # --- ConfigMap and Secret data -------------------------------------------

    def test_config_map_key_with_a_slash(self):
        self.assertRefused(
            template({'c': _typed('ConfigMap',
                                  data={'conf/app.ini': '[app]'})}),
            'resources.c.properties.data',
            "data: Invalid value 'conf/app.ini': a valid config key")

    def test_binary_data_not_base64(self):
        self.assertRefused(
            template({'c': _typed('ConfigMap',
                                  binary_data={'logo.png': 'not base64!'})}),
            'resources.c.properties.binary_data',
            'binaryData.logo.png: not base64')

    def test_secret_data_not_base64_is_not_echoed(self):
        message = self.assertRefused(
            template({'s': _typed('Secret', data={'pw': 'hunter2 plain'})}),
            'resources.s.properties.data', 'data.pw: not base64')
        self.assertNotIn('hunter2', message)

    def test_secret_string_data_key(self):
        message = self.assertRefused(
            template({'s': _typed('Secret',
                                  string_data={'db/password': 'hunter2'})}),
            'resources.s.properties.string_data',
            "stringData: Invalid value 'db/password'")
        self.assertNotIn('hunter2', message)

    def test_rendered_file_name(self):
        self.assertRefused(
            template({'c': _typed('ConfigMap',
                                  templates={'etc/app.ini': 'x=1'})}),
            'resources.c.properties.templates', "'etc/app.ini'")

    def test_rendering_error_names_the_line(self):
        self.assertRefused(
            template({'c': _typed('ConfigMap', templates={
                'app.ini': 'a\n{{ missing }}\n'})}),
            'resources.c.properties.templates',
            "app.ini, line 2: 'missing' is undefined")

    # --- names, namespaces and the common properties -------------------------

    def test_config_map_named_my_config(self):
        self.assertRefused(
            template({'c': _typed('ConfigMap', name='My_Config')}),
            'resources.c.properties.name', "'My_Config'")

    def test_names_over_63_characters(self):
        long_name = 'a' * 64
        self.assertRefused(
            template({'svc': _typed('Service', name=long_name,
                                    spec={'ports': [{'port': 80}]})}),
            'resources.svc.properties.name',
            'must be no more than 63 characters')
        self.assertRefused(template({'web': deployment(name=long_name)}),
                           'resources.web.properties.name',
                           'must be no more than 63 characters')
        self.assertRefused(template({'ns': _typed('Namespace',
                                                  name=long_name)}),
                           'resources.ns.properties.name',
                           'must be no more than 63 characters')

    def test_namespace_not_a_label(self):
        self.assertRefused(template({'web': deployment(namespace='Prod')}),
                           'resources.web.properties.namespace', "'Prod'")

    def test_timeout_zero(self):
        self.assertRefused(template({'web': deployment(timeout=0)}),
                           'resources.web.properties.timeout',
                           '0 is out of range (min: 1')

    def test_wait_not_a_boolean(self):
        self.assertRefused(template({'web': deployment(wait='soon')}),
                           'resources.web.properties.wait',
                           '"soon" is not a valid boolean')

    def test_a_magnum_cluster_while_magnum_clusters_are_off(self):
        # Refused for every type, the generic one and Objects included,
        # without asking Magnum (unit tests reach no network).
        for tmpl in (
                template({'web': deployment(cluster='prod')}),
                template({'c': _typed('ConfigMap', data={'k': 'v'},
                                      cluster='prod')}),
                template({'c': _typed('Objects', cluster='prod', manifests=[
                    {'apiVersion': 'v1', 'kind': 'ConfigMap',
                     'metadata': {'name': 'c'}}])})):
            self.assertRefused(
                tmpl, '.properties.cluster: ',
                "cluster 'prod' is not one of [kubernetes] clusters, and "
                'Magnum clusters are off',
                '[kubernetes] allow_magnum_clusters lets templates name '
                'Magnum clusters')

    def test_a_magnum_cluster_from_a_parameter(self):
        tmpl = template({'web': deployment(cluster={'get_param': 'c'})},
                        parameters={'c': {'type': 'string',
                                          'default': ''}})
        self.assertAccepted(tmpl)
        self.assertRefused(tmpl, 'resources.web.properties.cluster',
                           params={'c': 'prod'})

    def test_clusters_the_operator_allows(self):
        tmpl = template({'web': deployment(cluster='edge')})
        cfg.CONF.set_override('clusters', {'edge': 'https://10.1.0.5:6443'},
                              group='kubernetes')
        self.assertAccepted(tmpl)
        cfg.CONF.set_override('clusters', {}, group='kubernetes')
        self.assertRefused(tmpl, "cluster 'edge'")
        cfg.CONF.set_override('allow_magnum_clusters', True,
                              group='kubernetes')
        self.assertAccepted(tmpl)

    # --- what template validate cannot know yet ------------------------------

    def test_a_parameter_with_a_value_is_checked(self):
        tmpl = template({'web': deployment(_spec(replicas={
            'get_param': 'count'}))}, parameters={'count': {
                'type': 'number'}})
        self.assertRefused(tmpl, 'spec.replicas', 'out of range for int32',
                           params={'count': 2 ** 31})
        self.assertAccepted(tmpl, params={'count': 3})

    def test_a_parameter_default_is_checked(self):
        tmpl = template({'web': deployment(timeout={'get_param': 't'})},
                        parameters={'t': {'type': 'number', 'default': 0}})
        self.assertRefused(tmpl, 'resources.web.properties.timeout')

    def test_a_parameter_without_a_value_is_left_for_create(self):
        # template validate passes; the rest of the spec is still checked
        spec = _spec(replicas={'get_param': 'count'})
        tmpl = template({'web': deployment(spec, timeout={
            'get_param': 't'})}, parameters={'count': {'type': 'number'},
                                              't': {'type': 'number'}})
        self.assertAccepted(tmpl)
        spec['template']['spec']['containers'][0]['imagePolicy'] = 'x'
        answer = self.template_validate(tmpl)
        self.assertIn("'imagePolicy' was unexpected", answer.get('Error'))

    def test_values_of_other_resources_are_left_for_create(self):
        spec = _spec(replicas={'get_attr': ['other', 'ready_replicas']})
        self.assertAccepted(template({
            'other': deployment(),
            'web': deployment(spec, labels={'from': {
                'get_attr': ['other', 'name']}})}))


class OneObjectOneResourceTest(heat_harness.KubernetesTestCase):
    """Two resources of a stack naming the same object are refused."""

    def assertBothNamed(self, tmpl, first, second):
        answer = self.template_validate(tmpl).get('Error') or ''
        created = self.create_refused(tmpl)
        for message in (answer, created):
            self.assertIn('two resources of a stack cannot manage one '
                          'object', message)
            pairs = ((first, second), (second, first))
            self.assertTrue(any(
                'resources.%s.properties.name' % one in message
                and 'of resource %r' % other in message
                for one, other in pairs), message)
        return answer

    def assertAccepted(self, tmpl):
        answer = self.template_validate(tmpl)
        self.assertNotIn('Error', answer, answer.get('Error'))
        self.parse(tmpl).validate()   # and before stack create

    def test_same_kind_and_name(self):
        message = self.assertBothNamed(template({
            'a': deployment(name='web'), 'b': deployment(name='web')}),
            'a', 'b')
        self.assertIn('Deployment %s/web' % heat_harness.PROJECT_ID,
                      message)

    def test_the_default_namespace_given_explicitly(self):
        self.assertBothNamed(template({
            'a': deployment(name='web'),
            'b': deployment(name='web',
                            namespace=heat_harness.PROJECT_ID)}), 'a', 'b')

    def test_a_generic_resource_of_the_same_kind(self):
        self.assertBothNamed(template({
            'typed': _typed('ConfigMap', name='settings'),
            'generic': _typed('Resource', manifest={
                'apiVersion': 'v1', 'kind': 'ConfigMap',
                'metadata': {'name': 'settings'}})}), 'typed', 'generic')

    def test_cluster_scoped_objects(self):
        self.assertBothNamed(template({
            'a': _typed('Namespace', name='team'),
            'b': _typed('Namespace', name='team')}), 'a', 'b')

    def test_different_objects_are_accepted(self):
        cfg.CONF.set_override('clusters', {'edge': 'https://10.1.0.5:6443'},
                              group='kubernetes')
        self.assertAccepted(template({
            'cm': _typed('ConfigMap', name='app'),
            'secret': _typed('Secret', name='app'),
            'here': deployment(name='web'),
            'there': deployment(name='web', namespace='other'),
            'elsewhere': deployment(name='web', cluster='edge'),
            'generated1': deployment(), 'generated2': deployment()}))

    def test_names_not_known_yet_are_left_for_create(self):
        tmpl = template({'a': deployment(name={'get_param': 'n'}),
                         'b': deployment(name='web')},
                        parameters={'n': {'type': 'string'}})
        self.assertNotIn('Error', self.template_validate(tmpl))
        self.assertIn('of resource', self.create_refused(tmpl, {'n': 'web'}))
