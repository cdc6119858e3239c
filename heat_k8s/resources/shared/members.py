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

"""The objects of an OS::Kubernetes::Objects resource, one by one.

Member sees one manifest as the OS::Kubernetes::Resource it would be, so
that the single-object code handles it; a Task is what a create, update
or delete does to one object, Work what Heat keeps between checks;
parallel() runs a step over them through a small pool of threads.
"""

from concurrent import futures
import dataclasses

from heat.common import exception

from heat_k8s.client import kube as kube_mod
from heat_k8s.kinds import objectset
from heat_k8s.resources.shared import anyobject
from heat_k8s.resources.shared import common
from heat_k8s.resources.shared import sensitive
from heat_k8s.waiting import awaiter

MANIFESTS = 'manifests'
NAMESPACE, CLUSTER, WAIT, TIMEOUT = (
    common.NAMESPACE, common.CLUSTER, common.WAIT, common.TIMEOUT)
POOL_SIZE = 8  # requests in flight at once; the client pool keeps 16


class Member(anyobject.AnyObject):
    """One entry of `manifests`, as the OS::Kubernetes::Resource it would be.

    A view sharing its owner's Heat state (stack, name, uuid, context), so
    that the single-object code names, validates, claims, judges and
    checks it; it writes nothing of its own to Heat.
    """

    @classmethod
    def of(cls, owner, props, index, manifest):
        member = object.__new__(cls)  # Resource.__new__ wants a definition
        member.__dict__.update(owner.__dict__)
        member.index = index
        name = (manifest.get('metadata') or {}).get('name')
        member.properties = sensitive.PlainProperties({
            common.NAME: name, NAMESPACE: props[NAMESPACE],
            common.LABELS: {}, common.ANNOTATIONS: {},
            CLUSTER: props[CLUSTER], WAIT: props[WAIT],
            TIMEOUT: props[TIMEOUT], anyobject.MANIFEST: manifest,
            anyobject.WAIT_FOR: None})
        return member

    def data(self):
        return {}  # names are always given: nothing stored decides them

    def identity(self):
        return objectset.identity(self.object.locator())

    def _invalid(self, message, prop=None):
        if prop == NAMESPACE:
            return super()._invalid(message, NAMESPACE)
        where = 'manifests[%d]' % self.index
        if prop == common.NAME:
            message = '%s.metadata.name: %s' % (where, message)
        elif message.startswith('manifest.'):
            message = where + message[len('manifest'):]
        else:
            message = '%s: %s' % (where, message)
        return super()._invalid(message, MANIFESTS)


@dataclasses.dataclass
class Task:
    """One object's part of a create, update or delete."""

    member: Member
    mode: str                  # CREATE, APPLY, REPLACE or DELETE
    wait: awaiter.Wait
    uid: str | None = None     # the live incarnation, once known
    gone_uid: str | None = None  # an incarnation to see disappear first


@dataclasses.dataclass
class Work:
    """What Heat keeps between checks: the tasks still pending."""

    props: object
    record: dict               # identity -> entry of what exists
    tasks: list = dataclasses.field(default_factory=list)
    total: int = 0
    shown: str | None = None     # for reporting.Reporter
    shown_at: float | None = None


def parallel(function, items):
    """[function(item)] for items, POOL_SIZE at a time."""
    items = list(items)
    if len(items) <= 1:
        return [function(item) for item in items]
    with futures.ThreadPoolExecutor(max_workers=POOL_SIZE) as pool:
        return list(pool.map(function, items))


def attempt(step, task):
    """step(task)'s answer, or the message saying why the object failed."""
    try:
        return step(task)
    except awaiter.Failed as exc:
        member = task.member
        return member.object.redacted(str(exc), member.object.locator())
    except (kube_mod.ApiError, exception.Error) as exc:
        return '%s: %s' % (task.member.describe(), exc)


def joined(messages):
    """The first message, and how many more objects failed."""
    more = len(messages) - 1
    return messages[0] + (' (and %d more objects failed)' % more
                          if more else '')
