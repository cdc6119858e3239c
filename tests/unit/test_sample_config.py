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

"""etc/heat-k8s.conf.sample is what oslo-config-generator writes now, from
the configuration tox -e genconfig uses, so the sample the install guide
shows cannot go stale."""

import io
import os
import re
import unittest

from oslo_config import cfg
from oslo_config import generator

from heat_k8s import config
from heat_k8s.enginefixes import release

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
GENERATOR_CONFIG = os.path.join(REPO, 'etc', 'oslo-config-generator',
                                'heat-k8s.conf')
SAMPLE = os.path.join(REPO, 'etc', 'heat-k8s.conf.sample')


class SampleConfigTest(unittest.TestCase):

    # [clients_kubernetes] copies Heat's own client options, whose help
    # differs between releases: the sample is the newest release's.
    @unittest.skipUnless(release.major(release.installed()) == max(
        release.SUPPORTED), 'the committed sample is written with the newest '
        'supported Heat (tox -e genconfig)')
    def test_committed_sample_is_what_the_generator_writes(self):
        conf = cfg.ConfigOpts()
        generator.register_cli_opts(conf)
        conf(['--config-file', GENERATOR_CONFIG], project='heat-k8s')
        self.assertEqual(['heat_k8s'], conf.namespace)
        generated = io.StringIO()
        generator.generate(conf, output_file=generated)
        with open(SAMPLE) as f:
            committed = f.read()
        self.assertEqual(
            generated.getvalue(), committed,
            'etc/heat-k8s.conf.sample is stale: run tox -e genconfig')

    def test_every_option_says_what_it_is_for(self):
        for group, opts in config.list_opts():
            for opt in opts:
                with self.subTest(option='%s.%s' % (group, opt.name)):
                    self.assertTrue(opt.help and opt.help.strip())

    def test_a_grace_that_cannot_end_a_wait_well_is_refused(self):
        conf = cfg.ConfigOpts()
        conf.register_opts(config.kubernetes_opts, group=config.GROUP)
        for name in ('image_pull_grace', 'pending_grace'):
            for seconds in (0, -5, 3601):
                with self.subTest(option=name, seconds=seconds):
                    self.assertRaises(ValueError, conf.set_override, name,
                                      seconds, group=config.GROUP)
            conf.set_override(name, 3600, group=config.GROUP)

def sample_options(text):
    """({(group, name)} of the sample, {(group, name)} it says are
    deprecated names of an option)."""
    current, deprecated, group = set(), set(), None
    for line in text.splitlines():
        found = re.match(r'\[(\w+)\]$', line)
        if found:
            group = found.group(1)
        found = re.match(r'#?(\w+) =( |$)', line)
        if found and group:
            current.add((group, found.group(1)))
        found = re.match(r'# Deprecated group/name - \[(\w+)\]/(\w+)$', line)
        if found:
            deprecated.add(found.groups())
    return current, deprecated


def doc_options(text, groups):
    """(options set in the literal ini blocks, options named in the prose
    with whether the paragraph says 'deprecated'), for `groups` only."""
    settings, named, group = set(), set(), None
    for line in text.splitlines():
        found = re.match(r'\s+\[(\w+)\]\s*$', line)
        if found:
            group = found.group(1)
            continue
        found = re.match(r'\s+(\w+) = ', line)
        if found and group in groups:
            settings.add((group, found.group(1)))
        elif line and not line[0].isspace():
            group = None  # out of the block
    for paragraph in re.split(r'\n\s*\n', text):
        flat = ' '.join(paragraph.split())
        for found in re.finditer(r'``\[(\w+)\] (\w+)|'
                                 r':oslo.config:option:`(\w+)\.(\w+)`', flat):
            option = tuple(part for part in found.groups() if part)
            if option[0] in groups:
                named.add((option, 'deprecated' in flat))
    return settings, named


class InstallGuideTest(unittest.TestCase):
    """The option names the install guide sets or names, in step with the
    sample: a renamed or moved option shows here."""

    def test_the_guide_sets_and_names_the_samples_options(self):
        with open(SAMPLE) as f:
            current, deprecated = sample_options(f.read())
        groups = {group for group, _ in current} - {'DEFAULT'}
        with open(os.path.join(REPO, 'doc', 'source', 'install.rst')) as f:
            settings, named = doc_options(f.read(), groups)
        self.assertIn(('clients_kubernetes', 'ca_file'), settings)
        self.assertEqual(set(), settings - current)
        for option, says_deprecated in named:
            with self.subTest(option='[%s] %s' % option):
                self.assertTrue(option in current or (
                    option in deprecated and says_deprecated))
