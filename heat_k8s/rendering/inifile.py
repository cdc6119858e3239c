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

"""A line-based editor for oslo.config INI files that keeps everything else.

configparser drops comments and reorders nothing but rewrites everything;
an operator's heat.conf is full of comments (the sample configuration is
mostly comments). This editor changes only the lines of the options it
sets or removes and reads the file as oslo.config's own parser does
(``oslo_config/iniparser.py``):

* ``[section]`` starts a section; a section may appear several times;
* a line starting with ``#`` or ``;`` is a comment;
* ``key = value`` or ``key: value``, split at the first ``=`` or ``:``;
* a line starting with whitespace continues the previous value (a
  multi-line value); a blank line ends it;
* for a single-valued option the last assignment wins.
"""

import re

_COMMENT = ('#', ';')


class ParseError(ValueError):
    pass


def _split_key_value(line):
    colon, equal = line.find(':'), line.find('=')
    if colon < 0 and equal < 0:
        raise ParseError('no "=" or ":" in %r' % line)
    at = min(i for i in (colon, equal) if i >= 0)
    key, value = line[:at].strip(), line[at + 1:].strip()
    if not key:
        raise ParseError('empty key in %r' % line)
    if len(value) >= 2 and value[0] == value[-1] and value[0] in '"\'':
        value = value[1:-1]
    return key, value


class _Assignment(object):
    """Lines [start, end) of one ``key = value`` with its continuations."""

    def __init__(self, section, key, start, end, value):
        self.section, self.key = section, key
        self.start, self.end, self.value = start, end, value


class IniFile(object):

    def __init__(self, text=''):
        self.lines = text.splitlines(keepends=True)
        if self.lines and not self.lines[-1].endswith(('\n', '\r')):
            self.lines[-1] += '\n'

    @classmethod
    def load(cls, path):
        with open(path, newline='') as f:
            return cls(f.read())

    def text(self):
        return ''.join(self.lines)

    # -- reading --------------------------------------------------------

    def _scan(self):
        """(sections, assignments): sections as (name, header line) in
        file order; assignments with their line ranges."""
        sections, assignments = [], []
        section, current = None, None
        for i, raw in enumerate(self.lines):
            line = raw.rstrip()
            if not line:
                current = None
                continue
            if line.startswith((' ', '\t')):
                if current is None:
                    if line.lstrip().startswith(_COMMENT):
                        continue  # an indented comment: harmless here
                    raise ParseError('line %d: unexpected continuation '
                                     'line %r' % (i + 1, line))
                current.end = i + 1
                current.value += '\n' + line.lstrip()
                continue
            current = None
            if line.startswith('['):
                close = line.find(']')
                if close < 0:
                    raise ParseError('line %d: unclosed section header %r'
                                     % (i + 1, line))
                section = line[1:close].strip()
                sections.append((section, i))
            elif line.startswith(_COMMENT):
                continue
            else:
                if section is None:
                    raise ParseError('line %d: %r is outside any section'
                                     % (i + 1, line))
                key, value = _split_key_value(line)
                current = _Assignment(section, key, i, i + 1, value)
                assignments.append(current)
        return sections, assignments

    def _find(self, section, key):
        return [a for a in self._scan()[1]
                if a.section == section and a.key == key]

    def get(self, section, key, default=None):
        """The value oslo.config would read (the last assignment)."""
        found = self._find(section, key)
        return found[-1].value if found else default

    # -- writing --------------------------------------------------------

    def set(self, section, key, value):
        """Set `key` in `section`; returns True when the text changed.

        An existing assignment is rewritten where it stands. A new one goes
        after the commented-out template line of the option (``#key =``,
        as in Heat's sample configuration) when the section has one, else
        after the section's last option; a missing section is added (a
        missing ``[DEFAULT]`` before the first section).
        """
        line = '%s = %s\n' % (key, value)
        found = self._find(section, key)
        if found:
            last = found[-1]
            if self.lines[last.start:last.end] == [line]:
                return False
            self.lines[last.start:last.end] = [line]
            return True
        self.lines.insert(self._insertion_point(section, key), line)
        return True

    def remove(self, section, key):
        """Remove every assignment of `key` in `section`."""
        found = self._find(section, key)
        for a in reversed(found):
            del self.lines[a.start:a.end]
        return bool(found)

    def _insertion_point(self, section, key):
        sections, assignments = self._scan()
        headers = [i for name, i in sections if name == section]
        if not headers:
            return self._add_section(section, sections)
        starts = sorted(i for _, i in sections) + [len(self.lines)]
        template = re.compile(r'[#;]\s*%s\s*[=:]' % re.escape(key))
        spans = [(h, min(s for s in starts if s > h)) for h in headers]
        for h, end in reversed(spans):
            for i in range(h + 1, end):
                if template.match(self.lines[i]):
                    return i + 1
        h, end = spans[-1]
        ends = [a.end for a in assignments if h < a.start < end]
        return max(ends) if ends else h + 1

    def _add_section(self, section, sections):
        header = '[%s]\n' % section
        if section == 'DEFAULT' and sections:
            at = sections[0][1]
            self.lines[at:at] = [header, '\n']
            return at + 1
        if self.lines and self.lines[-1].strip():
            self.lines.append('\n')
        self.lines.append(header)
        return len(self.lines)
