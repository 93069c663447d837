"""How seeding calls and the sources of their seeds are named in messages."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..types import TorchTarget
from .facts import Kind, Value
from .per_item import Reached
from .ranks import TorchSeeding
from .refs import FunctionRef
from .seed_classification import NUMPY_SEEDED_SINCE, Source
from .seeds import Seeding, SinkKind

_LIBRARIES = {
    "numpy": "NumPy",
    "random": "`random`",
    "torch": "torch",
    "torch.cuda": "torch's CUDA RNGs",
    "imgaug": "imgaug",
}


def describe_seeding(seeding: Seeding) -> str:
    """Return what a seeding call does, as messages say it: "reseeds NumPy"."""
    if seeding.kind is SinkKind.GLOBAL:
        return f"reseeds {_LIBRARIES.get(seeding.library, seeding.library)}"
    if seeding.kind is SinkKind.CONSTRUCTOR:
        return f"creates `{_short(seeding.library)}(...)`"
    if seeding.kind is SinkKind.METHOD:
        return f"reseeds an RNG object with `{seeding.library}`"
    names = [_LIBRARIES.get(name, f"`{name}`") for name in seeding.seeds]
    libraries = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    return f"seeds {libraries} through `{seeding.library}`"


def describe_sources(sources: frozenset[Source], target: TorchTarget) -> str:
    """Return where a seed comes from, as messages say it: "the worker id alone"."""
    before = target.is_before(NUMPY_SEEDED_SINCE)
    rank = " and the rank" if Source.RANK in sources else ""
    if Source.NUMPY_STATE in sources:
        why = (
            "which workers inherit unchanged from the main process"
            if before
            else "which is 2147483648 in every worker once torch has seeded NumPy"
        )
        return f"`np.random.get_state()`{rank} ({why})"
    if Source.NUMPY_DRAW in sources:
        return (
            f"a draw from NumPy's global RNG{rank}, which workers inherit unchanged from "
            f"the main process"
        )
    if Source.ENTROPY in sources:
        return "a process id, a uuid or OS entropy"
    if Source.CLOCK in sources:
        parts = ["the clock", *(["the worker id"] if Source.WORKER_ID in sources else [])]
        parts += ["the rank"] if rank else []
        return ", ".join(parts[:-1]) + " and " + parts[-1] if len(parts) > 1 else parts[0]
    fixed = sources & {Source.CONSTANT, Source.RUN_VALUE, Source.PARAMETER}
    if Source.WORKER_ID in sources:
        if fixed:
            return f"a fixed value plus the worker id{rank}"
        return f"the worker id{rank} alone"
    if Source.RANK in sources:
        return "a fixed value and the rank"
    return "a fixed value"


def clock_reason(
    sources: frozenset[Source], description: str, version: str, *, per_item: bool = False
) -> str:
    """Return why a seed from the clock (`description`) is a problem, in WS102's words;
    `per_item`: the seeding runs for every item, not once per worker."""
    if per_item and Source.WORKER_ID in sources:
        alike = "the items one worker loads within one tick of it get the same seed"
    elif per_item:
        alike = "items loaded within one tick of it, in any worker, get the same seed"
    elif Source.WORKER_ID in sources:
        alike = (
            "the workers of processes started within one tick of it (the ranks of a "
            "distributed run) get the same seeds"
        )
    else:
        alike = "workers started within one tick of it get the same seed"
    advice = (
        "seed once per worker from `torch.initial_seed()` instead"
        if per_item
        else "derive the seed from `torch.initial_seed()`"
    )
    return (
        f"from {description}: {alike}, and no `torch.manual_seed` can reproduce the run on "
        f"{version}; {advice}"
    )


def fixed_per_item_reason(seed: Value | None, sources: frozenset[Source]) -> str:
    """Return why a per-item reseed from a value fixed for the run is a problem, in WS102's
    words: every item starts from the same state."""
    if seed is not None and seed.kind is Kind.INT and seed.number is not None:
        source = f"the constant {seed.number}"
    else:
        source = "a fixed value and the rank" if Source.RANK in sources else "a fixed value"
    return (
        f"from {source} for every item: every item, in every worker and every epoch, draws "
        "the same random numbers after it. If identical draws are intended (fixed evaluation "
        "noise), add `# noqa: WS102`; to keep them fixed but different per item, seed from "
        "the item's index"
    )


def describe_per_item(reached: Reached, applied: str = "") -> str:
    """Return how WS102 names per-item code: "`Clips.load` (called from `Clips.__getitem__`)";
    `applied` says which third-party dataset applies it, if one does."""
    facts = reached.function.function
    owner = facts.class_qualname
    subject = f"`{owner}.{facts.name}`" if owner else f"`{facts.name}`"
    if len(reached.chain) > 1:
        return subject + f" (called from `{reached.chain[0]}`{applied})"
    return subject + applied


def irreproducible_reason(description: str, version: str) -> str:
    """Return why a seed from OS entropy (`description`) is only noted, in WS102's words."""
    return (
        f"from {description}: workers differ, but no `torch.manual_seed` can reproduce the "
        f"run on {version}; derive the seed from `torch.initial_seed()`"
    )


def repeat_reason(
    sources: frozenset[Source], description: str, version: str, *, fixed_order: bool
) -> str:
    """Return why an epoch-invariant seed (`description`) repeats, in WS102's words; a
    `fixed_order` loader's repeats may be intended, and the reason says how to keep them."""
    if Source.WORKER_ID in sources or Source.RANK in sources:
        consequence = "every epoch repeats the previous epoch's random numbers"
    else:
        consequence = (
            "every worker gets the same seed in every epoch, so workers draw identical "
            "numbers and every epoch repeats them"
        )
    if fixed_order:
        return (
            f"from {description}: {consequence} on {version}. Its loaders pass "
            f"`shuffle=False`: if identical epochs are intended (a fixed evaluation set), "
            f"add `# noqa: WS102` here; otherwise derive the seed from `torch.initial_seed()`"
        )
    return (
        f"from {description}: {consequence} on {version}; derive the seed from "
        f"`torch.initial_seed()`"
    )


def joined(whats: list[str]) -> str:
    """Return "reseeds NumPy, `random` and torch" for three calls that reseed one each."""
    whats = list(dict.fromkeys(whats))
    verb = "reseeds "
    if len(whats) > 1 and all(what.startswith(verb) and " with " not in what for what in whats):
        return verb + joined([what.removeprefix(verb) for what in whats])
    return " and ".join([", ".join(whats[:-1]), whats[-1]] if len(whats) > 1 else whats)


def _short(qualname: str) -> str:
    return qualname.replace("numpy.", "np.", 1).replace(".mtrand", "")


#: How many helper calls one seeding call's description names before "and N more".
_MAX_SITES = 8


def name_torch_seedings(
    seedings: Sequence[TorchSeeding], at: Callable[[FunctionRef, int], str]
) -> list[str]:
    """Name each call that seeds torch, with the project helper calls that run it.

    "`torch.manual_seed(...)`, utils.py:9, run by `set_seed(...)`, train.py:20, eval.py:31":
    one helper that several scripts call is named once, with every call site.
    """
    groups: dict[tuple[str, str], list[str]] = {}
    for seeding in seedings:
        inner = seeding.seeding_call
        assert inner.call.span is not None
        assert seeding.call.span is not None
        head = f"`{inner.label}(...)`, {at(inner.function, inner.call.span.line)}"
        sites = groups.setdefault(
            (
                f"{head}, run by `{seeding.label}(...)`" if seeding.inner else head,
                _assumption(seeding, at),
            ),
            [],
        )
        if seeding.inner is not None:
            sites.append(at(seeding.function, seeding.call.span.line))
    texts = []
    for (head, assumption), sites in groups.items():
        shown = list(dict.fromkeys(sites))
        if len(shown) > _MAX_SITES:
            shown[_MAX_SITES:] = [f"and {len(shown) - _MAX_SITES} more"]
        texts.append(", ".join([head, *shown]) + assumption)
    return texts


def _assumption(seeding: TorchSeeding, at: Callable[[FunctionRef, int], str]) -> str:
    """Say what the seed value is assumed to be, when it is a configuration setting."""
    fallback = seeding.fallback
    if fallback is not None and fallback.span is not None:
        return (
            f", from the `{seeding.assumed_setting}` setting of the configuration, assumed "
            f"the same on every rank; only the fallback for an unset setting "
            f"({at(seeding.function, fallback.span.line)}) differs per rank"
        )
    if seeding.assumed_setting is not None:
        return f", from the `{seeding.assumed_setting}` setting, assumed the same on every rank"
    return ""
