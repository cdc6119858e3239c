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

"""OS::HeatK8s::Requires: a service refused without the services it needs.

A template composes services, each of a type of its own, and an
environment file switches one off by mapping its type to OS::Heat::None
(or a condition leaves it out). Nothing in Heat's template language sees
the resource registry: conditions read parameters only, and a get_attr
of an OS::Heat::None resource is valid (every attribute is null), so a
service whose dependency was switched off would be created and fail, or
worse, half-work. This resource looks at the stack's resources as the
environment resolved them, at `template validate` as at `stack create`,
and refuses the template naming the missing dependency.
"""

from heat.common import exception
from heat.engine import constraints
from heat.engine import properties
from heat.engine import resource
from heat.engine.resources.openstack.heat import none_resource

from heat_k8s.resources.shared import literal

PROPERTIES = (SERVICE, REQUIRES) = ('service', 'requires')
NONE_TYPE = 'OS::Heat::None'


def switched_off(stack, name):
    """How resource `name` of stack is switched off, or None if it is on.

    Raises StackValidationFailed when the template has no such resource.
    """
    if name not in (stack.t.t.get(stack.t.RESOURCES) or {}):
        return 'not a resource of this template'
    try:
        res = stack.resources[name]
    except KeyError:
        return 'left out by its condition'
    if isinstance(res, none_resource.NoneResource):
        if res.type() == NONE_TYPE:
            return 'of type %s' % NONE_TYPE
        return '%s is %s in the environment' % (res.type(), NONE_TYPE)
    return None


class Requires(literal.CheckedBeforeCreate, resource.Resource):
    """Refuses a template whose service needs another one switched off.

    ``service`` names a resource of this template and ``requires`` maps
    each resource it needs to what it needs it for. When ``service`` is
    deployed (not mapped to OS::Heat::None, not left out by a condition)
    and one of ``requires`` is not, ``template validate`` and ``stack
    create`` refuse the template with a message naming both, e.g.
    ``glance needs keystone (token validation, its catalog entry), which
    is switched off: OS::HeatK8s::Services::Keystone is OS::Heat::None in
    the environment``. A service that is itself switched off needs
    nothing. It creates nothing and has no attributes; it orders nothing
    either (it names the resources, it does not reference them).
    """

    sensitive_properties = ()

    properties_schema = {
        SERVICE: properties.Schema(
            properties.Schema.STRING,
            'The resource (of this template) that needs the others.',
            required=True, update_allowed=True,
            constraints=[constraints.Length(min=1)]),
        REQUIRES: properties.Schema(
            properties.Schema.MAP,
            'Resource (of this template) -> what the service needs it '
            'for, named in the refusal.',
            required=True, update_allowed=True,
            constraints=[constraints.Length(min=1)]),
    }

    attributes_schema = {}

    def validate_properties(self, props):
        service, requires = props[SERVICE], props[REQUIRES]
        if not service or not requires:
            return  # not known yet
        prefix = ('resources.%s.properties: ' % self.name)
        for name in [service] + sorted(requires):
            if switched_off(self.stack, name) == (
                    'not a resource of this template'):
                raise exception.StackValidationFailed(
                    message=prefix + '%s is not a resource of this '
                    'template' % name)
        if switched_off(self.stack, service):
            return  # switched off itself: needs nothing
        missing = [(name, why, switched_off(self.stack, name))
                   for name, why in sorted(requires.items())]
        missing = [m for m in missing if m[2]]
        if missing:
            raise exception.StackValidationFailed(
                message=prefix + '; '.join(
                    '%s needs %s%s, which is switched off: %s' % (
                        service, name, ' (%s)' % why if why else '', how)
                    for name, why, how in missing) +
                '. Switch %s off too, or %s on.' % (
                    service, ', '.join(m[0] for m in missing)))

    def handle_create(self):
        self.resource_id_set(self.physical_resource_name())

    def handle_update(self, json_snippet, tmpl_diff, prop_diff):
        pass  # validated before the update; nothing to change

