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

"""Fields of an object as the API server returns it, absent or null alike.

Readiness rules, their explanations and the resources' attributes read
objects through these, so a missing spec or status reads as empty.
"""

import datetime


def name_of(obj):
    return (obj.get('metadata') or {}).get('name', '?')


def spec_of(obj):
    return obj.get('spec') or {}


def status_of(obj):
    return obj.get('status') or {}


def conditions_of(obj):
    """{type: condition} of status.conditions."""
    return {c.get('type'): c for c in status_of(obj).get('conditions') or ()}


def is_true(condition):
    return bool(condition) and condition.get('status') == 'True'


def moment(stamp):
    """An RFC 3339 timestamp of the API server as an aware datetime, or
    None if absent or malformed."""
    try:
        when = datetime.datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return None
    return when if when.tzinfo else when.replace(
        tzinfo=datetime.timezone.utc)
