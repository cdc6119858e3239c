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

"""The repository's HOT templates, read as files, and their yaql
expressions evaluated as Heat's yaql function does."""

import os

import yaml
import yaql

TEMPLATES = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'templates')
ENGINE = yaql.factory.YaqlFactory().create()


def load(*path):
    """templates/<path>, parsed."""
    with open(os.path.join(TEMPLATES, *path)) as f:
        return yaml.safe_load(f)


def evaluate(function, **data):
    """A {yaql: {expression, data}} function's value with its data's keys
    given these values (each key of the template's data, no other)."""
    body = function['yaql']
    assert set(body['data']) == set(data), sorted(body['data'])
    return ENGINE(body['expression']).evaluate(
        data={'data': data}, context=yaql.create_context())
