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

"""The pure parts of tools/lc/builds (recipes.py, images.py): names, recipe
hashes, pins."""

import dataclasses
import os
import shutil
import tempfile
import unittest
from unittest import mock

import yaml

from tools.lc.builds import go
from tools.lc.builds import images
from tools.lc.builds import recipes
from tools.lc.builds import venv

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))

VERSIONS = {'DEBIAN_SUITE': 'bookworm', 'PAUSE_VERSION': '3.10.2',
            'KEYSTONE_VERSION': '30.0.0', 'WAGTAIL_VERSION': '7.4.4',
            'KEYSTONE_2025_2_VERSION': '28.1.0',
            'KEYSTONE_2026_1_VERSION': '29.1.0', 'HEAT_VERSION': '27.0.1',
            'GLANCE_VERSION': '33.0.0', 'PLACEMENT_VERSION': '16.0.0',
            'GLANCE_2026_1_VERSION': '32.0.0',
            'PLACEMENT_2026_1_VERSION': '15.0.0',
            'NOVA_VERSION': '34.0.0', 'NEUTRON_VERSION': '29.0.0',
            'NOVA_2026_1_VERSION': '33.0.2',
            'NEUTRON_2026_1_VERSION': '28.0.2'}


class ReferenceTest(unittest.TestCase):

    def test_names_and_tags(self):
        self.assertEqual({
            'pause': 'localhost/heat-k8s/pause:3.10.2',
            'base': 'localhost/heat-k8s/base:bookworm',
            'postgres': 'localhost/heat-k8s/postgres:15',
            'mariadb': 'localhost/heat-k8s/mariadb:10.11',
            'memcached': 'localhost/heat-k8s/memcached:1.6',
            'keystone': 'localhost/heat-k8s/keystone:30.0.0',
            'keystone-2025.2': 'localhost/heat-k8s/keystone:28.1.0',
            'keystone-2026.1': 'localhost/heat-k8s/keystone:29.1.0',
            'wagtail': 'localhost/heat-k8s/wagtail:7.4.4',
            'glance': 'localhost/heat-k8s/glance:33.0.0',
            'placement': 'localhost/heat-k8s/placement:16.0.0',
            'glance-2026.1': 'localhost/heat-k8s/glance:32.0.0',
            'placement-2026.1': 'localhost/heat-k8s/placement:15.0.0',
            'nova': 'localhost/heat-k8s/nova:34.0.0',
            'nova-compute': 'localhost/heat-k8s/nova-compute:34.0.0',
            'neutron': 'localhost/heat-k8s/neutron:29.0.0',
            'nova-2026.1': 'localhost/heat-k8s/nova:33.0.2',
            'nova-compute-2026.1': 'localhost/heat-k8s/nova-compute:33.0.2',
            'neutron-2026.1': 'localhost/heat-k8s/neutron:28.0.2',
            'rabbitmq': 'localhost/heat-k8s/rabbitmq:3.10',
            'ovn': 'localhost/heat-k8s/ovn:23.03',
            'devstack-host': 'localhost/heat-k8s/devstack-host:bookworm',
        }, recipes.refs(VERSIONS))

    def test_tag_follows_versions_env(self):
        versions = dict(VERSIONS, KEYSTONE_VERSION='31.0.0')
        self.assertEqual('localhost/heat-k8s/keystone:31.0.0',
                         recipes.ref('keystone', versions))

    def test_an_earlier_release_is_the_same_recipe(self):
        # Its version key and pinned set beside the recipe's own; the
        # compute node's are Nova's.
        for name, key, requirements in (
                ('neutron', 'NEUTRON_2026_1_VERSION',
                 'neutron/requirements-2026.1.txt'),
                ('nova-compute', 'NOVA_2026_1_VERSION',
                 'nova/requirements-2026.1.txt')):
            self.assertEqual(dataclasses.replace(
                recipes.BY_NAME[name], name=name + '-2026.1',
                version_key=key, requirements=requirements),
                recipes.BY_NAME[name + '-2026.1'])

    def test_earlier_keystones_are_the_same_recipe(self):
        keystone = recipes.BY_NAME['keystone']
        for series, key in (('2025.2', 'KEYSTONE_2025_2_VERSION'),
                            ('2026.1', 'KEYSTONE_2026_1_VERSION')):
            self.assertEqual(dataclasses.replace(
                keystone, name='keystone-' + series, version_key=key,
                requirements='keystone/requirements-%s.txt' % series),
                recipes.BY_NAME['keystone-' + series])

    def test_keystone_releases_ascend_to_keystone_version(self):
        # An upgrade goes from each to the next: oldest first.
        versions = go.read_versions()
        releases = [recipes.tag(recipes.BY_NAME[name], versions)
                    for name in ['keystone-' + s
                                 for s in recipes.KEYSTONE_SERIES] +
                    ['keystone']]
        majors = [int(v.split('.')[0]) for v in releases]
        self.assertEqual(sorted(set(majors)), majors)

    def test_debian_tags_need_a_known_suite(self):
        versions = dict(VERSIONS, DEBIAN_SUITE='trixie')
        self.assertRaises(KeyError, recipes.ref, 'mariadb', versions)
        self.assertEqual('localhost/heat-k8s/base:trixie',
                         recipes.ref('base', versions))

    def test_unknown_image_refused(self):
        self.assertRaises(ValueError, images._selected, ['postgres', 'nope'])
        self.assertEqual(('postgres',), tuple(
            i.name for i in images._selected(['postgres'])))
        self.assertEqual(recipes.IMAGES, images._selected(None))

    def test_opt_in_images_only_when_named(self):
        # CI's plain `tools/localcloud images` does not build them.
        names = {i.name for i in recipes.OPTIONAL_IMAGES}
        self.assertEqual({'keystone-2025.2', 'keystone-2026.1', 'glance',
                          'placement', 'glance-2026.1', 'placement-2026.1',
                          'nova', 'nova-compute', 'neutron', 'rabbitmq',
                          'ovn', 'nova-2026.1', 'nova-compute-2026.1',
                          'neutron-2026.1'}, names)
        self.assertFalse(names & {i.name for i in images._selected(None)})
        self.assertEqual(('glance', 'placement'), tuple(
            i.name for i in images._selected(['placement', 'glance'])))
        self.assertEqual(('keystone', 'glance'), tuple(
            i.name for i in images._selected(['glance', 'keystone'])))

    def test_the_node_imports_the_opt_in_images_only_once_built(self):
        # Importing an opt-in image must not build it (not on `up`): the
        # node takes those `tools/localcloud images glance` left.
        from tools.lc.kubernetes import node
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        built = os.path.join(tmp, 'glance.tar')
        open(built, 'w').close()
        built_for = []

        def ensure(image, *args, **kwargs):
            built_for.append(image.name)
            return image.name, ''
        with mock.patch.object(images, 'ensure', side_effect=ensure), \
                mock.patch.object(images, 'archive_path',
                                  side_effect=lambda i, v: os.path.join(
                                      tmp, i.name + '.tar')), \
                mock.patch.object(recipes, 'ref',
                                  side_effect=lambda name, v: name), \
                mock.patch.object(node.dns, 'image_ref', return_value='dns'), \
                mock.patch.object(node.dns, 'image_archive', return_value=''):
            pairs = node.image_archives()
        default = [i.name for i in recipes.IMAGES]
        self.assertEqual(default, built_for)
        self.assertEqual(default + ['glance', 'dns'],
                         [ref for ref, _ in pairs])
        self.assertIn(('glance', built), pairs)

    def test_the_compute_image_is_novas_venv_without_its_apis(self):
        nova, compute = (recipes.BY_NAME[n] for n in ('nova', 'nova-compute'))
        for field in ('version_key', 'requirements', 'venv', 'pin', 'cmd',
                      'env', 'user'):
            self.assertEqual(getattr(nova, field), getattr(compute, field),
                             field)
        self.assertIn(('KOLLA_SERVICE_NAME', 'nova'), compute.env)
        self.assertEqual((('kolla/kolla_start', '/usr/local/bin/kolla_start',
                           0o755),), compute.files)
        self.assertEqual((), compute.ports)
        # A reaper as PID 1, for the daemonizing QEMU probes of libvirtd.
        self.assertEqual(('tini', '-s', '-e', '143', '--'),
                         compute.entrypoint)
        self.assertIn('tini', compute.packages)
        self.assertFalse({'uwsgi-core', 'libvirt-daemon-system'} &
                         set(compute.packages))
        for package in ('libvirt-daemon-driver-qemu', 'python3-libvirt',
                        'qemu-system-x86', 'openvswitch-switch', 'ovn-host'):
            self.assertIn(package, compute.packages)
        # nova's own steps first (its user, its directories), then QEMU's
        # user at Debian's uid and the binding linked into the venv.
        self.assertTrue(compute.script.startswith(nova.script))
        self.assertIn('--uid 64055 --gid kvm', compute.script)
        self.assertIn('ln -s /usr/lib/python3/dist-packages/libvirt* ',
                      compute.script)

    def test_archive_named_after_tag_and_recipe(self):
        image = recipes.BY_NAME['postgres']
        path = images.archive_path(image, VERSIONS)
        self.assertEqual(
            'postgres-15-%s.tar' % images.recipe_hash(image, VERSIONS),
            os.path.basename(path))


class RecipeHashTest(unittest.TestCase):

    def setUp(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        self.images_dir = os.path.join(tmp, 'images')
        shutil.copytree(recipes.IMAGES_DIR, self.images_dir)

    def hash(self, image, versions=VERSIONS):
        if isinstance(image, str):
            image = recipes.BY_NAME[image]
        return images.recipe_hash(image, versions, self.images_dir)

    def append(self, relpath, text):
        with open(os.path.join(self.images_dir, relpath), 'a') as f:
            f.write(text)

    def hashes_around(self, relpath, text, images=recipes.ALL_IMAGES):
        """({name: hash} of images, the same once text is appended to
        relpath)."""
        before = {i.name: self.hash(i) for i in images}
        self.append(relpath, text)
        return before, {i.name: self.hash(i) for i in images}

    def test_stable(self):
        for image in recipes.ALL_IMAGES:
            self.assertEqual(self.hash(image), self.hash(image))
            self.assertRegex(self.hash(image), '^[0-9a-f]{16}$')
        self.assertEqual(len(recipes.ALL_IMAGES), len(
            {self.hash(i) for i in recipes.ALL_IMAGES}))

    def test_package_list_changes_it(self):
        image = recipes.BY_NAME['memcached']
        self.assertNotEqual(self.hash(image), self.hash(dataclasses.replace(
            image, packages=image.packages + ('libevent-extra-2.1-7',))))

    def test_build_steps_and_configuration_change_it(self):
        image = recipes.BY_NAME['postgres']
        for change in ({'script': image.script + 'true\n'},
                       {'cmd': ('postgres', '-c', 'fsync=off')},
                       {'env': image.env + (('X', '1'),)},
                       {'user': 'postgres'}):
            self.assertNotEqual(self.hash(image), self.hash(
                dataclasses.replace(image, **change)), change)

    def test_a_file_changes_its_image_only(self):
        before, after = self.hashes_around(
            'mariadb/healthcheck.sh', '# a change\n', recipes.IMAGES)
        self.assertNotEqual(before.pop('mariadb'), after.pop('mariadb'))
        self.assertEqual(before, after)

    def test_pinned_set_changes_its_image_only(self):
        before, after = self.hashes_around(
            'wagtail/requirements.txt', 'six==1.17.0\n', recipes.IMAGES)
        self.assertNotEqual(before.pop('wagtail'), after.pop('wagtail'))
        self.assertEqual(before, after)

    def test_a_keystone_pinned_set_changes_its_release_only(self):
        before, after = self.hashes_around(
            'keystone/requirements-2025.2.txt', 'six==1.17.0\n')
        self.assertNotEqual(before.pop('keystone-2025.2'),
                            after.pop('keystone-2025.2'))
        self.assertEqual(before, after)

    def test_the_shared_kolla_start_changes_the_services_using_it(self):
        before, after = self.hashes_around('kolla/kolla_start', '# a change\n')
        self.assertEqual({'keystone', 'glance', 'placement', 'nova',
                          'nova-compute', 'neutron'} | {
            'keystone-' + series for series in recipes.KEYSTONE_SERIES} | {
            name + '-' + recipes.UPGRADE_SERIES
            for name in ('glance', 'placement', 'nova', 'nova-compute',
                         'neutron')}, {
            name for name in before if before[name] != after[name]})

    def test_a_uwsgi_file_changes_its_image_only(self):
        before, after = self.hashes_around(
            'glance/glance-api-uwsgi.ini', '# a change\n')
        self.assertEqual({'glance', 'glance-' + recipes.UPGRADE_SERIES}, {
            name for name in before if before[name] != after[name]})

    def test_a_second_uwsgi_file_changes_its_image_only(self):
        before, after = self.hashes_around(
            'nova/nova-metadata-uwsgi.ini', '# a change\n')
        self.assertEqual({'nova', 'nova-' + recipes.UPGRADE_SERIES}, {
            name for name in before if before[name] != after[name]})

    def test_pause_source_changes_it(self):
        before = self.hash('pause')
        self.append('pause.c', '/* a change */\n')
        self.assertNotEqual(before, self.hash('pause'))

    def test_versions_change_the_images_that_use_them(self):
        for key, value, changed in (
                ('KEYSTONE_VERSION', '31.0.0', {'keystone'}),
                ('PAUSE_VERSION', '3.11', {'pause'}),
                ('KEYSTONE_2026_1_VERSION', '29.1.1', {'keystone-2026.1'}),
                ('GLANCE_VERSION', '33.0.1', {'glance'}),
                ('PLACEMENT_VERSION', '16.0.1', {'placement'}),
                ('NOVA_VERSION', '34.0.1', {'nova', 'nova-compute'}),
                ('NEUTRON_VERSION', '29.0.1', {'neutron'}),
                # nova-compute's earlier release is nova's too.
                ('NOVA_2026_1_VERSION', '33.0.3',
                 {'nova-2026.1', 'nova-compute-2026.1'}),
                ('NEUTRON_2026_1_VERSION', '28.0.3', {'neutron-2026.1'}),
                ('HEAT_VERSION', '28.0.0', set())):
            versions = dict(VERSIONS, **{key: value})
            self.assertEqual(changed, {
                i.name for i in recipes.ALL_IMAGES
                if self.hash(i) != self.hash(i, versions)}, key)

    def test_builder_settings_change_every_image(self):
        before = {i.name: self.hash(i) for i in recipes.IMAGES}
        with mock.patch.object(images, '_DPKG_OPTS', ()):
            after = {i.name: self.hash(i) for i in recipes.IMAGES}
        self.assertFalse(set(before.items()) & set(after.items()))

    def test_the_suite_changes_every_debian_image(self):
        image = recipes.BY_NAME['base']
        self.assertNotEqual(self.hash(image), self.hash(
            image, dict(VERSIONS, DEBIAN_SUITE='trixie')))
        pause = recipes.BY_NAME['pause']
        self.assertEqual(self.hash(pause), self.hash(
            pause, dict(VERSIONS, DEBIAN_SUITE='trixie')))


class ArchivePruneTest(unittest.TestCase):

    def cache_of(self, names):
        """A temporary images cache holding empty archives named names."""
        cache = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, cache)
        for name in names:
            open(os.path.join(cache, name), 'w').close()
        return cache

    def prune(self, cache, image, kept):
        """images._prune of image in cache, keeping its archive kept."""
        with mock.patch.object(images, 'images_cache', return_value=cache):
            images._prune(recipes.BY_NAME[image], os.path.join(cache, kept))

    def test_each_keystone_release_keeps_its_own_archive(self):
        names = ['keystone-30.0.0-0000.tar', 'keystone-30.0.0-1111.tar',
                 'keystone-2025.2-28.1.0-2222.tar',
                 'keystone-2025.2-28.1.0-3333.tar',
                 'keystone-2026.1-29.1.0-4444.tar']
        cache = self.cache_of(names)
        self.prune(cache, 'keystone', names[1])
        self.prune(cache, 'keystone-2025.2', names[3])
        self.assertEqual(sorted(names[1:2] + names[3:]),
                         sorted(os.listdir(cache)))

    def test_nova_keeps_the_compute_images_archive(self):
        # nova-compute-<tag>-<hash>.tar starts with nova's prefix too.
        names = ['nova-34.0.0-0000.tar', 'nova-34.0.0-1111.tar',
                 'nova-compute-34.0.0-2222.tar',
                 'nova-compute-34.0.0-3333.tar']
        cache = self.cache_of(names)
        self.prune(cache, 'nova', names[1])
        self.assertEqual(sorted(names[1:]), sorted(os.listdir(cache)))
        self.prune(cache, 'nova-compute', names[3])
        self.assertEqual([names[1], names[3]], sorted(os.listdir(cache)))


class ConfigurationTest(unittest.TestCase):

    def test_import_changes(self):
        changes = images._import_changes(recipes.BY_NAME['pause'], 'abc')
        self.assertEqual(['LABEL heat-k8s.recipe=abc',
                          'ENTRYPOINT ["/pause"]', 'USER 65535:65535',
                          'ENV PATH=' + recipes.PATH_ENV], changes)
        changes = images._import_changes(recipes.BY_NAME['postgres'], 'abc')
        self.assertIn('CMD ["postgres"]', changes)
        self.assertIn('ENV PGDATA=/var/lib/postgresql/data', changes)
        self.assertIn('EXPOSE 5432/tcp', changes)
        self.assertIn('STOPSIGNAL SIGINT', changes)

    def test_customize_checks_the_debian_version(self):
        script = images._customize_script(recipes.BY_NAME['mariadb'],
                                          VERSIONS)
        self.assertIn('dpkg-query', script)
        self.assertIn('10.11.*)', script)
        script = images._customize_script(recipes.BY_NAME['keystone'],
                                          VERSIONS)
        self.assertIn('python3 -m venv /var/lib/kolla/venv', script)
        self.assertIn('--no-index', script)

    def test_rabbitmq_and_ovn_are_tagged_by_their_debian_packages(self):
        for name, version in (('rabbitmq', '3.10.*)'), ('ovn', '23.03.*)')):
            script = images._customize_script(recipes.BY_NAME[name],
                                              VERSIONS)
            self.assertIn('dpkg-query', script)
            self.assertIn(version, script)
        # The database's name does not follow the container's hostname.
        changes = images._import_changes(recipes.BY_NAME['rabbitmq'], 'abc')
        self.assertIn('ENV RABBITMQ_NODENAME=rabbit@localhost', changes)
        self.assertIn('EXPOSE 5672/tcp', changes)
        # One image, the command picks the daemon: no default one.
        changes = images._import_changes(recipes.BY_NAME['ovn'], 'abc')
        self.assertFalse([c for c in changes if c.startswith('CMD ')])

    def test_pins_agree_with_versions_env(self):
        versions = go.read_versions()
        for image in recipes.ALL_IMAGES:
            recipes.check_pin(image, versions)

    def test_a_pin_that_disagrees_is_refused(self):
        versions = dict(go.read_versions(), WAGTAIL_VERSION='0.1')
        self.assertRaisesRegex(RuntimeError, 'wagtail==0.1',
                               recipes.check_pin, recipes.BY_NAME['wagtail'],
                               versions)


class EnvironmentFileTest(unittest.TestCase):

    def test_localcloud_images_environment(self):
        with open(os.path.join(REPO, 'environments',
                               'localcloud-images.yaml')) as f:
            env = yaml.safe_load(f)
        refs = recipes.refs(go.read_versions())
        repository, version = refs['keystone'].rsplit(':', 1)
        self.assertEqual({
            'keystone_image': repository,
            'keystone_version': version,
            'mariadb_image': refs['mariadb'],
            'memcached_image': refs['memcached'],
            'app_image': refs['wagtail'],
            'db_image': refs['postgres'],
        }, env['parameter_defaults'])

    def test_localcloud_controlplane_images_environment(self):
        # The opt-in images (recipes.OPTIONAL_IMAGES), for
        # templates/controlplane.yaml.
        with open(os.path.join(REPO, 'environments',
                               'localcloud-controlplane-images.yaml')) as f:
            env = yaml.safe_load(f)
        refs = recipes.refs(go.read_versions())
        tag = {name: ref.rsplit(':', 1)[1] for name, ref in refs.items()}
        expected = {'release_tags': {}}
        for name in ('glance', 'placement', 'neutron', 'nova'):
            expected[name + '_image'] = refs[name].rsplit(':', 1)[0]
            expected[name + '_version'] = tag[name]
        for name in ('rabbitmq', 'ovn'):
            expected[name + '_image'] = refs[name]
        # The compute nodes' image, tagged as Nova's (nova_version).
        self.assertEqual(tag['nova'], tag['nova-compute'])
        expected['nova_compute_image'] = refs['nova-compute'].rsplit(
            ':', 1)[0]
        # Each release names every service; nova-compute's tag is Nova's
        # in the earlier series too.
        services = ('keystone', 'glance', 'placement', 'neutron', 'nova')
        earlier = '-' + recipes.UPGRADE_SERIES
        self.assertEqual(tag['nova' + earlier], tag['nova-compute' + earlier])
        for series, suffix in ((recipes.UPGRADE_SERIES, earlier),
                               (venv.NEWEST_SERIES, '')):
            expected['release_tags'][series] = {
                name: tag[name + suffix] for name in services}
        self.assertEqual(expected, env['parameter_defaults'])

    def test_the_templates_have_these_parameters(self):
        for template, names in (
                ('identity.yaml', ('keystone_image', 'keystone_version',
                                   'mariadb_image', 'memcached_image')),
                ('controlplane.yaml', (
                    'keystone_image', 'keystone_version', 'mariadb_image',
                    'memcached_image', 'glance_image', 'glance_version',
                    'placement_image', 'placement_version',
                    'neutron_image', 'neutron_version', 'nova_image',
                    'nova_version', 'rabbitmq_image', 'ovn_image',
                    'nova_compute_image')),
                ('example/app.yaml', ('app_image', 'db_image'))):
            with open(os.path.join(REPO, 'templates', template)) as f:
                params = yaml.safe_load(f)['parameters']
            for name in names:
                self.assertIn(name, params, template)
