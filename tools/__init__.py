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

"""The developer's tools, importable from the repo root as `tools.*`.

`lc` is the local cloud behind `tools/localcloud`, `bench` the comparison
behind `tools/benchmark`; the other folders are their data (pinned
versions, constraints, Go modules, image recipes, kwok's stages). Nothing
here ships with heat-k8s.
"""
