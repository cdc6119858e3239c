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

"""Keys anyone could compute, through Heat's engine and heat-k8s-keys: the
resources refuse at validate naming the option to set, heat-engine's start
says it in one line, `check` exits 1, and the upgrade from the previous
release's configuration keeps or changes digests as the install guide
says."""

from tests.unit import heat_harness  # first: sets up Heat

# isort: split

import base64
import contextlib
import hashlib
import importlib
import io
import logging
import os
import subprocess
import sys
import tempfile
import types
import uuid

import fixtures
from oslo_config import cfg

from heat_k8s.cmd import keys
from heat_k8s.resources.shared import sensitive
from heat_k8s.secrecy import keyring
from tests.unit.heat_harness import template

GROUP = 'heat_k8s'
SAMPLE = 'notgood but just long enough i t'
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
SECRET = {'type': 'OS::Kubernetes::Secret',
          'properties': {'string_data': {'pw': 'a value'}}}
FILES = {'type': 'OS::HeatK8s::RenderedFiles',
         'properties': {'secrets': {'PW': 'a value'}}}
HEAT_CONF = """[DEFAULT]
auth_encryption_key = %(auth_encryption_key)s

[heat_k8s]
sealing_keys = %(sealing_keys)s
digest_key = %(digest_key)s
open_legacy_references = false
"""


class KeysTestCase(heat_harness.KubernetesTestCase):

    def configure(self, **settings):
        """heat.conf's keys: digest_key, sealing_keys and
        open_legacy_references in [heat_k8s], auth_encryption_key; None
        unsets one."""
        for name, value in settings.items():
            group = None if name == 'auth_encryption_key' else GROUP
            if value is None:
                cfg.CONF.clear_override(name, group=group)
            else:
                cfg.CONF.set_override(name, value, group=group)

    def run_keys(self, *argv):
        """(exit status, stdout, stderr) of heat-k8s-keys."""
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = keys.main(list(argv))
        return status, out.getvalue(), err.getvalue()


class RefusedAtValidateTest(KeysTestCase):

    def test_resources_that_digest_refuse_naming_the_option(self):
        self.configure(digest_key=None, auth_encryption_key=SAMPLE)
        for name, rsrc in (('secret', SECRET), ('files', FILES),
                           ('pw', {'type': 'OS::HeatK8s::RandomSecret'})):
            message = self.validation_error(template({name: rsrc}))
            self.assertIn('%s: heat-k8s cannot key digests: digest_key is '
                          'unset' % name, message)
            self.assertIn("Heat's published sample key", message)
            self.assertIn('set [heat_k8s] digest_key', message)
            self.assertNotIn(SAMPLE, message)

    def test_a_guessable_sealing_key_refuses_to_seal(self):
        self.configure(sealing_keys=[
            'correct-horse-battery-staple-on-a-windy-hill'])
        message = self.validation_error(template(
            {'pw': {'type': 'OS::HeatK8s::RandomSecret'}}))
        self.assertIn('pw: sealing key 1 looks like text', message)
        self.assertIn('put a new key first in [heat_k8s] sealing_keys',
                      message)

    def test_resources_without_secret_values_are_unaffected(self):
        self.configure(digest_key=None, auth_encryption_key=SAMPLE)
        self.parse(template({'config': {
            'type': 'OS::Kubernetes::ConfigMap',
            'properties': {'data': {'a': 'b'}}}})).validate()


class StartTest(KeysTestCase):
    """What heat-engine logs when it loads the plugin shim."""

    def setUp(self):
        super().setUp()
        self.log = self.useFixture(fixtures.FakeLogger(
            name=sensitive.__name__, level=logging.INFO))
        # The engine fixes have tests of their own (test_enginefixes).
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.enginefixes.startup.apply_all', lambda: []))

    def start(self):
        # A first import runs the shim too: only the reload's lines count,
        # whichever test imported the shim first.
        shim = importlib.import_module('heat_k8s.plugin.heat_k8s_plugin')
        sensitive._KEYRINGS.clear()
        before = len(self.log.output.splitlines())
        importlib.reload(shim)
        return [line for line in self.log.output.splitlines()[before:]
                if 'heat-k8s [heat_k8s] keys' in line]

    def test_one_line_says_what_to_set(self):
        self.configure(digest_key=None, auth_encryption_key=SAMPLE,
                       sealing_keys=['too short'])
        line, = self.start()
        self.assertIn('heat-k8s [heat_k8s] keys: sealing key 1 has 48 bits; '
                      'a key needs 256', line)
        self.assertIn('fix [heat_k8s] sealing_keys', line)
        self.assertIn('set [heat_k8s] digest_key', line)
        self.assertIn('open_legacy_references = false', line)
        self.assertNotIn(SAMPLE, line)

    def test_a_published_heat_key_is_said_with_good_keys_of_its_own(self):
        self.configure(auth_encryption_key=SAMPLE,
                       open_legacy_references=False)
        line, = self.start()
        self.assertIn("heat-k8s [heat_k8s] keys: auth_encryption_key is "
                      "Heat's published sample key", line)
        self.assertIn('`openssl rand -hex 16`', line)
        self.assertNotIn(SAMPLE, line)

    def test_a_safe_configuration_says_which_keys(self):
        line, = self.start()
        ring = sensitive.keyring()
        self.assertEqual('heat-k8s [heat_k8s] keys: sealing with %s; digests '
                         'keyed from digest_key' % ring.key_ids[0], line)

    def test_reading_the_keys_never_stops_heat_engine(self):
        def broken(*args, **kwargs):
            raise RuntimeError('no such option')
        self.useFixture(fixtures.MonkeyPatch(
            'heat_k8s.secrecy.keyring.Keyring', broken))
        line, = self.start()
        self.assertIn('keys not read: RuntimeError: no such option', line)


class CheckTest(KeysTestCase):

    def test_every_guessable_state_exits_1_naming_the_option(self):
        states = {
            'no digest key, Heat sample key': (
                dict(digest_key=None, auth_encryption_key=SAMPLE),
                'set [heat_k8s] digest_key'),
            'no digest key after a rotation': (
                dict(digest_key=None, auth_encryption_key='',
                     open_legacy_references=False),
                'auth_encryption_key, which keys digests then, is empty'),
            'a passphrase as digest key': (
                dict(digest_key='correct-horse-battery-staple-on-a-windy-'
                                'hill'),
                'digest_key looks like text'),
            'a passphrase as older sealing key': (
                dict(sealing_keys=[heat_harness.SEALING_KEY,
                                   'correct-horse-battery-staple-on-a-windy-'
                                   'hill']),
                'sealing key 2 looks like text'),
            'legacy references under the sample key': (
                dict(auth_encryption_key=SAMPLE),
                'open_legacy_references'),
        }
        for state, (settings, said) in states.items():
            self.configure(**settings)
            status, out, err = self.run_keys('check')
            self.assertEqual(1, status, state)
            self.assertIn(said, err, state)
            self.configure(**{name: None for name in settings})
            self.configure(auth_encryption_key=(
                heat_harness.AUTH_ENCRYPTION_KEY))

    def check_file(self, **keys):
        """(exit status, stdout, stderr) of `check` on a heat.conf written
        to a temporary directory, with keys in place of the harness's good
        ones, and no references made before key ids."""
        settings = dict(auth_encryption_key=heat_harness.AUTH_ENCRYPTION_KEY,
                        sealing_keys=heat_harness.SEALING_KEY,
                        digest_key=heat_harness.DIGEST_KEY)
        settings.update(keys)
        # The harness's overrides would hide the file's keys.
        self.configure(**{name: None for name in settings})
        path = os.path.join(self.useFixture(fixtures.TempDir()).path,
                            'heat.conf')
        with open(path, 'w') as conf:
            conf.write(HEAT_CONF % settings)
        return self.run_keys('--config-file', path, 'check')

    def test_each_guessable_key_in_heat_conf_exits_1_naming_it(self):
        def b64(raw):
            return base64.urlsafe_b64encode(raw).decode()
        walk = 'qwertyuiopasdfghjklzxcvbnmQWERTYUIOPASDFGHJ='
        states = {
            (SAMPLE, 'auth_encryption_key'): (
                "auth_encryption_key is Heat's published sample key",
                '`openssl rand -hex 16`'),
            (b64(hashlib.sha256(b'').digest()), 'digest_key'): (
                'digest_key is a key heat-k8s derived from an empty or '
                'sample auth_encryption_key', '`heat-k8s-keys generate`'),
            (walk, 'digest_key'): (
                'digest_key is a pattern (runs, repeats or keyboard walks)',
                '`heat-k8s-keys generate`'),
            (walk[:32], 'auth_encryption_key'): (
                'auth_encryption_key is a pattern', '`openssl rand -hex 16`'),
            (hashlib.md5(b'heat', usedforsecurity=False).hexdigest(),
             'auth_encryption_key'): (
                'auth_encryption_key is a digest of a common word',
                '`openssl rand -hex 16`'),
            (uuid.uuid1().hex, 'auth_encryption_key'): (
                'auth_encryption_key is a uuid', '`openssl rand -hex 16`'),
            (str(uuid.uuid4()), 'auth_encryption_key'): (
                'auth_encryption_key is a uuid', '`openssl rand -hex 16`'),
            (b64(bytes(range(32))), 'sealing_keys'): (
                'sealing key 1 decodes to bytes in runs or repeats',
                '`heat-k8s-keys generate`'),
        }
        for (key, option), said in states.items():
            status, out, err = self.check_file(**{option: key})
            self.assertEqual(1, status, said)
            for words in said:
                self.assertIn(words, err)
            self.assertNotIn(key, out + err)

    def test_a_good_heat_conf_exits_0(self):
        status, out, err = self.check_file()
        self.assertEqual((0, ''), (status, err))
        self.assertIn('sealing keys (newest first): k', out)
        self.assertIn('digests keyed from digest_key', out)

    def test_a_safe_configuration_exits_0(self):
        status, out, err = self.run_keys('check')
        self.assertEqual((0, ''), (status, err))
        self.assertIn('sealing keys (newest first): k', out)
        self.assertIn('digests keyed from digest_key', out)

    def test_the_local_clouds_heat_conf_is_safe(self):
        # The file tools/localcloud writes, checked by the installed
        # command in a process of its own, as an operator runs it.
        from tools.lc.openstack import heat
        with tempfile.TemporaryDirectory() as state:
            cloud = heat.Heat.__new__(heat.Heat)
            cloud.dir, cloud.state_dir = os.path.join(state, 'heat'), state
            cloud.venv, cloud.conf = state, os.path.join(state, 'heat.conf')
            cloud.cluster = types.SimpleNamespace(
                ca_file='ca.pem', info={'node': True}, port=lambda _: 8000)
            cloud.identity = types.SimpleNamespace(
                password=lambda name: 'pw', url='http://127.0.0.1:5000/v3')
            cloud.configure_tool = lambda *args: ''
            # Heat's api-paste.ini, which configure copies (content unused).
            os.makedirs(os.path.join(state, 'etc', 'heat'))
            open(os.path.join(state, 'etc', 'heat', 'api-paste.ini'),
                 'w').close()
            cloud.configure('sqlite://', 'rabbit://127.0.0.1')
            out = subprocess.run(
                [sys.executable, '-m', 'heat_k8s.cmd.keys', '--config-file',
                 cloud.conf, 'check'], cwd=ROOT, capture_output=True,
                text=True)
        # stderr may hold Python's warnings; the command's own lines are
        # its findings.
        self.assertEqual((0, []), (out.returncode, [
            line for line in out.stderr.splitlines()
            if line.startswith('heat-k8s-keys:')]))
        self.assertIn('digests keyed from digest_key', out.stdout)


class UpgradeTest(KeysTestCase):
    """From the previous release's configuration (install guide, Keys)."""

    def _digests(self):
        """A Secret's fingerprint and checksum, as Heat stores them."""
        stack = self.parse(template({'secret': SECRET}))
        rsrc = stack['secret']
        return (sensitive.fingerprint('a value', stack.tenant_id),
                rsrc.content_checksum({}, {'pw': 'a value'}))

    def test_without_digest_key_digests_keep_their_values(self):
        self.configure(digest_key=None)
        before = self._digests()
        self.assertEqual((0, ''), self.run_keys('check')[::2])
        status, printed, _ = self.run_keys('digest-key')
        self.assertEqual(0, status)
        self.configure(digest_key=printed.strip())
        self.assertEqual(before, self._digests())

    def test_after_a_rotation_digests_stay_keyed_from_heats_key(self):
        # The previous release keyed them from nothing once legacy
        # references were off; now from auth_encryption_key all along.
        self.configure(digest_key=None)
        before = self._digests()
        self.configure(open_legacy_references=False)
        self.assertEqual(before, self._digests())
        self.assertEqual((0, ''), self.run_keys('check')[::2])

    def test_a_guessable_fallback_gets_no_digest_key_but_a_new_one(self):
        self.configure(digest_key=None, auth_encryption_key=SAMPLE)
        status, printed, err = self.run_keys('digest-key')
        self.assertEqual((1, ''), (status, printed))
        self.assertIn('could be computed by anyone, so they must change',
                      err)
        self.configure(digest_key=keyring.generate())
        self.assertEqual(2, len(self._digests()))

    def test_digest_key_set_already_prints_nothing(self):
        status, printed, err = self.run_keys('digest-key')
        self.assertEqual((1, ''), (status, printed))
        self.assertIn('digest_key is set already', err)
