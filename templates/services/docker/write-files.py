#!/usr/bin/env python3
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

"""Write one service's files on a docker host (heat-config `script` hook).

heat-k8s's docker backend runs this before the service's docker-cmd
deployment. The data (below, filled in by Heat's str_replace) lands in
``<dir>``:

- ``files/<path>``: config files, mode 0644, bind-mounted read-only at
  ``<path>`` in the containers;
- ``secret-files/<path>``: secret files, mode 0600, bind-mounted the same
  way;
- ``secrets.env``: the secret environment variables, mode 0600, passed to
  the containers with docker's ``--env-file`` (so that no secret value is
  on a docker command line, in the docker-cmd configuration or in the
  hook's log);
- ``data/``: the service's persistent storage, when it has some.

The secret files and variables come sealed to the host's own key
(``key_file``, made by templates/hosts/server-key.sh;
heat_k8s/secrecy/envelope.py describes the format): the ``openssl``
command opens them here, so Heat
holds only ciphertext.

Files a previous run wrote and this one does not are removed. Once the
deployment is gone (stack delete), heat-k8s's agent removes ``<dir>``,
storage included (agent/heat_k8s_files_cleanup.py; heat-agents' agent
leaves it). The data is
part of this script rather than of the deployment's inputs because the
script hook logs its inputs. Nothing here prints a value.
"""

import base64
import hashlib
import hmac
import json
import os
import subprocess
import sys
import tempfile

DATA = json.loads(r"""@DATA@""")
MANIFEST = '.written.json'


def write(path, content, mode):
    os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(path),
                               prefix='.heat-k8s-')
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, 'w') as f:
            f.write(content)
        os.rename(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def inside(base, path):
    """base + an absolute container path, refusing to climb out of base."""
    full = os.path.normpath(os.path.join(base, path.lstrip('/')))
    if not full.startswith(base.rstrip('/') + '/'):
        raise SystemExit('refusing path %r (outside %s)' % (path, base))
    return full


def _openssl(args, data, env=None):
    try:
        return subprocess.run(['openssl'] + args, input=data, check=True,
                              capture_output=True, env=env).stdout
    except (OSError, subprocess.CalledProcessError):
        raise SystemExit('openssl %s failed: the sealed secrets are not for '
                         "this host's key (%s)" % (args[0], DATA['key_file']))


def fields(envelope):
    """The wrapped keys, ct and mac of a version 1 envelope, or exit."""
    try:
        env = json.loads(envelope)
        version = env['v']
        parts = (base64.b64decode(env['key']), base64.b64decode(env['ct']),
                 env['mac'].encode('ascii'))
    except (ValueError, KeyError, TypeError, AttributeError):
        raise SystemExit('the sealed secrets are not an envelope')
    # Not covered by the MAC: another version is refused, never guessed at.
    if version != 1:
        raise SystemExit('the sealed secrets are of version %r, not 1'
                         % (version,))
    return parts


def unseal(envelope):
    """The secret files and variables sealed to this host's key."""
    wrapped, ct, sealed_mac = fields(envelope)
    keys = _openssl(['pkeyutl', '-decrypt', '-inkey', DATA['key_file'],
                     '-pkeyopt', 'rsa_padding_mode:oaep',
                     '-pkeyopt', 'rsa_oaep_md:sha256',
                     '-pkeyopt', 'rsa_mgf1_md:sha256'], wrapped)
    mac = hmac.new(keys[32:], ct, hashlib.sha256).hexdigest().encode('ascii')
    if len(keys) != 64 or not hmac.compare_digest(mac, sealed_mac):
        raise SystemExit('the sealed secrets were altered')
    # The passphrase goes through the environment: arguments are public.
    plain = _openssl(['enc', '-d', '-aes-256-cbc', '-pbkdf2', '-md', 'sha256',
                      '-iter', '10000', '-pass', 'env:HEAT_K8S_PASSPHRASE'],
                     ct, env=dict(os.environ,
                                  HEAT_K8S_PASSPHRASE=keys[:32].hex()))
    return json.loads(plain)


def main():
    if DATA.get('sealed'):
        DATA.update(unseal(DATA['sealed']))
    base = DATA['dir']
    os.makedirs(base, mode=0o755, exist_ok=True)
    os.makedirs(os.path.join(base, 'secret-files'), mode=0o700,
                exist_ok=True)
    written = set()
    for path, content in sorted(DATA['config_files'].items()):
        full = inside(os.path.join(base, 'files'), path)
        write(full, content, 0o644)
        written.add(full)
    for path, content in sorted(DATA['secret_files'].items()):
        full = inside(os.path.join(base, 'secret-files'), path)
        write(full, content, 0o600)
        written.add(full)
    lines = []
    for name, value in sorted(DATA['secrets'].items()):
        value = str(value)
        if '\n' in value or '\r' in value:
            raise SystemExit('secret %s: an environment value cannot hold a '
                             'line break' % name)
        lines.append('%s=%s\n' % (name, value))
    env_file = os.path.join(base, 'secrets.env')
    write(env_file, ''.join(lines), 0o600)
    written.add(env_file)
    if DATA.get('storage'):
        os.makedirs(os.path.join(base, 'data'), mode=0o755, exist_ok=True)

    manifest = os.path.join(base, MANIFEST)
    try:
        with open(manifest) as f:
            previous = set(json.load(f))
    except (OSError, ValueError):
        previous = set()
    for stale in sorted(previous - written):
        try:
            os.unlink(stale)
        except FileNotFoundError:
            pass
    write(manifest, json.dumps(sorted(written)), 0o600)
    print('%s: %d config file(s), %d secret file(s), %d secret variable(s)'
          % (base, len(DATA['config_files']), len(DATA['secret_files']),
             len(DATA['secrets'])))


if __name__ == '__main__':
    sys.exit(main())
