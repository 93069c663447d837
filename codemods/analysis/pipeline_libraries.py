"""The augmentation libraries WS203 knows, and which of their classes make a pipeline."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Library:
    """An augmentation library: its import name and the distributions that provide it."""

    name: str
    #: Distributions providing the import name, the one assumed by default first.
    distributions: tuple[str, ...]
    #: Calls on a pipeline that reseed it in place.
    reseed_methods: frozenset[str]


ALBUMENTATIONS = Library(
    "albumentations",
    ("albumentations", "albumentationsx"),
    frozenset({"set_random_seed", "set_random_state"}),
)
IMGAUG = Library("imgaug", ("imgaug",), frozenset({"seed_", "reseed"}))
MONAI = Library("monai", ("monai",), frozenset({"set_random_state"}))
AUDIOMENTATIONS = Library("audiomentations", ("audiomentations",), frozenset())
LIBRARIES = (ALBUMENTATIONS, IMGAUG, MONAI, AUDIOMENTATIONS)

#: Where each library's pipeline classes live.
_PIPELINE_MODULES = {
    "albumentations": ALBUMENTATIONS,
    "imgaug.augmenters": IMGAUG,
    "monai.transforms": MONAI,
    "audiomentations": AUDIOMENTATIONS,
}
#: MONAI classes that hold an RNG (`self.R`) besides the `Rand*` transforms.
_MONAI_RANDOMIZABLE = frozenset({"Compose", "OneOf", "SomeOf", "RandomOrder"})


def pipeline_library(qualname: str) -> Library | None:
    """Return the library whose pipeline (or random transform) class `qualname` names."""
    for prefix, library in _PIPELINE_MODULES.items():
        if qualname.startswith(prefix + "."):
            last = qualname.rpartition(".")[2]
            if not last[:1].isupper() or ".pytorch." in qualname:
                return None
            if library is MONAI and not (last.startswith("Rand") or last in _MONAI_RANDOMIZABLE):
                return None
            return library
    return None


def library_named(name: str) -> Library:
    return next(library for library in LIBRARIES if library.name == name)


def pipeline_module(qualname: str) -> Library | None:
    """Return the library whose module of pipeline classes `qualname` names (`albumentations`,
    `imgaug.augmenters`), if it names one."""
    return _PIPELINE_MODULES.get(qualname)
