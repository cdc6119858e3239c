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

"""Configuration files from Jinja2 templates: values, overrides, sandbox."""

import copy
import os
import subprocess
import sys
import textwrap
import unittest

from heat_k8s import rendering
from heat_k8s.rendering import limits

KEYSTONE_CONF = textwrap.dedent("""\
    [DEFAULT]
    # Debug logging.
    debug = {{ debug | lower }}
    {% if log_file is defined %}
    log_file = {{ log_file }}
    {% endif %}

    [database]
    connection = mysql+pymysql://keystone:{{ database.password }}@{{ database.host }}/keystone
    max_retries = {{ database.max_retries }}

    [token]
    provider = {{ token.provider }}
    {% for server in memcache_servers %}
    # cache {{ loop.index }}
    {% endfor %}
    [cache]
    memcache_servers = {{ memcache_servers | join(',') }}
    """)  # noqa: E501

DEFAULTS = {
    'debug': False,
    'database': {'host': 'db', 'password': 'secret', 'max_retries': 10},
    'token': {'provider': 'fernet'},
    'memcache_servers': ['mc-0:11211', 'mc-1:11211'],
}


def raises(func, *args, **kwargs):
    """The RenderError func raises."""
    try:
        func(*args, **kwargs)
    except rendering.RenderError as exc:
        return exc
    raise AssertionError('no RenderError from %r' % (args,))


def render(source, values=None, **kwargs):
    return rendering.render({'f.conf': source}, values or {},
                            **kwargs)['f.conf']


class RenderTest(unittest.TestCase):

    def assertFails(self, source, values=None, *fragments, line=None,
                    **kwargs):
        error = raises(render, source,
                                  values, **kwargs)
        for fragment in fragments:
            self.assertIn(fragment, str(error))
        if line is not None:
            self.assertEqual(line, error.lineno, str(error))
        return error

    def test_a_configuration_file(self):
        text = rendering.render({'keystone.conf': KEYSTONE_CONF},
                                DEFAULTS)['keystone.conf']
        self.assertEqual(textwrap.dedent("""\
            [DEFAULT]
            # Debug logging.
            debug = false

            [database]
            connection = mysql+pymysql://keystone:secret@db/keystone
            max_retries = 10

            [token]
            provider = fernet
            # cache 1
            # cache 2
            [cache]
            memcache_servers = mc-0:11211,mc-1:11211
            """), text)

    def test_files_are_rendered_each_with_the_same_values(self):
        files = rendering.render({'a.conf': 'a={{ x }}',
                                  'b.conf': 'b={{ x }}'}, {'x': 1})
        self.assertEqual({'a.conf': 'a=1', 'b.conf': 'b=1'}, files)

    def test_undefined_variable_names_file_line_and_variable(self):
        error = raises(rendering.render,
            {'keystone.conf': KEYSTONE_CONF}, dict(DEFAULTS, token={}))
        self.assertEqual('keystone.conf', error.filename)
        self.assertEqual(13, error.lineno)
        self.assertEqual("keystone.conf, line 13: 'dict object' has no "
                         "attribute 'provider'", str(error))
        self.assertFails('ok\n\n{{ missing }}\n', {}, "'missing' is undefined",
                         line=3)

    def test_undefined_inside_a_loop_and_a_macro(self):
        self.assertFails('{% for x in xs %}\n{{ x.name }}\n{% endfor %}',
                         {'xs': [{}]}, "has no attribute 'name'", line=2)
        self.assertFails('{% macro m() %}\n\n{{ nope }}{% endmacro %}\n'
                         '{{ m() }}', {}, "'nope' is undefined", line=3)
        self.assertFails('{% for x in nothing %}{% endfor %}', {},
                         "'nothing' is undefined", line=1)

    def test_syntax_error_names_the_line(self):
        self.assertFails('a\nb\n{% if %}\n', {}, 'f.conf, line 3:',
                         'Expected an expression', line=3)
        self.assertFails('{% for x in y %}\n', {}, 'f.conf, line ',
                         "'endfor'")

    def test_runtime_error_names_the_line(self):
        self.assertFails('\n{{ 1 // 0 }}', {}, 'ZeroDivisionError', line=2)

    def test_sensitive_errors_withhold_what_python_quotes(self):
        source = "{{ 'x'.encode(codec) }}"
        plain = self.assertFails(source, {'codec': 'hunter2'}, 'hunter2',
                                 line=1)
        self.assertIn('LookupError', plain.detail)
        hidden = self.assertFails(source, {'codec': 'hunter2'},
                                  'LookupError', 'withheld', line=1,
                                  sensitive=True)
        self.assertNotIn('hunter2', str(hidden))

    def test_errors_keep_no_exception_that_quotes_values(self):
        error = self.assertFails("{{ 'x'.encode(codec) }}",
                                 {'codec': 'hunter2'}, sensitive=True)
        self.assertIsNone(error.__context__)
        self.assertIsNone(error.__cause__)

    def test_a_template_must_be_text(self):
        self.assertFails(['not', 'text'], {}, 'must be a string')

    def test_strict_and_plain(self):
        # No autoescape; a trailing newline is kept; trim_blocks as Ansible.
        self.assertEqual('<a&b>\n', render('{{ x }}\n', {'x': '<a&b>'}))
        self.assertEqual('x\n', render('{% if true %}\nx\n{% endif %}\n'))
        self.assertFails('{{ x }}', {}, "'x' is undefined")


class SandboxTest(unittest.TestCase):

    def assertRefused(self, source, *fragments, values=None):
        # Refused by a counted bound, not by the clock's backstop, which
        # is pushed far out so a busy machine changes nothing.
        backstop, limits.MAX_SECONDS = limits.MAX_SECONDS, 60.0
        try:
            exc = raises(render, source, values)
        finally:
            limits.MAX_SECONDS = backstop
        self.assertNotIn('rendering took more than', str(exc), source)
        for fragment in fragments:
            self.assertIn(fragment, str(exc), source)
        return exc

    def test_escapes_are_refused(self):
        for source in ("{{ ''.__class__.__mro__ }}",
                       '{{ cycler.__init__.__globals__ }}',
                       '{{ self._TemplateReference__context }}',
                       '{{ joiner.__class__ }}',
                       '{{ namespace.__init__.__globals__ }}',
                       "{{ ''.format.__globals__ }}",
                       '{{ range.__self__ }}',
                       "{{ x.__class__.__base__.__subclasses__() }}"):
            with self.subTest(source=source):
                self.assertRefused(source, 'f.conf, line 1', 'unsafe',
                                   values={'x': 1})

    def test_attr_is_a_lookup_as_any_other(self):
        # Jinja2 3.1.5's |attr skips the sandbox's getattr: str.format
        # unguarded (CVE-2025-27516).
        for source in ('{{ "{0.__class__}"|attr("format")(1) }}',
                       '{{ "{a.__class__}"|attr("format_map")({"a": 1}) }}',
                       '{{ 1|attr("__class__") }}',
                       '{{ range|attr("__self__") }}'):
            with self.subTest(source=source):
                self.assertRefused(source, 'f.conf, line 1', 'unsafe')
        self.assertRefused('{{ "{:>1000000000}"|attr("format")(1) }}',
                           'a format width or precision of 1000000000')
        self.assertEqual('A 1-2', render(
            '{{ "a"|attr("upper")() }} {{ "{}-{}"|attr("format")(1, 2) }}'))
        # An attribute, not an item: no fallback to d["k"].
        self.assertRefused('{{ d|attr("k") }}', "has no attribute 'k'",
                           values={'d': {'k': 1}})

    def test_known_values_cannot_be_changed(self):
        for source in ('{{ xs.append(1) }}', "{{ d.update(a=1) }}",
                       "{{ d.pop('a') }}", '{{ xs.clear() }}'):
            with self.subTest(source=source):
                self.assertRefused(source, 'unsafe',
                                   values={'xs': [1], 'd': {'a': 1}})

    def test_other_files_cannot_be_read(self):
        for source, word in (("{% include 'x' %}", 'include'),
                             ("{% import 'x' as y %}", 'import'),
                             ("{% from 'x' import y %}", 'import'),
                             ("\n{% extends '/etc/passwd' %}", 'extends')):
            with self.subTest(source=source):
                error = self.assertRefused(source, "'%s' is not allowed"
                                           % word)
                self.assertEqual(source.count('\n') + 1, error.lineno)

    def test_lipsum_is_gone(self):
        self.assertRefused('{{ lipsum(10**9) }}', "'lipsum' is undefined")

    def test_runaway_output_is_refused_quickly(self):
        for source in (
                "{{ 'x' * 10**9 }}",
                "{{ ['x'] * 10**9 }}",
                "{{ 'x'|center(10**9) }}",
                "{{ 'x'.ljust(10**9) }}",
                "{{ 'x'.zfill(10**9) }}",
                "{{ '{:>1000000000}'.format(1) }}",
                "{{ '{:>{}}'.format(1, 10**9) }}",
                "{{ '%1000000000d' % 1 }}",
                "{{ '%*d' % (10**9, 1) }}",
                "{{ '%1000000000d'|format(1) }}",
                "{{ 'x'|indent(10**9, true) }}",
                "{{ ('a' * 1000).replace('', 'x' * 10000) }}",
                "{{ ('a' * 1000)|replace('a', 'x' * 10000) }}",
                "{{ ('\t' * 1000).expandtabs(10**6) }}",
                "{{ (1).to_bytes(10**9, 'big') }}",
                "{{ 2 ** 100000 }}",
                "{{ [1]|batch(10**9, 'x')|list }}",
                "{{ [1]|slice(10**9)|list }}",
                "{% set s = 'x' * 1000000 %}{{ [s] * 100 }}",
                "{% set s = 'x' * 1000000 %}{{ ([s] * 100)|join }}",
                "{% set s = 'x' * 1000000 %}{{ ([s] * 100)|string }}",
                "{% set s = 'x' * 1000000 %}{{ ''.join([s] * 100) }}",
                "{% set s = 'x' * 1000000 %}{{ s ~ s }}",
                "{% set s = 'x' * 1000000 %}{{ s + s }}",
                "{% set s = 'x' * 1000000 %}{{ '%s%s' % (s, s) }}",
                "{% set s = 'x' * 1000 %}{{ ('%(a)s' * 10000) % {'a': s} }}",
                "{% set ns = namespace(s='x') %}{% for i in range(64) %}"
                "{% set ns.s = ns.s ~ ns.s %}{% endfor %}",
                "{{ range(100000)|map('center', 1000000)|list|length }}",
                "{% set s = 'x' * 100000 %}{% macro m() %}"
                "{% for i in range(100000) %}{{ s }}{% endfor %}"
                "{% endmacro %}{{ m()|length }}",
                "{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}",
        ):
            with self.subTest(source=source):
                self.assertRefused(source, 'f.conf, line 1')

    def test_runaway_loops_are_refused_quickly(self):
        for source in (
                '{% for i in range(10**9) %}x{% endfor %}',
                '{% for i in range(100000) %}{% for j in range(100000) %}'
                '{% endfor %}{% endfor %}',
                '{% for i in xs %}{% for j in xs %}{% for k in xs %}'
                '{% endfor %}{% endfor %}{% endfor %}',
                '{% macro f(n) %}{{ f(n) }}{{ f(n) }}{% endmacro %}{{ f(1) }}',
                '{{ ([[1] * 1000] * 1000)|sum(start=[]) }}',
        ):
            with self.subTest(source=source):
                self.assertRefused(source, 'f.conf, line 1',
                                   values={'xs': list(range(1000))})

    def test_output_bounds(self):
        big = "{{ 'x' * 700000 }}"
        error = raises(rendering.render,
                                  {'a': big, 'b': big}, {})
        self.assertEqual('b', error.filename)
        self.assertIn('larger than 1048576 bytes together', str(error))
        error = raises(render,
            "first\n{% for i in range(2000) %}{{ 'x' * 1000 }}{% endfor %}")
        self.assertIn('larger than 1048576 bytes', str(error))
        self.assertEqual(2, error.lineno)

    def test_ordinary_templates_are_not_bounded(self):
        # 2000 endpoints, filters, loops: well inside every bound.
        values = {'endpoints': [{'name': 'svc%d' % i, 'port': 8000 + i}
                                for i in range(2000)]}
        text = render(
            '{% for e in endpoints|sort(attribute="name") %}'
            '{{ "%-10s" % e.name }} = http://{{ e.name }}:{{ e.port }}/'
            '{{ loop.index }}\n{% endfor %}'
            '{{ endpoints|map(attribute="name")|join(",")|length }}\n'
            '{{ endpoints|map(attribute="port")|sum }}\n'
            "{{ '{:>8}'.format('x') }}|{{ 'x'|center(9) }}|"
            "{{ [[1], [2, 3]]|sum(start=[]) }}\n", values)
        self.assertEqual(2003, len(text.splitlines()))
        self.assertIn('svc1999    = http://svc1999:9999/', text)


class MergeTest(unittest.TestCase):

    def test_overrides_merge_into_maps_and_replace_the_rest(self):
        overrides = {'debug': True, 'database': {'host': 'db.example'},
                     'memcache_servers': ['mc:11211'], 'token': None,
                     'new': {'a': 1}}
        self.assertEqual({
            'debug': True,
            'database': {'host': 'db.example', 'password': 'secret',
                         'max_retries': 10},
            'token': None,
            'memcache_servers': ['mc:11211'],
            'new': {'a': 1},
        }, rendering.merge_values(DEFAULTS, overrides))

    def test_layers_apply_in_order_and_inputs_are_not_changed(self):
        defaults = copy.deepcopy(DEFAULTS)
        site = {'database': {'host': 'site-db', 'max_retries': 3}}
        node = {'database': {'host': 'node-db'}}
        merged = rendering.merge_values(defaults, site, None, node)
        self.assertEqual({'host': 'node-db', 'password': 'secret',
                          'max_retries': 3}, merged['database'])
        merged['database']['password'] = 'changed'
        self.assertEqual(DEFAULTS, defaults)
        self.assertEqual({'database': {'host': 'site-db',
                                       'max_retries': 3}}, site)

    def test_a_map_replaces_a_scalar_and_back(self):
        self.assertEqual({'a': {'b': 1}},
                         rendering.merge_values({'a': 'x'}, {'a': {'b': 1}}))
        self.assertEqual({'a': 'x'},
                         rendering.merge_values({'a': {'b': 1}}, {'a': 'x'}))

    def test_layers_must_be_maps(self):
        self.assertRaises(TypeError, rendering.merge_values, {}, ['x'])

    def test_one_override_changes_one_line(self):
        plain = rendering.render({'k.conf': KEYSTONE_CONF}, DEFAULTS)
        debug = rendering.render({'k.conf': KEYSTONE_CONF},
                                 rendering.merge_values(
                                     DEFAULTS, {'debug': True}))
        diff = [(a, b) for a, b in zip(plain['k.conf'].splitlines(),
                                       debug['k.conf'].splitlines())
                if a != b]
        self.assertEqual([('debug = false', 'debug = true')], diff)


class IniOverridesTest(unittest.TestCase):

    def render(self, ini, source=KEYSTONE_CONF, values=DEFAULTS, **kwargs):
        return rendering.render({'keystone.conf': source}, values,
                                {'keystone.conf': ini},
                                **kwargs)['keystone.conf']

    def test_keys_are_set_in_place_and_comments_kept(self):
        text = self.render({'DEFAULT': {'debug': True},
                            'database': {'connection': 'sqlite://'},
                            'token': {'expiration': 7200}})
        self.assertEqual(textwrap.dedent("""\
            [DEFAULT]
            # Debug logging.
            debug = true

            [database]
            connection = sqlite://
            max_retries = 10

            [token]
            provider = fernet
            expiration = 7200
            # cache 1
            # cache 2
            [cache]
            memcache_servers = mc-0:11211,mc-1:11211
            """), text)

    def test_missing_sections_are_added(self):
        text = self.render({'oslo_policy': {'enforce_scope': False,
                                            'policy_dirs': ['a.d', 'b.d']},
                            'cache': {'enabled': True}})
        self.assertTrue(text.endswith(textwrap.dedent("""\
            [cache]
            memcache_servers = mc-0:11211,mc-1:11211
            enabled = true

            [oslo_policy]
            enforce_scope = false
            policy_dirs = a.d,b.d
            """)), text)

    def test_overrides_come_after_rendering_and_values(self):
        text = self.render({'DEFAULT': {'debug': 'false'}},
                           values=rendering.merge_values(
                               DEFAULTS, {'debug': True}))
        self.assertIn('debug = false\n', text)
        self.assertNotIn('debug = true', text)

    def test_a_template_without_sections_gets_them(self):
        text = self.render({'DEFAULT': {'a': 1}}, source='')
        self.assertEqual('[DEFAULT]\na = 1\n', text)

    def test_bad_overrides_are_named(self):
        for ini, fragment in (
                ({'DEFAULT': {'a': 'x\ny'}}, 'cannot span lines'),
                ({'DEFAULT': {'a': None}}, 'not null'),
                ({'DEFAULT': {'a': {'b': 1}}}, 'not dict'),
                ({'DEFAULT': {'a=b': 1}}, "invalid key 'a=b'"),
                ({'DEF]AULT': {'a': 1}}, 'invalid section'),
                ({'DEFAULT': 'a=1'}, 'give {key: value}')):
            with self.subTest(ini=ini):
                error = raises(self.render,
                                          ini)
                self.assertEqual('ini_overrides', error.source)
                self.assertIn(fragment, str(error))

    def test_overrides_of_a_file_not_rendered_are_refused(self):
        error = raises(rendering.render,
                                  {'a.conf': ''}, {},
                                  {'b.conf': {'DEFAULT': {'a': 1}}})
        self.assertEqual(('b.conf', 'ini_overrides'),
                         (error.filename, error.source))

    def test_a_rendered_file_that_is_not_ini(self):
        source = 'password = {{ password }}\n'
        error = raises(self.render,
                                  {'DEFAULT': {'a': 1}}, source,
                                  {'password': 'hunter2'})
        self.assertIn('not an INI file', str(error))
        self.assertIn('outside any section', str(error))
        error = raises(self.render,
                                  {'DEFAULT': {'a': 1}}, source,
                                  {'password': 'hunter2'}, sensitive=True)
        self.assertIn('not an INI file (line 1)', str(error))
        self.assertNotIn('hunter2', str(error))


class LayerTest(unittest.TestCase):
    """The rendering layer is pure: jinja2 and markupsafe, nothing else."""

    def test_it_imports_only_the_standard_library_jinja2_and_markupsafe(self):
        root = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        code = ('import sys; before = set(sys.modules); '
                'import heat_k8s.rendering, heat_k8s.rendering.checksum; '
                'print(" ".join(sorted(set(sys.modules) - before)))')
        loaded = subprocess.run([sys.executable, '-c', code], cwd=root,
                                check=True, capture_output=True,
                                text=True).stdout.split()
        self.assertIn('jinja2.sandbox', loaded)   # the check sees imports
        foreign = [name for name in loaded
                   if name.split('.')[0] not in sys.stdlib_module_names and
                   name.split('.')[0] not in ('jinja2', 'markupsafe') and
                   not name.startswith('heat_k8s.rendering') and
                   name != 'heat_k8s']
        self.assertEqual([], foreign)
