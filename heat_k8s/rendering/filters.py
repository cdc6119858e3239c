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

"""Jinja's filters run inside the render budget.

Every filter counts as a step and has the text of its arguments checked
(except the structural ones, which do not turn them into text); filters
that can make a result much larger than their arguments (center, indent,
wordwrap, replace, format, batch, slice) are checked before they run, and
join and sum are replaced by versions that count their items as they go.
A mixin of the sandbox's environment, which holds the budget
(``step``, ``made``, ``made_items``).
"""

import functools
import itertools

import jinja2
from jinja2 import filters as jinja_filters

from heat_k8s.rendering import limits

# Filters that do not turn their arguments into text: a large list may be
# passed to them (every other filter is refused a value whose text would be
# larger than MAX_VALUE_BYTES).
_STRUCTURAL_FILTERS = frozenset((
    'abs', 'attr', 'batch', 'count', 'd', 'default', 'dictsort', 'first',
    'float', 'groupby', 'int', 'items', 'last', 'length', 'list', 'map',
    'max', 'min', 'random', 'reject', 'rejectattr', 'reverse', 'round',
    'select', 'selectattr', 'slice', 'sort', 'sum', 'unique'))


class FilterGuards(object):
    """The environment's filters, each checked before it runs."""

    def guard_filters(self):
        """Wrap every filter of the environment; replace join and sum."""
        self.filters = {name: self._guarded_filter(name, func)
                        for name, func in self.filters.items()}
        self.filters['join'] = self._join
        self.filters['sum'] = self._sum

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
                        self.made(limits.text_size(value), 'a filter argument')
            if check is not None:
                try:
                    check(*args[skip:], **kwargs)
                except TypeError:
                    pass   # wrong arguments: the filter itself says so
            return self._made_result(func(*args, **kwargs))

        return guarded

    def _check_filter_center(self, value, width=80):
        if limits.is_int(width):
            self.made(width)

    def _check_filter_indent(self, s, width=4, first=False, blank=False):
        pad = width if limits.is_int(width) else len(str(width))
        text = str(s)
        self.made(len(text) + (text.count('\n') + 1) * max(pad, 0))

    def _check_filter_wordwrap(self, s, width=79, break_long_words=True,
                               wrapstring=None, break_on_hyphens=True):
        text = str(s)
        lines = text.count('\n') + 1 + (
            len(text) // width if limits.is_int(width) and width > 0 else 0)
        self.made(len(text) + lines * len(str(wrapstring or '\n')))

    def _check_filter_replace(self, s, old, new, count=None):
        text, old, new = str(s), str(old), str(new)
        found = text.count(old) if old else len(text) + 1
        if limits.is_int(count) and count >= 0:
            found = min(found, count)
        self.made(len(text) + found * max(len(new) - len(old), 0))

    def _check_filter_format(self, value, *args, **kwargs):
        self.check_percent(str(value), kwargs or args)

    def _check_filter_batch(self, value, linecount, fill_with=None):
        if limits.is_int(linecount):
            self.made_items(linecount)

    def _check_filter_slice(self, value, slices, fill_with=None):
        if limits.is_int(slices):
            self.made_items(slices)

    def _items(self, value, attribute=None):
        if attribute is not None:
            getter = jinja_filters.make_attrgetter(self, attribute)
            value = map(getter, value)
        items = []
        for item in value:
            self.step()
            items.append(item)
            if len(items) > limits.MAX_ITEMS:
                self.made_items(len(items))
        return items

    @jinja2.pass_eval_context
    def _join(self, eval_ctx, value, d='', attribute=None):
        self.step()
        items = self._items(value, attribute)
        self.made(sum(limits.text_size(i) for i in items) +
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
