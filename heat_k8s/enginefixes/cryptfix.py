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

"""Hidden parameters of any type stored encrypted (Heat 24 to 27).

With ``encrypt_parameters_and_properties`` on, Heat stores each hidden
parameter of a stack encrypted: ``RawTemplate.encrypt_hidden_parameters``
hands its value to ``crypt.encrypt``, which takes text only. A hidden
``json`` parameter holds a map or a list (a nested stack's parameter
comes from its parent's property as one; the service templates' hidden
``config_values`` are maps), so storing such a stack raises ``TypeError:
<class 'dict'> can't be encoded``; a convergence stack stores its
template again at update and delete, which then fail. Resource properties
are not affected: Heat encrypts their JSON text.

apply() makes Heat encrypt such a value (anything but text and null) as
its JSON text, listed under ``encrypted_json_param_names`` in the stored
environment beside Heat's ``encrypted_param_names``, and read it back as
the value it was. Text is encrypted as Heat does, and what Heat encrypted
reads as before. Nothing changes while encryption is off. A Heat without
the fix reads such a value as its JSON text, which a json, number or
boolean parameter takes as the value. The upstream change is the same in
``RawTemplate`` and ``Environment`` (patches/cryptfix.patch).
"""

import functools

from heat.common import environment_format as env_fmt
from heat.engine import environment
from heat.objects import raw_template
from oslo_config import cfg
from oslo_log import log as logging
from oslo_serialization import jsonutils

from heat_k8s.enginefixes import patching

LOG = logging.getLogger(__name__)
RELEASES = (24, 27)
# The stored environment's key, and the Environment's attribute, naming
# the hidden parameters encrypted as JSON text.
JSON_NAMES = 'encrypted_json_param_names'


def as_json(value):
    """Whether a hidden parameter's value is encrypted as its JSON text:
    Heat encrypts text and null itself, and a tuple is Heat's own pair
    (method, ciphertext) of an environment it already encrypted."""
    return not isinstance(value, (str, tuple)) and value is not None


def still_json(previous, as_text, encoded):
    """The names JSON-encrypted after an encryption that encrypted the
    names `as_text` as text and `encoded` as JSON text, when `previous`
    were before."""
    return [name for name in previous if name not in as_text] + [
        name for name in encoded if name not in previous]


def json_names(stored_env):
    """The names whose value Heat decrypted from a stored environment and
    that the fix had encrypted as JSON text."""
    stored_env = stored_env or {}
    params = stored_env.get(env_fmt.PARAMETERS) or {}
    return [name for name in stored_env.get(JSON_NAMES) or ()
            if name in (stored_env.get(env_fmt.ENCRYPTED_PARAM_NAMES) or ())
            and isinstance(params.get(name), (list, tuple))
            and len(params[name]) == 2]


def encrypting_json(encrypt_hidden_parameters):
    """RawTemplate.encrypt_hidden_parameters, taking values of any type."""
    @functools.wraps(encrypt_hidden_parameters)
    def encrypt_any(cls, tmpl):
        if not cfg.CONF.encrypt_parameters_and_properties:
            return encrypt_hidden_parameters(cls, tmpl)
        schemata, params = tmpl.param_schemata(), tmpl.env.params
        hidden = [name for name in params
                  if name in schemata and schemata[name].hidden]
        encoded = [name for name in hidden if as_json(params[name])]
        for name in encoded:
            params[name] = jsonutils.dumps(params[name])
        result = encrypt_hidden_parameters(cls, tmpl)
        as_text = [name for name in hidden if name not in encoded]
        setattr(tmpl.env, JSON_NAMES, still_json(
            getattr(tmpl.env, JSON_NAMES, []), as_text, encoded))
        return result
    return encrypt_any


def reading_json(from_db_object):
    """RawTemplate.from_db_object, giving JSON-encrypted values back."""
    @functools.wraps(from_db_object)
    def from_db_object_json(context, tpl, db_tpl):
        tpl = from_db_object(context, tpl, db_tpl)
        names = json_names(db_tpl['environment'])
        params = tpl.environment[env_fmt.PARAMETERS] if names else {}
        for name in names:
            try:
                params[name] = jsonutils.loads(params[name])
            except (TypeError, ValueError):
                # No value in the log: it is a hidden parameter's.
                LOG.warning('Hidden parameter %s of template %s is not '
                            'the JSON text it was stored as; left as '
                            'text', name, tpl.id)
        return tpl
    return from_db_object_json


def storing_json_names(env_as_dict):
    """Environment.env_as_dict, with the names encrypted as JSON text."""
    @functools.wraps(env_as_dict)
    def env_as_dict_json(self):
        env = env_as_dict(self)
        names = getattr(self, JSON_NAMES, None)
        if names:
            env[JSON_NAMES] = list(names)
        return env
    return env_as_dict_json


def probe():
    """None when Heat encrypts and decrypts hidden parameters as text
    only, and stores no names of JSON-encrypted ones."""
    rt = raw_template.RawTemplate
    return (patching.expect(rt, 'encrypt_hidden_parameters',
                            has=('crypt.encrypt(clear_text_val)',),
                            lacks=('json',))
            or patching.expect(rt, 'from_db_object',
                               has=('crypt.decrypt(method, enc_value)',),
                               lacks=('json',))
            or patching.expect(environment.Environment, 'env_as_dict',
                               has=('ENCRYPTED_PARAM_NAMES',),
                               lacks=('JSON',)))


# What apply() replaces (tests check it is done once and undone).
TARGETS = ((raw_template.RawTemplate, 'encrypt_hidden_parameters'),
           (raw_template.RawTemplate, 'from_db_object'),
           (environment.Environment, 'env_as_dict'))
_WRAPPERS = (encrypting_json, reading_json, storing_json_names)


def apply():
    for (owner, name), wrapper in zip(TARGETS, _WRAPPERS):
        patching.wrap_once(owner, name, wrapper)


def restore():
    for owner, name in TARGETS:
        patching.restore(owner, name)
