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

"""The Jinja2 sandbox a template runs in, with the budget of one render().

An immutable ``jinja2.sandbox.ImmutableSandboxedEnvironment`` (no
``_private`` or internal attributes, no changing lists or dicts),
``StrictUndefined`` (a missing variable is an error, not an empty
string), ``|attr`` looked up as ``.name`` is, no autoescape, and no
loader: a template cannot read files (``include``, ``import`` and
``extends`` are refused). Templates are read
as Ansible's template module reads them (``trim_blocks``: a newline after
a block tag is removed; a trailing newline is kept).

Jinja's sandbox stops escapes, not a template that asks for gigabytes or
loops forever, so the environment also holds a budget
(:mod:`heat_k8s.rendering.limits`): every loop iteration, call, lookup
and operation is a step, and every string or list a template is about to
make (repetition, padding, format widths, ``join``, ``replace``, ``~``, a
list turned into text) is sized before Python makes it. Filters are
guarded in :mod:`heat_k8s.rendering.filters`.
"""

import collections.abc
import functools
import inspect
import itertools
import re
import time
import types

import jinja2
from jinja2 import compiler
from jinja2 import nodes
from jinja2 import sandbox
import markupsafe

from heat_k8s.rendering import filters
from heat_k8s.rendering import limits
from heat_k8s.rendering import rendererror

# Methods of str, bytes and int that can make a result much larger than
# their arguments: checked before they are called.
_CHECKED_METHODS = frozenset(('center', 'ljust', 'rjust', 'zfill',
                              'expandtabs', 'replace', 'join', 'translate',
                              'to_bytes'))
_REFUSED_NODES = ((nodes.Include, 'include'), (nodes.Import, 'import'),
                  (nodes.FromImport, 'import'), (nodes.Extends, 'extends'))
# A width or precision in a %-format or a format spec.
_PERCENT_SPEC = re.compile(r'%(?:\([^)]*\))?[-#0 +]*(\*|\d*)(?:\.(\*|\d*))?')
_SPEC_NUMBER = re.compile(r'\d+')


class LimitExceeded(sandbox.SecurityError):
    """A bound of the sandbox was reached: a runaway template."""


class _CodeGenerator(compiler.CodeGenerator):
    """Jinja's code generator with `~` made through the size checks."""

    def visit_Concat(self, node, frame):
        self.write('environment.concat_values((')
        for arg in node.nodes:
            self.visit(arg, frame)
            self.write(', ')
        self.write('))')


class _GuardedFormat(object):
    """str.format fields checked before they are made."""

    def format_field(self, value, format_spec):
        self._env.check_format_spec(format_spec)
        self._env.made(self._env.text_size(value))
        result = super().format_field(value, format_spec)
        self._env.made(len(result))
        return result


class _Formatter(_GuardedFormat, sandbox.SandboxedFormatter):
    pass


class _EscapeFormatter(_GuardedFormat, sandbox.SandboxedEscapeFormatter):
    pass


class Environment(filters.FilterGuards,
                  sandbox.ImmutableSandboxedEnvironment):
    """A sandbox for one render() call: it holds that call's budget."""

    intercepted_binops = frozenset(('+', '*', '**', '%'))
    code_generator_class = _CodeGenerator

    def __init__(self):
        super().__init__(undefined=jinja2.StrictUndefined, autoescape=False,
                         optimized=False, trim_blocks=True,
                         keep_trailing_newline=True, finalize=self._finalize)
        self.steps = self.work = 0
        self.deadline = time.monotonic() + limits.MAX_SECONDS
        self.globals.pop('lipsum', None)   # makes text of any length
        self.globals['range'] = self._range
        self.concat = self._concat          # macro, call and block output
        self.filters['attr'] = self._attr
        self.guard_filters()

    # -- the budget --

    def step(self):
        self.steps += 1
        if self.steps > limits.MAX_STEPS:
            raise LimitExceeded(
                'more than %d steps (loop iterations, calls, lookups, '
                'operations): a runaway loop?' % limits.MAX_STEPS)
        if time.monotonic() > self.deadline:
            raise LimitExceeded('rendering took more than %g seconds'
                                % limits.MAX_SECONDS)

    def made(self, size, what='a string'):
        """Account for a string of size characters about to be made."""
        if size > limits.MAX_VALUE_BYTES:
            raise LimitExceeded('%s of %d characters, more than %d'
                                % (what, size, limits.MAX_VALUE_BYTES))
        self.work += size
        if self.work > limits.MAX_WORK_BYTES:
            raise LimitExceeded(
                'more than %d characters made while rendering: a runaway '
                'template?' % limits.MAX_WORK_BYTES)

    def made_items(self, count):
        if count > limits.MAX_ITEMS:
            raise LimitExceeded('a list of %d items, more than %d'
                                % (count, limits.MAX_ITEMS))
        self.made(8 * count, 'a list')

    @staticmethod
    def text_size(value):
        return limits.text_size(value)

    def _made_result(self, result):
        if isinstance(result, (str, bytes)):
            self.made(len(result))
        elif isinstance(result, (list, tuple)):
            self.made_items(len(result))
        return result

    # -- what templates reach --

    def _finalize(self, value):
        # {{ value }}: str(value) of a list could be any size.
        if not isinstance(value, str):
            self.made(limits.text_size(value), 'output')
        return value

    def _concat(self, parts):
        parts = list(parts)
        self.made(sum(len(p) for p in parts), 'output')
        return ''.join(parts)

    def concat_values(self, values):
        self.step()
        self.made(sum(limits.text_size(v) for v in values))
        return ''.join(map(str, values))

    def _range(self, *args):
        self.step()
        values = range(*args)
        if len(values) > limits.MAX_ITEMS:
            raise LimitExceeded('a range of %d items, more than %d'
                                % (len(values), limits.MAX_ITEMS))
        return values

    def guard_loop(self, iterable):
        for item in iterable:
            self.step()
            yield item

    def getattr(self, obj, attribute):
        self.step()
        return super().getattr(obj, attribute)

    def _attr(self, obj, name):
        """|attr as a lookup: Jinja2 3.1.5's skips getattr, and so the
        str.format guard (CVE-2025-27516, fixed in 3.1.6 alike)."""
        try:
            inspect.getattr_static(obj, name)
        except AttributeError:
            # Not a plain attribute; getattr would look up an item instead.
            if not hasattr(obj, name):
                return self.undefined(obj=obj, name=name)
        return self.getattr(obj, name)

    def getitem(self, obj, argument):
        self.step()
        return super().getitem(obj, argument)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805
        __self.step()
        owner = getattr(__obj, '__self__', None)
        name = getattr(__obj, '__name__', None)
        if name in _CHECKED_METHODS and isinstance(owner, (str, bytes, int)):
            args = __self._check_method(owner, name, args, kwargs)
        return __self._made_result(super().call(__context, __obj, *args,
                                                **kwargs))

    def call_binop(self, context, operator, left, right):
        self.step()
        if operator in ('*', '+'):
            self._check_sequence_op(operator, left, right)
        if operator in ('*', '**') and (limits.is_int(left) and
                                        limits.is_int(right)):
            bits = (left.bit_length() * right if operator == '**' and
                    right > 0 else left.bit_length() + right.bit_length())
            if bits > limits.MAX_INT_BITS:
                raise LimitExceeded('an integer of about %d bits, more than '
                                    '%d' % (bits, limits.MAX_INT_BITS))
        if operator == '%' and isinstance(left, (str, bytes)):
            self.check_percent(left, right)
        return self._made_result(super().call_binop(context, operator, left,
                                                    right))

    def wrap_str_format(self, value):
        if not isinstance(value, (types.MethodType,
                                  types.BuiltinMethodType)) or (
                getattr(value, '__name__', None) not in ('format',
                                                          'format_map')):
            return None
        owner = getattr(value, '__self__', None)
        if not isinstance(owner, str):
            return None
        if isinstance(owner, markupsafe.Markup):
            formatter = _EscapeFormatter(self, escape=owner.escape)
        else:
            formatter = _Formatter(self)
        is_map = value.__name__ == 'format_map'

        def guarded(*args, **kwargs):
            if is_map:
                if kwargs or len(args) != 1:
                    raise TypeError('format_map() takes exactly one argument')
                args, kwargs = (), args[0]
            self.made(len(owner))
            return type(owner)(formatter.vformat(owner, args, kwargs))

        return functools.update_wrapper(guarded, value)

    # -- checks of what would be made --

    def _check_sequence_op(self, operator, left, right):
        if operator == '*':
            for seq, times in ((left, right), (right, left)):
                if isinstance(seq, (str, bytes, list, tuple)) and (
                        limits.is_int(times)):
                    self._check_length(seq, len(seq) * max(times, 0))
        elif (isinstance(left, (str, bytes, list, tuple)) and
              type(left) is type(right)):
            self._check_length(left, len(left) + len(right))

    def _check_length(self, sample, length):
        if isinstance(sample, (list, tuple)):
            self.made_items(length)
        else:
            self.made(length)

    def check_format_spec(self, spec):
        for number in _SPEC_NUMBER.findall(spec or ''):
            if int(number) > limits.MAX_VALUE_BYTES:
                raise LimitExceeded('a format width or precision of %s, '
                                    'more than %d' % (number,
                                                      limits.MAX_VALUE_BYTES))

    def check_percent(self, fmt, args):
        """fmt % args: widths and the text of the arguments."""
        if isinstance(fmt, bytes):
            fmt = fmt.decode('latin-1')
        conversions = 0
        for match in _PERCENT_SPEC.finditer(fmt.replace('%%', '')):
            conversions += 1
            if '*' in match.groups():
                raise LimitExceeded("'*' widths are not allowed in %-formats")
            self.check_format_spec('%s.%s' % match.groups())
        items = (args.values() if isinstance(args, collections.abc.Mapping)
                 else args if isinstance(args, tuple) else [args])
        largest = max((limits.text_size(v) for v in items), default=0)
        self.made(len(fmt) + conversions * largest)

    def _check_method(self, owner, name, args, kwargs):
        """Check a str, bytes or int method before it makes its result."""
        try:
            bound = inspect.signature(getattr(owner, name)).bind(*args,
                                                                 **kwargs)
        except (TypeError, ValueError, AttributeError):
            return args    # the call itself will complain
        given = bound.arguments
        size = len(owner) if isinstance(owner, (str, bytes)) else 0
        if name in ('center', 'ljust', 'rjust', 'zfill') and limits.is_int(
                given.get('width')):
            self.made(given['width'])
        elif name == 'expandtabs':
            tab = given.get('tabsize', 8)
            if limits.is_int(tab):
                self.made(size + owner.count(
                    '\t' if isinstance(owner, str) else b'\t') * max(tab, 0))
        elif name == 'replace':
            old, new = given.get('old'), given.get('new')
            if isinstance(new, type(owner)) and isinstance(old, type(owner)):
                found = owner.count(old) if old else size + 1
                count = given.get('count', -1)
                if limits.is_int(count) and count >= 0:
                    found = min(found, count)
                self.made(size + found * max(len(new) - len(old), 0))
        elif name == 'join':
            items = list(itertools.islice(given.get('iterable', ()),
                                          limits.MAX_ITEMS + 1))
            self.made_items(len(items))
            self.made(sum(limits.text_size(i) for i in items) +
                      size * len(items))
            args = (items,)
        elif name == 'translate':
            table = given.get('table')
            if isinstance(table, collections.abc.Mapping):
                longest = max((len(v) for v in table.values()
                               if isinstance(v, (str, bytes))), default=1)
                self.made(size * longest)
        elif name == 'to_bytes' and limits.is_int(given.get('length')):
            self.made(given['length'])
        return args

    # -- compiling --

    def compile_file(self, name, source):
        """A Template, refusing what would reach outside the sandbox."""
        tree = self.parse(source, name, name)
        for node_type, word in _REFUSED_NODES:
            for node in tree.find_all(node_type):
                raise rendererror.RenderError(
                    name, "'%s' is not allowed: a template is rendered on "
                    "its own, without other files" % word, node.lineno)
        for loop in tree.find_all(nodes.For):
            guard = nodes.Call(nodes.EnvironmentAttribute('guard_loop'),
                               [loop.iter], [], None, None,
                               lineno=loop.iter.lineno)
            guard.set_environment(self)
            loop.iter = guard
        return self.template_class.from_code(
            self, self.compile(tree, name, name), self.make_globals(None))

