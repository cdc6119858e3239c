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

"""Configuration rendering: templates to files, checksums, INI editing.

This layer owns what turns an author's configuration into file content:
Jinja2 templates rendered with layered values into files (render(), here),
the checksum of a ConfigMap's or Secret's content (``checksum``; keyed
with the operator's key in ``heat_k8s.secrecy.digests``), and
line-by-line editing of INI files (``inifile``, also used on heat.conf).
It is pure: beside the standard library it imports jinja2 and markupsafe
only, never Heat, the Kubernetes client or the network, so resources call
it and tests run it on plain strings. It may import nothing of heat_k8s
outside itself.

A file is made in this order, each step over the result of the one
before (later wins):

1. ``values``: the defaults, a map of template variables;
2. ``value_overrides`` (and any further layers given to merge_values()):
   deep-merged over them (``layers``);
3. the template is rendered with the merged values as its variables, in
   a bounded sandbox (``sandbox``; its filters in ``filters``, its bounds
   in ``limits``);
4. ``ini_overrides`` ({file: {section: {key: value}}}) set ``key = value``
   in ``[section]`` of the rendered file, as kolla-ansible's
   merge_configs does: an existing key is replaced where it stands, a
   missing key is added to its section, a missing section is added at
   the end; comments, order and everything else are kept (``inifile``).
   true/false are written in lower case and a list as comma-separated
   items (an oslo.config ListOpt).

Errors are RenderError (``rendererror``): the file, the template line
where known, and what went wrong (the undefined variable, the syntax
error, the refused access, the bound reached). When an input is secret
(sensitive=True), an error while rendering says only its kind: Jinja's
and Python's texts quote what the template computed, and a value reversed
or upper-cased is no longer the value a redaction looks for.
"""

import collections.abc
import re

import jinja2

from heat_k8s.rendering import inifile
from heat_k8s.rendering import layers
from heat_k8s.rendering import limits
from heat_k8s.rendering import rendererror
from heat_k8s.rendering import sandbox

INI = 'ini_overrides'

RenderError = rendererror.RenderError  # what callers catch
merge_values = layers.merge_values     # what callers layer values with


def render(templates, values=None, ini_overrides=None, sensitive=False):
    """Render templates ({file name: Jinja2 text}) to {file name: text}.

    values: the template variables (merge layers first with
    merge_values()). ini_overrides: {file name: {section: {key: value}}},
    set in the rendered INI files. sensitive: an input or the output is
    secret; an error while rendering then gives its file, line and kind
    only (a syntax error, found before any value is used, and the name of
    an undefined variable of the template are still given). Raises
    RenderError.
    """
    values = dict(values or {})
    ini_overrides = ini_overrides or {}
    for name in ini_overrides:
        if name not in templates:
            raise RenderError(name, 'no template renders this file',
                              source=INI)
    env = sandbox.Environment()
    rendered, total = {}, 0
    for name, source in templates.items():
        text = _render_file(env, name, source, values, sensitive)
        if ini_overrides.get(name):
            text = _apply_ini(name, text, ini_overrides[name], sensitive)
        size = len(text.encode('utf-8'))
        if size > limits.MAX_FILE_BYTES:
            raise RenderError(name, 'the output is larger than %d bytes'
                              % limits.MAX_FILE_BYTES)
        total += size
        if total > limits.MAX_TOTAL_BYTES:
            raise RenderError(name, 'the files rendered are larger than %d '
                              'bytes together' % limits.MAX_TOTAL_BYTES)
        rendered[name] = text
    return rendered


def _render_file(env, name, source, values, sensitive):
    if not isinstance(source, str):
        raise RenderError(name, 'the template must be a string, not %s'
                          % type(source).__name__)
    try:
        template = env.compile_file(name, source)
    except jinja2.TemplateSyntaxError as exc:
        raise RenderError(name, exc.message, exc.lineno) from None
    except RecursionError:
        raise RenderError(name, 'too deeply nested') from None
    generator = template.root_render_func(template.new_context(values))
    chunks, size, error = [], 0, None
    try:
        for chunk in generator:
            size += len(chunk)
            if size > limits.MAX_FILE_BYTES:
                frame = generator.gi_frame
                error = RenderError(
                    name, 'the output is larger than %d bytes'
                    % limits.MAX_FILE_BYTES, frame and
                    template.get_corresponding_lineno(frame.f_lineno))
                break
            chunks.append(chunk)
    except Exception as exc:
        error = RenderError(
            name, _detail(exc, _names(env, source) if sensitive else None),
            _template_line(exc.__traceback__, template))
    finally:
        generator.close()
    if error is not None:
        # Raised here, not in the except clause: the original exception,
        # whose message may quote values, is not kept as its context.
        raise error
    return ''.join(chunks)


def _template_line(tb, template):
    """The template line of the innermost frame of template in tb."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_globals.get('__jinja_template__') is template:
            line = template.get_corresponding_lineno(tb.tb_lineno)
        tb = tb.tb_next
    return line


# What a render error is, by its class, when its text is withheld.
WITHHELD_KINDS = (
    (sandbox.LimitExceeded, 'a bound of the sandbox was reached'),
    (jinja2.UndefinedError, 'an undefined variable, key or attribute'),
    (jinja2.exceptions.SecurityError, 'an access the sandbox refuses'),
    (jinja2.TemplateError, 'a template error'),
)
WITHHELD = 'the details are withheld: an input is secret'
_UNDEFINED_NAME = re.compile(r"'(\w+)' is undefined")


def _names(env, source):
    """The variable names the template's text spells."""
    return frozenset(node.name for node in
                     env.parse(source).find_all(jinja2.nodes.Name))


def _detail(exc, secret_names):
    """What went wrong; secret_names (the template's names, when an input
    is secret) withholds every text but the name of an undefined one."""
    if isinstance(exc, RecursionError):
        return 'too deeply nested or recursive'
    if isinstance(exc, MemoryError):
        return 'out of memory'
    if secret_names is None:
        if isinstance(exc, (jinja2.TemplateError, sandbox.LimitExceeded)):
            return str(exc)   # names from the template, not values
        return '%s: %s' % (type(exc).__name__, exc)
    if isinstance(exc, jinja2.UndefinedError):
        # The one text that quotes only the template: a name it spells.
        undefined = _UNDEFINED_NAME.fullmatch(str(exc))
        if undefined and undefined.group(1) in secret_names:
            return str(exc)
    kind = next((text for cls, text in WITHHELD_KINDS
                 if isinstance(exc, cls)), None)
    return '%s%s (%s)' % (type(exc).__name__,
                          ': %s' % kind if kind else '', WITHHELD)


def _apply_ini(name, text, sections, sensitive):
    if not isinstance(sections, collections.abc.Mapping):
        raise RenderError(name, 'give {section: {key: value}}', source=INI)
    conf = inifile.IniFile(text)
    for section, options in sections.items():
        if not isinstance(options, collections.abc.Mapping):
            raise RenderError(name, '[%s]: give {key: value}' % section,
                              source=INI)
        if not section or re.search(r'[\]\r\n]', section):
            raise RenderError(name, 'invalid section name %r' % section,
                              source=INI)
        for key, value in options.items():
            if not key or re.search(r'[=:\r\n]', key) or (
                    key[0] in '[#; \t'):
                raise RenderError(name, '[%s]: invalid key %r'
                                  % (section, key), source=INI)
            try:
                conf.set(section, key, _ini_value(value))
            except ValueError as exc:
                if isinstance(exc, inifile.ParseError):
                    line = re.match(r'line (\d+)', str(exc))
                    detail = ('the rendered file is not an INI file%s' % (
                        ' (line %s)' % line.group(1) if line else '')
                        if sensitive else
                        'the rendered file is not an INI file: %s' % exc)
                    raise RenderError(name, detail, source=INI) from None
                raise RenderError(name, '[%s] %s: %s' % (section, key, exc),
                                  source=INI) from None
    return conf.text()


def _ini_value(value):
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        if '\n' in value or '\r' in value:
            raise ValueError('a value cannot span lines')
        return value
    if isinstance(value, list) and not any(
            isinstance(v, (list, dict)) or v is None for v in value):
        return ','.join(_ini_value(v) for v in value)
    raise ValueError('must be a string, number, boolean or list of them, '
                     'not %s' % ('null' if value is None
                                 else type(value).__name__))
