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

"""Properties whose values Heat must never store or show.

Heat has no "sensitive property" flag: it stores resolved properties and
shows them in events, `resource show` and stack preview. A resource that
takes secret values stores keyed fingerprints in their place
(heat_k8s.secrecy.digests, keyed here with heat.conf's keys); they still
change when a value does, so update diffs stay exact. This leans on Heat's
private ``Resource._update_stored_properties``:
tests/unit/test_heat_contract.py fails, naming it, if a Heat upgrade
changes what this relies on.
"""

from heat.common import exception
from oslo_config import cfg
from oslo_log import log as logging

from heat_k8s import config
from heat_k8s.secrecy import digests
from heat_k8s.secrecy import keyring as keyring_
from heat_k8s.secrecy import sealing

CONF = cfg.CONF
CONF.import_opt('auth_encryption_key', 'heat.common.crypt')
LOG = logging.getLogger(__name__)

_KEYRINGS = {}


def configured():
    """A Keyring of heat.conf's keys, neither kept nor logged (for
    heat-k8s-keys, which prints what it finds)."""
    keys, digest, legacy, open_legacy = _settings()
    return keyring_.Keyring(keys, digest=digest, legacy=legacy,
                            open_legacy=open_legacy)


def keyring():
    """The operator's keys (heat_k8s.secrecy.keyring), read once per
    setting; each new setting is logged in one line."""
    settings = _settings()
    if settings not in _KEYRINGS:
        ring = configured()
        _KEYRINGS.clear()
        _KEYRINGS[settings] = ring
        _log(ring)
    return _KEYRINGS[settings]


def _settings():
    """(sealing keys, digest key, auth_encryption_key,
    open_legacy_references) as heat.conf sets them."""
    group = CONF[config.KEYS_GROUP]
    return (tuple(group.sealing_keys or ()), group.digest_key,
            CONF.auth_encryption_key, group.open_legacy_references)


def _log(ring):
    """One line: what the keys refuse and what to set, or which keys are
    used (ids and option names only, never a key)."""
    found = ring.findings()
    if found:
        LOG.error('heat-k8s [%s] keys: %s', config.KEYS_GROUP,
                  '; '.join(found))
    else:
        LOG.info('heat-k8s [%s] keys: sealing with %s; digests keyed from '
                 '%s', config.KEYS_GROUP, ring.key_ids[0], ring.digest_source)


def announce():
    """At heat-engine's start: the keys' one log line. Never raises, since
    the plugin loader would stop heat-engine."""
    try:
        keyring()
    except Exception as exc:
        LOG.error('heat-k8s [%s] keys not read: %s: %s', config.KEYS_GROUP,
                  type(exc).__name__, exc)


def digest_key(purpose, project):
    """The HMAC key of purpose for project, or an Error saying why not."""
    try:
        return keyring().digest_key(purpose, project)
    except keyring_.KeyringError as exc:
        raise exception.Error('heat-k8s cannot key digests: %s' % exc)


def fingerprint(value, project):
    """A keyed digest standing in for a secret value in Heat's database
    (heat_k8s.secrecy.digests), keyed with heat.conf's keys."""
    if digests.is_fingerprint(value):
        return value
    # A reference digests as its value: same value, same fingerprint.
    return digests.fingerprint(
        sealing.digestible(value, project, keyring()),
        digest_key(keyring_.FINGERPRINT, project))


def opened(resource, props, names):
    """props with the secret references in properties names opened.

    Only for what is written where the value is used, at the last moment.
    """
    opened = PlainProperties({key: props[key] for key in props})
    try:
        for name in names:
            opened[name] = sealing.open_all(
                props[name], resource.stack.tenant_id, keyring())
    except sealing.SealError as exc:
        # Bad input: at validate (and --dry-run) a clear refusal, not a 500.
        raise exception.StackValidationFailed(message='%s: %s: %s' % (
            resource.name, name, exc))
    return opened


class PlainProperties(dict):
    """A dict standing in for a Properties object (validate, diffs)."""

    def __getitem__(self, key):
        return self.get(key)


def refuse_unkeyed(rsrc):
    """At stack create and update, before anything is written: a resource
    with sensitive properties is refused when digests would be keyed from
    a key anyone could compute."""
    problem = rsrc.sensitive_properties and keyring().digest_problem
    if problem:
        raise exception.StackValidationFailed(message='%s: heat-k8s '
                                              'cannot key digests: %s'
                                              % (rsrc.name, problem))


def fingerprinted(rsrc, props):
    """props with the resource's sensitive values as fingerprints."""
    if not rsrc.sensitive_properties:
        return props
    return PlainProperties(fingerprint_values(
        rsrc, {key: props[key] for key in props}))


def fingerprint_values(rsrc, data):
    """data (a dict of properties) with each of the resource's sensitive
    maps' values, or sensitive value, replaced by fingerprints, in place.
    """
    for prop in rsrc.sensitive_properties:
        if isinstance(data.get(prop), dict):
            data[prop] = {k: fingerprint(v, rsrc.stack.tenant_id)
                          for k, v in data[prop].items()}
        elif data.get(prop):
            data[prop] = fingerprint(data[prop], rsrc.stack.tenant_id)
    return data


def preview(rsrc):
    """What `stack create --dry-run` shows of the resource: a copy whose
    secret values are fingerprints."""
    if not rsrc.sensitive_properties:
        return rsrc
    shown = object.__new__(type(rsrc))  # Resource.__new__ wants a stack
    shown.__dict__.update(rsrc.__dict__)
    shown.properties = fingerprinted(rsrc, rsrc.properties)
    # Heat finds a resource's dependents by identity (hash is id()).
    shown.required_by = rsrc.required_by
    return shown


class Fingerprinted(object):
    """Mixin for resources: sensitive_properties are stored fingerprinted.

    A listed map property has its values (not its keys) replaced; any
    other listed property, its value. (KubernetesResource states the same
    hooks itself.)
    """

    sensitive_properties = ()

    def validate(self):
        result = super().validate()
        refuse_unkeyed(self)
        return result

    def preview(self):
        return preview(self)

    def _update_stored_properties(self):
        # Heat stores resolved properties and shows them in events; secret
        # values are replaced by fingerprints before they are stored.
        super()._update_stored_properties()
        if self._stored_properties_data:
            fingerprint_values(self, self._stored_properties_data)
