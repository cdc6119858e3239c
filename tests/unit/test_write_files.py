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

"""templates/services/docker/write-files.py on a host: the sealed secrets
open with the host's key through the openssl command (run for real)."""

import base64
import json
import os
import shutil
import subprocess
import sys

import pytest

from heat_k8s.secrecy import envelope

SCRIPT = os.path.join(os.path.dirname(__file__), '..', '..', 'templates',
                      'services', 'docker', 'write-files.py')
SERVER_KEY = os.path.join(os.path.dirname(SCRIPT), '..', '..', 'hosts',
                          'server-key.sh')


ALTERED = 'the sealed secrets were altered'
NOT_FOR_HOST = "the sealed secrets are not for this host's key"


def _run(tmp_path, env=None, **data):
    data = dict({'dir': str(tmp_path / 'svc'), 'config_files': {},
                 'secret_files': {}, 'secrets': {}}, **data)
    with open(SCRIPT) as f:
        script = f.read().replace('@DATA@', json.dumps(data))
    return subprocess.run([sys.executable, '-c', script],
                          capture_output=True, text=True, env=env)


@pytest.fixture(scope='module')
def host_key(tmp_path_factory):
    """(key file, public key PEM) as the host's key deployment makes them."""
    root = tmp_path_factory.mktemp('host')
    key_file = str(root / 'server-key.pem')
    out = root / 'outputs.public_key'   # the script hook's output file
    subprocess.run(['sh', SERVER_KEY], check=True, env=dict(
        os.environ, key_file=key_file, heat_outputs_path=str(root /
                                                            'outputs')))
    return key_file, out.read_text()


def test_the_host_opens_its_sealed_secrets(tmp_path, host_key):
    key_file, public = host_key
    assert oct(os.stat(key_file).st_mode & 0o777) == '0o600'
    sealed = envelope.seal(public, {
        'secret_files': {'/etc/app/app.conf': 'password = pässword\n'},
        'secrets': {'DB_PASSWORD': 'hunter2'}})
    result = _run(tmp_path, key_file=key_file, sealed=sealed)
    assert result.returncode == 0, result.stderr
    svc = tmp_path / 'svc'
    assert (svc / 'secrets.env').read_text() == 'DB_PASSWORD=hunter2\n'
    conf = svc / 'secret-files' / 'etc' / 'app' / 'app.conf'
    assert conf.read_text() == 'password = pässword\n'
    assert oct(conf.stat().st_mode & 0o777) == '0o600'
    assert 'hunter2' not in result.stdout + result.stderr


def test_another_hosts_envelope_fails(tmp_path, host_key):
    key_file, public = host_key
    other = subprocess.run(
        ['openssl', 'genpkey', '-algorithm', 'RSA', '-pkeyopt',
         'rsa_keygen_bits:2048'], capture_output=True, check=True).stdout
    other_public = subprocess.run(['openssl', 'pkey', '-pubout'],
                                  input=other, capture_output=True,
                                  check=True).stdout.decode()
    theirs = envelope.seal(other_public, {'secrets': {'A': 'b'}})
    result = _run(tmp_path, key_file=key_file, sealed=theirs)
    assert result.returncode != 0
    assert NOT_FOR_HOST in result.stderr


def _flip(data, index):
    data[index] ^= 1
    return data


def _field(name, change):
    """A tampering that changes the bytes under a base64 field."""
    def tamper(env):
        data = bytearray(base64.b64decode(env[name]))
        return json.dumps(dict(env, **{name: base64.b64encode(
            change(data)).decode('ascii')}))
    return tamper


# ct is b'Salted__' + 8 bytes of salt + AES-256-CBC blocks; the MAC covers
# all of it, and the salt with the passphrase gives the key and the IV.
TAMPERINGS = {
    'mac': (lambda env: json.dumps(dict(env, mac='0' * 64)), ALTERED),
    'ciphertext': (_field('ct', lambda ct: _flip(ct, -1)), ALTERED),
    'salt': (_field('ct', lambda ct: _flip(ct, 8)), ALTERED),
    'header': (_field('ct', lambda ct: _flip(ct, 0)), ALTERED),
    'ct-truncated': (_field('ct', lambda ct: ct[:-16]), ALTERED),
    'wrapped-keys': (_field('key', lambda key: _flip(key, -1)),
                     NOT_FOR_HOST),
    'version': (lambda env: json.dumps(dict(env, v=2)),
                'the sealed secrets are of version 2, not 1'),
    'envelope-truncated': (lambda env: json.dumps(env)[:-40],
                           'the sealed secrets are not an envelope'),
}


@pytest.mark.parametrize('tampering', sorted(TAMPERINGS))
def test_an_altered_envelope_is_refused_before_decrypting(tmp_path, host_key,
                                                          tampering):
    key_file, public = host_key
    tamper, error = TAMPERINGS[tampering]
    # openssl as the host runs it, with each use logged: "enc" would be
    # a decryption.
    bin_dir, log = tmp_path / 'bin', tmp_path / 'openssl.log'
    bin_dir.mkdir()
    shim = bin_dir / 'openssl'
    shim.write_text('#!/bin/sh\necho "$1" >> %s\nexec %s "$@"\n'
                    % (log, shutil.which('openssl')))
    shim.chmod(0o755)
    sealed = tamper(json.loads(envelope.seal(public, {
        'secret_files': {'/etc/app/app.conf': 'password = hunter2-canary\n'},
        'secrets': {'DB_PASSWORD': 'hunter2-canary'}})))
    result = _run(tmp_path, env=dict(os.environ, PATH='%s:%s' % (
        bin_dir, os.environ['PATH'])), key_file=key_file, sealed=sealed)
    assert result.returncode == 1
    assert error in result.stderr
    assert 'Traceback' not in result.stderr
    assert 'hunter2-canary' not in result.stdout + result.stderr
    assert 'enc' not in (log.read_text().split() if log.exists() else [])
    assert not (tmp_path / 'svc').exists()
