"""The code fixes insert, written once so every rule inserts the same helpers."""

from __future__ import annotations

import textwrap
from collections.abc import Collection
from dataclasses import dataclass

from ..analysis.facts import FunctionFacts, ModuleFacts
from ..types import AddImport
from .imports import Reference, module_reference, symbol_reference


@dataclass(frozen=True)
class SeedingNames:
    """How a module refers to torch, numpy.random and random, and the imports that needs."""

    torch: str
    numpy_random: str
    random: str
    imports: tuple[AddImport, ...]


def seeding_names(module: ModuleFacts, function: FunctionFacts | None = None) -> SeedingNames:
    """Return the names to use for torch, numpy.random and random in `module` (in `function`)."""
    avoid = _local_names(function)
    references: list[Reference] = [
        module_reference(module, "torch", "torch", avoid=avoid),
        numpy_random_reference(module, avoid=avoid),
        module_reference(module, "random", "random", avoid=avoid),
    ]
    torch, numpy_random, random = (reference.expression for reference in references)
    imports = tuple(item for reference in references for item in reference.imports)
    return SeedingNames(torch, numpy_random, random, imports)


def numpy_random_reference(module: ModuleFacts, *, avoid: frozenset[str]) -> Reference:
    """Return how to spell `numpy.random`: an existing alias such as `npr`, or via numpy."""
    existing = module_reference(module, "numpy.random", "npr", avoid=avoid)
    if not existing.imports:
        return existing
    numpy = module_reference(module, "numpy", "np", avoid=avoid)
    return Reference(f"{numpy.expression}.random", numpy.imports)


def _local_names(function: FunctionFacts | None) -> frozenset[str]:
    if function is None or function.qualname == "<module>":
        return frozenset()
    return frozenset(function.params) | frozenset(
        assignment.target for assignment in function.assignments if "." not in assignment.target
    )


def worker_seed_expression(names: SeedingNames) -> str:
    """Return the expression for a per-worker, per-epoch seed that NumPy's legacy RNG accepts."""
    return f"{names.torch}.initial_seed() % 2**32"


def seed_worker_function(name: str, names: SeedingNames) -> str:
    """Return a module-level `worker_init_fn` that seeds NumPy and `random` per worker."""
    return f'''
def {name}(worker_id: int) -> None:
    """Seed NumPy and `random` in each DataLoader worker from torch's per-worker seed."""
    worker_seed = {worker_seed_expression(names)}
    {names.numpy_random}.seed(worker_seed)
    {names.random}.seed(worker_seed)
'''


def seeding_statements(names: SeedingNames) -> str:
    """Return statements that seed NumPy and `random` from torch's per-worker seed."""
    seed = worker_seed_expression(names)
    return f"{names.numpy_random}.seed({seed})\n{names.random}.seed({seed})\n"


# --- WS201: reseeding RNG objects in place, in each worker ---


@dataclass(frozen=True)
class RngHelperNames:
    """How a module refers to what the RNG-reseeding helpers use, and the imports that needs.

    A library is None when the helpers leave its RNG kinds out: the fix does not need them
    and the module does not import the library already.
    """

    numpy: str | None
    torch: str | None
    random: str | None
    get_worker_info: str
    types: str
    imports: tuple[AddImport, ...]


#: The library each kind of RNG object belongs to (see `rng_helper_names`).
RNG_LIBRARIES = ("numpy", "random", "torch")


def rng_helper_names(
    module: ModuleFacts, *, kinds: Collection[str], walker: bool = False
) -> RngHelperNames:
    """Return the names the RNG helpers use in `module`, reseeding the libraries in `kinds`.

    A library not in `kinds` is still handled when the module already imports it (that
    costs no new import); `random` comes along with `torch`, whose branch uses it.
    """
    preferred = {"numpy": "np", "random": "random", "torch": "torch"}
    wanted = set(kinds)
    if "torch" in wanted:
        wanted.add("random")
    chosen: dict[str, Reference] = {}
    for library in RNG_LIBRARIES:
        reference = module_reference(module, library, preferred[library])
        if library in wanted or not reference.imports:
            chosen[library] = reference
    if "torch" in chosen and "random" not in chosen:
        if "torch" not in wanted:
            del chosen["torch"]  # handled for free only if that needs no new import
        else:
            chosen["random"] = module_reference(module, "random", "random")
    torch = chosen.get("torch") or module_reference(module, "torch", "torch")
    get_worker_info = symbol_reference(module, "torch.utils.data", "get_worker_info", via=torch)
    types = module_reference(module, "types", "types") if walker else Reference("types")
    references = [*chosen.values(), get_worker_info, types]
    imports = tuple(dict.fromkeys(item for reference in references for item in reference.imports))
    return RngHelperNames(
        numpy=chosen["numpy"].expression if "numpy" in chosen else None,
        torch=chosen["torch"].expression if "torch" in chosen else None,
        random=chosen["random"].expression if "random" in chosen else None,
        get_worker_info=get_worker_info.expression,
        types=types.expression,
        imports=imports,
    )


def reseed_rng_object_function(name: str, names: RngHelperNames) -> str:
    """Return a module-level function that reseeds one RNG object in place from a worker seed."""
    np, random, torch = names.numpy, names.random, names.torch
    branches = []
    if np is not None:
        branches.append(
            f"""isinstance(rng, {np}.random.Generator):
        bit_generator = rng.bit_generator
        seed = {np}.random.SeedSequence([worker_seed, int(bit_generator.random_raw())])
        bit_generator.state = type(bit_generator)(seed).state"""
        )
        branches.append(
            f"""isinstance(rng, {np}.random.RandomState):
        seed = {np}.random.SeedSequence([worker_seed, int(rng.randint(2**31))])
        bit_generator = getattr({np}.random, rng.get_state(legacy=False)["bit_generator"])
        rng.set_state(bit_generator(seed).state)"""
        )
    if random is not None:
        branches.append(
            f"""isinstance(rng, {random}.Random):
        rng.seed((worker_seed << 64) | rng.getrandbits(64))"""
        )
    if torch is not None:
        branches.append(
            f"""isinstance(rng, {torch}.Generator):
        seed = {random}.Random((worker_seed << 64) | rng.initial_seed()).getrandbits(64)
        rng.manual_seed(seed)"""
        )
    body = "\n    el".join(f"if {branch}" for branch in branches)
    return f'''
def {name}(rng, worker_seed):
    """Reseed one RNG object in place; return False if `rng` is not an RNG object.

    In place, so every reference to the object (a transform holding it, say) sees the new
    stream. The new state mixes the DataLoader worker seed (different in every worker and
    epoch, and reproducible under torch.manual_seed) with a draw from the object's own
    state, so objects seeded differently stay different and objects seeded alike stay alike.
    """
    {body}
    else:
        return False
    return True
'''


def reseed_rngs_in_worker_function(name: str, names: RngHelperNames) -> str:
    """Return a module-level function that reseeds named RNG attributes once per worker.

    One function, with a branch only for each kind of RNG object `names` handles, so a
    reviewer reads it at a glance; the walker keeps its own `reseed_rng_object_function`.
    """
    np, random, torch = names.numpy, names.random, names.torch
    branches = []
    if np is not None:
        branches.append(
            f"""isinstance(rng, {np}.random.Generator):
            seed = {np}.random.SeedSequence([info.seed, int(rng.bit_generator.random_raw())])
            rng.bit_generator.state = type(rng.bit_generator)(seed).state"""
        )
        branches.append(
            f"""isinstance(rng, {np}.random.RandomState):
            seed = {np}.random.SeedSequence([info.seed, int(rng.randint(2**31))])
            bit_generator = getattr({np}.random, rng.get_state(legacy=False)["bit_generator"])
            rng.set_state(bit_generator(seed).state)"""
        )
    if random is not None:
        branches.append(
            f"""isinstance(rng, {random}.Random):
            rng.seed((info.seed << 64) | rng.getrandbits(64))"""
        )
    if torch is not None:
        branches.append(
            f"""isinstance(rng, {torch}.Generator):
            seed = {random}.Random((info.seed << 64) | rng.initial_seed()).getrandbits(64)
            rng.manual_seed(seed)"""
        )
    body = "\n        el".join(f"if {branch}" for branch in branches)
    return f'''
def {name}(owner, *names):
    """Reseed the RNGs `owner.<name>` in place once per DataLoader worker, as workers start
    with copies of one state: mix in the worker seed (new per worker and epoch, reproducible
    under torch.manual_seed). A no-op in the main process."""
    info = {names.get_worker_info}()
    if info is None:
        return
    reseeded = owner.__dict__.setdefault("_rngs_reseeded_in_worker", {{}})
    for name in [name for name in names if reseeded.get(name) != info.seed]:
        reseeded[name] = info.seed
        rng = owner
        for attribute in name.split("."):
            rng = getattr(rng, attribute, None)
        {body}
'''


def reseed_worker_rngs_function(name: str, reseed_object: str, names: RngHelperNames) -> str:
    """Return a module-level `worker_init_fn` that reseeds every RNG object in the dataset."""
    leaves = ["str", "bytes", "int", "float", "complex", "bool", "type(None)"]
    if names.numpy is not None:
        leaves.append(f"{names.numpy}.ndarray")
    if names.torch is not None:
        leaves.append(f"{names.torch}.Tensor")
    leaves.append("type")
    leaves.extend(
        f"{names.types}.{kind}"
        for kind in ("ModuleType", "FunctionType", "BuiltinFunctionType", "MethodType")
    )
    return f'''
def {name}(worker_id):
    """worker_init_fn: reseed in place every RNG object reachable from this worker's dataset.

    Follows attributes, lists, tuples, sets and dicts a few levels deep (through Subset,
    ConcatDataset and transforms). torch seeds `random`, `torch` and NumPy's global RNG in
    each worker by itself; nothing seeds RNG objects.
    """
    info = {names.get_worker_info}()
    leaves = (
{_wrapped(leaves, indent=8)}
    )
    seen, stack = set(), [(info.dataset, 0)]
    while stack:
        obj, depth = stack.pop()
        if id(obj) in seen or depth > 5 or isinstance(obj, leaves):
            continue
        seen.add(id(obj))
        if {reseed_object}(obj, info.seed):
            continue
        if isinstance(obj, (list, tuple, set, frozenset)):
            children = list(obj) if len(obj) <= 1000 else []
        elif isinstance(obj, dict):
            children = list(obj.values()) if len(obj) <= 1000 else []
        else:
            children = list(getattr(obj, "__dict__", {{}}).values())
        stack.extend((child, depth + 1) for child in reversed(children))
'''


def _wrapped(items: list[str], *, indent: int, width: int = 92) -> str:
    """Return `items` comma-separated (with a trailing comma) in lines of at most `width`."""
    text = textwrap.fill(", ".join(items) + ",", width=width - indent, break_long_words=False)
    return textwrap.indent(text, " " * indent)


def chain_worker_init_function(name: str, walker: str) -> str:
    """Return a module-level function running a user's worker_init_fn, then the RNG walker."""
    return f'''
def {name}(user_fn, worker_id):
    """Run the loader's own worker_init_fn, then reseed RNG objects (pass via functools.partial)."""
    user_fn(worker_id)
    {walker}(worker_id)
'''


# --- WS202: a per-worker NumPy Generator for code that used NumPy's legacy global RNG ---


def numpy_rng_function(name: str, reseed_in_worker: str, numpy: str, torch: str) -> str:
    """Return a module-level function that gives an object its own per-worker NumPy Generator.

    The Generator is stored in the object's `__dict__` under `name`, created on first use
    from one draw of torch's RNG, and reseeded in place once per DataLoader worker by the
    WS201 helper `reseed_in_worker`.
    """
    return f'''
def {name}(owner):
    """Return the NumPy Generator that `owner` draws its random numbers from.

    It is created on first use from torch's RNG, so `torch.manual_seed` reproduces it, with
    or without DataLoader workers; in each worker it is reseeded once, so every worker (and
    every epoch, unless workers persist) draws its own numbers.
    """
    rng = owner.__dict__.get("{name}")
    if rng is None:
        seed = int({torch}.randint(2**62, ()))
        rng = owner.__dict__["{name}"] = {numpy}.random.default_rng(seed)
    {reseed_in_worker}(owner, "{name}")
    return rng
'''
