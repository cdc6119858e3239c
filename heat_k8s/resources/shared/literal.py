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

"""Offline checks at `template validate`, on the values known there.

Heat 27's `openstack orchestration template validate` validates a stack
with strict_validate off and calls each resource's validate_template(),
not validate(): no property value is checked (not even a Range), and a
get_param without a value cannot be resolved. Nested stacks (provider
templates) are validated with strict_validate off too, with their parent,
on parameters made of the parent's placeholders: they are checked when
they are created, strictly, before any of their objects exists. So a resource
checks its properties in validate() when Heat is strict (stack create,
update, preview) and in validate_template() when it is not, on the
values known: literal values, parameters that have a value or a default;
a function that cannot be resolved yet stands as None, which every check
skips. Heat's own property checks (types, Range) run there too, on the
properties that hold no such function.
"""

import collections.abc

from heat.common import exception
from heat.engine import function
from heat.engine import properties as heat_properties

from heat_k8s.resources.shared import sensitive

SECTION = 'properties'


def resolve(snippet, unknown):
    """function.resolve, with None for what cannot be resolved yet.

    Appends to unknown each function that could not be resolved.
    """
    if isinstance(snippet, function.Function):
        try:
            return function.resolve(snippet, nullable=True)
        except Exception:
            unknown.append(snippet)
            return None
    if isinstance(snippet, collections.abc.Mapping):
        resolved = ((key, resolve(value, unknown))
                    for key, value in snippet.items())
        return {k: v for k, v in resolved if v is not Ellipsis}
    if isinstance(snippet, list):
        resolved = (resolve(value, unknown) for value in snippet)
        return [v for v in resolved if v is not Ellipsis]
    return snippet


def known_properties(rsrc):
    """The resource's properties as far as they are known, Heat-checked.

    A mapping (property -> value, None when unknown); raises Heat's
    StackValidationFailed, with the resource's path, when a known value
    breaks the property schema.
    """
    schema = rsrc.properties_schema
    partial, checked = {}, {}
    for key, snippet in (rsrc.properties.data or {}).items():
        unknown = []
        value = resolve(snippet, unknown)
        if value is Ellipsis:
            continue  # as if not given (e.g. an `if` without else)
        (partial if unknown else checked)[key] = value
    props = heat_properties.Properties(
        {key: s for key, s in schema.items() if key not in partial},
        checked, context=rsrc.context, section=SECTION)
    try:
        props.validate(with_value=True)
    except exception.StackValidationFailed as exc:
        path = [rsrc.stack.t.RESOURCES, rsrc.name]
        if exc.path:
            path += [rsrc.stack.t.get_section_name(exc.path[0])]
            path += exc.path[1:]
        raise exception.StackValidationFailed(
            error=exc.error, path=path, message=exc.error_message) from None
    return sensitive.PlainProperties(
        {key: partial[key] if key in partial else props[key]
         for key in schema})


def checks_template(stack):
    """Whether `template validate` checks the stack's resources' known
    values: Heat is not strict there. A nested stack validated with its
    parent gets parameters made of the parent's placeholders (an attribute
    not there yet is None): its resources are checked when it is created,
    strictly."""
    return not stack.strict_validate and not stack.nested_depth


def checked_properties(rsrc):
    """The properties as the current validation sees them."""
    if rsrc.stack.strict_validate:
        return rsrc.properties
    return known_properties(rsrc)


class CheckedBeforeCreate(object):
    """Mixin: validate_properties(props) runs however Heat validates.

    A class defines validate_properties(props): offline checks that raise
    StackValidationFailed. They run in validate() on the resolved
    properties when Heat is strict, else in validate_template() on
    known_properties(). (KubernetesBase states the same hooks itself.)
    """

    def validate(self):
        result = super().validate()
        if self.stack.strict_validate:
            self.validate_properties(self.properties)
        return result

    def validate_template(self):
        result = super().validate_template()
        if checks_template(self.stack):
            self.validate_properties(known_properties(self))
        return result

    def validate_properties(self, props):
        """Offline checks of these properties."""
