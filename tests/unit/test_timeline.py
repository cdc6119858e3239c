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

"""The suites' module timeline (tests/timeline.py), on hand-made reports."""

import types

from tests import timeline


def _handmade_report(nodeid, start, stop, worker='gw0'):
    node = types.SimpleNamespace(gateway=types.SimpleNamespace(id=worker))
    return types.SimpleNamespace(nodeid=nodeid, start=start, stop=stop,
                                 node=node)


def test_a_module_spans_its_tests_and_sums_their_time():
    line = timeline.Timeline()
    line.add(_handmade_report('tests/e2e/test_b.py::t1', 100.0, 110.0,
                              'gw1'))
    line.add(_handmade_report('tests/e2e/test_a.py::t1', 90.0, 95.0))
    line.add(_handmade_report('tests/e2e/test_b.py::t2', 150.0, 160.0,
                              'gw1'))
    lines = line.lines()
    # In the order the modules started; offsets from the first test.
    assert lines[1].split() == ['gw0', '0', '5', '5', 'test_a.py']
    assert lines[2].split() == ['gw1', '10', '70', '20', 'test_b.py']


def test_reports_without_times_are_left_out():
    line = timeline.Timeline()
    line.add(types.SimpleNamespace(nodeid='tests/x.py::t', start=None,
                                   stop=None))
    assert line.lines() == []
