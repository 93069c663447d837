"""Classes made from a dotted class-name string: `construct_class_by_name(class_name=...)`.

A project function may make an instance of a class it finds by name with `importlib`
(`construct_class_by_name(*args, class_name="pkg.data.ImageSet", **kwargs)` of the
StyleGAN code bases, which calls `call_func_by_name(func_name=class_name)`, which calls
the object `get_obj_by_name(func_name)` returns). A call of such a function makes the class
its literal names; given the name through a dict (`**dataset_kwargs`) or a variable, the
candidates are the project's Dataset classes that the project's own code names by a
dotted-path literal under that parameter's name (`EasyDict(class_name="pkg.data.ImageSet")`,
`{"class_name": ...}`). Names of classes outside the project name nothing of ours.
"""

from __future__ import annotations

from . import catalog
from .candidates import CandidateSource, DatasetsOf
from .config_files import config_strings_under
from .facts import Kind, Value, string_literal
from .imported_modules import module_attribute_lookup
from .memo import per_project
from .project import Project
from .refs import ClassRef, FunctionRef

#: How many project functions deep a name is followed to the call that imports by it.
_MAX_DEPTH = 4


def named_class_datasets(project: Project, call: Value, where: FunctionRef) -> DatasetsOf | None:
    """Return the candidate Dataset classes if `call` makes an instance of a class named by
    a dotted string (see the module docstring); None if it is no such call, or the names it
    may be given name no Dataset of the project."""
    if call.kind is not Kind.CALL or call.base is None:
        return None
    functions = [t for t in project.targets(call.base, where.module) if isinstance(t, FunctionRef)]
    if len(functions) != 1:
        return None
    function = functions[0]
    parameter = _constructing_parameter(project, function, 0)
    if parameter is None:
        return None
    passed = _passed_value(call, function, parameter)
    if passed is False:
        return None  # not given: the parameter's default names no class of ours
    names = _literals(passed) if isinstance(passed, Value) else None
    sources: tuple[CandidateSource, ...] = ()
    if names is None:
        # Given through `**kwargs` or a name known only at run time: any of the names the
        # project gives that parameter.
        names = named_under(project, parameter)
        sources = (CandidateSource("names", function.function.name, parameter),)
    from .datasets import is_dataset  # datasets resolves through this module

    classes = tuple(
        dict.fromkeys(
            ref
            for name in names
            for ref in project.resolve(name, where.module)
            if isinstance(ref, ClassRef) and is_dataset(project, ref)
        )
    )
    if not classes:
        return None
    made = tuple((ref, (call, where)) for ref in classes)
    return DatasetsOf(classes, True, made=made, sources=sources)


def _constructing_parameter(project: Project, function: FunctionRef, depth: int) -> str | None:
    """Return the parameter of `function` naming the class whose instance it returns: it
    returns the call of what a project function that imports by name finds for it
    (`return get_obj_by_name(func_name)(*args, **kwargs)`), or the result of another such
    function given it (`return call_func_by_name(func_name=class_name, **kwargs)`)."""
    if depth > _MAX_DEPTH:
        return None
    for returned in function.function.returns:
        for option in returned.alternatives():
            if option.kind is not Kind.CALL or option.base is None:
                continue
            made = option.base
            if made.kind is Kind.CALL and made.base is not None:
                for param, callee in _parameters_passed(project, made, function):
                    if _imports_by(project, callee, depth + 1):
                        return param
                named = _looked_up_by_name(project, made, function)
                if named is not None:
                    return named
                continue
            for param, callee in _parameters_passed(project, option, function):
                if _constructing_parameter(project, callee, depth + 1) == _received(
                    option, callee, param
                ):
                    return param
    return None


def _looked_up_by_name(project: Project, made: Value, function: FunctionRef) -> str | None:
    """Return the parameter a `getattr(importlib.import_module(module_path), name)` lookup
    in `function` is derived from (`module_path = path.rpartition(".")[0]`), if it is one."""
    imported = module_attribute_lookup(project, made, function.module)
    if imported is None or len(made.args) != 2:
        return None
    unpacked = {name: value for name, _, _, value in function.function.unpacked}
    params = {name for arg in (*imported.args, made.args[1]) for name in _params_in(arg, unpacked)}
    return params.pop() if len(params) == 1 else None


def _params_in(value: Value, unpacked: dict[str, Value]) -> set[str]:
    """Return the names of the parameters an expression is computed from, also through names
    unpacked from one (`module_path, _, name = path.rpartition(".")`)."""
    if value.kind is Kind.PARAM:
        return {value.name}
    if value.kind is Kind.UNKNOWN and value.name in unpacked:
        return _params_in(unpacked.pop(value.name), unpacked)
    found: set[str] = set()
    parts = [*value.args, *(item for _, item in value.keywords)]
    if value.base is not None:
        parts.append(value.base)
    for part in parts:
        found |= _params_in(part, unpacked)
    return found


def _imports_by(project: Project, function: FunctionRef, depth: int) -> bool:
    """Return True if `function` imports a module whose name is known only at run time, or
    passes its parameter to a project function that does (`get_obj_by_name(name)` calls
    `get_module_from_obj_name(name)`, which calls `importlib.import_module(module_name)`)."""
    if depth > _MAX_DEPTH:
        return False
    for call in function.function.calls:
        if (
            call.base is not None
            and call.args
            and call.args[0].kind is not Kind.CONSTANT
            and project.is_one_of(call.base, function.module, catalog.IMPORT_MODULE)
        ):
            return True
    return any(
        _imports_by(project, callee, depth + 1)
        for call in function.function.calls
        for _, callee in _parameters_passed(project, call, function)
    )


def _parameters_passed(
    project: Project, call: Value, where: FunctionRef
) -> list[tuple[str, FunctionRef]]:
    """Return the parameters of `where` that `call` passes as they are, each with the one
    project function `call` calls."""
    if call.base is None:
        return []
    targets = [t for t in project.targets(call.base, where.module) if isinstance(t, FunctionRef)]
    if len(targets) != 1:
        return []
    passed = [*call.args, *(value for name, value in call.keywords if name is not None)]
    return [(value.name, targets[0]) for value in passed if value.kind is Kind.PARAM]


def _received(call: Value, callee: FunctionRef, param: str) -> str | None:
    """Return the parameter of `callee` that `call` gives the caller's parameter `param`."""
    for name, value in call.keywords:
        if name is not None and value.kind is Kind.PARAM and value.name == param:
            return name
    facts = callee.function
    for index, value in enumerate(call.args):
        if value.kind is Kind.STARRED or index >= facts.positional_count:
            break
        if value.kind is Kind.PARAM and value.name == param:
            return facts.params[index]
    return None


def _passed_value(call: Value, function: FunctionRef, parameter: str) -> Value | bool | None:
    """Return what `call` passes to `parameter` of `function`; None if it may come from a
    `**` or `*` argument, False if it is not passed."""
    value = call.keyword(parameter)
    if value is not None:
        return value
    facts = function.function
    index = facts.params.index(parameter)
    for position, argument in enumerate(call.args):
        if argument.kind is Kind.STARRED:
            return None
        if position == index and position < facts.positional_count:
            return argument
    return None if any(name is None for name, _ in call.keywords) else False


def _literals(value: Value) -> tuple[str, ...] | None:
    """Return the dotted names `value` may be, if it may only be string literals."""
    found: list[str] = []
    for option in value.alternatives():
        text = string_literal(option) if option.kind is Kind.CONSTANT else None
        if text is None:
            return None
        found.append(text)
    return tuple(found)


@per_project
def named_under(project: Project, key: str) -> tuple[str, ...]:
    """Return the dotted-path literals the project's code gives under `key`: as keyword
    `key=` of a call (`EasyDict(class_name=name)`, with `name` a literal on some path) or as
    the entry `"key"` of a dict literal."""
    found: list[str] = []
    for module in project.modules_mentioning(key):
        for function in module.functions:
            values = [
                value for call in function.calls for name, value in call.keywords if name == key
            ]
            values.extend(
                entry
                for assignment in function.assignments
                for option in assignment.value.alternatives()
                if option.kind is Kind.DICT
                for name, entry in option.keywords
                if name == key
            )
            for value in values:
                for option in value.alternatives():
                    text = string_literal(option) if option.kind is Kind.CONSTANT else None
                    if text is not None and "." in text:
                        found.append(text)
    # A configuration file's entry (`[train_dataset] path = "dataset_train.Dataset"`).
    found.extend(
        text for _, text in config_strings_under(project, key) if "." in text and " " not in text
    )
    return tuple(dict.fromkeys(found))
