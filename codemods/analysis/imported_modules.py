"""Which project modules `importlib.import_module(...)` may return.

A literal names one module (`import_module("pkg.transforms")`, or relative to a literal
`package=`: `import_module(".transforms", package="pkg")`). A literal prefix followed by a
part known only at run time (`import_module("pkg." + name)`, `import_module("." + name,
package="pkg")`, `import_module("pkg." + name + "_dataset")`, `"pkg.{}".format(name)`) names
one of the modules directly inside package `pkg` (whose names end with the literal that
follows, if any): each is a candidate, and the run picks one by that part.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from . import catalog
from .branch_feasibility import bound_values
from .facts import Kind, ModuleFacts, Value, string_literal
from .project import Project
from .refs import ClassRef, FunctionRef


@dataclass(frozen=True)
class ImportedModules:
    """The project modules an `import_module` call may return, each with its name as the
    call spells it."""

    modules: tuple[tuple[str, ModuleFacts], ...]
    #: The part of the module name known only at run time (`name` of `"pkg." + name`): the
    #: last component of the module picked (less `suffix`). None for a literal name.
    picked_by: Value | None = None
    #: The literal that follows that part in the name (`"_dataset"` of
    #: `"pkg." + name + "_dataset"`).
    suffix: str = ""


def module_attribute_lookup(project: Project, value: Value, module: ModuleFacts) -> Value | None:
    """Return the `importlib.import_module(...)` call of `getattr(importlib.import_module(m),
    name)`, if `value` is such a lookup of a name in a module imported at run time."""
    if (
        value.kind is not Kind.CALL
        or value.base is None
        or len(value.args) < 2
        or not project.is_one_of(value.base, module, catalog.GETATTR)
    ):
        return None
    imported = value.args[0]
    if (
        imported.kind is not Kind.CALL
        or imported.base is None
        or not project.is_one_of(imported.base, module, catalog.IMPORT_MODULE)
    ):
        return None
    return imported


def imported_modules(project: Project, call: Value, where: FunctionRef) -> ImportedModules | None:
    """Return the project modules `call` may import, if it is `importlib.import_module(...)`
    of a literal name or of a literal package prefix and a part known only at run time; None
    otherwise (not such a call, or a module of no project package: a library's)."""
    # `module = getattr(module, name)` sees its own binding as an alternative of `module`:
    # it adds nothing to the call the name was first bound to.
    options = [option for option in call.alternatives() if option.kind is not Kind.RECURSIVE]
    if len(options) == 1:
        call = options[0]
    if (
        call.kind is not Kind.CALL
        or call.base is None
        or len(call.args) != 1
        or any(key != "package" for key, _ in call.keywords)
        or not project.is_one_of(call.base, where.module, catalog.IMPORT_MODULE)
    ):
        return None
    package_value = call.keyword("package")
    package = string_literal(package_value) if package_value is not None else ""
    if package is None:
        return None  # a package known only at run time
    templated = _templated_modules(project, call.args[0], package, where)
    if templated is not None:
        return templated
    name = _formatted(call.args[0])
    if name.kind is Kind.CONSTANT:
        text = string_literal(name)
        dotted = _absolute(text, package) if text is not None else None
        module = project.module_named(dotted, where.module) if dotted else None
        return ImportedModules(((dotted, module),)) if dotted and module is not None else None
    if name.kind is not Kind.BINOP or name.name != "+" or len(name.args) != 2:
        return None
    suffix = ""
    first, last = name.args
    if first.kind is Kind.BINOP and first.name == "+" and len(first.args) == 2:
        # `"pkg." + name + "_suffix"`: only the modules whose names end that way.
        suffix = string_literal(last) or ""
        if not suffix or not suffix.replace("_", "a").isalnum():
            return None
        first, last = first.args
    prefix, rest = first, last
    text = string_literal(prefix)
    if text is None or not text.endswith(".") or rest.kind in (Kind.CONSTANT, Kind.INT):
        return None
    parent = _absolute(text[:-1], package) if text != "." else package or None
    if not parent:
        return None
    # Several folders may hold a package of that name (`src/training` and an app's
    # `apps/mode/src/training`): the import finds the modules beside the package it imports.
    package_module = project.module_named(parent, where.module)
    folder = package_module.path.parent if package_module is not None else None
    modules = tuple(
        (submodule, module)
        for submodule in project.sources.submodule_names(parent)
        if len(submodule.rpartition(".")[2]) > len(suffix)
        and submodule.endswith(suffix)
        and (module := project.module_named(submodule, where.module)) is not None
        and (folder is None or module.path.parent == folder or module.path.parent.parent == folder)
    )
    return ImportedModules(modules, rest, suffix) if modules else None


def classes_looked_up(
    project: Project, imported: ImportedModules, attribute: Value | None
) -> tuple[tuple[ClassRef, ...], tuple[str, ...]]:
    """Return the project classes `getattr(<module imported>, attribute)` may be, and the
    names of the modules they are looked up in.

    Any class a candidate module defines at its top level; but when the attribute is the
    very value that picked the module (`getattr(import_module("pkg." + name), name)`), only
    the class each module binds under its own last name (`pkg.kitti.kitti`), and when it is
    a literal (`getattr(module, "TestSet")`), only the class of that name.
    """
    named = string_literal(attribute) if attribute is not None else None
    same = (
        imported.picked_by is not None
        and attribute is not None
        and imported.picked_by.placeless_options() == attribute.placeless_options()
    )
    found: list[tuple[str, list[ClassRef]]] = []
    for name, module in imported.modules:
        if same:
            own = name.rpartition(".")[2].removesuffix(imported.suffix)
            classes = [ClassRef.of(module, cls) for cls in module.classes if cls.qualname == own]
            for value in module.binding(own):
                classes.extend(t for t in project.targets(value, module) if isinstance(t, ClassRef))
        else:
            classes = [
                ClassRef.of(module, cls)
                for cls in module.classes
                if "." not in cls.qualname and named in (None, cls.name)
            ]
        found.append((name, classes))
    return _gathered(found)


def _gathered(
    found: list[tuple[str, list[ClassRef]]],
) -> tuple[tuple[ClassRef, ...], tuple[str, ...]]:
    """Return the classes found in each module, and the names of the modules holding any."""
    held = [(name, classes) for name, classes in found if classes]
    classes = dict.fromkeys(ref for _, refs in held for ref in refs)
    return tuple(classes), tuple(dict.fromkeys(name for name, _ in held))


def imported_attribute_classes(
    project: Project, attribute: Value, where: FunctionRef
) -> tuple[tuple[ClassRef, ...], tuple[str, ...]] | None:
    """Return the project classes `import_module(name).Provider` may be, and the names of
    the modules they are looked up in: the class of that name each module the call may
    import defines at its top level. The module may come from a project function that
    returns the import (`load_file(path).Provider`); imported by a name known only at run
    time (a path from a config), it is any project module defining such a class.

    None if the attribute is not read from a module imported at run time.
    """
    if attribute.kind is Kind.NAME and len(attribute.qualnames) == 1:
        # In top-level code `module.Provider` is summarised as one dotted name.
        held, _, name = attribute.qualnames[0].rpartition(".")
        attribute = Value(Kind.ATTRIBUTE, name=name, base=Value(Kind.NAME, qualnames=(held,)))
    if attribute.kind is not Kind.ATTRIBUTE or attribute.base is None:
        return None
    imports = list(_import_calls(project, attribute.base, where))
    if not imports:
        return None
    wanted = attribute.name
    found: list[tuple[str, list[ClassRef]]] = []
    for call, function in imports:
        imported = imported_modules(project, call, function)
        if imported is not None:
            modules = imported.modules
        elif _formatted(call.args[0]).kind is Kind.CONSTANT:
            continue  # a library's module: none of its classes is the project's
        else:
            modules = tuple(
                (module.module, module) for module in project.modules_mentioning(attribute.name)
            )
        found.extend(
            (name, [ClassRef.of(module, cls) for cls in module.classes if cls.qualname == wanted])
            for name, module in modules
        )
    return _gathered(found)


def _import_calls(
    project: Project, value: Value, where: FunctionRef
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the `importlib.import_module(...)` calls `value` is, directly or as what a
    project function it calls returns, each with the function it is written in."""
    # `module = load_file(path)`, then `module.Provider`, in a script's top-level code.
    for option in bound_values(project, value, where):
        if option.kind is not Kind.CALL or option.base is None:
            continue
        if len(option.args) == 1 and project.is_one_of(
            option.base, where.module, catalog.IMPORT_MODULE
        ):
            yield option, where
        else:
            yield from _returned_imports(project, option, where)


def _returned_imports(
    project: Project, call: Value, where: FunctionRef
) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the imports a project function that `call` calls returns, when it returns
    nothing else."""
    assert call.base is not None
    function = project.function_of(call.base, where.module)
    if function is None:
        return
    returned = [option for ret in function.function.returns for option in ret.alternatives()]
    if returned and all(
        option.kind is Kind.CALL
        and option.base is not None
        and len(option.args) == 1
        and project.is_one_of(option.base, function.module, catalog.IMPORT_MODULE)
        for option in returned
    ):
        yield from ((option, function) for option in returned)


_VARS = frozenset({"builtins.vars"})


def namespace_classes(
    project: Project, values: Value, where: FunctionRef
) -> tuple[tuple[ClassRef, ...], tuple[str, ...]] | None:
    """Return the project classes an element of `values` may be, and the names of the
    modules they are bound in, if `values` is the namespace of a module imported by name:
    `module.__dict__.values()` or `vars(module).values()` (what a loop over
    `module.__dict__.items()` takes its values from), with `module` an `import_module`
    call (see `imported_modules`).

    Any class a candidate module defines at its top level: the loop picks one by a test
    known only at run time. None if `values` is no such namespace, or some module it may
    be is not the project's.
    """
    if (
        values.kind is not Kind.CALL
        or values.args
        or values.keywords
        or values.base is None
        or values.base.kind is not Kind.ATTRIBUTE
        or values.base.name != "values"
        or values.base.base is None
    ):
        return None
    namespace = values.base.base
    if namespace.kind is Kind.ATTRIBUTE and namespace.name == "__dict__":
        modules = namespace.base
    elif (
        namespace.kind is Kind.CALL
        and namespace.base is not None
        and len(namespace.args) == 1
        and project.is_one_of(namespace.base, where.module, _VARS)
    ):
        modules = namespace.args[0]
    else:
        return None
    if modules is None:
        return None
    found: list[ClassRef] = []
    names: list[str] = []
    for option in modules.alternatives():
        imported = imported_modules(project, option, where)
        if imported is None:
            return None
        classes, looked_in = classes_looked_up(project, imported, None)
        found.extend(classes)
        names.extend(looked_in)
    return tuple(dict.fromkeys(found)), tuple(dict.fromkeys(names))


def _templated_modules(
    project: Project, name: Value, package: str, where: FunctionRef
) -> ImportedModules | None:
    """Return the modules `"pkg.settings.{}.{}".format(group, name)` may name: those whose
    names match the template with one name component (or part of one) in each field.

    Only templates with two fields or more, after a literal package prefix; None otherwise
    (one field is read as `"pkg." + name`).
    """
    if (
        name.kind is not Kind.CALL
        or name.base is None
        or name.base.kind is not Kind.ATTRIBUTE
        or name.base.name != "format"
        or name.base.base is None
        or name.keywords
        or package
        or any(arg.kind is Kind.STARRED for arg in name.args)
    ):
        return None
    text = string_literal(name.base.base)
    if text is None or text.count("{}") < 2 or text.count("{") != text.count("{}"):
        return None
    if len(name.args) != text.count("{}"):
        return None
    prefix = text.partition("{}")[0]
    if not prefix.endswith(".") or not _dotted(prefix[:-1]):
        return None
    component = r"[A-Za-z_0-9]+"
    pattern = re.compile(component.join(re.escape(part) for part in text.split("{}")))
    modules = tuple(
        (dotted, module)
        for dotted in project.sources.module_names(prefix)
        if pattern.fullmatch(dotted)
        and (module := project.module_named(dotted, where.module)) is not None
    )
    return ImportedModules(modules) if modules else None


def _formatted(name: Value) -> Value:
    """Return `"pkg." + x + "_suffix"` for `"pkg.{}_suffix".format(x)`; `name` otherwise."""
    template = name.base.base if name.kind is Kind.CALL and name.base is not None else None
    if (
        template is None
        or name.base is None
        or name.base.kind is not Kind.ATTRIBUTE
        or name.base.name != "format"
        or len(name.args) != 1
        or name.keywords
        or name.args[0].kind is Kind.STARRED
    ):
        return name
    text = string_literal(template)
    field = next((field for field in ("{}", "{0}") if text and text.count(field) == 1), None)
    if text is None or field is None or text.count("{") != 1:
        return name
    prefix, _, suffix = text.partition(field)
    joined = Value(Kind.BINOP, name.span, name="+", args=(_text(prefix), name.args[0]))
    if suffix:
        joined = Value(Kind.BINOP, name.span, name="+", args=(joined, _text(suffix)))
    return joined


def _text(text: str) -> Value:
    return Value(Kind.CONSTANT, name=repr(text))


def _absolute(name: str, package: str) -> str | None:
    """Return the absolute module name `import_module(name, package=package)` imports."""
    if not name.startswith("."):
        return name if _dotted(name) else None
    level = len(name) - len(name.lstrip("."))
    parts = package.split(".") if package else []
    if not parts or level > len(parts):
        return None
    base = parts[: len(parts) - level + 1]
    rest = name[level:]
    dotted = ".".join([*base, rest] if rest else base)
    return dotted if _dotted(dotted) else None


def _dotted(name: str) -> bool:
    return all(part.isidentifier() for part in name.split("."))
