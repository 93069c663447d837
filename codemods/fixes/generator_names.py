"""The name a host's code calls its per-worker NumPy Generator by: one that nothing in the
host, or in the functions nested in it, already uses."""

from __future__ import annotations

import builtins
from collections.abc import Iterator

from ..analysis.facts import FunctionFacts
from ..analysis.refs import FunctionRef

#: Names the generator goes by in a function, in order of preference.
LOCAL_NAMES = ("rng", "np_rng", "numpy_rng", "_rng")
_BUILTINS = frozenset(dir(builtins))


def _free_name(host: FunctionRef) -> str | None:
    """Return a name for the Generator that nothing in `host` (or nested in it) uses."""
    taken = set(host.module.module_names) | _BUILTINS
    for function in _with_nested(host):
        taken.update(function.params)
        taken.update(function.free_names)
        taken.update(function.nonlocals)
        taken.update(name for name, _ in function.local_reads)
        taken.update(a.target for a in function.assignments if "." not in a.target)
    return next((name for name in LOCAL_NAMES if name not in taken), None)


def _with_nested(host: FunctionRef) -> Iterator[FunctionFacts]:
    yield host.function
    prefix = f"{host.function.qualname}.<"
    for function in host.module.functions_within(host.function.qualname):
        if function.qualname.startswith(prefix):
            yield function
