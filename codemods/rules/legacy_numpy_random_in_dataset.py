"""WS202 legacy-numpy-random-in-dataset."""

from __future__ import annotations

from pathlib import Path

from ..analysis import catalog
from ..analysis.dataset_arguments import applied_note
from ..analysis.dataset_reach import single_process_only
from ..analysis.datasets import dataset_classes, datasets_of_loader
from ..analysis.facts import Kind, ModuleFacts
from ..analysis.loaders import loader_calls
from ..analysis.per_item import Reached, per_item_code
from ..analysis.randomness import LegacyNumpyCall, legacy_numpy_calls
from ..analysis.refs import ClassRef, FunctionRef
from ..analysis.rng_objects import RngIndex, shards_here
from ..fixes.generator_api import NoRewrite, rewrite_call
from ..fixes.generator_hosts import GeneratorHosts, NoAccess, host_of
from ..rule import FixAvailability, FixSafety, Rule
from ..types import Edit, FileEdits, Fix, RemoveUnusedImport


class LegacyNumpyRandomInDataset(Rule):
    """Migrates Dataset code from NumPy's legacy global RNG to a per-worker Generator.

    ## What it does
    Checks for calls of NumPy's legacy global-RNG functions (`np.random.rand`,
    `np.random.randint`, `np.random.seed`, ...) in the per-item code of a Dataset.

    Per-item code is `__getitem__`, `__getitems__`, `__iter__` and the project functions and
    methods they call, including transforms the dataset holds. Every import form is
    recognised: `np.random.rand`, `numpy.random.rand`, `from numpy.random import rand`,
    `import numpy.random as npr`, `from numpy import random as npr`. The rule is opt-in:
    `--select WS202` (or `--extend-select WS202`). Datasets that every DataLoader of the
    project loads with `num_workers=0` are left alone.

    ## Why it matters
    The legacy functions share one hidden global state with every other library in the
    process. In DataLoader workers that state is a copy of the parent's, so before torch 1.9
    every worker drew the same numbers in every epoch, and any `worker_init_fn` that reseeds
    it badly brings that back on every version. Without workers, it ignores
    `torch.manual_seed`, so a run is not reproducible unless NumPy is seeded separately.
    NumPy itself recommends a `Generator` per purpose instead:

    > The preferred best practice for getting reproducible pseudorandom numbers is to
    > instantiate a generator object with a seed and pass it around. The implicit global
    > RandomState behind the `numpy.random.*` convenience functions can cause problems,
    > especially when threads or other forms of concurrency are involved.
    > — [NEP 19: Random number generator policy][nep19]

    A Generator kept in the dataset is the WS201 bug, though: every worker receives an
    identical copy. The fix therefore reseeds it in every worker.

    ## Example
    ```python
    class Noisy(Dataset):
        def __getitem__(self, index):
            image = load(index)
            if np.random.rand() < 0.5:
                image = image[:, ::-1]
            return image + np.random.normal(0.0, 0.1, image.shape)
    ```

    Use instead:
    ```python
    class Noisy(Dataset):
        def __getitem__(self, index):
            rng = _numpy_rng(self)
            image = load(index)
            if rng.random() < 0.5:
                image = image[:, ::-1]
            return image + rng.normal(0.0, 0.1, image.shape)
    ```

    ## Fix
    Each call is rewritten to the Generator API, exactly:

    - `rand()`, `rand(n)`, `rand(d0, d1)` → `random()`, `random(n)`, `random((d0, d1))`;
      `randn` likewise → `standard_normal`;
    - `randint(low, high, size)` → `integers(low, high, size, dtype=int)`;
    - `random_integers(low, high)` → `integers(low, high, endpoint=True)`, and
      `random_integers(high)` → `integers(1, high, endpoint=True)`;
    - `random_sample`, `ranf`, `sample` → `random`;
    - `random`, `choice`, `shuffle`, `permutation`, `bytes` and every distribution
      (`normal`, `uniform`, `poisson`, ...) keep their name and parameters.

    `dtype=int` keeps what `randint` returned: a Python `int` for one number, `numpy.int_`
    arrays. `seed`, `get_state` and `set_state` have no Generator equivalent: they are
    reported without a fix, and so are the draws of a dataset whose per-item code calls them.

    Where the Generator comes from:
    - In a method, a line `rng = _numpy_rng(self)` is inserted at the top, and the calls use
      `rng`. `_numpy_rng` (inserted once per module, with WS201's `_reseed_rngs_in_worker`)
      keeps one Generator per object in its `__dict__`: it is created on first use from one
      draw of torch's RNG, and reseeded in place once in every DataLoader worker from the
      worker's seed. This applies to transforms the dataset calls too: each object gets its
      own Generator.
    - If the dataset class already creates exactly one seeded Generator in `__init__`
      (`self.rng = np.random.default_rng(seed)`), the calls use it, and
      `_reseed_rngs_in_worker(self, "rng")` is inserted at the top of `__getitem__` (and
      `__getitems__`, `__iter__`) unless something already reseeds it per item.
    - A module-level function of the same module that per-item code calls gets the
      Generator as a new parameter (`def jitter(x, rng)`), and each call passes it
      (`jitter(x, rng=rng)`), when that is a local change: every project call of the
      function is in per-item code of that module and the function is never passed around.

    Imports of `numpy`, `torch` and `torch.utils.data.get_worker_info` are added where
    missing; a `from numpy.random import rand` (or `import numpy.random as npr`) that no code
    uses any more is removed.

    What this gives, measured with real DataLoader workers in the test suite:
    - every worker and every epoch draws its own numbers (also on torch < 1.9, and with
      spawn);
    - the same `torch.manual_seed` gives the same draws, with or without workers. With
      `num_workers=0` this is a change: the legacy calls drew from NumPy's global state,
      which `torch.manual_seed` does not seed, so the original was reproducible only under
      `np.random.seed`. After the fix `np.random.seed` no longer affects these draws and
      `torch.manual_seed` does (a reused generator keeps following its own seed);
    - two datasets (two instances of one class in a `ConcatDataset`, say) draw independent
      numbers, as they did from the one global state.

    ## Fix safety
    Safe, except where it is unsafe: `rand(*shape)` and `randn(*shape)`, whose result is a
    float when `shape` is empty where `random(shape)` returns a 0-d array, and a `randint`
    whose arguments come from `*args` or `**kwargs`, where `dtype=int` cannot be added. Every
    other rewrite returns the same types, shapes, dtypes and value ranges (the test suite
    checks each one against NumPy); only the numbers change. Creating a Generator takes one
    number from torch's RNG in the process that first draws (a worker, usually), so later
    torch draws of that process change too.

    ## Known limitations
    - Only the module-level functions are migrated; methods of `np.random.RandomState`
      objects are left alone (WS201 reseeds those objects).
    - A helper function defined in another module, called from outside per-item code, or
      passed around, is reported without a fix, and so are static methods, class methods,
      methods that `__init__` (or other code that is not per-item) also calls, and
      module-level code: giving them a Generator is not a local change, or would change
      draws made outside the workers. Callers outside the repository (when a helper is
      public API of a library) are not seen.
    - A `shuffle`, `permutation` or `choice` in an `IterableDataset.__iter__` that shards by
      `get_worker_info()` is reported without a fix: it may decide which items each worker
      gets, which every worker must decide alike.
    - The Generator is created at the first draw; if that happens before
      `torch.manual_seed` is called (say, at import time), runs are not reproducible.
    - `random_integers(low, high)` is assumed to get a `high` that is not None at run time.
    - On NumPy 1.x under Windows, legacy integer draws other than `randint` are 32-bit where
      the Generator's are 64-bit.
    - An object whose class and bases all declare `__slots__` (no `__dict__`) is reported
      without a fix.
    - Per-item code is followed a few calls deep through project code; draws inside
      third-party code are not seen.

    ## References
    - [NEP 19: Random number generator policy][nep19]
    - [NumPy: Legacy random generation](https://numpy.org/doc/stable/reference/random/legacy.html)
    - [NumPy: Random `Generator`](https://numpy.org/doc/stable/reference/random/generator.html)
    - [PyTorch docs: Randomness in multi-process data loading][docs]
    - [Ruff NPY002: numpy-legacy-random](https://docs.astral.sh/ruff/rules/numpy-legacy-random/)

    [nep19]: https://numpy.org/neps/nep-0019-rng-policy.html
    [docs]: https://pytorch.org/docs/stable/data.html#randomness-in-multi-process-data-loading
    """

    CODE = "WS202"
    NAME = "legacy-numpy-random-in-dataset"
    DEFAULT = False
    FIX = FixAvailability.SOMETIMES
    FIX_SAFETY = FixSafety.SOMETIMES_UNSAFE

    def check(self) -> None:
        project = self.project
        loaders = [(call, datasets_of_loader(project, call)) for call in loader_calls(project)]
        self._loaded = [datasets for _, datasets in loaders]
        calls: dict[tuple[str, int, int], tuple[ClassRef, LegacyNumpyCall]] = {}
        #: Every host of per-item code, with the datasets (and paths) that reach it.
        self._contexts: dict[FunctionRef, list[tuple[ClassRef, Reached]]] = {}
        #: The functions each dataset's per-item code runs.
        self._code: dict[ClassRef, frozenset[FunctionRef]] = {}
        #: Datasets whose per-item code reseeds or reads NumPy's global state: no fix.
        self._state_calls: dict[ClassRef, LegacyNumpyCall] = {}
        for dataset in dataset_classes(project):
            if single_process_only(project, dataset, loaders):
                continue
            reached = per_item_code(project, dataset)
            self._code[dataset] = frozenset(current.function for current in reached)
            for current in reached:
                host = host_of(current.function)
                if host is not None:
                    self._contexts.setdefault(host, []).append((dataset, current))
            for call in legacy_numpy_calls(project, reached):
                span = call.call.span
                assert span is not None
                key = (call.function.path.as_posix(), span.line, span.column)
                calls.setdefault(key, (dataset, call))
                if not call.is_draw:
                    self._state_calls.setdefault(dataset, call)
        self._hosts = GeneratorHosts(project, RngIndex(project), self._contexts)
        for dataset, call in calls.values():
            self._report(dataset, call)

    def _report(self, dataset: ClassRef, call: LegacyNumpyCall) -> None:
        span = call.call.span
        assert span is not None
        subject = f"`np.random.{call.name}` in {self._where(dataset, call)}"
        if not call.is_draw:
            message = (
                f"{subject} {_STATE_VERBS[call.name]} NumPy's legacy global RNG; a "
                "`numpy.random.Generator` has no global state to match, so it is not rewritten"
            )
            self.report(call.function, span, message)
            return
        message = f"{subject} draws from NumPy's legacy global RNG"
        fix, reason = self._fix(dataset, call)
        if reason is not None:
            message += f"; no automatic fix: {reason}"
        else:
            message += "; draw from a per-worker `numpy.random.Generator` instead"
        self.report(call.function, span, message, fix=fix)

    def _where(self, dataset: ClassRef, call: LegacyNumpyCall) -> str:
        chain = call.reached.chain
        function = call.reached.function.function.qualname
        applied = applied_note(self._loaded, dataset, bracketed=False)
        if len(chain) == 1:
            return f"`{function}` ({applied})" if applied else f"`{function}`"
        if applied:
            return f"`{function}` (called from `{chain[0]}`, {applied})"
        return f"`{function}` (per-item code of `{dataset.name}`, via `{chain[0]}`)"

    def _fix(self, dataset: ClassRef, call: LegacyNumpyCall) -> tuple[Fix | None, str | None]:
        reason = self._refusal(dataset, call)
        if reason is not None:
            return None, reason
        host = host_of(call.function)
        assert host is not None
        access = self._hosts.access(host)
        if isinstance(access, NoAccess):
            return None, access.reason
        rewrite = rewrite_call(call.call, call.name, access.expression)
        if isinstance(rewrite, NoRewrite):
            return None, rewrite.reason
        edits: list[tuple[Path, Edit]] = [(call.function.path, edit) for edit in rewrite.edits]
        edits.extend(access.edits)
        edits.extend(
            (call.function.path, edit) for edit in _unused_imports(call.function.module, call)
        )
        title = f"Draw from a per-worker Generator: {rewrite.summary}"
        if rewrite.caveat:
            title += f" (unsafe: {rewrite.caveat})"
        return Fix(title, rewrite.safety, _by_file(edits)), None

    def _refusal(self, dataset: ClassRef, call: LegacyNumpyCall) -> str | None:
        """Return why the call must keep drawing from the global RNG, if it must."""
        if not call.certain:
            return f"`{call.name}` may also name another function here"
        host = host_of(call.function)
        if host is None:
            return "it runs in module-level code, where no object can hold a Generator"
        for reaching, _ in self._contexts.get(host, []):
            blocker = self._state_calls.get(reaching)
            if blocker is not None:
                return self._blocked(blocker)
        if call.name in catalog.NUMPY_LEGACY_ORDER_DRAWS and shards_here(
            self.project, call.reached, self._code[dataset]
        ):
            return (
                f"`{call.reached.chain[0]}` shards by `get_worker_info()`, and this draw may "
                "decide which items each worker gets: every worker must make it alike, which a "
                "per-worker Generator does not"
            )
        return None

    def _blocked(self, state: LegacyNumpyCall) -> str:
        span = state.call.span
        line = span.line if span is not None else state.function.function.span.line
        location = self.location(state.function.path, line)
        return (
            f"per-item code also {_STATE_VERBS[state.name]} NumPy's global RNG "
            f"(`np.random.{state.name}`, {location}), which a Generator would not follow"
        )


_STATE_VERBS = {
    "seed": "reseeds",
    "get_state": "reads the state of",
    "set_state": "sets the state of",
}
#: Legacy draws that decide an order or a selection (what an IterableDataset shards by).


def _by_file(edits: list[tuple[Path, Edit]]) -> tuple[FileEdits, ...]:
    grouped: dict[Path, list[Edit]] = {}
    for path, edit in dict.fromkeys(edits):
        grouped.setdefault(path, []).append(edit)
    return tuple(FileEdits(path, tuple(file_edits)) for path, file_edits in grouped.items())


def _unused_imports(module: ModuleFacts, call: LegacyNumpyCall) -> list[RemoveUnusedImport]:
    """Return removals of the imports the rewritten call may have been the last user of."""
    wanted = {f"{random}.{call.name}" for random in catalog.NUMPY_RANDOM_MODULES}
    removals = []
    for name, values in module.bindings:
        if len(values) != 1 or values[0].kind is not Kind.NAME or len(values[0].qualnames) != 1:
            continue
        (qualname,) = values[0].qualnames
        if qualname in wanted:
            random, _, function = qualname.rpartition(".")
            removals.append(
                RemoveUnusedImport(random, function, None if name == function else name)
            )
        elif qualname in catalog.NUMPY_RANDOM_MODULES and name != "numpy":
            removals.append(RemoveUnusedImport(qualname, None, name))
            parent, _, child = qualname.rpartition(".")
            removals.append(RemoveUnusedImport(parent, child, None if name == child else name))
    return removals
