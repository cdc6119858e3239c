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

"""One waiting policy: each figure a wait follows has one default, and the
options, the awaiter, the sample configuration and the docs all give it.

A hold of 0 in the awaiter against 5 in the options went unseen; these
fail when any copy of a default drifts from heat_k8s.waiting.policy.
"""

import dataclasses
import glob
import os
import re

from oslo_config import cfg
import pytest

from heat_k8s import config
from heat_k8s import kinds
from heat_k8s.kinds import readiness
from heat_k8s.waiting import awaiter
from heat_k8s.waiting import policy

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
DEFAULTS = {field.name: field.default
            for field in dataclasses.fields(policy.Settings)}


def configured_defaults():
    """Settings from a fresh configuration holding only the declared
    options: what an operator who sets nothing gets."""
    conf = cfg.ConfigOpts()
    conf.register_opts(config.kubernetes_opts, group=config.GROUP)
    conf([], project='heat-k8s-test', default_config_files=[],
         default_config_dirs=[])
    return policy.Settings.from_options(conf.kubernetes)


def test_the_options_default_to_the_policys_figures():
    assert configured_defaults() == policy.Settings()
    assert DEFAULTS['ready_hold_seconds'] == 5  # the figure the docs give


def test_the_awaiter_waits_by_the_configured_defaults():
    assert awaiter.Awaiter(subject=None).settings == configured_defaults()


def test_every_setting_is_an_option_with_its_bounds_and_help():
    declared = {opt.name: opt for opt in config.kubernetes_opts}
    for name, default, bounds in policy.options():
        opt = declared[name]
        assert (opt.default, opt.type.min, opt.type.max, opt.help) == (
            default, bounds.minimum, bounds.maximum, bounds.help), name


def test_a_wait_that_is_not_watched_only_polls():
    settings = policy.Settings.from_options(policy.Settings(), watched=False)
    assert settings == dataclasses.replace(policy.Settings(),
                                           watch_seconds=0)


def test_the_sample_configuration_gives_the_defaults():
    with open(os.path.join(REPO, 'etc', 'heat-k8s.conf.sample')) as f:
        sample = f.read()
    kubernetes = sample.split('\n[kubernetes]\n')[1].split('\n[')[0]
    given = dict(re.findall(r'^#(\w+) = (\d+)$', kubernetes, re.M))
    assert {name: int(given[name]) for name in DEFAULTS} == DEFAULTS


def doc_figures():
    """(file, option, figure) for each figure the README and the docs
    give for a waiting option: "``[kubernetes] pending_grace`` (120 s)",
    "``ready_hold_seconds``, 5 s", "``image_pull_grace`` seconds (60)"."""
    names = '|'.join(DEFAULTS) + '|LOOK_CLOSER_AFTER'
    option = re.compile(r'``(?:\[kubernetes\] )?(%s)``(?: seconds)?,? \(?'
                        r'(\d+)' % names)
    constant = re.compile(r'(\d+) s \(``(%s)``\)' % names)
    paths = [os.path.join(REPO, 'README.rst')] + sorted(glob.glob(
        os.path.join(REPO, 'doc', 'source', '**', '*.rst'), recursive=True))
    for path in paths:
        with open(path) as f:
            text = ' '.join(f.read().split())
        for name, figure in option.findall(text):
            yield os.path.relpath(path, REPO), name, int(figure)
        for figure, name in constant.findall(text):
            yield os.path.relpath(path, REPO), name, int(figure)


def test_the_docs_give_the_defaults():
    figures = dict(DEFAULTS, LOOK_CLOSER_AFTER=policy.LOOK_CLOSER_AFTER)
    found = list(doc_figures())
    assert found  # the pattern still sees how the docs write them
    assert [(path, name, figure) for path, name, figure in found
            if figure != figures[name]] == []


@pytest.mark.parametrize('stuck, name', [
    (readiness.IMAGE_PULL, 'image_pull_grace'),
    (readiness.PENDING, 'pending_grace')])
def test_each_stuck_verdict_has_its_grace(stuck, name):
    settings = policy.Settings(**{name: 42})
    assert settings.grace(stuck) == 42
    assert not policy.stuck_too_long(settings, stuck, 41)
    assert policy.stuck_too_long(settings, stuck, 42)


def test_the_hold_names_the_kinds_that_hold():
    [(_name, _default, bounds)] = [
        option for option in policy.options()
        if option[0] == 'ready_hold_seconds']
    holding = [kind.name for kind in kinds.DECLARATIONS if kind.holds]
    assert 'Deployment' in holding
    assert '(%s)' % ', '.join(holding) in bounds.help


def test_polls_back_off_to_a_quarter_of_the_time_waited():
    settings = policy.Settings(poll_interval_max=20)
    assert [policy.next_poll(settings, waited, 600)
            for waited in (0, 8, 40, 200)] == [1, 2, 10, 20]
    assert policy.next_poll(settings, 200, 3.5) == 4  # not past the deadline


def test_which_api_errors_are_retried():
    assert policy.retried(503, 0) and policy.retried(0, 0)
    assert not policy.retried(404, 0)
    assert policy.retried(403, policy.FORBIDDEN_GRACE - 1)
    assert not policy.retried(403, policy.FORBIDDEN_GRACE)
