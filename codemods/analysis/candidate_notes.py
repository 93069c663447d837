"""How a loader finding says which of the classes its dataset may be it rests on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .candidates import DatasetsOf
from .refs import ClassRef


@dataclass(frozen=True)
class OneOf:
    """The class whose draw a loader finding names, among the classes its dataset may be."""

    drawing: ClassRef
    #: How many of those classes draw nothing.
    quiet: int
    total: int

    def condition(self) -> str:
        if not self.quiet:
            return ""
        return (
            f" when the loader's dataset is a `{self.drawing.name}` (one of {self.total} classes"
            " it may be, not all of which draw)"
        )


def candidate_note(datasets: DatasetsOf) -> str:
    """Say which candidate sets a finding rests on, if the dataset is one of several."""
    parts = []
    if datasets.registries:
        names = ", ".join(f"`{name}`" for name in datasets.registries)
        parts.append(f"the candidate classes of {names}, chosen at run time")
    stored: dict[str, list[str]] = {}
    for source in datasets.sources:
        if source.kind == "stored":
            stored.setdefault(source.function, []).append(f"`self.{source.parameter}`")
    for owner, attributes in stored.items():
        parts.append(
            f"the datasets `{owner}` and its subclasses store in {' and '.join(attributes)}"
        )
    # The modules one lookup by name may pick: one candidate set.
    modules = [f"`{source.function}`" for source in datasets.sources if source.kind == "module"]
    for source in sorted(datasets.sources, key=lambda source: source.kind):
        if source.kind == "stored":
            continue
        if source.kind == "elements":
            parts.append(
                f"the datasets callers pass to `{source.function}` in `{source.parameter}`"
            )
        elif source.kind == "configs":
            parts.append(
                f"the Dataset classes the project's configs name as `{source.parameter}`,"
                f" made by `{source.function}`"
            )
        elif source.kind == "names":
            parts.append(
                f"the Dataset classes the project names in `{source.parameter}` strings,"
                f" made by `{source.function}`"
            )
        elif source.kind == "module":
            if source.function == modules[0].strip("`"):
                names = ", ".join(modules)
                parts.append(f"the classes bound in {names}, looked up by name at run time")
        elif source.kind == "class returns":
            parts.append(f"the dataset classes `{source.function}` may return")
        else:
            parts.append(f"the datasets `{source.function}` may return")
    if not parts:
        return ""
    if len(parts) == 1 and (
        datasets.registries
        or all(source.kind in ("configs", "names") for source in datasets.sources)
    ):
        return f" (resting on {parts[0]})"
    return f" (resting on a candidate set: {'; '.join(parts)})"


def picked_note(modules: Sequence[str]) -> str:
    """Say that a finding rests on the functions of `modules` a lookup by a name known only
    at run time picks among (`globals()[cfg.transform](...)`), if it does."""
    if not modules:
        return ""
    names = ", ".join(f"`{module}`" for module in dict.fromkeys(modules))
    return (
        f" (resting on a candidate set: the functions bound in {names}, looked up by name at"
        " run time)"
    )
