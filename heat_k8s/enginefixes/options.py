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

"""The operator's switches: ``[heat_k8s_engine_fixes]``.

A group of its own, so that an operator reads in one place what the
plugin changes in Heat's engine. Each fix that repairs a Heat bug is on by
default; a fix that changes what Heat does for every stack is off unless
turned on (``strandfix``). The pacing options were ``[kubernetes]``
options before; those names still work, deprecated.
"""

from oslo_config import cfg

GROUP = 'heat_k8s_engine_fixes'
OLD_GROUP = 'kubernetes'


def _switch(name, default, what):
    return cfg.BoolOpt(name, default=default, help=(
        '%s. heat-engine logs at start whether it applied it, and why '
        'not. See heat_k8s/enginefixes/%s.py and its upstream patch in '
        'heat_k8s/enginefixes/patches/.' % (what, name)))


def _moved(kind, name, default, what):
    # The name too, though unchanged: the sample then shows the old place.
    return kind(name, default=default, min=0, deprecated_group=OLD_GROUP,
                deprecated_name=name, help=what)


engine_fix_opts = [
    _switch('astfix', True,
            "Serialise ast.parse, which Heat's sync points call from many "
            'threads, on CPython 3.11.0-3.11.7 and 3.12.0-3.12.1, whose '
            'AST constructor races (CPython gh-106905)'),
    _switch('yaqlfix', True,
            "Serialise the parsing of Heat's yaql function, whose one "
            "parser the engine's threads share (Heat 25 and later)"),
    _switch('preemptfix', True,
            'Keep a rollback from cancelling its own nested stack update '
            '(StackResource.handle_preempt cancels only an update that '
            'began before the current traversal)'),
    _switch('purgefix', True,
            'Keep a traversal that completes twice from failing its stack '
            'when it purges a template that is still referenced'),
    _switch('leafpace', True,
            "Make Heat's one-second pause between a traversal's "
            'independent resources the leaf_trigger_interval option '
            "below (the default is Heat's own pause)"),
    _switch('threadfix', True,
            "Take a stack's finished threads out of its thread group, "
            'which Heat 25 and later keep, with the stack, until the '
            'group stops'),
    _switch('eventfix', True,
            "Dispatch a stack's events without a thread when it has no "
            'event sinks, and in the caller\'s thread when its thread group '
            'is full, rather than fail the resource (Heat 25 and later)'),
    _switch('cryptfix', True,
            'With encrypt_parameters_and_properties: encrypt a hidden '
            'parameter whose value is not text (a json map or list, a '
            'number, a boolean) as its JSON text and read it back as that '
            "value. Heat's encryption takes text only, so storing such a "
            "stack fails (a nested stack's delete)"),
    _switch('strandfix', False,
            'Mark FAILED a convergence stack left IN_PROGRESS by a '
            'heat-engine that died while it checked one of its resources '
            '(Heat recovers only legacy stacks from a dead engine). This '
            'changes what Heat does for every stack of the cloud, so it '
            'is off unless turned on'),
    _switch('dupkeyfix', True,
            'Refuse a template or environment that writes a key twice in '
            "one mapping, naming the key and its lines (Heat's YAML and "
            'JSON parsers keep the last value in silence). heat-api '
            'applies it when its paste pipeline has the heat_k8s filter'),
    _moved(
        cfg.FloatOpt, 'leaf_trigger_interval', 1.0,
        'With leafpace: seconds heat-engine pauses after starting '
        'each resource that depends on no other when a stack create, '
        'update or delete begins. Heat pauses 1 s (bug 1566845: a big '
        "stack's first check_resource messages reach the engine "
        'workers spread out), so N independent resources take at '
        'least N seconds to start. A lower value starts them sooner; '
        'the install guide gives the value tested with 400 '
        'independent resources. Applies to every stack of the '
        'engine.'),
    _moved(
        cfg.IntOpt, 'stranded_check_interval', 30,
        'With strandfix: every this many seconds each heat-engine '
        'worker looks for convergence stacks left IN_PROGRESS by a '
        'heat-engine that died while it checked one of their '
        'resources. Such a stack, unchanged for this long, is marked '
        'FAILED, naming the engine and the resources, so that a retry '
        '(stack update --existing, or delete again) recovers it. 0 '
        'turns the check off.'),
]

cfg.CONF.register_opts(engine_fix_opts, group=GROUP)


def enabled(name, conf=cfg.CONF):
    """Whether the operator leaves fix `name` on."""
    return conf[GROUP][name]


def list_opts():
    yield GROUP, engine_fix_opts
