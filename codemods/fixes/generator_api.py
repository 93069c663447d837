"""Rewrite a call to a legacy `numpy.random` function as a call on a `numpy.random.Generator`.

The mapping is not a rename everywhere. `rand(d0, d1)` takes its dimensions one by one,
`random((d0, d1))` takes a shape; `randint` returns a Python `int` (and `numpy.int_` arrays),
which `integers` does only with `dtype=int`; `random_integers` includes its upper bound and
reads a missing `high` as `[1, low]`. Every other draw keeps its name and its parameter names.
The table-driven test in tests/test_generator_api.py checks each mapping against NumPy.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..analysis import catalog
from ..analysis.facts import Kind, Value
from ..types import AddKeyword, Edit, PackArguments, ReplaceExpression, Safety, Span

#: Legacy functions that take their shape as separate arguments: `rand(2, 3)`.
SHAPE_ARGUMENTS = {"rand": "random", "randn": "standard_normal"}
#: Legacy functions whose Generator method has another name (arguments unchanged).
RENAMED = {
    "random_sample": "random",
    "ranf": "random",
    "sample": "random",
    "randint": "integers",
    "random_integers": "integers",
}
#: Legacy functions that touch the global state: a Generator has nothing to match them.
NO_EQUIVALENT = catalog.NUMPY_LEGACY_STATE


@dataclass(frozen=True)
class Rewrite:
    """The edits that turn one legacy call into a Generator call."""

    edits: tuple[Edit, ...]
    safety: Safety
    #: What the call becomes, for fix titles: "`rng.random((d0, d1))`".
    summary: str
    #: Why the rewrite is unsafe (empty when it is safe).
    caveat: str = ""


@dataclass(frozen=True)
class NoRewrite:
    """Why a legacy call cannot be rewritten."""

    reason: str


def generator_method(name: str) -> str | None:
    """Return the Generator method that replaces legacy function `name` (None: there is none)."""
    if name in NO_EQUIVALENT:
        return None
    return SHAPE_ARGUMENTS.get(name) or RENAMED.get(name) or name


def rewrite_call(call: Value, name: str, rng: str) -> Rewrite | NoRewrite:
    """Return how to rewrite `call`, a call of legacy `numpy.random.<name>`, to draw from `rng`."""
    method = generator_method(name)
    if method is None:
        return NoRewrite(
            f"`np.random.{name}` acts on NumPy's global RNG state, which a Generator does not have"
        )
    callee = call.base
    if call.span is None or callee is None or callee.span is None:
        return NoRewrite("the call cannot be located")
    if name in SHAPE_ARGUMENTS:
        return _shape_call(call, callee.span, name, f"{rng}.{method}")
    if name == "randint":
        return _randint(call, callee.span, f"{rng}.{method}")
    if name == "random_integers":
        return _random_integers(call, callee.span, f"{rng}.{method}")
    return Rewrite(
        (ReplaceExpression(callee.span, f"{rng}.{method}"),),
        Safety.SAFE,
        f"`{rng}.{method}(...)`",
    )


def _shape_call(call: Value, callee: Span, name: str, target: str) -> Rewrite | NoRewrite:
    """`rand(d0, d1)` -> `random((d0, d1))`; `rand()` and `rand(n)` only change the callee."""
    assert call.span is not None
    if call.keywords:
        return NoRewrite(f"`np.random.{name}` takes no keyword arguments")
    args = call.args
    starred = [arg for arg in args if arg.kind is Kind.STARRED]
    if not starred and len(args) <= 1:
        return Rewrite((ReplaceExpression(callee, target),), Safety.SAFE, f"`{target}(...)`")
    if len(args) > 1:
        edits = (ReplaceExpression(callee, target), PackArguments(call.span))
        if len(starred) == len(args):
            caveat = (
                f"`np.random.{name}(*a, *b)` returns a float when every part is empty, "
                f"`{target}((*a, *b))` a 0-d array"
            )
            return Rewrite(edits, Safety.UNSAFE, f"`{target}((...))`", caveat)
        return Rewrite(edits, Safety.SAFE, f"`{target}((d0, d1, ...))`")
    # `rand(*shape)` -> `random(shape)`: a float when `shape` is empty, now a 0-d array.
    shape = _inner(args[0])
    if shape is None:
        return NoRewrite("an argument cannot be located")
    edit = ReplaceExpression(call.span, f"{target}(__keep_0__)", (shape,))
    caveat = (
        f"`np.random.{name}(*shape)` returns a float when `shape` is empty, "
        f"`{target}(shape)` a 0-d array; and `shape` must now be a sequence"
    )
    return Rewrite((edit,), Safety.UNSAFE, f"`{target}(shape)`", caveat)


def _randint(call: Value, callee: Span, target: str) -> Rewrite:
    """`randint(...)` -> `integers(..., dtype=int)`: `int` scalars, `numpy.int_` arrays."""
    assert call.span is not None
    rename = ReplaceExpression(callee, target)
    if call.keyword("dtype") is not None or len(call.args) >= 4:
        return Rewrite((rename,), Safety.SAFE, f"`{target}(...)`")
    if _has_splat(call):
        caveat = (
            "the arguments come from `*` or `**`, so `dtype=int` cannot be added: a scalar "
            "may become `numpy.int64` instead of `int`"
        )
        return Rewrite((rename,), Safety.UNSAFE, f"`{target}(...)`", caveat)
    edits: tuple[Edit, ...] = (rename, AddKeyword(call.span, "dtype", "int"))
    return Rewrite(edits, Safety.SAFE, f"`{target}(..., dtype=int)`")


def _random_integers(call: Value, callee: Span, target: str) -> Rewrite | NoRewrite:
    """`random_integers(low, high)` -> `integers(low, high, endpoint=True)`; no high: `[1, low]`."""
    assert call.span is not None
    if _has_splat(call):
        return NoRewrite("arguments passed with `*` or `**` cannot be matched to parameters")
    names = ("low", "high", "size")
    bound: dict[str, Value] = dict(zip(names, call.args, strict=False))
    for keyword, value in call.keywords:
        if keyword not in names or keyword in bound:
            return NoRewrite(f"`np.random.random_integers` has no parameter `{keyword}` here")
        assert keyword is not None
        bound[keyword] = value
    low, high, size = (bound.get(name) for name in names)
    if low is None or low.span is None:
        return NoRewrite("`low` is missing")
    summary = f"`{target}(..., endpoint=True)`"
    if high is not None and not high.is_none:
        edits: tuple[Edit, ...] = (
            ReplaceExpression(callee, target),
            AddKeyword(call.span, "endpoint", "True"),
        )
        return Rewrite(edits, Safety.SAFE, summary)
    # Without `high`, legacy draws from [1, low]; `integers(low, endpoint=True)` from [0, low].
    keep = [low.span]
    arguments = ["1", "__keep_0__"]
    if size is not None:
        if size.span is None:
            return NoRewrite("`size` cannot be located")
        keep.append(size.span)
        arguments.append("size=__keep_1__")
    arguments.append("endpoint=True")
    edit = ReplaceExpression(call.span, f"{target}({', '.join(arguments)})", tuple(keep))
    return Rewrite((edit,), Safety.SAFE, f"`{target}(1, low, endpoint=True)`")


def _inner(arg: Value) -> Span | None:
    """Return the span of an argument's expression (without the `*` of a starred one)."""
    if arg.kind is Kind.STARRED:
        return arg.base.span if arg.base is not None else None
    return arg.span


def _has_splat(call: Value) -> bool:
    return any(arg.kind is Kind.STARRED for arg in call.args) or any(
        keyword is None for keyword, _ in call.keywords
    )
