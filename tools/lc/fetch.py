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

"""HTTP requests to the cloud's own servers, the one way the tools make
them: urllib, for http(s) URLs only (urllib would also open file: and
custom schemes)."""

import urllib.parse
import urllib.request

SCHEMES = ('http', 'https')


def _checked(url):
    scheme = urllib.parse.urlsplit(url).scheme
    if scheme not in SCHEMES:
        raise ValueError('not an http(s) URL: %s' % url)
    return url


def request(url, **kwargs):
    """A urllib Request of an http(s) URL."""
    return urllib.request.Request(_checked(url), **kwargs)  # noqa: S310


def urlopen(url_or_request, **kwargs):
    """urllib.request.urlopen of an http(s) URL or request."""
    url = getattr(url_or_request, 'full_url', url_or_request)
    _checked(url)
    return urllib.request.urlopen(url_or_request, **kwargs)  # noqa: S310
