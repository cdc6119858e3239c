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

"""Many stacks at once, from two projects: create, update, delete.

Twenty stacks of templates/load.yaml (ten objects each), half created by
the `demo` user and half by `other`, all submitted together; then all
updated together (a ConfigMap value and two Deployments rolled), then all
deleted together. Each phase's time and heat-engine's memory (VmRSS of the
master and its workers) before and after are printed, whatever pytest's
capture: they are the figures this test exists to give.

The requests go through python-heatclient (what the CLI calls): twenty
`openstack` processes starting at once take about a minute of this small
machine's CPU before the first request leaves, which would time the CLI,
not Heat.

The second run kills one heat-engine worker (SIGKILL) in the middle of the
create. A create request the dead worker had taken fails after heat-api's
RPC timeout (60 s, "Internal Error") and the stack does not exist: the user
creates it again. Heat 27 with convergence never resumes what the dead
worker held: a stack whose resource it was checking ends CREATE_FAILED
once strandfix sees the dead lock (within about a minute), one whose
message it had only taken stays CREATE_IN_PROGRESS. The test waits until
nothing changed for QUIET seconds, then updates every stack not complete
with `stack update --existing`, which recovers both.
"""

from concurrent import futures
import os
import signal
import time

from heatclient import exc
from heatclient.common import template_utils
import pytest

from tests.e2e import conftest
from tests.e2e import stacks
from tests.functional import cloud

# It reads heat-engine's memory and kills an engine worker: on a
# kwok-only cloud of its own, so that the other modules go on meanwhile.
pytestmark = pytest.mark.own_cloud


@pytest.fixture(scope='module')
def localcloud():
    with conftest.own_kwok_cloud('load') as own:
        yield own


PROJECTS = ('demo', 'other')
STACKS = 20
RESOURCES = ('settings', 'environment', 'meta', 'web', 'api', 'worker',
             'web_service', 'api_service', 'routes', 'ready')
PHASE_TIMEOUT = 180
# After a worker died: how long nothing may change (stack states, objects)
# before the stacks still in progress count as stranded.
QUIET = 15
WRITTEN = 'configmaps,services,deployments.apps'


class Load(object):
    """The stacks of one run, driven together as their users would."""

    def __init__(self, localcloud):
        self.localcloud = localcloud
        self.heat = {p: stacks.Heat(localcloud, p) for p in PROJECTS}
        self.run = stacks.unique('load')
        self.template = template_utils.get_template_contents(
            template_file=stacks.template('load.yaml'))[1]
        self.project_of = {}
        self.refused = {}
        self.times = {}

    def create(self, retry=False):
        """Submit the creates together; with retry, a refused one is
        submitted again unless Heat has its stack (as a user would)."""
        def one(index):
            project = PROJECTS[index % len(PROJECTS)]
            name = '%s-%d' % (self.run, index)
            try:
                stack_id = self._create(name, project)
            except exc.HTTPException as error:
                if not retry:
                    raise
                # Its engine worker died holding the request: heat-api
                # times out waiting (MessagingTimeout, "Internal Error").
                self.refused[name] = str(error)
                stack_id = self._id_of(name, project) or self._create(
                    name, project)
            self.project_of[stack_id] = project
        _together(one, range(STACKS))

    def _create(self, name, project):
        return self.heat[project].client.stacks.create(
            stack_name=name, template=self.template,
            parameters={'app': name, 'run': self.run})['stack']['id']

    def _id_of(self, name, project):
        try:
            return self.heat[project].stack(name).id
        except exc.HTTPNotFound:
            return None

    def update(self, stack_ids, **parameters):
        """`stack update --existing` of each, with these parameters."""
        _together(lambda stack_id: self._client(stack_id).stacks.update(
            stack_id, existing=True, parameters=parameters), stack_ids)

    def delete(self):
        _together(lambda stack_id: self._client(stack_id).stacks.delete(
            stack_id), list(self.project_of))

    def _client(self, stack_id):
        return self.heat[self.project_of[stack_id]].client

    def of(self, project):
        return [i for i, p in self.project_of.items() if p == project]

    def shown(self):
        """{stack id: stack} of this run's stacks Heat still lists."""
        return {s.id: s for heat in self.heat.values()
                for s in heat.client.stacks.list()
                if s.id in self.project_of}

    def objects(self, kinds=stacks.KINDS):
        if not self.project_of:
            return []
        return stacks.objects(self.localcloud, '%s in (%s)' % (
            stacks.STACK_ID, ','.join(self.project_of)), kinds=kinds)

    def settled(self, action, stack_ids=None, timeout=PHASE_TIMEOUT):
        """The stacks once none is busy and all are at `action`."""
        wanted = set(stack_ids or self.project_of)

        def done():
            shown = {i: s for i, s in self.shown().items() if i in wanted}
            busy = [s for s in shown.values() if s.action != action
                    or s.stack_status.endswith('IN_PROGRESS')]
            return len(shown) == len(wanted) and not busy and shown
        return cloud.wait_until(done, '%d stacks to end %s' % (
            len(wanted), action), timeout=timeout, interval=2)

    def gone(self, timeout=PHASE_TIMEOUT):
        def done():
            shown = self.shown()
            failed = {i: s.stack_status_reason for i, s in shown.items()
                      if s.stack_status == 'DELETE_FAILED'}
            assert not failed, failed
            return not shown
        cloud.wait_until(done, 'the stacks deleted', timeout=timeout,
                         interval=2)

    def stalled(self, timeout=PHASE_TIMEOUT):
        """The stacks once nothing changed for QUIET seconds: those
        still in progress by then are stranded."""
        deadline = time.monotonic() + timeout
        last, since = None, time.monotonic()
        while time.monotonic() < deadline:
            shown = self.shown()
            now = (sorted((i, s.stack_status) for i, s in shown.items()),
                   len(self.objects(kinds=WRITTEN)))
            if now != last:
                last, since = now, time.monotonic()
            elif not any(s.stack_status.endswith('IN_PROGRESS')
                         for s in shown.values()) or (
                    time.monotonic() - since > QUIET):
                return shown
            time.sleep(2)
        raise AssertionError('the stacks still change after %ss' % timeout)

    def timed(self, phase, fn, *args):
        started = time.monotonic()
        result = fn(*args)
        self.times[phase] = time.monotonic() - started
        return result


def _together(fn, items):
    items = list(items)
    with futures.ThreadPoolExecutor(len(items)) as pool:
        return list(pool.map(fn, items))


def engine_rss(localcloud):
    """{pid: VmRSS in MiB} of heat-engine's master and workers."""
    rss = {}
    for pid in stacks.group(localcloud, 'heat-engine'):
        try:
            with open('/proc/%d/status' % pid) as f:
                status = f.read()
        except OSError:
            continue
        for line in status.splitlines():
            if line.startswith('VmRSS:'):
                rss[pid] = int(line.split()[1]) // 1024
    return rss


def _rss(rss):
    return '%d MiB (%s)' % (sum(rss.values()), ', '.join(
        '%d: %d' % item for item in rss.items()))


def report(capsys, load, rss_before, localcloud, *more):
    with capsys.disabled():
        print('\n%s: %d stacks x %d resources, %s' % (
            load.run, STACKS, len(RESOURCES), ', '.join(
                '%s %.0f s' % item for item in load.times.items())))
        print('  heat-engine RSS before %s' % _rss(rss_before))
        print('  heat-engine RSS after  %s' % _rss(engine_rss(localcloud)))
        for line in more:
            print('  ' + line)


def assert_all_objects(load):
    """Each stack has one object per resource, in its project's
    namespace, and no other."""
    objs = load.objects()
    namespaces = {}
    mine = {stack_id: [] for stack_id in load.project_of}
    for obj in objs:
        labels = obj['metadata']['labels']
        mine[labels[stacks.STACK_ID]].append(obj)
    for stack_id, project in load.project_of.items():
        found = stacks.by_resource(mine[stack_id])
        assert sorted(found) == sorted(RESOURCES), (stack_id, found)
        assert all(len(uids) == 1 for uids in found.values()), found
        namespaces[project] = namespaces.get(project, set()) | {
            o['metadata']['namespace'] for o in mine[stack_id]}
    assert namespaces == {p: {load.localcloud.projects[p]}
                          for p in PROJECTS}, namespaces
    return objs


def assert_updated(objs):
    """The update reached Kubernetes: the ConfigMap's value, the web
    Deployment's env and the api Deployment's image, both rolled out."""
    for obj in objs:
        resource = obj['metadata']['labels'][stacks.RESOURCE]
        if resource == 'settings':
            assert obj['data'] == {'value': 'v2'}, obj['data']
        elif resource in ('web', 'api'):
            container = obj['spec']['template']['spec']['containers'][0]
            if resource == 'web':
                assert container['env'] == [{'name': 'VALUE',
                                             'value': 'v2'}], container
            else:
                assert container['image'] == 'registry.invalid/app:2'
            status = obj['status']
            assert status['observedGeneration'] == 2, status
            assert status.get('updatedReplicas') == 1, status


def assert_nothing_left(load):
    assert load.objects() == []
    assert stacks.objects(load.localcloud, 'run=' + load.run,
                          kinds=stacks.DEPENDENTS) == []


def update_and_delete(load):
    load.timed('update', lambda: (
        load.update(list(load.project_of), value='v2',
                    image='registry.invalid/app:2'),
        load.settled('UPDATE')))
    failed = {i: s.stack_status_reason for i, s in load.shown().items()
              if s.stack_status != 'UPDATE_COMPLETE'}
    assert not failed, failed
    assert_updated(assert_all_objects(load))
    load.timed('delete', lambda: (load.delete(), load.gone()))
    assert_nothing_left(load)


def test_twenty_stacks_of_two_projects_at_once(localcloud, capsys):
    load = Load(localcloud)
    rss_before = engine_rss(localcloud)
    load.timed('create', lambda: (load.create(), load.settled('CREATE')))
    failed = {i: s.stack_status_reason for i, s in load.shown().items()
              if s.stack_status != 'CREATE_COMPLETE'}
    assert not failed, failed
    assert_all_objects(load)
    update_and_delete(load)
    report(capsys, load, rss_before, localcloud, '0 failed, 0 left')


def _kill_one_worker(localcloud):
    master, *workers = stacks.group(localcloud, 'heat-engine')
    os.kill(workers[0], signal.SIGKILL)
    return workers[0]


def test_twenty_stacks_with_an_engine_worker_killed_mid_create(
        localcloud, capsys):
    load = Load(localcloud)
    rss_before = engine_rss(localcloud)
    started = time.monotonic()
    with futures.ThreadPoolExecutor(1) as pool:
        submitted = pool.submit(load.create, retry=True)
        # A quarter of the objects written: the create in full swing.
        cloud.wait_until(lambda: len(load.objects(kinds=WRITTEN)) >= (
            STACKS * len(RESOURCES) // 4), 'a quarter of the objects',
            timeout=PHASE_TIMEOUT, interval=1)
        killed = _kill_one_worker(localcloud)
        killed_at = time.monotonic() - started
        written = len(load.objects(kinds=WRITTEN))
        submitted.result()
    shown = load.stalled()
    load.times['create'] = time.monotonic() - started
    stranded = {i: s.stack_status for i, s in shown.items()
                if s.stack_status != 'CREATE_COMPLETE'}
    # Recovery: the user updates the stranded stacks with what they have.
    if stranded:
        load.timed('recover', lambda: (
            load.update(list(stranded)),
            load.settled('UPDATE', stranded)))
    failed = {i: s.stack_status_reason for i, s in load.shown().items()
              if not s.stack_status.endswith('_COMPLETE')}
    assert not failed, failed
    for stack_id in stranded:
        stacks.assert_matches_heat(load.heat[load.project_of[stack_id]],
                                   localcloud, stack_id)
    assert_all_objects(load)
    update_and_delete(load)
    report(capsys, load, rss_before, localcloud,
           'worker %d killed at %.0f s (%d objects written)' % (
               killed, killed_at, written),
           'create requests refused, then retried: %s' % (
               load.refused or 'none'),
           'stranded, then recovered by update --existing: %s' % (
               stranded or 'none'),
           '0 failed, 0 left')


@pytest.fixture(autouse=True)
def _engine_workers_back(localcloud):
    """Each run starts with heat-engine's two workers up (a killed one is
    replaced by its master)."""
    yield
    cloud.wait_until(lambda: len(stacks.group(localcloud, 'heat-engine'))
                     == 3, "heat-engine's workers", timeout=60)
