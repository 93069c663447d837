"""WS104's fix: a worker seed that mixes in the distributed rank.

The helper reseeds torch, `random` and NumPy in each DataLoader worker from torch's worker
seed and the global rank, so worker *k* of each rank gets its own streams while runs stay
reproducible. It is passed as `worker_init_fn=`, or called first thing in the loader's
existing project `worker_init_fn` (before that function reads `torch.initial_seed()`).
"""

from __future__ import annotations

from ..analysis.facts import ModuleFacts
from ..analysis.loader_kwargs import KnownDict
from ..analysis.loaders import ArgumentLookup, LoaderCall, Presence
from ..analysis.project import Project
from ..analysis.rank_reads import reads_rank
from ..analysis.refs import FunctionRef
from ..analysis.seeds import is_static
from ..analysis.worker_inits import WorkerInit
from ..types import (
    AddHelper,
    Edit,
    FileEdits,
    Fix,
    InsertStatements,
    ReplaceExpression,
    Safety,
)
from .helpers import SeedingNames, seeding_names
from .imports import module_reference
from .worker_init import add_worker_init_keyword

HELPER_NAMES = ("seed_worker_per_rank", "_workerseed_seed_worker_per_rank")


def rank_worker_seed_function(name: str, names: SeedingNames, os_name: str) -> str:
    """Return a module-level `worker_init_fn` that seeds a worker from its seed and the rank."""
    torch, np_random = names.torch, names.numpy_random
    return f'''
def {name}(worker_id: int) -> None:
    """Seed torch, NumPy and `random` in each DataLoader worker from its seed and the rank.

    Every rank seeds torch alike, so worker k draws the same numbers on every rank unless
    the global rank is mixed in (from torch.distributed, else the launcher's RANK).
    """
    if {torch}.distributed.is_available() and {torch}.distributed.is_initialized():
        rank = {torch}.distributed.get_rank()
    else:
        rank = int({os_name}.environ.get("RANK", 0))
    state = {np_random}.SeedSequence([{torch}.initial_seed(), rank]).generate_state(2)
    worker_seed = (int(state[0]) << 32) | int(state[1])
    {torch}.manual_seed(worker_seed)
    {names.random}.seed(worker_seed)
    {np_random}.seed(int(state[0]))
'''


def _helper_edits(project: Project, module: ModuleFacts) -> tuple[str, list[Edit]] | None:
    """Return the helper's name in `module` and the edits that define it (once) and import.

    None when every name the helper could take is used by something else.
    """
    for name in HELPER_NAMES:
        existing = module.function(name)
        if existing is not None and existing.class_qualname is None and not existing.nested:
            if reads_rank(project, FunctionRef.of(module, existing)):
                return name, []  # defined by an earlier run of the fix
            continue
        if name not in module.module_names:
            break
    else:
        return None
    names = seeding_names(module)
    os_reference = module_reference(module, "os", "os")
    code = rank_worker_seed_function(name, names, os_reference.expression)
    imports = dict.fromkeys([*names.imports, *os_reference.imports])
    return name, [AddHelper(name, code), *imports]


def pass_rank_worker_init(project: Project, loader: LoaderCall, safety: Safety) -> Fix | None:
    """Return a fix passing the helper as the loader's `worker_init_fn` (absent or None)."""
    module = loader.module
    helper_edits = _helper_edits(project, module)
    if helper_edits is None:
        return None
    helper, edits = helper_edits
    files = [FileEdits(module.path, tuple(edits))]
    lookup = loader.argument("worker_init_fn")
    if lookup.value is not None and not lookup.value.is_none:
        return None  # a call that evaluates to None (a factory's result): not ours to drop
    if lookup.value is not None and lookup.value.span is not None:
        # A literal `worker_init_fn=None`, spelled out or in a known `**dict`.
        path = module.path
        if lookup.container is not None:
            container = _dict_of(loader, lookup)
            if container is None or container.path != module.path:
                return None
            path = container.path
        files.append(FileEdits(path, (ReplaceExpression(lookup.value.span, helper),)))
    else:
        files.append(add_worker_init_keyword(loader, helper))
    title = f"Pass `worker_init_fn={helper}`, which mixes the rank into each worker's seed"
    return Fix(title, safety, tuple(files))


def call_in_worker_init(project: Project, init: WorkerInit, safety: Safety) -> Fix | None:
    """Return a fix calling the helper first thing in the loader's project worker_init_fn."""
    function = init.function
    if function is None or function.function.is_lambda or not function.function.params:
        return None
    if init.via_partial and init.factory is not None:
        return None  # the partial is built inside the factory: its bound arguments are unseen
    if init.via_partial and init.lookup.value is not None:
        partial = init.lookup.value.alternatives()[0]
        if len(partial.args) > 1:
            return None  # positional arguments bound: the worker id is not the first parameter
    # A method passed bound (`dataset.pick_shard`) takes the worker id after `self`.
    first = 0 if function.function.class_qualname is None or is_static(function) else 1
    if len(function.function.params) <= first:
        return None
    helper_edits = _helper_edits(project, function.module)
    if helper_edits is None:
        return None
    helper, edits = helper_edits
    worker_id = function.function.params[first]
    insert = InsertStatements(function.function.span, f"{helper}({worker_id})\n", at_top=True)
    title = f"Mix the rank into the worker seed first thing in `{function.function.name}`"
    return Fix(title, safety, (FileEdits(function.path, (*edits, insert)),))


def _dict_of(loader: LoaderCall, lookup: ArgumentLookup) -> KnownDict | None:
    for splat in loader.splats:
        if splat is not None and splat.value == lookup.container:
            return splat
    return None


def may_add_keyword(loader: LoaderCall) -> bool:
    """Return True if passing `worker_init_fn=` cannot clash with what the call passes."""
    lookup = loader.argument("worker_init_fn")
    return lookup.presence is not Presence.MAYBE and loader.accepts_keyword("worker_init_fn")
