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

"""Offline validation of manifests against the Kubernetes OpenAPI schema.

The schemas are the strict JSON schemas bundled with kubernetes-validate
(unknown fields are errors). The formats the schema declares are checked
too (fieldrules.format_problem): an int32 out of range, bytes that are not
base64. Values Heat cannot resolve yet (get_attr of a resource not
created) are None at validate time: errors about them are skipped, the API
server checks them at create.
"""

import functools
import importlib.resources as importlib_resources
import json
import re

import jsonschema
from kubernetes_validate import utils as kv_utils
from oslo_config import cfg
from oslo_log import log as logging
import referencing

from heat_k8s.kinds import fieldrules
from heat_k8s.kinds import redaction

LOG = logging.getLogger(__name__)
MAX_ERRORS = 5


def _format_checker():
    checker = jsonschema.FormatChecker(formats=())
    for fmt in ('int32', 'int64', 'byte'):
        checker.checks(fmt)(functools.partial(_conforms, fmt))
    return checker


def _conforms(fmt, value):
    return fieldrules.format_problem(fmt, value) is None


FORMAT_CHECKER = _format_checker()


@functools.lru_cache(maxsize=None)
def _schema_dir(version):
    """Directory of the strict schemas for the newest version <= version."""
    versions = kv_utils.all_versions()
    wanted = kv_utils.major_minor(version or versions[-1])
    usable = [v for v in versions
              if _minor_tuple(kv_utils.major_minor(v)) <= _minor_tuple(wanted)]
    chosen = usable[-1] if usable else versions[0]
    return (importlib_resources.files('kubernetes_validate') /
            'kubernetes-json-schema' / ('v%s-local-strict' % chosen))


def _minor_tuple(version):
    return tuple(int(p) for p in version.split('.')[:2])


@functools.lru_cache(maxsize=None)
def _registry(version):
    defs = json.loads((_schema_dir(version) / '_definitions.json').read_text())
    return referencing.Resource.from_contents(defs) @ referencing.Registry()


@functools.lru_cache(maxsize=256)
def _validator(version, api_version, kind):
    # rbac.authorization.k8s.io/v1 -> rbac-v1; v1 -> v1
    group_version = re.sub(r'^([^./]*)(?:\.[^/]*)?/', r'\1-', api_version)
    path = _schema_dir(version) / ('%s-%s.json' % (kind.lower(),
                                                   group_version))
    if not path.is_file():
        return None
    schema = json.loads(path.read_text())
    return jsonschema.Draft202012Validator(schema,
                                           registry=_registry(version),
                                           format_checker=FORMAT_CHECKER)


def _path(error):
    text = ''
    for step in error.absolute_path:
        text += '[%d]' % step if isinstance(step, int) else '.%s' % step
    return text.lstrip('.') or '<top>'


def _unresolved(error):
    # Heat passes None for values it cannot resolve before create.
    return error.instance is None or any(
        sub.instance is None for sub in error.context or ())


def _message(error):
    if error.validator == 'format':
        return fieldrules.format_problem(error.validator_value,
                                         error.instance)
    # Every schema type admits null; naming it only confuses.
    return error.message.replace(", 'null'", '')


def validate(manifest):
    """[(field path, problem)], empty when valid or the kind is unknown."""
    try:
        validator = _validator(cfg.CONF.kubernetes.schema_version,
                               manifest.get('apiVersion') or '',
                               manifest.get('kind') or '')
    except (OSError, ValueError) as exc:
        LOG.warning('Kubernetes schema unavailable: %s', exc)
        return []
    if validator is None:
        return []
    errors = sorted((e for e in validator.iter_errors(manifest)
                     if not _unresolved(e)), key=lambda e: list(
                         map(str, e.absolute_path)))
    secrets = redaction.secret_values(manifest)
    found = [(_path(e), redaction.text(_message(e), secrets) if secrets
              else _message(e)) for e in errors[:MAX_ERRORS]]
    if len(errors) > MAX_ERRORS:
        found.append(('', '(%d more)' % (len(errors) - MAX_ERRORS)))
    return found
