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

"""The export's pure part on a recorded stack: tests/e2e/templates/export.yaml
created in the local cloud, Heat's resource list (nested_depth) and the
live objects as the API server returned them (fixtures/export_stack.json).
"""

import base64
import copy
import json
import unittest

import yaml

from heat_k8s.export import manifests
from heat_k8s.export import order
from heat_k8s.export import reader
from tests.unit.fixtures import load

SECRET_VALUE = 'e2e-export-secret-value'


def recorded():
    stack = load('export_stack')
    return stack['heat_resources'], {
        obj['metadata']['uid']: obj for obj in stack['objects']}


def names(resources):
    return [r['resource_name'] for r in resources]


def live(kind):
    _, objects = recorded()
    return next(o for o in objects.values() if o['kind'] == kind)


class OrderTest(unittest.TestCase):

    def test_each_resource_after_those_it_needs(self):
        resources, _ = recorded()
        ordered = order.dependency_order(resources)
        self.assertEqual(sorted(names(resources)), sorted(names(ordered)))
        position = {r['resource_name']: i for i, r in enumerate(ordered)}
        pairs = [(r['resource_name'], needer) for r in resources
                 for needer in r['required_by']]
        self.assertTrue(pairs)
        for needed, needer in pairs:
            self.assertLess(position[needed], position[needer])

    def test_a_nested_stack_stands_after_its_parent(self):
        resources, _ = recorded()
        self.assertEqual(['credentials', 'frontend', 'settings', 'extras',
                          'tuning', 'web'],
                         names(order.dependency_order(resources)))

    def test_only_kubernetes_resources_are_exported(self):
        resources, _ = recorded()
        self.assertEqual(['credentials', 'frontend', 'settings', 'tuning',
                          'web'], names(order.kubernetes_resources(resources)))

    def test_the_list_order_does_not_matter(self):
        resources, _ = recorded()
        self.assertEqual(names(order.dependency_order(resources)),
                         names(order.dependency_order(resources[::-1])))

    def test_a_cycle_still_lists_every_resource(self):
        resources, _ = recorded()
        settings = next(r for r in resources
                        if r['resource_name'] == 'settings')
        web = next(r for r in resources if r['resource_name'] == 'web')
        web['required_by'] = ['settings']  # settings -> web -> settings
        ordered = names(order.dependency_order(resources))
        self.assertEqual(sorted(names(resources)), sorted(ordered))
        self.assertIn(settings['resource_name'], ordered)

    def test_a_nested_stack_without_its_parent_is_kept(self):
        resources, _ = recorded()
        without_parent = [r for r in resources
                          if r['resource_name'] != 'extras']
        self.assertEqual(['tuning', 'credentials', 'frontend', 'settings',
                          'web'],
                         names(order.dependency_order(without_parent)))

    def test_ids_come_from_the_links(self):
        resources, _ = recorded()
        extras = next(r for r in resources if r['resource_name'] == 'extras')
        tuning = next(r for r in resources if r['resource_name'] == 'tuning')
        self.assertEqual(extras['physical_resource_id'],
                         order.nested_stack_id(extras))
        self.assertEqual(order.nested_stack_id(extras),
                         order.stack_id(tuning))
        self.assertIsNone(order.nested_stack_id(tuning))


class PlainTest(unittest.TestCase):

    def test_server_fields_and_heat_marks_are_gone(self):
        _, objects = recorded()
        for obj in objects.values():
            plain = manifests.plain(obj)
            meta = plain['metadata']
            self.assertNotIn('status', plain)
            for key in manifests.SERVER_METADATA:
                self.assertNotIn(key, meta)
            marks = dict(meta.get('labels') or {},
                         **(meta.get('annotations') or {}))
            self.assertFalse([k for k in marks if 'heat' in k], marks)
            self.assertEqual({'name', 'namespace'} & set(obj['metadata']),
                             {'name', 'namespace'} & set(meta))

    def test_the_live_object_is_untouched(self):
        obj = live('Deployment')
        before = copy.deepcopy(obj)
        manifests.plain(obj)
        self.assertEqual(before, obj)

    def test_what_the_template_said_is_kept(self):
        configmap = manifests.plain(live('ConfigMap'))
        self.assertEqual({'tier': 'config'}, configmap['metadata']['labels'])
        deployment = manifests.plain(live('Deployment'))
        self.assertEqual(2, deployment['spec']['replicas'])
        template = deployment['spec']['template']
        self.assertIn('settings', template['metadata']['annotations'])
        self.assertEqual(live('Deployment')['spec']['template']['spec'][
            'volumes'][0]['configMap']['name'],
            template['spec']['volumes'][0]['configMap']['name'])

    def test_defaults_of_the_api_server_are_dropped(self):
        deployment = manifests.plain(live('Deployment'))
        for key in ('progressDeadlineSeconds', 'revisionHistoryLimit',
                    'strategy'):
            self.assertNotIn(key, deployment['spec'])
        pod = deployment['spec']['template']['spec']
        for key in ('restartPolicy', 'dnsPolicy', 'schedulerName',
                    'securityContext', 'terminationGracePeriodSeconds'):
            self.assertNotIn(key, pod)
        container = pod['containers'][0]
        self.assertNotIn('terminationMessagePath', container)
        self.assertNotIn('protocol', container['ports'][0])
        self.assertNotIn('defaultMode', pod['volumes'][0]['configMap'])
        self.assertNotIn('deployment.kubernetes.io/revision',
                         deployment['metadata'].get('annotations') or {})

    def test_a_value_other_than_the_default_is_kept(self):
        obj = live('Deployment')
        obj['spec']['revisionHistoryLimit'] = 3
        obj['spec']['strategy'] = {'type': 'Recreate'}
        spec = manifests.plain(obj)['spec']
        self.assertEqual(3, spec['revisionHistoryLimit'])
        self.assertEqual({'type': 'Recreate'}, spec['strategy'])

    def test_a_service_loses_its_cluster_ips(self):
        service = live('Service')
        self.assertIn('clusterIP', service['spec'])
        spec = manifests.plain(service)['spec']
        for key in ('clusterIP', 'clusterIPs', 'ipFamilies',
                    'ipFamilyPolicy', 'sessionAffinity', 'type',
                    'internalTrafficPolicy'):
            self.assertNotIn(key, spec)
        self.assertEqual([{'name': 'http', 'port': 80, 'targetPort': 8080}],
                         spec['ports'])

    def test_a_headless_service_stays_headless(self):
        service = live('Service')
        service['spec']['clusterIP'] = 'None'
        service['spec']['clusterIPs'] = ['None']
        self.assertEqual('None',
                         manifests.plain(service)['spec']['clusterIP'])

    def test_a_claim_forgets_its_volume(self):
        claim = manifests.plain(load('pvc_bound_local'))
        self.assertNotIn('volumeName', claim['spec'])
        self.assertNotIn('volumeMode', claim['spec'])
        self.assertNotIn('finalizers', claim['metadata'])
        self.assertNotIn('annotations', claim['metadata'])
        self.assertEqual(load('pvc_bound_local')['spec']['storageClassName'],
                         claim['spec']['storageClassName'])

    def test_a_job_loses_the_selector_the_api_generated(self):
        job = manifests.plain(load('job_complete'))
        self.assertNotIn('selector', job['spec'])
        text = json.dumps(job)
        self.assertNotIn('controller-uid', text)
        self.assertNotIn('job-name', text)
        self.assertNotIn('creationTimestamp', text)

    def test_a_job_selector_chosen_by_hand_is_kept(self):
        obj = load('job_complete')
        obj['spec']['manualSelector'] = True
        job = manifests.plain(obj)
        self.assertEqual(obj['spec']['selector'], job['spec']['selector'])

    def test_a_pod_loses_its_node_and_injected_token_volume(self):
        pod = manifests.plain(load('pod_ready'))
        self.assertNotIn('nodeName', pod['spec'])
        self.assertNotIn('kube-api-access', json.dumps(pod))
        self.assertNotIn('ownerReferences', pod['metadata'])
        self.assertEqual('default', pod['spec']['serviceAccountName'])

    def test_a_cronjob_template_is_plain(self):
        cronjob = manifests.plain(load('cronjob'))
        pod = cronjob['spec']['jobTemplate']['spec']['template']['spec']
        self.assertEqual('OnFailure', pod['restartPolicy'])  # not a default
        self.assertNotIn('dnsPolicy', pod)
        self.assertNotIn('creationTimestamp', json.dumps(cronjob))

    def test_a_path_must_end_at_a_field(self):
        with self.assertRaises(ValueError):
            manifests.drop_defaults({}, [('spec.ports[]', [])])


class SecretTest(unittest.TestCase):

    def test_values_are_left_out_and_keys_kept(self):
        secret = manifests.without_secret_values(
            manifests.plain(live('Secret')))
        self.assertEqual({'password': ''}, secret['data'])
        self.assertEqual(manifests.VALUES_OMITTED_TEXT,
                         secret['metadata']['annotations'][
                             manifests.VALUES_OMITTED])
        text = manifests.to_yaml([([], secret)])
        encoded = base64.b64encode(SECRET_VALUE.encode()).decode()
        for value in (SECRET_VALUE, encoded):
            self.assertNotIn(value, text)

    def test_string_data_keys_are_kept_without_values(self):
        secret = {'apiVersion': 'v1', 'kind': 'Secret',
                  'metadata': {'name': 's'}, 'stringData': {'pw': 'x1y2z3'}}
        shown = manifests.without_secret_values(secret)
        self.assertEqual({'pw': ''}, shown['data'])
        self.assertNotIn('stringData', shown)

    def test_other_kinds_are_as_given(self):
        configmap = live('ConfigMap')
        self.assertIs(configmap, manifests.without_secret_values(configmap))

    def test_values_asked_for_stay(self):
        secret = manifests.plain(live('Secret'))
        text = manifests.to_yaml([([], secret)])
        self.assertIn(base64.b64encode(SECRET_VALUE.encode()).decode(), text)


class NamespaceTest(unittest.TestCase):

    def entries(self):
        namespace = load('namespace_active')
        return [([], namespace), ([], live('ConfigMap')),
                ([], dict(load('namespace_active'),
                          metadata={'name': 'other'})),
                ([], {'apiVersion': 'storage.k8s.io/v1',
                      'kind': 'StorageClass', 'metadata': {'name': 'sc'}})]

    def test_namespaced_objects_move(self):
        moved = manifests.in_namespace(self.entries(), 'copy')
        kinds = [obj['kind'] for _, obj in moved]
        self.assertEqual(['Namespace', 'ConfigMap', 'StorageClass'], kinds)
        self.assertEqual('copy', moved[0][1]['metadata']['name'])
        self.assertEqual('copy', moved[1][1]['metadata']['namespace'])
        self.assertNotIn('namespace', moved[2][1]['metadata'])

    def test_namespaces_come_first(self):
        entries = self.entries()[1:]
        ordered = manifests.namespaces_first(entries)
        self.assertEqual(['Namespace', 'ConfigMap', 'StorageClass'],
                         [obj['kind'] for _, obj in ordered])


class YamlTest(unittest.TestCase):

    def test_documents_read_back_in_order(self):
        resources, objects = recorded()
        entries = [([reader.describe(r)],
                    manifests.plain(objects[r['physical_resource_id']]))
                   for r in order.kubernetes_resources(resources)]
        text = manifests.to_yaml(entries, ['a header'])
        self.assertTrue(text.startswith('# a header\n---\n'))
        self.assertIn('# resource extras.tuning (OS::Kubernetes::ConfigMap)',
                      text)
        docs = list(yaml.safe_load_all(text))
        self.assertEqual([obj for _, obj in entries], docs)
        first = text.split('---\n')[1].splitlines()
        self.assertEqual(['apiVersion: v1', 'kind: Secret'],
                         [line for line in first
                          if not line.startswith('#')][:2])


class ShownObjectsTest(unittest.TestCase):

    def test_one_object_has_the_physical_id(self):
        shown = live('ConfigMap')
        meta = shown['metadata']
        self.assertEqual([('v1', 'ConfigMap', meta['name'],
                           meta['namespace'], 'the-id')],
                         reader.shown_objects(shown, 'the-id'))

    def test_a_list_names_each_object_with_its_uid(self):
        # What OS::Kubernetes::Objects shows: the objects it recorded.
        shown = {'apiVersion': 'v1', 'kind': 'List', 'items': [
            {'apiVersion': 'v1', 'kind': 'ConfigMap',
             'metadata': {'name': 'a', 'namespace': 'n', 'uid': 'u1'}},
            {'apiVersion': 'rbac.authorization.k8s.io/v1',
             'kind': 'ClusterRole', 'metadata': {'name': 'r', 'uid': 'u2'}}]}
        self.assertEqual(
            [('v1', 'ConfigMap', 'a', 'n', 'u1'),
             ('rbac.authorization.k8s.io/v1', 'ClusterRole', 'r', None,
              'u2')],
            reader.shown_objects(shown, 'resource-uuid'))


class CommandLineTest(unittest.TestCase):

    ARGV = ['--namespace', 'copy', '--include-secret-values',
            '--kubernetes-url', 'https://k8s.example:6443', 'app']

    def check(self, args):
        self.assertEqual('app', args.stack)
        self.assertEqual('copy', args.namespace)
        self.assertTrue(args.include_secret_values)
        self.assertEqual('https://k8s.example:6443', args.kubernetes_url)

    def test_console_script_options(self):
        import openstack.config

        from heat_k8s.cmd import exportstack
        config = openstack.config.OpenStackConfig(load_yaml_config=False,
                                                  load_envvars=False)
        self.check(exportstack.parser(config, self.ARGV).parse_args(self.ARGV))

    def test_openstack_command_options(self):
        from heat_k8s.export import osc
        parser = osc.ExportStack(None, None).get_parser(
            'openstack stack kubernetes export')
        self.check(parser.parse_args(self.ARGV))
        self.assertFalse(parser.parse_args(['app']).include_secret_values)

    def test_loading_the_command_imports_no_kubernetes_client(self):
        # The client loads the module for every `openstack` command.
        import subprocess
        import sys
        out = subprocess.run(
            [sys.executable, '-c', 'import sys, heat_k8s.export.osc; '
             'print(sorted(m for m in sys.modules if m == "kubernetes" '
             'or m.startswith("heat_k8s.export.command")))'],
            capture_output=True, text=True, check=True)
        self.assertEqual('[]', out.stdout.strip())

    def test_entry_points(self):
        import configparser
        import os
        setup = configparser.ConfigParser()
        setup.read(os.path.join(os.path.dirname(__file__), '..', '..',
                                'setup.cfg'))
        points = setup['entry_points']
        self.assertIn('heat-k8s-export = heat_k8s.cmd.exportstack:main',
                      points['console_scripts'])
        self.assertIn('stack_kubernetes_export = '
                      'heat_k8s.export.osc:ExportStack',
                      points['openstack.orchestration.v1'])

    def test_kubernetes_client_uses_the_session_ca_and_token(self):
        from keystoneauth1 import session
        from keystoneauth1 import token_endpoint

        conf = reader.kube_configuration(
            session.Session(auth=token_endpoint.Token(None, 'the-token'),
                            verify='/etc/ssl/cloud-ca.pem'),
            'https://k8s.example:6443/')
        self.assertEqual('https://k8s.example:6443', conf.host)
        self.assertTrue(conf.verify_ssl)
        self.assertEqual('/etc/ssl/cloud-ca.pem', conf.ssl_ca_cert)
        self.assertEqual({'authorization': 'Bearer'}, conf.api_key_prefix)
        self.assertEqual('Bearer the-token',
                         conf.get_api_key_with_prefix('authorization'))

    def test_only_the_token_says_who_asks_and_only_over_https(self):
        from keystoneauth1 import session

        with_cert = session.Session(verify=False,
                                    cert=('/etc/ssl/me.pem', '/etc/ssl/key'))
        conf = reader.kube_configuration(with_cert, 'https://k8s.example')
        self.assertIsNone(conf.cert_file)
        self.assertIsNone(conf.key_file)
        with self.assertRaisesRegex(reader.ExportError, 'is not https'):
            reader.kube_configuration(with_cert, 'http://k8s.example:8080')

    def test_kubernetes_ca_given_wins(self):
        from keystoneauth1 import session

        conf = reader.kube_configuration(session.Session(verify=False),
                                         'https://k8s.example:6443',
                                         ca_file='/etc/ssl/k8s-ca.pem')
        self.assertTrue(conf.verify_ssl)
        self.assertEqual('/etc/ssl/k8s-ca.pem', conf.ssl_ca_cert)
