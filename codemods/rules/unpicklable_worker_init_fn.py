"""WS103 unpicklable-worker-init-fn."""

from __future__ import annotations

from ..analysis.facts import FunctionFacts, Kind, ModuleFacts, Value
from ..analysis.init_functions import InitUse, worker_init_uses
from ..analysis.loaders import Presence, loader_calls
from ..analysis.refs import FunctionRef
from ..analysis.start_methods import context_method
from ..analysis.worker_inits import PARTIAL
from ..fixes.imports import Reference, module_reference
from ..rule import FixAvailability, FixSafety, Rule
from ..types import (
    AddImport,
    Edit,
    FileEdits,
    Fix,
    HoistFunction,
    ReplaceExpression,
    Safety,
    Span,
)


class UnpicklableWorkerInitFn(Rule):
    """Flags a lambda or nested function passed as `worker_init_fn`.

    ## What it does
    Checks for DataLoader calls that may start worker processes (`num_workers` is not
    provably 0) and pass a lambda, or a function defined inside another function, as
    `worker_init_fn` (directly, through a variable, a `functools.partial(...)` or a
    `**kwargs` dict).

    Each finding is at the `worker_init_fn=` argument that passes the function (the entry of
    a `**kwargs` dict), so a nested function shared by several loaders is reported at each.

    ## Why it matters
    Under the `spawn` and `forkserver` start methods the DataLoader pickles `worker_init_fn`
    to send it to each worker. Functions are pickled by their qualified name, and a lambda
    (`<lambda>`) or a nested function (`build.<locals>.seed`) cannot be found by name, so
    `iter(loader)` fails with `PicklingError: Can't pickle <function <lambda>>` or
    `AttributeError: Can't pickle local object`. `spawn` is the default on macOS and
    Windows, and `forkserver` on Linux from Python 3.14, so code that works on a Linux
    laptop breaks elsewhere.

    > Python 3.14+ changed the multiprocessing start method in non-Mac POSIX platforms to
    > 'forkserver', which requires the worker Process arguments to be picklable.
    > — torch's DataLoader warning on a pickling error

    The [PyTorch docs on platform-specific behaviors][docs] ask for `worker_init_fn`,
    `collate_fn` and dataset code to be defined at the top level of a module for this reason.

    ## Example
    ```python
    def main():
        loader = DataLoader(ds, num_workers=4, worker_init_fn=lambda wid: print(wid))
        for batch in loader:
            train_step(batch)
    ```

    Use instead:
    ```python
    def worker_init_fn(wid):
        print(wid)


    def main():
        loader = DataLoader(ds, num_workers=4, worker_init_fn=worker_init_fn)
        for batch in loader:
            train_step(batch)
    ```

    ## Fix
    Moves the function to module level, as a `def` right before the module-level statement
    that used it, and passes it by name. A lambda gets a name that is free in the module
    (`worker_init_fn`, else `_worker_init_fn`, ...), or the name it was assigned to
    (`seed = lambda wid: ...` becomes `def seed(wid): ...`). A nested `def` keeps its name
    when that is free at module level; otherwise it is renamed, with its uses.
    A lambda that reads local variables of the enclosing function gets them as leading
    parameters, passed with `functools.partial(worker_init_fn, a, b)`; a lambda that only
    forwards to a method (`lambda wid: self.init_worker(wid)`) is replaced by the bound
    method `self.init_worker`, which pickles with its object.

    ## Fix safety
    Safe when the function reads no local variables of the function it was defined in.
    Unsafe when a lambda does: `functools.partial` (or the bound method) binds the values
    the variables hold when the DataLoader is created, while the closure would read them
    when the worker starts, and the values must now be picklable themselves. A nested
    `def` that reads local variables, uses `nonlocal`, has decorators, or defaults that use
    local variables is reported without a fix (it may be called elsewhere in its function,
    with its closure).

    ## Known limitations
    - Only `multiprocessing_context="fork"` spelled out in the call (or
      `multiprocessing.get_context("fork")`) counts as "never pickled"; a global
      `set_start_method("fork")` is not seen, and would still not work on Windows.
    - A lambda stored in a class body is reported without a fix.
    - A module-level `def` inside `if __name__ == "__main__":` cannot be found by a spawned
      worker either (the guarded block does not run there); it is not reported yet.
    - WS102 may then fix the seeding inside the hoisted function, in the next fix round.

    ## References
    - [PyTorch docs: Platform-specific behaviors][docs]
    - [Python docs: What can be pickled and unpickled?](https://docs.python.org/3/library/pickle.html#what-can-be-pickled-and-unpickled)

    [docs]: https://pytorch.org/docs/stable/data.html#platform-specific-behaviors
    """

    CODE = "WS103"
    NAME = "unpicklable-worker-init-fn"
    FIX = FixAvailability.SOMETIMES
    FIX_SAFETY = FixSafety.SOMETIMES_UNSAFE

    def check(self) -> None:
        found: dict[FunctionRef, list[InitUse]] = {}
        for loader in loader_calls(self.project):
            if not loader.may_start_workers() or context_method(loader) == "fork":
                continue
            for use in worker_init_uses(loader):
                if use.function.function.nested:
                    found.setdefault(use.function, []).append(use)
        self._allocated: dict[str, set[str]] = {}
        for function, uses in found.items():
            self._report_uses(function, uses)

    def _report_uses(self, function: FunctionRef, uses: list[InitUse]) -> None:
        """Report each DataLoader argument that passes `function`, where it is passed.

        The hoisting fix is one edit for all of them: it rides on the first finding, and
        the others go away with it.
        """
        facts = function.function
        enclosing = _enclosing(facts.qualname)
        if facts.is_lambda:
            where = " at module level" if enclosing == "<module>" else f" in `{enclosing}`"
            subject = f"worker_init_fn is a lambda{where}"
        else:
            subject = f"worker_init_fn `{facts.name}` is defined inside `{enclosing}`"
        message = (
            f"{subject}: DataLoader workers started with spawn or forkserver (the default on "
            f"macOS, Windows and Python 3.14+ on Linux) cannot pickle it, so `iter(loader)` "
            f"fails; define it at module level"
        )
        fix = self._fix(function, uses)
        anchors = dict.fromkeys(passed_at(use) for use in uses)
        for index, (code, span) in enumerate(anchors):
            self.report(code, span, message, fix=fix if index == 0 else None)

    # --- the fix ---

    def _fix(self, function: FunctionRef, uses: list[InitUse]) -> Fix | None:
        facts = function.function
        module = function.module
        enclosing = _enclosing(facts.qualname)
        if enclosing != "<module>" and module.class_(enclosing) is not None:
            return None  # a lambda in a class body
        if facts.definition_names or facts.nonlocals:
            return None
        if not facts.is_lambda:
            return self._hoist_def(function, enclosing)
        assigned = _assigned_name(module, enclosing, function)
        captures = facts.free_names
        if assigned is not None and (
            enclosing == "<module>"
            or (not captures and self._is_free(module, assigned, enclosing, assigned=True))
        ):
            self._take(module, assigned)
            edit = HoistFunction(facts.span, assigned, replaces_assignment=True)
            return _fix(
                f"Define `{assigned}` with `def` at module level", Safety.SAFE, function, [edit]
            )
        method = _forwarded_method(facts)
        if method is not None:
            bound = ReplaceExpression(facts.span, "__keep_0__", (method,))
            title = "Pass the bound method instead of a lambda"
            return _fix(title, Safety.UNSAFE, function, [bound])
        name = self._fresh(module, "worker_init_fn", enclosing)
        if not captures:
            edit = HoistFunction(facts.span, name, replacement=name)
            return _fix(
                f"Move the lambda to a module-level `def {name}`", Safety.SAFE, function, [edit]
            )
        partial = _partial(module)
        replacement = f"{partial.expression}({name}, {', '.join(captures)})"
        edit = HoistFunction(facts.span, name, replacement=replacement, leading_params=captures)
        title = (
            f"Move the lambda to a module-level `def {name}`, passing "
            f"{', '.join(f'`{capture}`' for capture in captures)} with `functools.partial`"
        )
        return _fix(title, Safety.UNSAFE, function, [edit, *partial.imports])

    def _hoist_def(self, function: FunctionRef, enclosing: str) -> Fix | None:
        facts = function.function
        module = function.module
        if facts.free_names or facts.decorators:
            return None
        name = facts.name
        if not self._is_free(module, name, enclosing, own=True):
            name = self._fresh(module, f"_{facts.name}", enclosing)
        else:
            self._take(module, name)
        edit = HoistFunction(facts.span, name)
        title = f"Move `{facts.name}` to module level"
        if name != facts.name:
            title += f" as `{name}`"
        return _fix(title, Safety.SAFE, function, [edit])

    def _taken(self, module: ModuleFacts) -> set[str]:
        taken = self._allocated.setdefault(str(module.path), set())
        return taken

    def _take(self, module: ModuleFacts, name: str) -> None:
        self._taken(module).add(name)

    def _is_free(
        self,
        module: ModuleFacts,
        name: str,
        enclosing: str,
        *,
        own: bool = False,
        assigned: bool = False,
    ) -> bool:
        """Return True if a module-level `name` would not clash with anything in `module`.

        `own`: the name is the nested def's own; `assigned`: the name is bound once, by the
        `name = lambda ...` that the def replaces.
        """
        if name in module.module_names or name in self._taken(module):
            return False
        outer = module.function(enclosing)
        if outer is None:
            return True
        targets = [a.target for a in outer.assignments]
        if name in outer.params or targets.count(name) > (1 if assigned else 0):
            return False
        nested = [f.name for f in module.functions_within(enclosing)]
        return own or name not in nested

    def _fresh(self, module: ModuleFacts, base: str, enclosing: str) -> str:
        """Return a module-level name no local or global of `module` uses."""
        locals_ = {a.target for f in module.functions for a in f.assignments} | {
            param for f in module.functions for param in f.params
        }
        locals_ |= {f.name for f in module.functions}
        candidates = [base, f"_{base.lstrip('_')}"] + [
            f"_{base.lstrip('_')}_{index}" for index in range(2, 100)
        ]
        for candidate in candidates:
            if candidate not in locals_ and self._is_free(module, candidate, enclosing):
                self._take(module, candidate)
                return candidate
        return "_workerseed_worker_init_fn"


def passed_at(use: InitUse) -> tuple[FunctionRef, Span]:
    """Return where the DataLoader call (or its kwargs dict) passes the function."""
    lookup = use.loader.argument("worker_init_fn")
    value = lookup.value
    if value is None or value.span is None:
        return use.function, use.function.function.span
    if lookup.presence is Presence.IN_DICT:
        return use.written_in, value.span
    return use.loader.function, value.span


def _fix(title: str, safety: Safety, function: FunctionRef, edits: list[Edit]) -> Fix:
    return Fix(title, safety, (FileEdits(function.path, tuple(edits)),))


def _enclosing(qualname: str) -> str:
    """Return the qualname of the code a nested function or lambda is defined in."""
    head, _, _ = qualname.rpartition(".")
    if head.endswith(".<locals>"):
        head = head[: -len(".<locals>")]
    return head or "<module>"


def _assigned_name(module: ModuleFacts, enclosing: str, function: FunctionRef) -> str | None:
    """Return `name` if the lambda is the whole value of `name = lambda ...`."""
    code = module.function(enclosing)
    if code is None:
        return None
    for assignment in code.assignments:
        value: Value = assignment.value
        if (
            "." not in assignment.target
            and value.kind is Kind.FUNCTION
            and value.name == function.qualname
            and value.span == function.function.span
        ):
            return assignment.target
    return None


def _forwarded_method(facts: FunctionFacts) -> Span | None:
    """Return the span of `self.method` if the lambda is `lambda a, b: self.method(a, b)`."""
    if len(facts.returns) != 1 or len(facts.free_names) != 1:
        return None
    body = facts.returns[0]
    callee = body.base
    if (
        body.kind is not Kind.CALL
        or body.keywords
        or callee is None
        or callee.kind is not Kind.ATTRIBUTE
        or callee.base is None
        or callee.base.kind is not Kind.SELF
        or len(facts.params) != facts.positional_count
    ):
        return None
    passed = [arg.name if arg.kind is Kind.PARAM else None for arg in body.args]
    return callee.span if passed == list(facts.params) else None


def _partial(module: ModuleFacts) -> Reference:
    for name, values in module.bindings:
        if len(values) == 1 and len(values[0].qualnames) == 1 and values[0].qualnames[0] in PARTIAL:
            return Reference(name)
    functools = module_reference(module, "functools", "functools")
    imports: tuple[AddImport, ...] = functools.imports
    return Reference(f"{functools.expression}.partial", imports)
