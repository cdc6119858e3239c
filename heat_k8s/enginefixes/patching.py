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

"""How a fix is put in place in Heat (once), found again, and undone."""

import inspect

MARK = 'heat_k8s_patched'
# What a replacement stands in for, as owner held it (for restore()).
_REPLACED = 'heat_k8s_replaced'
# Held in a class as these, a method is wrapped inside them.
_DESCRIPTORS = (staticmethod, classmethod)


def wrap_once(owner, name, wrapper):
    """Set owner.<name> to wrapper(owner.<name>), unless already done.

    The wrapper keeps what it replaced as ``__wrapped__`` (functools.wraps
    does), so that probes read Heat's own code and restore() undoes it. A
    staticmethod or classmethod is wrapped inside and stays one.
    """
    if patched(owner, name):
        return
    stored = held(owner, name)
    kind = type(stored) if isinstance(stored, _DESCRIPTORS) else None
    current = stored.__func__ if kind else getattr(owner, name)
    replacement = wrapper(current)
    replacement.__wrapped__ = current
    setattr(replacement, MARK, True)
    setattr(replacement, _REPLACED, stored if kind else current)
    setattr(owner, name, kind(replacement) if kind else replacement)


def wrapping(owner, name, wrapper):
    """apply() and restore() of a fix that wraps owner.<name>."""
    def apply():
        wrap_once(owner, name, wrapper)

    def give_back():
        restore(owner, name)

    return apply, give_back


def patched(owner, name):
    """Whether owner.<name> is one of ours."""
    return getattr(getattr(owner, name, None), MARK, False)


def original(owner, name):
    """owner.<name> as Heat defines it, patched or not."""
    current = getattr(owner, name)
    return current.__wrapped__ if patched(owner, name) else current


def restore(owner, name):
    """Undo wrap_once (for tests: Heat as it was)."""
    if patched(owner, name):
        setattr(owner, name, getattr(getattr(owner, name), _REPLACED))


def held(owner, name):
    """owner.<name> as stored, before a descriptor binds it (a class's
    attribute, or its base's); the same object on every call."""
    for klass in getattr(owner, '__mro__', ()):
        if name in vars(klass):
            return vars(klass)[name]
    return getattr(owner, name, None)


def source(owner, name):
    """The source of Heat's own owner.<name>; '' when it has none (a
    release that removed it, or an install without .py files)."""
    try:
        return inspect.getsource(original(owner, name))
    except (AttributeError, OSError, TypeError):
        return ''


def expect(owner, name, has=(), lacks=(), where=None):
    """None when Heat's own owner.<name> holds every text of `has` and
    none of `lacks`; else why not, for the start log (naming `where`,
    by default owner.name; owner may be None: a Heat without it)."""
    where = where or '%s.%s' % (owner.__name__, name)
    code = source(owner, name)
    if not code:
        return 'Heat has no %s' % where
    for text in has:
        if text not in code:
            return '%s changed: it no longer has %r' % (where, text)
    for text in lacks:
        if text in code:
            return '%s already has %r (the fix, or other code)' % (where,
                                                                   text)
    return None
