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

"""OS::HeatK8s::RenderedFiles through Heat's engine (no cluster needed)."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import json

from heat.engine import api
from heat.engine import scheduler
from heat.objects import event as event_object

from tests.unit.heat_harness import template

SECRET_VALUE = 'hunter2-correct-horse'
CONF_PATH = '/etc/api/api.conf'
API_CONF = ('[DEFAULT]\n'
            'debug = {{ debug | lower }}\n'
            '\n'
            '[database]\n'
            'connection = mysql://api:{{ db.password }}@{{ db.host }}/api\n')
PARAMETERS = {'pw': {'type': 'string', 'hidden': True},
              'overrides': {'type': 'json', 'default': {}}}


def rendered(**props):
    return {'type': 'OS::HeatK8s::RenderedFiles', 'properties': props}


def files_props(**extra):
    props = {'templates': {CONF_PATH: API_CONF},
             'values': {'debug': False,
                        'db': {'host': 'db', 'password': {'get_param': 'pw'}}},
             'value_overrides': {'get_param': 'overrides'}}
    props.update(extra)
    return props


class RenderedFilesTest(heat_harness.KubernetesTestCase):

    def _stack(self, overrides=None, **extra):
        params = {'parameters': {'pw': SECRET_VALUE}}
        if overrides is not None:
            params['parameter_defaults'] = {'overrides': overrides}
        return self.parse(template({'files': rendered(**files_props(**extra))},
                                   parameters=PARAMETERS), params)

    def _invalid(self, **extra):
        """The validation error of a stack of files_props(**extra)."""
        return self.validation_error(
            template({'files': rendered(**files_props(**extra))},
                     parameters=PARAMETERS),
            {'parameters': {'pw': SECRET_VALUE}})

    def _created(self, **kwargs):
        stack = self._stack(**kwargs)
        rsrc = stack['files']
        scheduler.TaskRunner(rsrc.create)()
        self.assertEqual((rsrc.CREATE, rsrc.COMPLETE), rsrc.state)
        return rsrc

    def test_files_are_rendered_with_overrides_merged(self):
        rsrc = self._created(overrides={'db': {'host': 'db.example'}},
                             ini_overrides={CONF_PATH: {
                                 'database': {'max_retries': -1}}})
        files = rsrc.FnGetAtt('files')
        self.assertEqual([CONF_PATH], list(files))
        conf = files[CONF_PATH]
        self.assertIn('debug = false\n', conf)
        self.assertIn('connection = mysql://api:%s@db.example/api\n'
                      % SECRET_VALUE, conf)
        self.assertIn('max_retries = -1\n', conf)
        self.assertEqual([CONF_PATH], rsrc.FnGetAtt('names'))

    def test_checksum_follows_content_without_revealing_it(self):
        first = self._created().FnGetAtt('checksum')
        again = self._created().FnGetAtt('checksum')
        changed = self._created(overrides={'debug': True}).FnGetAtt(
            'checksum')
        self.assertEqual(first, again)
        self.assertNotEqual(first, changed)
        self.assertEqual(64, len(first))

    def test_resource_show_lists_names_not_content(self):
        rsrc = self._created()
        shown = json.dumps(api.format_resource_attributes(rsrc))
        self.assertIn(CONF_PATH, shown)
        self.assertIn(rsrc.FnGetAtt('checksum'), shown)
        self.assertNotIn(SECRET_VALUE, shown)
        self.assertNotIn('connection', shown)

    def test_values_are_stored_and_shown_as_fingerprints(self):
        rsrc = self._created()
        stored = json.dumps(rsrc._stored_properties_data)
        self.assertNotIn(SECRET_VALUE, stored)
        self.assertIn('<redacted:', stored)
        for event in event_object.Event.get_all_by_stack(rsrc.context,
                                                         rsrc.stack.id):
            self.assertNotIn(SECRET_VALUE, json.dumps(
                event.resource_properties))
        preview = json.dumps(api.format_stack_preview(rsrc.stack),
                             default=str)
        self.assertNotIn(SECRET_VALUE, preview)

    def test_update_renders_the_new_files(self):
        rsrc = self._created()
        before = rsrc.FnGetAtt('checksum')
        new = self._stack(overrides={'debug': True})['files']
        scheduler.TaskRunner(rsrc.update, new.t)()
        self.assertEqual((rsrc.UPDATE, rsrc.COMPLETE), rsrc.state)
        self.assertIn('debug = true\n', rsrc.FnGetAtt('files')[CONF_PATH])
        self.assertNotEqual(before, rsrc.FnGetAtt('checksum'))

    def test_errors_name_file_and_line_at_validate(self):
        message = self._invalid(
            templates={CONF_PATH: 'a\n{{ missing }}\n'})
        self.assertIn('resources.files.properties.templates', message)
        self.assertIn("%s, line 2: 'missing' is undefined" % CONF_PATH,
                      message)

    def test_errors_do_not_echo_values(self):
        # Jinja names a missing key: here the key is the secret.
        message = self._invalid(templates={
            CONF_PATH: '{{ db[db.password] }}{{ db[db.password|upper] }}'})
        self.assertIn('UndefinedError', message)
        self.assertIn('withheld', message)
        self.assertNotIn(SECRET_VALUE, message)

    def test_malformed_inputs_are_validation_errors(self):
        message = self._invalid(
            ini_overrides={'/other.conf': {'DEFAULT': {'a': 1}}})
        self.assertIn('resources.files.properties.ini_overrides', message)
        self.assertIn("'/other.conf' is not a key of templates", message)


class ChainedFilesTest(heat_harness.EngineTestCase):
    """Files rendered from another resource's attribute, by the engine: on
    the convergence path that attribute reaches them, and the files reach
    what writes them, through the database (sync points), not through one
    stack object."""

    def _chained(self, text):
        """'files' renders text with names of 'other'; 'writer' takes the
        files, as a host's user_data would."""
        return self.create(template({
            'other': rendered(templates={'a': 'x'}),
            'files': rendered(templates={'b': text},
                              values={'names': {'get_attr': ['other',
                                                             'names']}}),
            'writer': {'type': 'OS::Heat::Value', 'properties': {
                'value': {'get_attr': ['files', 'files']}}}}))

    def test_inputs_known_only_later_are_rendered_at_create(self):
        stack = self._chained('{{ names[0] }}')
        self.assertEqual((stack.CREATE, stack.COMPLETE), stack.state,
                         stack.status_reason)
        # What the writer was created with (files is never cached).
        self.assertEqual({'b': 'a'},
                         stack['writer']._stored_properties_data['value'])

    def test_create_fails_with_the_render_error(self):
        stack = self._chained('{{ names[5] }}')
        self.assertEqual((stack.CREATE, stack.FAILED), stack.state)
        self.assertIn('templates: b, line 1:', stack.status_reason)
        # Nothing was given a partial render.
        self.assertEqual(('INIT', 'COMPLETE'), stack['writer'].state)
