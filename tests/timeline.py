# Licensed under the Apache License, Version 2.0 (the "License"); you may
# not use this file except in compliance with the License. You may obtain
# a copy of the License at
#
#      http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
# WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
# License for the specific language governing permissions and limitations
# under the License.

"""Where a suite's minutes go: each module's span, by xdist worker.

A pytest plugin (``-p tests.timeline``, as tox runs the functional and
end-to-end suites): at the end it prints each module's worker, start and
end (seconds from the first test) and the time its tests took, in the
order they started. The longest chain of one worker bounds the suite.
"""

import collections
import os


class Timeline(object):

    def __init__(self):
        self.modules = collections.OrderedDict()

    def add(self, report):
        start, stop = getattr(report, 'start', None), getattr(
            report, 'stop', None)
        if start is None or stop is None:
            return
        node = getattr(report, 'node', None)
        worker = getattr(getattr(node, 'gateway', None), 'id', '-')
        module = report.nodeid.split('::', 1)[0]
        span = self.modules.setdefault(module, [worker, start, stop, 0.0])
        span[1], span[2] = min(span[1], start), max(span[2], stop)
        span[3] += stop - start

    def lines(self):
        if not self.modules:
            return []
        zero = min(span[1] for span in self.modules.values())
        out = ['%-4s %7s %7s %7s  %s' % ('node', 'start', 'end', 'busy',
                                         'module')]
        for module, (worker, start, stop, busy) in sorted(
                self.modules.items(), key=lambda item: item[1][1]):
            out.append('%-4s %7.0f %7.0f %7.0f  %s' % (
                worker, start - zero, stop - zero, busy,
                os.path.basename(module)))
        return out


_TIMELINE = Timeline()


def pytest_runtest_logreport(report):
    _TIMELINE.add(report)


def pytest_terminal_summary(terminalreporter):
    lines = _TIMELINE.lines()
    if lines:
        terminalreporter.write_sep('=', 'modules by start (seconds)')
        for line in lines:
            terminalreporter.write_line(line)
