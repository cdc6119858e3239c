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

"""What heat_k8s relies on in Heat's private code, on the installed Heat.

heat_k8s/enginefixes/yaqlfix.py patches ``Yaql._parse``;
heat_k8s/resources/shared/sensitive.py overrides
``Resource._update_stored_properties``, rewrites the
``_stored_properties_data`` it fills, and copies a resource past
``Resource.__new__`` for stack preview. None of that is Heat's API, so a
Heat upgrade may change it silently; each test here fails naming the Heat
attribute and the module of ours that depends on it. (What the patches
achieve, end to end, is tested in test_yaqlfix.py and
test_resources_manifest.py.)
"""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import inspect
import json

import fixtures
from heat.common import crypt
from heat.engine import api
from heat.engine import properties
from heat.engine import resource
from heat.engine import service
from heat.engine import stack as heat_stack
from heat.engine.hot import functions
from heat.objects import event as event_object
from heat.objects import resource as resource_objects
from heat.objects import resource_properties_data as rpd_objects
from heat.rpc import api as rpc_api
from oslo_config import cfg

from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import yaqlfix
from heat_k8s.resources.shared import sensitive

YAQLFIX = 'heat_k8s/enginefixes/yaqlfix.py'
LITERAL = 'heat_k8s/resources/shared/literal.py'
SENSITIVE = 'heat_k8s/resources/shared/sensitive.py'
BASE = 'heat_k8s/resources/shared/base.py'
MARKER = 'stored-as-rewritten'
YAQL = 'heat.engine.hot.functions.Yaql'


def changed(attribute, user, what):
    """The failure message: which Heat attribute, whose code, what broke."""
    return ('Heat changed %s, which %s relies on: %s' % (attribute, user,
                                                         what))


def parameters(function):
    return list(inspect.signature(function).parameters)


class YaqlContractTest(heat_harness.KubernetesTestCase):
    """yaqlfix serialises Yaql._parse: the one door to a shared parser."""

    def test_parse_is_a_method_of_self_and_expression(self):
        found = vars(functions.Yaql).get('_parse')
        self.assertTrue(inspect.isfunction(found), changed(
            YAQL + '._parse', YAQLFIX,
            'it is no longer a plain method of Yaql (found %r)' % (found,)))
        original = inspect.unwrap(found)   # yaqlfix may have wrapped it
        self.assertEqual(['self', 'expression'], parameters(original),
                         changed(YAQL + '._parse',
                                 YAQLFIX, 'its parameters changed'))

    def test_one_parser_is_shared_by_every_yaql_function(self):
        # Why yaqlfix exists: if each function had its own parser, the
        # lock would be needless and yaqlfix should go.
        first = functions.Yaql(None, 'yaql', {'expression': '$'})
        second = functions.Yaql(None, 'yaql', {'expression': '$.x'})
        self.assertIs(first.get_yaql_parser(), second.get_yaql_parser(),
                      changed('heat.engine.hot.functions.Yaql.'
                              'get_yaql_parser', YAQLFIX,
                              'Yaql functions no longer share one parser; '
                              'the lock may be unnecessary, review yaqlfix'))

    def test_validate_and_result_reach_the_parser_only_through_parse(self):
        outer_parse = functions.Yaql._parse
        get_parser = vars(functions.Yaql)['get_yaql_parser'].__func__
        depth, reached = [0], []

        def parse(function, expression):
            depth[0] += 1
            try:
                return outer_parse(function, expression)
            finally:
                depth[0] -= 1

        def recorded_get_parser(cls):
            reached.append(depth[0] > 0)
            return get_parser(cls)

        self.useFixture(fixtures.MonkeyPatch(YAQL + '._parse', parse))
        self.useFixture(fixtures.MonkeyPatch(
            YAQL + '.get_yaql_parser', classmethod(recorded_get_parser)))
        function = functions.Yaql(None, 'yaql', {
            'expression': '$.data.a + 1', 'data': {'a': 1}})
        function.validate()
        self.assertEqual(2, function.result())
        self.assertEqual([True, True], reached, changed(
            'heat.engine.hot.functions.Yaql.validate/result', YAQLFIX,
            'the parser is reached other than through Yaql._parse '
            '(True: through _parse), so serialising _parse no longer '
            'serialises every parse'))

    def test_apply_wraps_the_method_heat_calls(self):
        self.addCleanup(yaqlfix.restore)
        yaqlfix.apply()
        self.assertTrue(patching.patched(functions.Yaql, '_parse'),
                        changed(YAQL + '._parse',
                                YAQLFIX, 'yaqlfix.apply() did not replace '
                                'it'))


class ResourceContractTest(heat_harness.KubernetesTestCase):
    """sensitive rewrites what Heat stores and shows of a resource."""

    def _config_map(self):
        stack = self.parse(heat_harness.template({'c': {
            'type': 'OS::Kubernetes::ConfigMap',
            'properties': {'data': {'k': 'plain'}}}}))
        rsrc = stack['c']
        rsrc.store()
        return rsrc

    def test_update_stored_properties_is_a_method_of_self(self):
        found = vars(resource.Resource).get('_update_stored_properties')
        self.assertTrue(inspect.isfunction(found), changed(
            'heat.engine.resource.Resource._update_stored_properties',
            SENSITIVE, 'it is no longer a plain method (found %r)'
            % (found,)))
        self.assertEqual(['self'], parameters(found), changed(
            'heat.engine.resource.Resource._update_stored_properties',
            SENSITIVE, 'its parameters changed'))

    def test_update_stored_properties_fills_the_resolved_properties(self):
        rsrc = self._config_map()
        rsrc._update_stored_properties()
        stored = rsrc._stored_properties_data
        self.assertIsInstance(stored, dict, changed(
            'heat.engine.resource.Resource._stored_properties_data',
            SENSITIVE, 'it is not a dict after _update_stored_properties()'))
        self.assertEqual({'k': 'plain'}, stored.get('data'), changed(
            'heat.engine.resource.Resource._stored_properties_data',
            SENSITIVE, 'it no longer holds the resolved properties'))

    def test_heat_stores_and_shows_the_properties_as_rewritten(self):
        # sensitive rewrites _stored_properties_data after Heat fills it:
        # the rewrite must be what reaches the database and the events.
        rsrc = self._config_map()
        rsrc._update_stored_properties()
        rsrc._stored_properties_data['data'] = {'k': MARKER}
        rsrc.state_set(rsrc.CREATE, rsrc.COMPLETE, 'contract')
        row = resource_objects.Resource.get_obj(rsrc.context, rsrc.id)
        self.assertIsNotNone(row.rsrc_prop_data_id, changed(
            'heat.engine.resource.Resource.store', SENSITIVE,
            'no properties row was written'))
        written = rpd_objects.ResourcePropertiesData.get_by_id(
            rsrc.context, row.rsrc_prop_data_id).data
        self.assertEqual({'k': MARKER}, written.get('data'), changed(
            'heat.engine.resource.Resource.store', SENSITIVE,
            'the stored properties are not _stored_properties_data'))
        events = event_object.Event.get_all_by_stack(rsrc.context,
                                                     rsrc.stack.id)
        shown = json.dumps([e.resource_properties for e in events])
        self.assertIn(MARKER, shown, changed(
            'heat.engine.resource.Resource._add_event', SENSITIVE,
            'events do not show _stored_properties_data'))
        self.assertNotIn('"plain"', shown, changed(
            'heat.engine.resource.Resource._add_event', SENSITIVE,
            'events show properties other than _stored_properties_data'))

    def test_preview_is_what_stack_preview_shows(self):
        self.assertEqual(['self'], parameters(resource.Resource.preview),
                         changed('heat.engine.resource.Resource.preview',
                                 SENSITIVE, 'its parameters changed'))
        source = inspect.getsource(heat_stack.Stack.preview_resources)
        self.assertIn('.preview()', source, changed(
            'heat.engine.stack.Stack.preview_resources', SENSITIVE,
            'stack preview no longer asks each resource for preview()'))

    def test_a_resource_copies_past_new(self):
        # preview() makes its stand-in with object.__new__ and the
        # instance __dict__: Resource.__new__ wants a stack.
        slots = [name for cls in resource.Resource.__mro__
                 for name in vars(cls).get('__slots__', ())]
        self.assertEqual([], slots, changed(
            'heat.engine.resource.Resource.__slots__', SENSITIVE,
            'a resource keeps state outside its __dict__'))
        found = inspect.getattr_static(resource.Resource, 'properties', None)
        self.assertFalse(hasattr(found, '__set__'), changed(
            'heat.engine.resource.Resource.properties', SENSITIVE,
            'it is a descriptor, not an attribute preview() can replace'))
        rsrc = self._config_map()
        shown = object.__new__(type(rsrc))
        shown.__dict__.update(rsrc.__dict__)
        shown.properties = sensitive.PlainProperties(data={'k': MARKER})
        formatted = api.format_stack_resource(shown, with_props=True)
        self.assertEqual({'k': MARKER}, formatted.get(
            rpc_api.RES_PROPERTIES, {}).get('data'), changed(
                'heat.engine.api.format_stack_resource', SENSITIVE,
                'stack preview does not show the properties of the '
                'stand-in preview() returns'))

    def test_auth_encryption_key_is_heats_string_option(self):
        # fingerprints are keyed with it
        self.assertTrue(hasattr(crypt, 'auth_opts'), changed(
            'heat.common.crypt.auth_opts', SENSITIVE, 'it is gone'))
        names = {opt.name: opt for opt in crypt.auth_opts}
        self.assertIsInstance(names.get('auth_encryption_key'),
                              cfg.StrOpt, changed(
                                  'heat.common.crypt auth_encryption_key',
                                  SENSITIVE, 'no such string option'))


class CheckFailedContractTest(heat_harness.KubernetesTestCase):
    """base keeps a drifted CHECK_FAILED resource and updates it in place."""

    def test_needs_update_decides_replacing_a_failed_check(self):
        found = vars(resource.Resource).get('_needs_update')
        self.assertTrue(inspect.isfunction(found), changed(
            'heat.engine.resource.Resource._needs_update', BASE,
            'it is no longer a plain method'))
        self.assertEqual(['self', 'after', 'before', 'after_props',
                          'before_props', 'prev_resource',
                          'check_init_complete'], parameters(found),
                         changed('heat.engine.resource.Resource.'
                                 '_needs_update', BASE,
                                 'its parameters changed'))
        source = inspect.getsource(found)
        for name in ('always_replace_on_check_failed',
                     'needs_replace_failed()'):
            self.assertIn(name, source, changed(
                'heat.engine.resource.Resource._needs_update', BASE,
                'it no longer consults %s for a FAILED resource' % name))


class TemplateValidateContractTest(heat_harness.KubernetesTestCase):
    """literal checks values in validate_template when Heat is not strict."""

    def test_template_validate_is_not_strict_and_skips_validate(self):
        source = inspect.getsource(service.EngineService.validate_template)
        self.assertIn('strict_validate=False', source, changed(
            'heat.engine.service.EngineService.validate_template', LITERAL,
            'it may validate strictly now; the checks would run twice'))
        self.assertIn('validate_res_tmpl_only=True', source, changed(
            'heat.engine.service.EngineService.validate_template', LITERAL,
            'it no longer asks resources for validate_template() only'))
        source = inspect.getsource(heat_stack.Stack.validate)
        self.assertIn('res.validate_template()', source, changed(
            'heat.engine.stack.Stack.validate', LITERAL,
            'it no longer calls validate_template() on each resource'))

    def test_properties_keep_their_unresolved_data(self):
        stack = self.parse(heat_harness.template({'c': {
            'type': 'OS::Kubernetes::ConfigMap',
            'properties': {'name': {'get_param': 'OS::stack_name'}}}}))
        props = stack['c'].properties
        self.assertIsInstance(props, properties.Properties)
        self.assertIn('name', getattr(props, 'data', {}), changed(
            'heat.engine.properties.Properties.data', LITERAL,
            'it no longer holds the unresolved property snippets'))
