"""What a value may be: the project classes a Dataset, transform or other value may be an
instance of, and the constructor calls seen making them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .facts import Value
from .project import Project
from .refs import ClassRef, FunctionRef

#: How many calls deep constructions, draws and stored values are followed.
MAX_CALL_DEPTH = 4
#: How many calls deep per-item code is followed: one more, for a pipeline step whose
#: `__call__` draws in a helper method (`Chain.__call__` -> `Step.__call__` -> `self.roll()`).
MAX_PER_ITEM_DEPTH = MAX_CALL_DEPTH + 1

#: How many steps (a variable, a call, a caller's argument, a stored attribute) a value is
#: followed back to the classes it may be: a dataset made by a method of a config object
#: that a training function receives from a script takes six.
MAX_RESOLUTION_DEPTH = 6

#: A constructor call of a project class and the code it is written in.
Construction = tuple[Value, FunctionRef]


@dataclass(frozen=True)
class CandidateSource:
    """Where a candidate set of datasets comes from, other than a registry."""

    #: "elements": the elements of sequence parameter `parameter` that callers pass to
    #: `function`; "returns": a position of the tuples `function` may return; "class
    #: returns": the same, for the classes (not instances) it returns; "configs":
    #: the classes the project's configs name under key `parameter`, made by `function`;
    #: "names": the classes the project's code names by dotted-path strings given to
    #: parameter `parameter` of `function`, which imports the class by that name.
    #: "module": the classes bound in project module `function`, looked up by a name known
    #: only at run time (`getattr(importlib.import_module(...), name)`, `eval("pkg." + name)`).
    #: "stored": what class `function` and its subclasses store in `self.<parameter>`.
    kind: str
    function: str
    parameter: str = ""


@dataclass(frozen=True)
class DatasetsOf:
    """The dataset classes a value may hold."""

    classes: tuple[ClassRef, ...]
    #: False if some possibility could not be resolved (a parameter, an unknown factory).
    complete: bool
    #: The registries (module-level names) whose candidate classes `classes` includes: the
    #: dataset, or one of its bases, is picked from one of them at run time
    #: (`DATASETS[cfg.type](...)`, `class D(BASES[name])`).
    registries: tuple[str, ...] = ()
    #: Project classes whose instances a third-party container the value may be (a
    #: torchvision `Compose`, `RandomApply`, ...) holds and calls when it is called.
    contained: tuple[ClassRef, ...] = ()
    #: For each class in `classes`, the constructor calls seen making its instances.
    made: tuple[tuple[ClassRef, Construction], ...] = ()
    #: Other candidate sets `classes` rests on (a loop over what callers pass, an unpacked
    #: factory result): some of the classes may never reach a given call.
    sources: tuple[CandidateSource, ...] = ()
    #: Project callables in `classes` that a third-party dataset applies per item (a
    #: torchvision dataset's `transform=`), each with that dataset's class name.
    applied: tuple[tuple[ClassRef, str], ...] = ()

    def applied_by(self, ref: ClassRef) -> tuple[str, ...]:
        """Return the third-party datasets that apply project callable `ref` per item."""
        return tuple(name for applied, name in self.applied if applied == ref)

    def made_by(self, ref: ClassRef) -> tuple[Construction, ...] | None:
        """Return the calls that made the instances of `ref`, or None if some are unknown."""
        if not self.complete:
            return None
        # No call seen (a class picked from a registry by a builder): any caller may have.
        return tuple(site for made, site in self.made if made == ref) or None


#: Resolves a value seen in a function (at some depth) to what it may be.
Resolver = Callable[[Project, Value, FunctionRef, int], DatasetsOf]


def merge(results: list[DatasetsOf]) -> DatasetsOf:
    """Return what a value that may be any of `results` holds."""
    classes = [ref for result in results for ref in result.classes]
    registries = [name for result in results for name in result.registries]
    contained = [ref for result in results for ref in result.contained]
    made = [site for result in results for site in result.made]
    sources = [source for result in results for source in result.sources]
    applied = [pair for result in results for pair in result.applied]
    return DatasetsOf(
        tuple(dict.fromkeys(classes)),
        all(result.complete for result in results),
        registries=tuple(dict.fromkeys(registries)),
        contained=tuple(dict.fromkeys(contained)),
        made=tuple(dict.fromkeys(made)),
        sources=tuple(dict.fromkeys(sources)),
        applied=tuple(dict.fromkeys(applied)),
    )
