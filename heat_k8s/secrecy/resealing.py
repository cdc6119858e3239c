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

"""Reseal a project's secret references in Heat's database.

After a new sealing key is put first, what older keys sealed still opens;
this moves it to the newest key, so the older key can be removed. It
rewrites every place Heat keeps a reference of the project's stacks,
nested ones included: resource data (RandomSecret's own), stored and
cached properties and attributes, and stack parameters (a reference passed
between stacks), decrypting and encrypting again what Heat encrypted.
Stacks with an action in progress are left alone and named: run it again.
"""

import collections

from heat.common import crypt
from heat.db import api as db_api
from heat.db import models
from heat.objects import resource_properties_data as rpd_object

from heat_k8s.secrecy import sealing

Counts = collections.namedtuple('Counts',
                                'stacks resealed unopened busy')
_PARAMETERS, _ENCRYPTED = 'parameters', 'encrypted_param_names'


def reseal_project(context, project, keyring):
    """Counts of what reseal did for project (context: an admin's)."""
    totals = {'resealed': 0, 'unopened': 0}
    busy, done = [], 0
    stacks = db_api.stack_get_all(context, show_nested=True,
                                  show_hidden=True,
                                  filters={'tenant': project})
    for stack in stacks:
        if stack.status == 'IN_PROGRESS':
            busy.append(stack.name)
            continue

        def again(data):
            data, resealed, unopened = sealing.reseal(data, project, keyring)
            totals['resealed'] += resealed
            totals['unopened'] += unopened
            return data
        with db_api.context_manager.writer.using(context):
            _reseal_stack(context, stack, again)
        done += 1
    return Counts(done, totals['resealed'], totals['unopened'], busy)


def _reseal_stack(context, stack, again):
    for template_id in {stack.raw_template_id, stack.prev_raw_template_id}:
        if template_id:
            _reseal_template(context, template_id, again)
    rows = context.session.query(models.Resource).filter_by(
        stack_id=stack.id).all()
    for row in rows:
        for data in row.data:
            _reseal_data(context, row.id, data, again)
        for rpd_id in {row.rsrc_prop_data_id, row.attr_data_id}:
            if rpd_id:
                _reseal_properties(context, rpd_id, again)


def _reseal_template(context, template_id, again):
    row = context.session.get(models.RawTemplate, template_id)
    env = row.environment or {}
    params = dict(env.get(_PARAMETERS) or {})
    encrypted = set(env.get(_ENCRYPTED) or ())
    for name, value in params.items():
        if name in encrypted and isinstance(value, (list, tuple)):
            clear = crypt.decrypt(*value)
            resealed = again(clear)
            if resealed != clear:
                params[name] = list(crypt.encrypt(resealed))
        else:
            params[name] = again(value)
    if params != (env.get(_PARAMETERS) or {}):
        row.environment = dict(env, **{_PARAMETERS: params})


def _reseal_data(context, resource_id, data, again):
    value = (crypt.decrypt(data.decrypt_method, data.value) if data.redact
             else data.value)
    resealed = again(value)
    if resealed != value:
        db_api.resource_data_set(context, resource_id, data.key, resealed,
                                 redact=data.redact)


def _reseal_properties(context, rpd_id, again):
    stored = rpd_object.ResourcePropertiesData.get_by_id(context, rpd_id)
    resealed = again(stored.data)
    if resealed != stored.data:
        rpd_object.ResourcePropertiesData.create_or_update(
            context, resealed, rpd_id=rpd_id)
