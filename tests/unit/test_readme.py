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

"""The README stays short and true: its two commands run what is in the
tree (the demo's script and subcommand, the tox label CI's .ci/run calls),
every tox environment, script, file and directory it names exists, and no
line is longer than 100 characters. Read offline, from the files alone."""

import configparser
import os
import re

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
MAX_LINE = 100
# Paths the README names that a build writes, not the tree.
BUILT = ('doc/build/',)


def read(*path):
    with open(os.path.join(REPO, *path)) as f:
        return f.read()


README = read('README.rst')


def literals(text=README):
    """The inline literals (``...``), whitespace folded."""
    return [' '.join(found.split())
            for found in re.findall(r'``(.+?)``', text, re.S)]


def code_lines(text=README):
    """The lines of the literal blocks (after a line ending in ::)."""
    lines, block = [], False
    for line in text.splitlines():
        if block and line and not line.startswith(' '):
            block = False
        if block and line.strip():
            lines.append(line.strip())
        if line.rstrip().endswith('::') and not line.startswith('..'):
            block = True  # not a directive's (.. contents::)
    return lines


def commands(text=README):
    """Each command of the literal blocks, without its comment."""
    return [line.split(' #')[0].strip() for line in code_lines(text)]


def tox_ini():
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.read_string(read('tox.ini'))
    return parser


def tox_envs():
    parser = tox_ini()
    envs = {name.split(':', 1)[1] for name in parser.sections()
            if name.startswith('testenv:')}
    envs.update(e.strip() for e in parser['tox']['envlist'].split(','))
    return envs


def tox_labels():
    labels = {}
    for line in tox_ini()['tox']['labels'].strip().splitlines():
        name, _, envs = line.partition('=')
        labels[name.strip()] = [e.strip() for e in envs.split(',')]
    return labels


def the_command(comment):
    """The README's command whose comment says `comment`."""
    found = [line.split(' #')[0].strip() for line in code_lines()
             if line.split(' #', 1)[1:] and comment in line.split(' #')[1]]
    assert len(found) == 1, (comment, found)
    return found[0]


def test_no_line_is_longer_than_100_characters():
    assert [(number, len(line))
            for number, line in enumerate(README.splitlines(), 1)
            if len(line) > MAX_LINE] == []


def test_the_two_commands_are_there():
    assert the_command('the example end to end') == 'tools/localcloud demo'
    assert the_command('the whole test suite') == 'tox -p 2 -o -m all'


def test_ci_runs_the_readmes_test_command():
    command = the_command('the whole test suite')
    run = [line.strip() for line in read('.ci', 'run').splitlines()
           if line.strip() and not line.lstrip().startswith('#')]
    calls = [line for line in run
             if re.sub(r'^(time )?(python3 -m )?', '', line).startswith(
                 command)]
    assert calls, '.ci/run no longer runs %r' % command


def test_the_tox_environments_and_labels_named_exist():
    envs, labels = tox_envs(), tox_labels()
    named = set()
    for text in literals() + commands():
        named.update(re.findall(r'\btox(?: -[po] \S+| -o)* -e (\S+)', text))
        for label in re.findall(r'\btox\b.* -m (\S+)', text):
            assert label in labels, label
            assert set(labels[label]) <= envs, label
    # bare environment names (``py3-2025.2``, ``pep8``) too
    named.update(text for text in literals()
                 if re.fullmatch(r'(py3|e2e)(-[\w.]+)?|pep8|docs|'
                                 r'functional|genconfig|devstack', text))
    assert named  # the patterns still see how the README names them
    assert sorted(named - envs) == []


def _scripts():
    script = re.compile(r'(?<![\w/.-])((?:tools|\.ci)/[\w.-]+(?:/[\w.-]+)*)'
                        r'(?=[ ")]|$)')
    return {found for text in literals() + commands()
            for found in script.findall(text)}


def test_the_scripts_named_exist_and_are_executable():
    scripts = {s for s in _scripts()
               if not s.endswith('/') and '.' not in os.path.basename(s)
               and not os.path.isdir(os.path.join(REPO, s))}
    assert 'tools/localcloud' in scripts and '.ci/run' in scripts
    for script in sorted(scripts):
        path = os.path.join(REPO, script)
        assert os.path.isfile(path), script
        assert os.access(path, os.X_OK), script


def test_the_local_clouds_subcommands_named_exist():
    cli = read('tools', 'lc', 'cli.py')
    known = set(re.findall(r"add_parser\(\s*'([\w-]+)'", cli))
    used = {sub for text in literals() + commands()
            for sub in re.findall(r'tools/localcloud (\w[\w-]*)', text)}
    assert 'demo' in used
    assert sorted(used - known) == []


def test_the_demos_stack_is_the_one_named():
    [stack] = re.findall(r"^STACK_NAME = '([\w-]+)'",
                         read('tools', 'lc', 'demo.py'), re.M)
    named = set(re.findall(r'^openstack stack \w+(?: \w+)* ([\w-]+)$',
                           '\n'.join(commands()), re.M))
    assert named == {stack}


def _where_things_are():
    """{directory term: [literals in its description]} of the README's
    "Where things are" definition list."""
    section = README.split('\nWhere things are\n', 1)[1]
    section = section.split('\n=', 1)[0].rsplit('\n', 1)[0]
    items, term = {}, None
    for line in section.splitlines():
        if line and not line.startswith(' '):
            term = tuple(literals(line))
            items.setdefault(term, [])
        elif term is not None:
            items[term].extend(literals(line))
    return items


def _exists(path, bases=('',)):
    return any(os.path.exists(os.path.join(REPO, base, path))
               for base in bases)


def test_the_paths_named_exist():
    def is_path(text):
        return ('/' in text and ' ' not in text and '<' not in text
                and not text.startswith(('~', '/', 'http', 'OS::'))
                and not text.startswith(BUILT))
    links = re.findall(r'`[^`<]*<([^>]+)>`_', README)
    paths = [text for text in literals() + links if is_path(text)]
    paths += [text for line in commands() for text in line.split()
              if is_path(text) and not text.startswith('"')]
    missing = [path for path in paths if not _exists(path)]
    # In "Where things are", a directory's parts are named from it.
    relative = {}
    for terms, named in _where_things_are().items():
        for text in named:
            relative[text] = ('',) + terms
    missing = [path for path in missing
               if not _exists(path, relative.get(path, ('',)))]
    assert len(paths) > 20  # the patterns still see the README's paths
    assert missing == []


def test_the_doc_pages_linked_are_in_the_documentation():
    """A page linked from the README is one Sphinx builds (in a toctree
    of doc/source/index.rst), so it is there in the HTML too."""
    index = read('doc', 'source', 'index.rst')
    toctree = set(re.findall(r'^   (\S+)$', index, re.M))
    pages = {link[len('doc/source/'):-len('.rst')]
             for link in re.findall(r'<(doc/source/[^>]+\.rst)>`_', README)}
    assert {'limitations', 'install', 'localcloud', 'testing'} <= pages
    assert sorted(pages - toctree) == []
