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

"""Settings of the generated Wagtail project taken from the environment.

Installed as <project>/settings/local.py, which the project's production
settings import last. DATABASE_URL is postgres://user:password@host:port/db
(without it, the project's own SQLite file, as at build time); SECRET_KEY
has a default; ALLOWED_HOSTS is a comma-separated list, default '*'.
"""

import os
from urllib import parse

from .base import MIDDLEWARE

DEBUG = False
SECRET_KEY = os.environ.get(
    'SECRET_KEY', 'heat-k8s-example-not-secret-set-SECRET_KEY')
ALLOWED_HOSTS = os.environ.get('ALLOWED_HOSTS', '*').split(',')

# gunicorn serves the collected static files too (no separate web server).
MIDDLEWARE = list(MIDDLEWARE)
MIDDLEWARE.insert(
    MIDDLEWARE.index('django.middleware.security.SecurityMiddleware') + 1,
    'whitenoise.middleware.WhiteNoiseMiddleware')


def _database(url):
    parts = parse.urlsplit(url)
    if parts.scheme not in ('postgres', 'postgresql'):
        raise ValueError('DATABASE_URL: only postgres:// is supported')
    options = dict(parse.parse_qsl(parts.query))
    return {
        'ENGINE': 'django.db.backends.postgresql',
        'NAME': parse.unquote(parts.path.lstrip('/')),
        'USER': parse.unquote(parts.username or ''),
        'PASSWORD': parse.unquote(parts.password or ''),
        'HOST': parts.hostname or '',
        'PORT': str(parts.port or ''),
        'OPTIONS': options,
        'CONN_MAX_AGE': 60,
    }


if os.environ.get('DATABASE_URL'):
    DATABASES = {'default': _database(os.environ['DATABASE_URL'])}
