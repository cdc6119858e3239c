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

"""How the registration and schema scripts of templates/identity fail.

Shipped beside them in /var/lib/kolla/config_files (the templates give it
as one more config file wherever they give one of them), so that
``python3 <script>`` imports it from the script's own directory.
"""

import sys

TERMINATION_LOG = '/dev/termination-log'


def fail(reason):
    """Exit 1 with `reason` as the last line and, on Kubernetes, as the
    container's termination message (Heat's event shows it)."""
    print(reason, file=sys.stderr, flush=True)
    try:
        with open(TERMINATION_LOG, 'w') as f:
            f.write(reason)
    except OSError:
        pass  # not on Kubernetes
    sys.exit(1)
