"""Constructor calls that a factory makes with the arguments its caller handed on.

`def get_dataset(self, *args, **kwargs): return ACDC(self, *args, **kwargs)` builds its
dataset with whatever `param.get_dataset(split="test")` passed: seen from that call, the
construction is `ACDC(<self>, split="test")`. So does `def get(args, mode): return
ACDC(args, mode=mode)`, called as `get(args, mode="test")`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from .branch_feasibility import constrained
from .branch_records import option_subject
from .candidates import Construction, DatasetsOf
from .facts import UNKNOWN, Kind, Value, literal_key, mentions_param
from .refs import FunctionRef

if TYPE_CHECKING:
    from .project import Project


def through_splats(
    found: DatasetsOf, callee: FunctionRef, call: Value, where: FunctionRef, bound: int
) -> DatasetsOf:
    """Return `found` (what `callee` returns when `call` in `where` calls it) with the
    constructions `callee` makes from its own `*args` / `**kwargs` seen as made by `call`.

    `bound`: how many leading parameters of `callee` the call binds itself (1 for the
    `self` of a method called on an instance).
    """
    if not found.made:
        return found
    made = tuple(
        (ref, _substituted(site, callee, call, where, bound) or site) for ref, site in found.made
    )
    return replace(found, made=made)


def _substituted(
    site: Construction, callee: FunctionRef, call: Value, where: FunctionRef, bound: int
) -> Construction | None:
    inner, inner_where = site
    function = callee.function
    if inner_where != callee or call.span is None:
        return None
    if any(arg.kind is Kind.STARRED for arg in call.args) or any(
        key is None for key, _ in call.keywords
    ):
        return None  # the caller's own splats: nothing more is known
    named = function.params[: function.positional_count]
    var_positional = _splatted(inner.args, function.params, named)
    var_keyword = [value for key, value in inner.keywords if key is None]
    if var_positional is None or len(var_keyword) > 1:
        return None
    own_keywords = bool(var_keyword) and (
        function.has_var_keyword
        and var_keyword[0].kind is Kind.PARAM
        and var_keyword[0].name == function.params[-1]
    )
    handed = _handed_parameters(inner, callee, call, bound, where)
    if not own_keywords and var_positional == "":
        if not handed:
            return None  # nothing is handed on
        # Only literals are handed on: the construction stays where it is written, and the
        # arguments the factory writes itself (`transform=Compose([Cutout()])`, a local
        # `**options`, which cannot give `mode=mode` again) are read there.
        return (
            replace(
                inner,
                args=tuple(_handed(arg, handed) for arg in inner.args),
                keywords=tuple((key, _handed(value, handed)) for key, value in inner.keywords),
            ),
            inner_where,
        )
    if var_keyword and not own_keywords:
        return None
    extra_positional = call.args[max(len(named) - bound, 0) :] if var_positional else ()
    extra_keywords = (
        tuple((key, value) for key, value in call.keywords if key not in function.params)
        if var_keyword
        else ()
    )
    args: list[Value] = []
    for arg in inner.args:
        if arg.kind is Kind.STARRED:
            args.extend(extra_positional)
        else:
            args.append(handed.get(arg.name, _kept(arg)) if arg.kind is Kind.PARAM else _kept(arg))
    keywords = tuple(
        (key, handed.get(value.name, _kept(value)) if value.kind is Kind.PARAM else _kept(value))
        for key, value in inner.keywords
        if key is not None
    )
    substituted = replace(
        inner, args=tuple(args), keywords=(*keywords, *extra_keywords), span=call.span
    )
    return substituted, where


def _handed(argument: Value, handed: dict[str, Value]) -> Value:
    """Return the literal a call hands on for parameter `argument`, else `argument`."""
    return handed.get(argument.name, argument) if argument.kind is Kind.PARAM else argument


def _handed_parameters(
    inner: Value, callee: FunctionRef, call: Value, bound: int, where: FunctionRef
) -> dict[str, Value]:
    """Return the literals `call` (in `where`) passes for the parameters of `callee` that
    the construction `inner` hands on as they are (`Dataset(root, mode=mode)` in
    `def get(root, mode)`): a literal, or the literals an `if` or `assert` before the call
    pins a parameter or option to (`assert args.task in ["val", "test"]`)."""
    function = callee.function
    named = function.params[: function.positional_count]
    used = {
        value.name
        for value in (*inner.args, *(value for _, value in inner.keywords))
        if value.kind is Kind.PARAM and value.name in function.params
    }
    handed: dict[str, Value] = {}
    for param in used:
        passed = call.keyword(param)
        index = named.index(param) - bound if param in named else -1
        if passed is None and 0 <= index < len(call.args):
            passed = call.args[index]
        # Only a literal is known where the caller is (anything else is read there).
        if passed is not None and literal_key(passed) is not None:
            handed[param] = passed
        elif passed is not None:
            pinned = _pinned_literals(passed, where, call)
            if pinned is not None:
                handed[param] = pinned
    return handed


def _pinned_literals(passed: Value, where: FunctionRef, call: Value) -> Value | None:
    """Return the literals an `if` / `assert` before `call` in `where` pins `passed` (a
    parameter or `param.attr` it never rebinds) to: one literal, or their alternatives."""
    subject = passed.name if passed.kind is Kind.PARAM else option_subject(passed)
    if subject is None or call.span is None or _rebound(where, subject):
        return None
    known = constrained(where, subject, call.span)
    if known is None or not known.one_of:
        return None
    options = tuple(Value(Kind.CONSTANT, name=key) for key in sorted(known.one_of))
    return options[0] if len(options) == 1 else Value(Kind.ALTERNATIVES, args=options)


def _rebound(where: FunctionRef, subject: str) -> bool:
    """Return True if `where` assigns the name or attribute `subject` (or the name that
    holds the attribute: `args = ...`) anywhere."""
    names = {subject, subject.partition(".")[0]}
    return any(assignment.target in names for assignment in where.function.assignments)


def _splatted(
    args: tuple[Value, ...], params: tuple[str, ...], named: tuple[str, ...]
) -> str | None:
    """Return the name of the `*args` parameter `args` splats ("" if none; None if `args`
    splats anything else, or splats it before other positional arguments)."""
    found = ""
    for index, arg in enumerate(args):
        if arg.kind is not Kind.STARRED:
            continue
        base = arg.base
        if (
            found
            or index != len(args) - 1
            or base is None
            or base.kind is not Kind.PARAM
            or base.name not in params
            or base.name in named
        ):
            return None
        found = base.name
    return found


def _kept(value: Value) -> Value:
    """An argument the factory writes itself: a literal stays, anything else is read in the
    factory, not where the caller is, and is unknown there."""
    return value if literal_key(value) is not None else UNKNOWN


def forwarded_to_builder(
    project: Project, found: DatasetsOf, callee: FunctionRef, call: Value, where: FunctionRef
) -> DatasetsOf:
    """Return `found` with the keywords `call` passes into the `**kwargs` of `callee`, a
    factory that hands them to a registry's builder (`build_dataset(cfg, train=False)` with
    `for key, value in kwargs.items(): default_args[key] = value`), seen as passed to the
    constructor of each class picked from the registry.

    A candidate whose `__init__` takes none of a keyword is left as it was; the rest of the
    constructor's arguments stay unknown (the configuration gives them).
    """
    function = callee.function
    if (
        not found.registries
        or not function.has_var_keyword
        or not any(mentions_param(call, function.params[-1]) for call in function.calls)
        or any(key is None for key, _ in call.keywords)
    ):
        return found
    handed = tuple((key, value) for key, value in call.keywords if key not in function.params)
    if not handed:
        return found
    built = {ref for ref, _ in found.made}
    made = list(found.made)
    for ref in found.classes:
        init = project.find_method(ref, "__init__")
        if ref in built or init is None:
            continue
        takes = init[1].function
        if not takes.has_var_keyword and not all(key in takes.params for key, _ in handed):
            continue  # it would raise on a keyword it does not take: not built here
        seen = Value(Kind.CALL, call.span, base=call.base, keywords=(*handed, (None, UNKNOWN)))
        made.append((ref, (seen, where)))
    return replace(found, made=tuple(made))
