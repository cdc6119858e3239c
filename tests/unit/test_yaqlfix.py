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

"""Heat's yaql function parsed from many threads at once."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import threading
import unittest

from heat.engine.hot import functions

from heat_k8s.enginefixes import patching
from heat_k8s.enginefixes import startup
from heat_k8s.enginefixes import yaqlfix

# Expressions of the service templates.
EXPRESSIONS = (
    'dict($.data.items().select(\n'
    '  ["file." + $[0].trim("/").replace("/", "_"), $[1]]))',
    '$.data.env.items().orderBy($[0]).select($[0] + "=" + str($[1])) + '
    '["HEAT_K8S_FILES_ID=" + $.data.files_id]',
    'switch(not $.data.host => [], true => [$.data.host + ":" + '
    'str($.data.port)])',
)
THREADS, ROUNDS = 8, 300


def parse_concurrently():
    """Errors of THREADS threads parsing the expressions ROUNDS times."""
    errors = []
    function = functions.Yaql(None, 'yaql', {'expression': '$', 'data': {}})
    start = threading.Barrier(THREADS)

    def work(offset):
        start.wait()
        for n in range(ROUNDS):
            try:
                function._parse(EXPRESSIONS[(offset + n) % len(EXPRESSIONS)])
            except ValueError as exc:
                errors.append(str(exc))

    threads = [threading.Thread(target=work, args=(i,))
               for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


class YaqlParseTest(heat_harness.KubernetesTestCase):

    @unittest.skipUnless(heat_harness.fix_applies('yaqlfix'),
                         'yaqlfix is not for this Heat release')
    def test_heat_engines_start_applies_the_fix(self):
        self.addCleanup(startup.restore_all)
        startup.apply_all()
        self.assertTrue(patching.patched(functions.Yaql, '_parse'))

    def test_concurrent_parses_do_not_corrupt_each_other(self):
        self.addCleanup(yaqlfix.restore)
        yaqlfix.apply()
        self.assertEqual([], parse_concurrently())
