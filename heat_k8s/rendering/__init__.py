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

"""Configuration files rendered from Jinja2 templates, with layered values.

A file is made in this order, each step over the result of the one
before (later wins):

1. ``values``: the defaults, a map of template variables;
2. ``value_overrides`` (and any further layers given to merge_values()):
   deep-merged over them -- maps merge key by key, recursively; any other
   value (string, number, list, null) replaces the value below it. An
   environment file can so change one nested key without restating the
   rest;
3. the template is rendered with the merged values as its variables;
4. ``ini_overrides`` ({file: {section: {key: value}}}) set ``key = value``
   in ``[section]`` of the rendered file, as kolla-ansible's
   merge_configs does: an existing key is replaced where it stands, a
   missing key is added to its section, a missing section is added at
   the end; comments, order and everything else are kept
   (:mod:`heat_k8s.rendering.inifile`). true/false are written in lower
   case and a list as comma-separated items (an oslo.config ListOpt).

Templates are Jinja2, as Ansible's template module reads them
(``trim_blocks``: a newline after a block tag is removed; a trailing
newline is kept), and run in a sandbox: an immutable
``jinja2.sandbox.ImmutableSandboxedEnvironment`` (no ``_private`` or
internal attributes, no changing lists or dicts), ``StrictUndefined``
(a missing variable is an error, not an empty string), no autoescape, and
no loader: a template cannot read files (``include``, ``import`` and
``extends`` are refused). Runaway templates are stopped by bounds checked
while rendering, before the memory is taken: the size of any one string,
list or output (MAX_VALUE_BYTES, MAX_ITEMS, MAX_FILE_BYTES,
MAX_TOTAL_BYTES), all strings made together (MAX_WORK_BYTES), the number
of loop iterations, calls, lookups and operations (MAX_STEPS), integer
size (MAX_INT_BITS) and, as a backstop, time (MAX_SECONDS).

Errors are RenderError: the file, the template line where known, and what
went wrong (the undefined variable, the syntax error, the refused access,
the bound reached).
"""

import collections.abc
import copy
import functools
import inspect
import itertools
import re
import time
import types

import jinja2
from jinja2 import compiler
from jinja2 import filters as jinja_filters
from jinja2 import nodes
from jinja2 import sandbox
from jinja2 import utils as jinja_utils
import markupsafe

from heat_k8s.rendering import inifile

INI = 'ini_overrides'

MAX_FILE_BYTES = 1 << 20      # one rendered file (UTF-8)
MAX_TOTAL_BYTES = 1 << 20     # all files of one render() together
MAX_VALUE_BYTES = 1 << 20     # any one string made while rendering
MAX_ITEMS = sandbox.MAX_RANGE  # any one list made, and range()
MAX_WORK_BYTES = 64 << 20     # all strings made by one render() together
MAX_STEPS = 1000000           # loop iterations, calls, lookups, operations
MAX_INT_BITS = 4096           # integers made by arithmetic
MAX_SECONDS = 5.0             # a backstop: the bounds above come first

# Filters that do not turn their arguments into text: a large list may be
# passed to them (every other filter is refused a value whose text would be
# larger than MAX_VALUE_BYTES).
_STRUCTURAL_FILTERS = frozenset((
    'abs', 'attr', 'batch', 'count', 'd', 'default', 'dictsort', 'first',
    'float', 'groupby', 'int', 'items', 'last', 'length', 'list', 'map',
    'max', 'min', 'random', 'reject', 'rejectattr', 'reverse', 'round',
    'select', 'selectattr', 'slice', 'sort', 'sum', 'unique'))
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


class RenderError(ValueError):
    """A template that did not render: file, line where known, and why."""

    def __init__(self, filename, detail, lineno=None, source='templates'):
        self.filename, self.detail, self.lineno = filename, detail, lineno
        self.source = source   # what is at fault: templates or ini_overrides
        super().__init__(self.message())

    def message(self, detail=None):
        """The error as text, optionally with another (redacted) detail."""
        where = self.filename
        if self.lineno is not None:
            where = '%s, line %d' % (where, self.lineno)
        return '%s: %s' % (where, self.detail if detail is None else detail)


class LimitExceeded(sandbox.SecurityError):
    """A bound of the sandbox was reached: a runaway template."""


# --- layered values ----------------------------------------------------------

def merge_values(*layers):
    """Deep-merge maps of values, each layer over the ones before it.

    Maps merge key by key, recursively; any other value (string, number,
    list, null) replaces. None layers are skipped. The inputs are not
    changed.
    """
    merged = {}
    for depth, layer in enumerate(layers):
        if layer is None:
            continue
        if not isinstance(layer, collections.abc.Mapping):
            raise TypeError('layer %d of values is not a map' % depth)
        merged = _merge(merged, layer)
    return merged


def _merge(base, override):
    merged = dict(base)
    for key, value in override.items():
        if (isinstance(value, collections.abc.Mapping) and
                isinstance(merged.get(key), collections.abc.Mapping)):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = copy.deepcopy(value)
    return merged


# --- sizes -------------------------------------------------------------------

def _text_size(value, limit=MAX_VALUE_BYTES):
    """About len(str(value)), found without making it; stops past limit."""
    if isinstance(value, str):
        return len(value)
    total, todo = 0, [value]
    while todo and total <= limit:
        item = todo.pop()
        if isinstance(item, (str, bytes)):
            total += len(item) + 4
        elif isinstance(item, bool) or item is None:
            total += 5
        elif isinstance(item, int):
            total += item.bit_length() // 3 + 2
        elif isinstance(item, (float, complex, range)):
            total += 32
        elif isinstance(item, jinja_utils.Namespace):
            total += 12
            todo.append(item._Namespace__attrs)
        elif isinstance(item, collections.abc.Mapping):
            total += 2 + 4 * len(item)
            todo.extend(item.keys())
            todo.extend(item.values())
        elif isinstance(item, (collections.abc.Collection,
                               collections.abc.MappingView)):
            # lists, tuples, sets, dict views: repr shows every item
            total += 2 + 2 * len(item)
            todo.extend(item)
        else:
            total += 64   # a repr such as <generator object ...>
    return total


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


# --- the sandbox -------------------------------------------------------------

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


class _Environment(sandbox.ImmutableSandboxedEnvironment):
    """A sandbox for one render() call: it holds that call's budget."""

    intercepted_binops = frozenset(('+', '*', '**', '%'))
    code_generator_class = _CodeGenerator

    def __init__(self):
        super().__init__(undefined=jinja2.StrictUndefined, autoescape=False,
                         optimized=False, trim_blocks=True,
                         keep_trailing_newline=True, finalize=self._finalize)
        self.steps = self.work = 0
        self.deadline = time.monotonic() + MAX_SECONDS
        self.globals.pop('lipsum', None)   # makes text of any length
        self.globals['range'] = self._range
        self.concat = self._concat          # macro, call and block output
        self.filters = {name: self._guarded_filter(name, func)
                        for name, func in self.filters.items()}
        self.filters['join'] = self._join
        self.filters['sum'] = self._sum

    # -- the budget --

    def step(self):
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise LimitExceeded(
                'more than %d steps (loop iterations, calls, lookups, '
                'operations): a runaway loop?' % MAX_STEPS)
        if time.monotonic() > self.deadline:
            raise LimitExceeded('rendering took more than %g seconds'
                                % MAX_SECONDS)

    def made(self, size, what='a string'):
        """Account for a string of size characters about to be made."""
        if size > MAX_VALUE_BYTES:
            raise LimitExceeded('%s of %d characters, more than %d'
                                % (what, size, MAX_VALUE_BYTES))
        self.work += size
        if self.work > MAX_WORK_BYTES:
            raise LimitExceeded(
                'more than %d characters made while rendering: a runaway '
                'template?' % MAX_WORK_BYTES)

    def made_items(self, count):
        if count > MAX_ITEMS:
            raise LimitExceeded('a list of %d items, more than %d'
                                % (count, MAX_ITEMS))
        self.made(8 * count, 'a list')

    @staticmethod
    def text_size(value):
        return _text_size(value)

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
            self.made(_text_size(value), 'output')
        return value

    def _concat(self, parts):
        parts = list(parts)
        self.made(sum(len(p) for p in parts), 'output')
        return ''.join(parts)

    def concat_values(self, values):
        self.step()
        self.made(sum(_text_size(v) for v in values))
        return ''.join(map(str, values))

    def _range(self, *args):
        self.step()
        values = range(*args)
        if len(values) > MAX_ITEMS:
            raise LimitExceeded('a range of %d items, more than %d'
                                % (len(values), MAX_ITEMS))
        return values

    def guard_loop(self, iterable):
        for item in iterable:
            self.step()
            yield item

    def getattr(self, obj, attribute):
        self.step()
        return super().getattr(obj, attribute)

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
        if operator in ('*', '**') and _is_int(left) and _is_int(right):
            bits = (left.bit_length() * right if operator == '**' and
                    right > 0 else left.bit_length() + right.bit_length())
            if bits > MAX_INT_BITS:
                raise LimitExceeded('an integer of about %d bits, more than '
                                    '%d' % (bits, MAX_INT_BITS))
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
                if isinstance(seq, (str, bytes, list, tuple)) and _is_int(
                        times):
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
            if int(number) > MAX_VALUE_BYTES:
                raise LimitExceeded('a format width or precision of %s, '
                                    'more than %d' % (number,
                                                      MAX_VALUE_BYTES))

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
        largest = max((_text_size(v) for v in items), default=0)
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
        if name in ('center', 'ljust', 'rjust', 'zfill') and _is_int(
                given.get('width')):
            self.made(given['width'])
        elif name == 'expandtabs':
            tab = given.get('tabsize', 8)
            if _is_int(tab):
                self.made(size + owner.count(
                    '\t' if isinstance(owner, str) else b'\t') * max(tab, 0))
        elif name == 'replace':
            old, new = given.get('old'), given.get('new')
            if isinstance(new, type(owner)) and isinstance(old, type(owner)):
                found = owner.count(old) if old else size + 1
                count = given.get('count', -1)
                if _is_int(count) and count >= 0:
                    found = min(found, count)
                self.made(size + found * max(len(new) - len(old), 0))
        elif name == 'join':
            items = list(itertools.islice(given.get('iterable', ()),
                                          MAX_ITEMS + 1))
            self.made_items(len(items))
            self.made(sum(_text_size(i) for i in items) +
                      size * len(items))
            args = (items,)
        elif name == 'translate':
            table = given.get('table')
            if isinstance(table, collections.abc.Mapping):
                longest = max((len(v) for v in table.values()
                               if isinstance(v, (str, bytes))), default=1)
                self.made(size * longest)
        elif name == 'to_bytes' and _is_int(given.get('length')):
            self.made(given['length'])
        return args

    # -- filters --

    def _guarded_filter(self, name, func):
        structural = name in _STRUCTURAL_FILTERS
        check = getattr(self, '_check_filter_' + name, None)
        skip = 1 if getattr(func, 'jinja_pass_arg', None) else 0

        @functools.wraps(func)
        def guarded(*args, **kwargs):
            self.step()
            if not structural:
                for value in itertools.chain(args[skip:], kwargs.values()):
                    if not isinstance(value, (str, int, float)):
                        self.made(_text_size(value), 'a filter argument')
            if check is not None:
                try:
                    check(*args[skip:], **kwargs)
                except TypeError:
                    pass   # wrong arguments: the filter itself says so
            return self._made_result(func(*args, **kwargs))

        return guarded

    def _check_filter_center(self, value, width=80):
        if _is_int(width):
            self.made(width)

    def _check_filter_indent(self, s, width=4, first=False, blank=False):
        pad = width if _is_int(width) else len(str(width))
        text = str(s)
        self.made(len(text) + (text.count('\n') + 1) * max(pad, 0))

    def _check_filter_wordwrap(self, s, width=79, break_long_words=True,
                               wrapstring=None, break_on_hyphens=True):
        text = str(s)
        lines = text.count('\n') + 1 + (
            len(text) // width if _is_int(width) and width > 0 else 0)
        self.made(len(text) + lines * len(str(wrapstring or '\n')))

    def _check_filter_replace(self, s, old, new, count=None):
        text, old, new = str(s), str(old), str(new)
        found = text.count(old) if old else len(text) + 1
        if _is_int(count) and count >= 0:
            found = min(found, count)
        self.made(len(text) + found * max(len(new) - len(old), 0))

    def _check_filter_format(self, value, *args, **kwargs):
        self.check_percent(str(value), kwargs or args)

    def _check_filter_batch(self, value, linecount, fill_with=None):
        if _is_int(linecount):
            self.made_items(linecount)

    def _check_filter_slice(self, value, slices, fill_with=None):
        if _is_int(slices):
            self.made_items(slices)

    def _items(self, value, attribute=None):
        if attribute is not None:
            getter = jinja_filters.make_attrgetter(self, attribute)
            value = map(getter, value)
        items = []
        for item in value:
            self.step()
            items.append(item)
            if len(items) > MAX_ITEMS:
                self.made_items(len(items))
        return items

    @jinja2.pass_eval_context
    def _join(self, eval_ctx, value, d='', attribute=None):
        self.step()
        items = self._items(value, attribute)
        self.made(sum(_text_size(i) for i in items) +
                  len(str(d)) * len(items))
        return jinja_filters.sync_do_join(eval_ctx, items, d)

    def _sum(self, iterable, attribute=None, start=0):
        self.step()
        items = self._items(iterable, attribute)
        if isinstance(start, (list, tuple)):
            # sum(start=[]) flattens; sum() of lists takes quadratic time.
            if not all(isinstance(i, (list, tuple)) for i in items):
                raise TypeError('sum(start=[]) of items that are not lists')
            self.made_items(len(start) + sum(len(i) for i in items))
            return type(start)(itertools.chain(
                start, itertools.chain.from_iterable(items)))
        return sum(items, start)

    # -- compiling --

    def compile_file(self, name, source):
        """A Template, refusing what would reach outside the sandbox."""
        tree = self.parse(source, name, name)
        for node_type, word in _REFUSED_NODES:
            for node in tree.find_all(node_type):
                raise RenderError(
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


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


# --- rendering ---------------------------------------------------------------

def _template_line(tb, template):
    """The template line of the innermost frame of template in tb."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_globals.get('__jinja_template__') is template:
            line = template.get_corresponding_lineno(tb.tb_lineno)
        tb = tb.tb_next
    return line


def _detail(exc, sensitive):
    if isinstance(exc, (jinja2.TemplateError, LimitExceeded)):
        return str(exc)   # names from the template, not values
    if isinstance(exc, RecursionError):
        return 'too deeply nested or recursive'
    if isinstance(exc, MemoryError):
        return 'out of memory'
    if sensitive:
        return ('%s (the details are withheld: they could quote secret '
                'values)' % type(exc).__name__)
    return '%s: %s' % (type(exc).__name__, exc)


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
            if size > MAX_FILE_BYTES:
                frame = generator.gi_frame
                error = RenderError(
                    name, 'the output is larger than %d bytes'
                    % MAX_FILE_BYTES, frame and
                    template.get_corresponding_lineno(frame.f_lineno))
                break
            chunks.append(chunk)
    except Exception as exc:
        error = RenderError(name, _detail(exc, sensitive), _template_line(
            exc.__traceback__, template))
    finally:
        generator.close()
    if error is not None:
        # Raised here, not in the except clause: the original exception,
        # whose message may quote values, is not kept as its context.
        raise error
    return ''.join(chunks)


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


def render(templates, values=None, ini_overrides=None, sensitive=False):
    """Render templates ({file name: Jinja2 text}) to {file name: text}.

    values: the template variables (merge layers first with
    merge_values()). ini_overrides: {file name: {section: {key: value}}},
    set in the rendered INI files. sensitive: the output is secret; error
    details then never quote runtime values or rendered text (only
    template text and names; the caller still redacts the known secret
    values from RenderError.detail). Raises RenderError.
    """
    values = dict(values or {})
    ini_overrides = ini_overrides or {}
    for name in ini_overrides:
        if name not in templates:
            raise RenderError(name, 'no template renders this file',
                              source=INI)
    env = _Environment()
    rendered, total = {}, 0
    for name, source in templates.items():
        text = _render_file(env, name, source, values, sensitive)
        if ini_overrides.get(name):
            text = _apply_ini(name, text, ini_overrides[name], sensitive)
        size = len(text.encode('utf-8'))
        if size > MAX_FILE_BYTES:
            raise RenderError(name, 'the output is larger than %d bytes'
                              % MAX_FILE_BYTES)
        total += size
        if total > MAX_TOTAL_BYTES:
            raise RenderError(name, 'the files rendered are larger than %d '
                              'bytes together' % MAX_TOTAL_BYTES)
        rendered[name] = text
    return rendered
