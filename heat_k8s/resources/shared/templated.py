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

"""Files rendered from Jinja2 templates into a ConfigMap's or Secret's data.

A kind that renders declares where the files go (rendered_key) and which
properties hold its literal data (literal_properties); its schema takes
properties_schema(), and KubernetesResource renders (rendered_body) and
checks (validate) through the functions here.

The properties templates, values, value_overrides and ini_overrides feed
heat_k8s.rendering; the files rendered join the literal data in the
object. They are rendered at `template validate` when every input is
known (errors early, with file and line), and whenever the object is
written; never to read or delete it.
"""

from heat.common import exception
from heat.engine import function
from heat.engine import properties

from heat_k8s import rendering
from heat_k8s.kinds import fieldrules
from heat_k8s.kinds import redaction
from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import digests

PROPERTIES = (TEMPLATES, VALUES, VALUE_OVERRIDES, INI_OVERRIDES) = (
    'templates', 'values', 'value_overrides', 'ini_overrides')
RENDER_INPUTS = PROPERTIES


OBJECT_NOTES = (
    'A key may not also be a key of the literal data. With immutable true, '
    'a change to a rendered file (through any of templates, values, '
    'value_overrides, ini_overrides) replaces the object.')


def properties_schema(target, notes=OBJECT_NOTES, required=False):
    """The rendering properties; target says where the files go."""
    return {
        TEMPLATES: properties.Schema(
            properties.Schema.MAP,
            'Files rendered from Jinja2 templates into %s: file name (the '
            'key) to template text, typically {get_file: <file>.j2}. The '
            'variables come from values and value_overrides; an undefined '
            'variable is an error. Templates run in a sandbox: no file '
            'access (no include, import or extends), bounded output size '
            'and work. As in Ansible, a newline after a block tag is '
            'removed. Errors name the file and line, at template validate '
            'when all inputs are known. %s' % (target, notes),
            required=required, update_allowed=True),
        VALUES: properties.Schema(
            properties.Schema.MAP,
            'Template variables (the defaults): name to value; values may '
            'be maps and lists.',
            update_allowed=True),
        VALUE_OVERRIDES: properties.Schema(
            properties.Schema.MAP,
            'Template variables deep-merged over values: maps merge key by '
            'key, recursively; any other value replaces. Lets an '
            "environment file's parameter_defaults change one nested key "
            'without restating the rest.',
            update_allowed=True),
        INI_OVERRIDES: properties.Schema(
            properties.Schema.MAP,
            'Options set in rendered INI files after rendering: file name '
            '(a key of templates) to section to key to value. An existing '
            'key is replaced where it stands, a missing key or section is '
            'added; comments and order are kept. true/false are written in '
            'lower case, a list comma-separated.',
            update_allowed=True),
    }


def _contains_none(value):
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_contains_none(v) for v in value.values())
    if isinstance(value, list):
        return any(_contains_none(v) for v in value)
    return False


def _leaves(value):
    """The scalar values in a structure (booleans and nulls reveal little)."""
    if isinstance(value, dict):
        return [leaf for v in value.values() for leaf in _leaves(v)]
    if isinstance(value, list):
        return [leaf for v in value for leaf in _leaves(v)]
    if value is None or isinstance(value, bool):
        return []
    return [value]


def render(props, sensitive):
    """(files, None) or (None, RenderError) for rendering properties.

    The error is returned, not raised, so that what Heat raises carries
    no unredacted exception as its context.
    """
    try:
        return rendering.render(
            props[TEMPLATES],
            rendering.merge_values(props[VALUES], props[VALUE_OVERRIDES]),
            props[INI_OVERRIDES], sensitive=sensitive), None
    except rendering.RenderError as exc:
        return None, exc


def error_message(error, props, secret_properties=()):
    """A RenderError as text, the values of secret_properties redacted."""
    if not secret_properties:
        return str(error)
    secrets = [leaf for prop in secret_properties
               for leaf in _leaves(props[prop])]
    return error.message(redaction.text(error.detail, secrets))


def known(props):
    """False when an input depends on another resource.

    Until that resource exists (at `template validate`, and when Heat
    validates a stack before creating or updating it), Heat resolves
    get_attr to None (a whole map property to {}).
    """
    given = getattr(props, 'data', None)
    if given is None:
        return not any(_contains_none(props[prop]) for prop in RENDER_INPUTS
                       if props[prop] is not None)
    try:
        return not any(any(True for _ in function.dependencies(
            given.get(prop))) for prop in RENDER_INPUTS)
    except Exception:
        return False


def input_error(props):
    """(message, property) for malformed template inputs, else None."""
    templates = props[TEMPLATES] or {}
    for name, text in templates.items():
        if text is not None and not isinstance(text, str):
            return ('templates.%s: a template is text (e.g. {get_file: '
                    '...}), not a %s' % (name, type(text).__name__),
                    TEMPLATES)
    for name, sections in (props[INI_OVERRIDES] or {}).items():
        if name not in templates:
            return ('ini_overrides: %r is not a key of templates' % name,
                    INI_OVERRIDES)
        sections = {} if sections is None else sections
        if not isinstance(sections, dict) or not all(
                options is None or isinstance(options, dict)
                for options in sections.values()):
            return ('ini_overrides.%s: give {section: {key: value}}' % name,
                    INI_OVERRIDES)
    return None


def rendered_body(rsrc, props, comparable=False):
    """{rsrc.rendered_key: files} rendered from the properties, or {}
    without templates. comparable, or an input stored as a fingerprint:
    a fingerprint of each file's inputs stands in for its content. When
    the kind has sensitive_properties (a Secret), the rendered content is
    as secret as they are: errors are redacted and quote no rendered
    text."""
    templates = props[TEMPLATES]
    if not templates:
        return {}
    if comparable or _stored_only(rsrc, props):
        return {rsrc.rendered_key: _stand_ins(rsrc, props)}
    files, error = render(props, bool(rsrc.sensitive_properties))
    if error is not None:
        raise exception.Error('%s: %s' % (
            error.source,
            error_message(error, props, rsrc.sensitive_properties)))
    return {rsrc.rendered_key: files}


def validate(rsrc, props):
    """The offline checks of the rendering properties: keys, no key both
    rendered and literal (rsrc.literal_properties), well-formed inputs,
    and the files rendered when every input is known."""
    templates = props[TEMPLATES] or {}
    for name in templates:
        problems = fieldrules.config_key_problems(name)
        if problems:
            raise rsrc._invalid('templates: %r is not a valid key: %s'
                                % (name, '; '.join(problems)), TEMPLATES)
        for prop in rsrc.literal_properties:
            if name in (props[prop] or {}):
                raise rsrc._invalid(
                    'templates: %r is also a key of %s: a key is '
                    'either rendered or literal' % (name, prop),
                    TEMPLATES)
    problem = input_error(props)
    if problem:
        raise rsrc._invalid(*problem)
    if not templates or not known(props):
        return   # a value known only once other resources exist
    error = render(props, bool(rsrc.sensitive_properties))[1]
    if error is not None:
        raise rsrc._invalid(
            error_message(error, props, rsrc.sensitive_properties),
            error.source)


def _stored_only(rsrc, props):
    """True when an input is a fingerprint: nothing can be rendered."""
    return any(digests.is_fingerprint(value)
               for prop in RENDER_INPUTS
               if prop in rsrc.sensitive_properties
               for value in (props[prop] or {}).values())


def _stand_ins(rsrc, props):
    """A fingerprint of each file's inputs, in place of its content."""
    shared = {prop: props[prop] for prop in (VALUES, VALUE_OVERRIDES)}
    ini = props[INI_OVERRIDES] or {}
    return {name: sensitive.fingerprint(dict(
                shared, template=text, ini_overrides=ini.get(name)),
                rsrc.stack.tenant_id)
            for name, text in props[TEMPLATES].items()}
