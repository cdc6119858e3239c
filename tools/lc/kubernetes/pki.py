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

"""Certificates, keys and tokens generated at run time (never committed)."""

import os
import secrets
import subprocess
import tempfile

DAYS = '365'


def _openssl(*args):
    subprocess.run(('openssl',) + args, check=True, capture_output=True)


def _private(path):
    os.chmod(path, 0o600)


def ensure_ca(pki_dir):
    """A self-signed CA for the cloud's serving certificates."""
    key, crt = os.path.join(pki_dir, 'ca.key'), os.path.join(pki_dir,
                                                              'ca.crt')
    if not os.path.exists(crt):
        os.makedirs(pki_dir, mode=0o700, exist_ok=True)
        _openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt',
                 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key,
                 '-out', crt, '-days', DAYS, '-subj',
                 '/CN=heat-k8s-localcloud-ca')
        _private(key)
    return key, crt


def ensure_serving_cert(pki_dir, name, sans):
    """A serving certificate for `name` signed by the cloud's CA."""
    return _signed_cert(pki_dir, name, '/CN=' + name, [
        'subjectAltName=%s' % ','.join(sans),
        'extendedKeyUsage=serverAuth',
        'keyUsage=digitalSignature,keyEncipherment'])


def ensure_client_cert(pki_dir, name, user, groups=()):
    """A client certificate: CN is the Kubernetes user, O its groups."""
    subj = '/CN=' + user + ''.join('/O=' + g for g in groups)
    return _signed_cert(pki_dir, name, subj, [
        'extendedKeyUsage=clientAuth',
        'keyUsage=digitalSignature,keyEncipherment'])


def _signed_cert(pki_dir, name, subj, extensions):
    ca_key, ca_crt = ensure_ca(pki_dir)
    key = os.path.join(pki_dir, name + '.key')
    crt = os.path.join(pki_dir, name + '.crt')
    if os.path.exists(crt):
        return key, crt
    csr = crt + '.csr'
    _openssl('req', '-newkey', 'ec', '-pkeyopt',
             'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', key,
             '-out', csr, '-subj', subj)
    _private(key)
    with tempfile.NamedTemporaryFile('w', suffix='.ext', delete=False) as ext:
        ext.write(''.join(line + '\n' for line in extensions))
    try:
        _openssl('x509', '-req', '-in', csr, '-CA', ca_crt, '-CAkey', ca_key,
                 '-CAcreateserial', '-out', crt, '-days', DAYS, '-extfile',
                 ext.name)
    finally:
        os.unlink(ext.name)
        os.unlink(csr)
    return key, crt


def ensure_rsa_key(pki_dir, name):
    """An RSA key pair (service-account token signing)."""
    key = os.path.join(pki_dir, name + '.key')
    pub = os.path.join(pki_dir, name + '.pub')
    if not os.path.exists(pub):
        os.makedirs(pki_dir, mode=0o700, exist_ok=True)
        _openssl('genrsa', '-out', key, '2048')
        _private(key)
        _openssl('rsa', '-in', key, '-pubout', '-out', pub)
    return key, pub


def ensure_tokens(pki_dir, users):
    """Static bearer tokens in a token-auth file; returns (path, {id: token}).

    `users` maps an id to (user name, groups); tokens are random and kept
    across restarts of the same state directory.
    """
    path = os.path.join(pki_dir, 'tokens.csv')
    known = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                token, _, uid = line.split(',')[:3]
                known[uid] = token
    tokens = {}
    lines = []
    for uid, (user, groups) in sorted(users.items()):
        token = known.get(uid) or secrets.token_hex(24)
        tokens[uid] = token
        lines.append('%s,%s,%s,"%s"\n' % (token, user, uid,
                                          ','.join(groups)))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, 'w') as f:
        f.writelines(lines)
    return path, tokens
