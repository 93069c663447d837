"""Classes looked up by name in a project module the code holds, and copies of objects.

`getattr(module_data, config["loader"]["type"])(...)`, where `module_data` is a project
module (`import pkg.loaders as module_data`), makes an instance of whichever class of that
module the run names: every class the module defines at its top level that can be made is
a candidate. The module is often handed to a helper (`def get_instance(module, name, cfg,
*args): return getattr(module, cfg[name]["type"])(*args)`); the call of the helper then
says which module, and which arguments the instance is made with.

A module's own namespace is looked up the same way: `globals()[cfg.name](...)`,
`globals().get(name)` and `getattr(sys.modules[__name__], name)` may find any class or
function the module defines or imports at its top level.

`copy.deepcopy(x)` and `copy.copy(x)` are instances of the classes `x` is, and a method
returning `self` (or a copy of it) returns an instance of the receiver's class.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import replace

from . import catalog
from .attribute_classes import attribute_constructions
from .candidates import CandidateSource, Construction, DatasetsOf
from .facts import UNKNOWN, Kind, ModuleFacts, Value, literal_key
from .memo import per_project
from .project import Project
from .refs import ClassRef, FunctionRef

_COPIES = frozenset({"copy.copy", "copy.deepcopy"})
_ABSTRACT_METHOD = frozenset({"abc.abstractmethod"})
_ABSTRACT_BASE = frozenset({"abc.ABC"})


def copied(project: Project, value: Value, where: FunctionRef) -> Value | None:
    """Return `x` of a `copy.deepcopy(x)` or `copy.copy(x)` call (None if `value` is none)."""
    if (
        value.kind is not Kind.CALL
        or value.base is None
        or len(value.args) != 1
        or value.args[0].kind is Kind.STARRED
        or not project.is_one_of(value.base, where.module, _COPIES)
    ):
        return None
    return value.args[0]


def returns_receiver(project: Project, value: Value, method: FunctionRef) -> bool:
    """Return True if a method's return value `value` is its own instance, or a copy of it."""
    inner = copied(project, value, method)
    return (inner if inner is not None else value).kind is Kind.SELF


def is_abstract(project: Project, ref: ClassRef) -> bool:
    """Return True if `ref` cannot be instantiated: an `abc.ABC` whose lookup of some method
    still finds one decorated `@abstractmethod`."""
    if not project.derives_from(ref, _ABSTRACT_BASE):
        return False
    names = {name for owner in project.mro(ref) for name, _ in owner.cls.methods}
    for name in names:
        found = project.find_method(ref, name)
        if found is not None and any(
            project.is_one_of(decorator, found[1].module, _ABSTRACT_METHOD)
            for decorator in found[1].function.decorators
        ):
            return True
    return False


def looked_up_instances(
    project: Project,
    value: Value,
    function: FunctionRef,
    call: Value,
    where: FunctionRef,
    on_instance: bool = False,
) -> DatasetsOf | None:
    """Return what `value`, returned by `function`, holds when `call` (in `where`) calls it,
    if `value` makes an instance of a class looked up by name in the module `call` passes
    (`return getattr(module, cfg[name]["type"])(*args)`). `function` is a plain function,
    or, `on_instance`, a method the call runs on an instance (`config.init_obj("dataset",
    module_data)`), whose `self` the call does not pass.

    None if `value` is no such construction: the caller resolves it as usual.
    """
    lookup = _lookup(value)
    if lookup is None or function.function.is_method is not on_instance:
        return None
    holder = lookup.args[0]
    if holder.kind is not Kind.PARAM or holder.name not in function.function.params:
        return None
    skipped = 1 if on_instance else 0
    passed = _argument(function, call, holder.name, skipped)
    if passed is None:
        return DatasetsOf((), False)
    modules = modules_denoted(project, passed, where)
    if not modules:
        return DatasetsOf((), False)  # not a project module: none of its classes is ours
    made = _made_at(value, function, call, skipped)
    if made is None:
        return _instances(project, modules, lookup, value, function)
    return _instances(project, modules, lookup, made, where)


def looked_up_here(project: Project, value: Value, where: FunctionRef) -> DatasetsOf | None:
    """Return what `getattr(module, name)(...)` makes for a project module named in `where`
    itself (`module_data` of `import pkg.loaders as module_data`); None if `value` is not
    such a construction."""
    lookup = _lookup(value)
    if lookup is None:
        return None
    modules = modules_denoted(project, lookup.args[0], where)
    if not modules:
        return None
    return _instances(project, modules, lookup, value, where)


def looked_up_constructions(project: Project, ref: ClassRef) -> tuple[Construction, ...]:
    """Return the calls that may make an instance of `ref` by looking its class up by name in
    its module: in the code that names the module, or, in a helper that is handed the
    module, as each call of the helper passing that module makes it."""
    return _constructions(project).get(ref, ())


def constructions_of(project: Project, ref: ClassRef) -> tuple[Construction, ...]:
    """Return the calls that make an instance of `ref`: its constructor calls, those made
    through an attribute holding its class (`self.dataset(...)` after `self.dataset =
    Tiles`), and those that look its class up by name (`globals()[cfg.name](...)`)."""
    direct = ((site.call, site.function) for site in project.callers(ref))
    held = attribute_constructions(project, ref)
    return tuple(dict.fromkeys((*direct, *held, *looked_up_constructions(project, ref))))


@per_project
def _constructions(project: Project) -> dict[ClassRef, tuple[Construction, ...]]:
    found: dict[ClassRef, list[Construction]] = {}
    for function in project.functions_mentioning("getattr", "__dict__", "vars", "globals"):
        for call in function.function.calls:
            for ref, site in _made_by(project, call, function):
                found.setdefault(ref, []).append(site)
    return {ref: tuple(dict.fromkeys(sites)) for ref, sites in found.items()}


def _made_by(
    project: Project, call: Value, function: FunctionRef
) -> Iterator[tuple[ClassRef, Construction]]:
    lookup = _lookup(call)
    if lookup is None:
        return
    holder = lookup.args[0]
    modules = modules_denoted(project, holder, function)
    if modules:
        for ref in _candidates(project, modules, lookup):
            yield ref, (call, function)
        return
    facts = function.function
    if holder.kind is not Kind.PARAM or facts.class_qualname is not None or facts.nested:
        return
    for site in project.callers(function):
        passed = _argument(function, site.call, holder.name)
        if passed is None:
            continue
        modules = modules_denoted(project, passed, site.function)
        made = _made_at(call, function, site.call)
        for ref in _candidates(project, modules, lookup):
            yield ref, (call, function) if made is None else (made, site.function)


def modules_denoted(project: Project, value: Value, where: FunctionRef) -> tuple[ModuleFacts, ...]:
    """Return the project modules a name denotes (`module_data` of `import pkg.loaders as
    module_data`, or the module `where` is in for its own namespace); () if it denotes
    anything else."""
    if _is_own_namespace(value):
        return (where.module,)
    if value.kind is not Kind.NAME:
        return ()
    found = [
        module
        for qualname in value.qualnames
        if (module := project.module_named(qualname, where.module)) is not None
    ]
    return tuple(dict.fromkeys(found))


def looked_up_functions(
    project: Project, lookup: Value, where: FunctionRef
) -> tuple[tuple[FunctionRef, ...], tuple[str, ...]] | None:
    """Return the plain project functions a lookup by name in a project module written in
    `where` may find (`globals()[cfg.name]`, `getattr(module_data, name)`), and the names
    of the modules it looks in; None if `lookup` is no such lookup."""
    found = _as_getattr(lookup)
    if found is None:
        return None
    modules = modules_denoted(project, found.args[0], where)
    if not modules:
        return None
    may_find = _names_found(found.args[1])
    functions = [
        function
        for module in modules
        for bound, function in _module_functions(project, module)
        # A factory that returns what it looks up may find itself: that adds nothing.
        if function != where and may_find(bound)
    ]
    return tuple(dict.fromkeys(functions)), tuple(module.module for module in modules)


def _module_functions(project: Project, module: ModuleFacts) -> Iterator[tuple[str, FunctionRef]]:
    """Yield the plain functions `module` defines or imports at its top level, each with
    the name it binds them to."""
    for name in sorted(module.module_names):
        function = module.function(name)
        if function is not None and not function.is_method:
            yield name, FunctionRef.of(module, function)
    for bound, values in module.bindings:
        for value in values:
            if value.kind is not Kind.NAME:
                continue
            for target in project.targets(value, module):
                if isinstance(target, FunctionRef) and project.class_of_function(target) is None:
                    yield bound, target


def _lookup(value: Value) -> Value | None:
    """Return the `getattr(holder, name)` call that `value` calls, if it is one (see
    `_as_getattr`)."""
    if value.kind is not Kind.CALL or value.base is None:
        return None
    return _as_getattr(value.base)


def _as_getattr(lookup: Value) -> Value | None:
    """Return `lookup` as the `getattr(holder, name)` call it amounts to, if it is a lookup
    by name: that call itself, or one spelled `holder.__dict__[name]`, `vars(holder)[name]`
    or `globals()[name]`, or with `.get(name)` in place of the subscript."""
    if lookup.kind is Kind.SUBSCRIPT and lookup.base is not None and len(lookup.args) == 1:
        holder = _namespace_holder(lookup.base)
        if holder is None:
            return None
        return Value(Kind.CALL, lookup.span, base=_GETATTR_NAME, args=(holder, lookup.args[0]))
    getter = lookup.base
    if (
        lookup.kind is Kind.CALL
        and getter is not None
        and getter.kind is Kind.ATTRIBUTE
        and getter.name == "get"
        and getter.base is not None
        and len(lookup.args) in (1, 2)
        and not lookup.keywords
        and lookup.args[0].kind is not Kind.STARRED
    ):
        holder = _namespace_holder(getter.base)
        if holder is None:
            return None
        return Value(Kind.CALL, lookup.span, base=_GETATTR_NAME, args=(holder, lookup.args[0]))
    if (
        lookup.kind is not Kind.CALL
        or lookup.base is None
        or not catalog.GETATTR & set(lookup.base.qualnames)
        or len(lookup.args) not in (2, 3)
        or lookup.keywords
        or any(arg.kind is Kind.STARRED for arg in lookup.args)
    ):
        return None
    return lookup


#: What a lookup spelled as a subscript of a namespace stands for.
_GETATTR_NAME = Value(Kind.NAME, qualnames=("builtins.getattr",))
_VARS = frozenset({"builtins.vars"})
_GLOBALS = "builtins.globals"


def _is_own_namespace(value: Value) -> bool:
    """Return True for `globals()` or `sys.modules[__name__]`: the namespace of the module
    the code is written in."""
    if value.is_call_to(_GLOBALS):
        return not value.args and not value.keywords
    return (
        value.kind is Kind.SUBSCRIPT
        and value.base is not None
        and "sys.modules" in value.base.qualnames
        and len(value.args) == 1
        and "builtins.__name__" in value.args[0].qualnames
    )


def _namespace_holder(value: Value) -> Value | None:
    """Return `holder` of `holder.__dict__` or `vars(holder)`, if `value` is one of them;
    `globals()` holds its own module's names."""
    if _is_own_namespace(value):
        return value
    if value.kind is Kind.NAME and len(value.qualnames) == 1:
        owner, _, attribute = value.qualnames[0].rpartition(".")
        if attribute == "__dict__" and owner:
            return replace(value, qualnames=(owner,))
    if value.kind is Kind.ATTRIBUTE and value.name == "__dict__" and value.base is not None:
        return value.base
    if (
        value.kind is Kind.CALL
        and value.base is not None
        and _VARS & set(value.base.qualnames)
        and len(value.args) == 1
        and value.args[0].kind is not Kind.STARRED
    ):
        return value.args[0]
    return None


def _instances(
    project: Project,
    modules: tuple[ModuleFacts, ...],
    lookup: Value,
    call: Value,
    where: FunctionRef,
) -> DatasetsOf:
    classes = _candidates(project, modules, lookup)
    sources = tuple(CandidateSource("module", module.module) for module in modules)
    if len(classes) < 2:
        sources = ()  # the name is a literal: no choice is made at run time
    return DatasetsOf(
        classes, True, made=tuple((ref, (call, where)) for ref in classes), sources=sources
    )


def _candidates(
    project: Project, modules: tuple[ModuleFacts, ...], lookup: Value
) -> tuple[ClassRef, ...]:
    """Return the classes of `modules` the lookup may find that can be instantiated: the one
    a literal name names, or, for a name known only at run time, every top-level class."""
    may_find = _names_found(lookup.args[1])
    found = [
        ClassRef.of(module, cls)
        for module in modules
        for cls in module.classes
        if "." not in cls.qualname and may_find(cls.name)
    ]
    # A package's `__init__` that imports its classes (`from .mae import MAETrainer`) holds
    # them as attributes too.
    found.extend(
        target
        for module in modules
        for bound, values in module.bindings
        if may_find(bound)
        for value in values
        if value.kind is Kind.NAME
        for target in project.targets(value, module)
        if isinstance(target, ClassRef)
    )
    return tuple(ref for ref in dict.fromkeys(found) if not is_abstract(project, ref))


def _names_found(value: Value) -> Callable[[str], bool]:
    """Return a test of the names a lookup by `value` may find: the one a literal names,
    those starting with a literal prefix (`globals()["run_" + args.type]`), else any."""
    name = _literal_name(value)
    if name is not None:
        return lambda bound: bound == name
    prefix = (
        _literal_name(value.args[0]) if value.kind is Kind.BINOP and value.name == "+" else None
    )
    if prefix is not None:
        return lambda bound: bound.startswith(prefix)
    return lambda bound: True


def _literal_name(value: Value) -> str | None:
    if value.kind is not Kind.CONSTANT or not value.name:
        return None
    try:
        name = ast.literal_eval(value.name)
    except (ValueError, SyntaxError):
        return None
    return name if isinstance(name, str) else None


def _made_at(call: Value, helper: FunctionRef, site: Value, skipped: int = 0) -> Value | None:
    """Return construction `call` in `helper` as the helper's call `site` makes it: the
    helper's `*args` replaced by what `site` passes there, its literals kept, and anything
    else it reads unknown at `site`. None if `site` spreads arguments of its own. The
    first `skipped` parameters (a method's `self`) are not passed by `site`."""
    if any(arg.kind is Kind.STARRED for arg in site.args) or any(
        key is None for key, _ in site.keywords
    ):
        return None
    facts = helper.function
    named = facts.params[skipped : facts.positional_count]
    args: list[Value] = []
    for arg in call.args:
        if arg.kind is not Kind.STARRED:
            args.append(arg if literal_key(arg) is not None else UNKNOWN)
        elif arg.base is not None and arg.base.kind is Kind.PARAM and arg.base.name not in named:
            args.extend(site.args[len(named) :])  # the helper's `*args`
        else:
            return None
    keywords: list[tuple[str | None, Value]] = []
    for key, value in call.keywords:
        if key is not None:
            keywords.append((key, value if literal_key(value) is not None else UNKNOWN))
        elif value.kind is Kind.PARAM and facts.has_var_keyword and value.name == facts.params[-1]:
            keywords.extend((k, v) for k, v in site.keywords if k not in facts.params)
        else:
            keywords.append((None, UNKNOWN))  # a dict read in the helper: unknown here
    return replace(call, args=tuple(args), keywords=tuple(keywords), span=site.span)


def _argument(function: FunctionRef, call: Value, param: str, skipped: int = 0) -> Value | None:
    """Return the argument `call` passes `function` for `param`, past the first `skipped`
    parameters (a method's `self`), which the call does not pass."""
    facts = function.function
    passed = call.keyword(param)
    if passed is not None:
        return passed
    index = facts.params.index(param) - skipped
    if index < 0 or index >= facts.positional_count - skipped:
        return None
    for position, argument in enumerate(call.args):
        if argument.kind is Kind.STARRED:
            return None
        if position == index:
            return argument
    return None
