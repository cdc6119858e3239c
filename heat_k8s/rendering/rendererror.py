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

"""The error render() raises: the file, the template line, and why.

The sandbox raises it too, for a template refused before it runs.
"""


class RenderError(ValueError):
    """A template that did not render: file, line where known, and why."""

    def __init__(self, filename, detail, lineno=None, source='templates'):
        self.filename, self.detail, self.lineno = filename, detail, lineno
        self.source = source   # what is at fault: templates or ini_overrides
        super().__init__(self.message())

    def message(self, detail=None):
        """The error as text, optionally with another (redacted) detail."""
        where = self.filename
        if self.lineno is not None:
            where = '%s, line %d' % (where, self.lineno)
        return '%s: %s' % (where, self.detail if detail is None else detail)
