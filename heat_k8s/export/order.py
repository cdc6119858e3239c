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

"""The order a stack's objects are exported in: Heat's dependency order.

Heat's resource list (with nested_depth) gives each resource the stack it
is in, the names of the resources of that stack that need it
(required_by) and, for a nested stack's parent resource, a link to the
nested stack. A resource comes after those it needs, ties by name; a
nested stack's resources stand right after their parent resource. Pure:
the API's JSON in, the same dicts out.
"""

import collections

KUBERNETES_TYPES = 'OS::Kubernetes::'


def _linked_id(resource, rel):
    """The last path segment (an id) of the resource's link `rel`."""
    for link in resource.get('links') or ():
        if link.get('rel') == rel:
            return link['href'].rstrip('/').rsplit('/', 1)[-1]
    return None


def stack_id(resource):
    return _linked_id(resource, 'stack')


def nested_stack_id(resource):
    return _linked_id(resource, 'nested')


def is_kubernetes(resource):
    return str(resource.get('resource_type', '')).startswith(
        KUBERNETES_TYPES)


def _in_stack_order(members):
    """One stack's resources, each after those it needs (Kahn, by name)."""
    by_name = {r['resource_name']: r for r in members}
    needs = {name: set() for name in by_name}
    for resource in members:
        for dependent in resource.get('required_by') or ():
            if dependent in needs:
                needs[dependent].add(resource['resource_name'])
    done, ordered = set(), []
    while len(done) < len(by_name):
        ready = sorted(name for name in by_name
                       if name not in done and needs[name] <= done)
        # A cycle Heat would have refused: the rest by name.
        ready = ready or sorted(set(by_name) - done)
        done.update(ready)
        ordered.extend(by_name[name] for name in ready)
    return ordered


def dependency_order(resources):
    """Every resource of the list, in dependency order, nested included."""
    by_stack = collections.defaultdict(list)
    for resource in resources:
        by_stack[stack_id(resource)].append(resource)
    nested = {nested_stack_id(r) for r in resources} - {None}
    ordered, seen = [], set()

    def visit(stack):
        if stack in seen:
            return
        seen.add(stack)
        for resource in _in_stack_order(by_stack.get(stack, ())):
            ordered.append(resource)
            child = nested_stack_id(resource)
            if child:
                visit(child)

    # A nested stack whose parent is not listed counts as a root.
    for root in sorted(set(by_stack) - nested, key=str):
        visit(root)
    return ordered


def kubernetes_resources(resources):
    """The OS::Kubernetes::* resources, in dependency order."""
    return [r for r in dependency_order(resources) if is_kubernetes(r)]
