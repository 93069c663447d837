"""Whether building a pipeline makes something random: a pipeline of transforms that draw
nothing is the same in every worker by design, and copying it is no bug."""

from __future__ import annotations

from collections.abc import Callable

from ..types import Span
from .branch_facts import within
from .branch_feasibility import bound_values
from .closed_bindings import returned_for_call
from .facts import Kind, Value, literal_key, number_literal
from .memo import per_project
from .package_versions import LibraryVersion, detect_library
from .pipeline_libraries import ALBUMENTATIONS, IMGAUG, MONAI, Library, pipeline_library
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef

#: albumentations transforms that draw nothing unless given `p` below 1.
DETERMINISTIC_TRANSFORMS = frozenset(
    {
        "Normalize",
        "Resize",
        "PadIfNeeded",
        "CenterCrop",
        "Crop",
        "LongestMaxSize",
        "SmallestMaxSize",
        "ToFloat",
        "FromFloat",
        "ToTensorV2",
        # `albumentations.pytorch.ToTensor` (before 1.0): converts, and normalizes if asked.
        "ToTensor",
        "ToRGB",
        "NoOp",
        # Applies its functions with p=1: the pipeline's own RNG decides nothing there (what a
        # function draws from NumPy or `random` is not the pipeline's state; WS101/WS102).
        "Lambda",
        "Compose",
        "Sequential",
    }
)

#: How many project functions a step is followed through (`center_crop(size)`).
_MAX_FACTORY_DEPTH = 3

#: albumentations transforms whose only draw is whether to apply them: with `p=1` they give
#: every image the same treatment.
APPLIED_BY_CHANCE = frozenset(
    {"HorizontalFlip", "VerticalFlip", "Transpose", "ToGray", "ToSepia", "InvertImg"}
)

#: The module of albumentations' conversions to torch tensors.
_ALBUMENTATIONS_TENSORS = "albumentations.pytorch."

#: imgaug augmenters whose only randomness is in their arguments and whose defaults are
#: fixed. imgaug reads a tuple as a range to draw from, a list as choices and a
#: `StochasticParameter` as a distribution, so with constant arguments they draw nothing.
_IMGAUG_FIXED = frozenset(
    {
        "Identity",
        "Noop",
        "Resize",
        # Its defaults are fixed too (no scaling, translation, rotation or shear).
        "Affine",
        "CenterPadToFixedSize",
        "CenterCropToFixedSize",
        "CenterPadToMultiplesOf",
        "CenterCropToMultiplesOf",
        "CenterPadToPowersOf",
        "CenterCropToPowersOf",
        "CenterPadToAspectRatio",
        "CenterCropToAspectRatio",
        "CenterPadToSquare",
        "CenterCropToSquare",
    }
)
#: imgaug flips: each draws whether to flip, with the probability `p` (1 by default).
_IMGAUG_FLIPS = frozenset({"Fliplr", "Flipud", "HorizontalFlip", "VerticalFlip"})
#: imgaug augmenters as fixed as those above except for `position`, which defaults to
#: "uniform" (a random position); a named position ("center", "left-top") draws nothing.
_IMGAUG_POSITIONED = frozenset(
    {
        "PadToFixedSize",
        "CropToFixedSize",
        "PadToMultiplesOf",
        "CropToMultiplesOf",
        "PadToPowersOf",
        "CropToPowersOf",
        "PadToAspectRatio",
        "CropToAspectRatio",
        "PadToSquare",
        "CropToSquare",
    }
)
_RANDOM_POSITIONS = frozenset({"'uniform'", "'normal'"})
#: Augmenter arguments that do not decide what is drawn.
_IMGAUG_BOOKKEEPING = frozenset({"seed", "name", "random_state", "deterministic"})


def library_version(project: Project, library: Library) -> LibraryVersion:
    """Return the version of `library` the project is assumed to use (see package_versions)."""
    return _library_version(project, library, project.library_versions)


@per_project
def _library_version(
    project: Project, library: Library, stated: tuple[tuple[str, str, str], ...]
) -> LibraryVersion:
    return detect_library(project.root, library.distributions, stated)


def builds_random_pipeline(
    project: Project,
    call: Value,
    where: FunctionRef,
    taken: Callable[[Span], bool] | None = None,
    *,
    depth: int = 0,
) -> bool:
    """Return False for a call that builds only deterministic transforms.

    albumentations, MONAI and imgaug calls are told apart by their classes and arguments;
    anything that cannot be told counts as random. `taken`, if given, says whether the code
    at a place runs: steps added to a pipeline's list in an arm that does not (`if
    self.augment: steps.append(A.Flip())` for an instance made with `augment=False`) are
    not part of it.
    """
    if call.base is None:
        return True
    project_classes = [
        target
        for target in project.targets(call.base, where.module)
        if isinstance(target, ClassRef)
    ]
    if project_classes:
        # A subclass of a library's Compose draws through the transforms it is given.
        return any(
            _class_draws(project, ref) or _derives_from_container(project, ref)
            for ref in project_classes
        )
    factories = [
        target
        for target in project.targets(call.base, where.module)
        if isinstance(target, FunctionRef) and project.class_of_function(target) is None
    ]
    if factories and depth < _MAX_FACTORY_DEPTH:
        # A step a project function makes (`center_crop(size)`): what it may return there.
        returned = [
            (option, factory)
            for factory in factories
            for value in returned_for_call(call, where, factory)
            for option in value.alternatives()
        ]
        return not returned or any(
            option.kind is not Kind.CALL
            or builds_random_pipeline(project, option, factory, depth=depth + 1)
            for option, factory in returned
        )
    names = project.qualnames(call.base, where.module)
    if not names:
        return True
    qualname = min(names)
    library, last = pipeline_library(qualname), qualname.rpartition(".")[2]
    if library is None and qualname.startswith(_ALBUMENTATIONS_TENSORS):
        # `ToTensorV2` / `ToTensor` of `albumentations.pytorch`: conversions, never drawn.
        return last not in DETERMINISTIC_TRANSFORMS
    if library is None and qualname.startswith("monai."):
        return False  # a MONAI transform that holds no RNG (LoadImaged, Spacingd, ...)
    if library is IMGAUG:
        return _imgaug_draws(project, call, where, last)
    if library is ALBUMENTATIONS and last not in ("Compose", "Sequential"):
        if last in APPLIED_BY_CHANCE:
            return not _always_applied(project, call, where)
        if last not in DETERMINISTIC_TRANSFORMS:
            return True
        probability = call.keyword("p")
        return probability is not None and not _always_applied(project, call, where)
    if library not in (ALBUMENTATIONS, MONAI) or last != "Compose":
        return True
    # A Compose draws only through the transforms it is given.
    transforms = call.keyword("transforms") or (call.args[0] if call.args else None)
    # A list bound in several branches, or grown by `steps.extend([...])`, is each of its
    # values in turn.
    lists = [
        steps
        for steps in (() if transforms is None else transforms.alternatives())
        if taken is None or steps.span is None or taken(steps.span)
    ]
    if not lists or any(steps.kind is not Kind.SEQUENCE for steps in lists):
        return True
    # A step bound in several branches (`crop = A.RandomCrop(...)` or `A.Resize(...)`) draws
    # if any of its values does.
    return any(
        option.kind is not Kind.CALL
        or builds_random_pipeline(project, option, where, taken, depth=depth)
        for steps in lists
        for item in steps.args
        for option in item.alternatives()
    )


def _imgaug_draws(project: Project, call: Value, where: FunctionRef, last: str) -> bool:
    """Return False for an imgaug augmenter that gives every image the same treatment."""
    if last == "Sequential":
        # Without `random_order` a Sequential draws nothing itself: its children do.
        order = call.keyword("random_order") or (call.args[1] if len(call.args) > 1 else None)
        if order is not None and not (order.kind is Kind.CONSTANT and order.name == "False"):
            return True
        children = call.keyword("children") or (call.args[0] if call.args else None)
        if children is None:
            return False
        items = children.args if children.kind is Kind.SEQUENCE else (children,)
        return any(_imgaug_child_draws(project, item, where) for item in items)
    arguments = [
        *call.args,
        *(value for key, value in call.keywords if key not in _IMGAUG_BOOKKEEPING),
    ]
    if last in _IMGAUG_FIXED:
        return not all(_constant(argument) for argument in arguments)
    if last in _IMGAUG_FLIPS:
        # `Fliplr(1.0)` flips every image (and `p` defaults to 1): only a `p` between 0 and 1
        # makes the draw decide anything.
        chance = call.keyword("p") or (call.args[0] if call.args else None)
        if chance is None:
            return False
        number = number_literal(chance)
        return number is None or 0 < number < 1
    if last in _IMGAUG_POSITIONED:
        position = call.keyword("position")
        return (
            position is None
            or position.kind is not Kind.CONSTANT
            or position.name in _RANDOM_POSITIONS
            or not all(_constant(argument) for argument in arguments)
        )
    return True


def _imgaug_child_draws(project: Project, child: Value, where: FunctionRef) -> bool:
    if child.kind is not Kind.CALL or child.base is None:
        return True
    base = child.base
    if (
        base.kind is Kind.ATTRIBUTE
        and base.name == "to_deterministic"
        and base.base is not None
        and _is_imgaug_augmenter(project, base.base, where)
    ):
        # A deterministic copy starts every call from the same RNG state: each image gets
        # the same treatment, in every worker alike.
        return False
    if not _is_imgaug_augmenter(project, child, where):
        return True
    return builds_random_pipeline(project, child, where)


def _is_imgaug_augmenter(project: Project, value: Value, where: FunctionRef) -> bool:
    """Return True if `value` is the construction of an imgaug augmenter."""
    if value.kind is not Kind.CALL or value.base is None:
        return False
    names = project.qualnames(value.base, where.module)
    return bool(names) and all(pipeline_library(name) is IMGAUG for name in names)


def _always_applied(project: Project, call: Value, where: FunctionRef) -> bool:
    """Return True for an albumentations transform applied to every image or to none: `p=1`,
    `p=0`, a name bound to either (`HorizontalFlip(p=HFLIP)` with `HFLIP = 1.0 if tta else
    0.0`), or `always_apply=True` before albumentations 2.0, which ignores it."""
    probability = call.keyword("p")
    if probability is not None and _settled(project, probability, where):
        return True
    always = call.keyword("always_apply")
    if always is None or always.kind is not Kind.CONSTANT or always.name != "True":
        return False
    version = library_version(project, ALBUMENTATIONS)
    return version.distribution == "albumentations" and version.within(None, (2, 0))


def _settled(project: Project, probability: Value, where: FunctionRef) -> bool:
    """Return True if a probability is 0 or 1 wherever it comes from: then whether the
    transform applies is decided, not drawn."""
    options = [
        option
        for bound in bound_values(project, probability, where)
        for option in bound.alternatives()
    ]
    return bool(options) and all(literal_key(option) in _DECIDED for option in options)


#: Probabilities that decide: never, or always.
_DECIDED = frozenset({"0", "1", "0.0", "1.0"})


def _constant(value: Value) -> bool:
    """Return True for an argument imgaug reads as one fixed value (not a range or a choice)."""
    if value.kind in (Kind.INT, Kind.CONSTANT):
        return True
    return value.kind is Kind.DICT and all(_constant(item) for _, item in value.keywords)


#: Where a transform class's own randomness comes from: the RNG modules, and the generators
#: albumentations gives each transform.
_RANDOM_MODULES = ("random.", "numpy.random.", "torch.rand")
_TRANSFORM_RNGS = frozenset({"py_random", "random_generator", "R", "random_state"})


#: Library classes that apply the transforms they are given.
_CONTAINERS = frozenset({"Compose", "Sequential", "OneOf", "SomeOf", "OneOrOther", "RandomOrder"})


def _derives_from_container(project: Project, ref: ClassRef) -> bool:
    return any(
        isinstance(target, ExternalRef)
        and pipeline_library(target.qualname) is not None
        and target.qualname.rpartition(".")[2] in _CONTAINERS
        for target in project.ancestors(ref)
    )


def _class_draws(project: Project, ref: ClassRef) -> bool:
    """Return True if a project transform class draws random numbers in any of its methods."""
    for owner in project.mro(ref):
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                continue
            for call in function.calls:
                base = call.base
                if base is None:
                    continue
                if any(name.startswith(_RANDOM_MODULES) for name in base.qualnames):
                    return True
                subject = base.base if base.kind is Kind.ATTRIBUTE else None
                if (
                    subject is not None
                    and subject.kind is Kind.ATTRIBUTE
                    and subject.name in _TRANSFORM_RNGS
                    and subject.base is not None
                    and subject.base.kind is Kind.SELF
                ):
                    return True
    return False


#: albumentations steps that take `size=` from 2.0 on: built with `height=` / `width=` instead
#: (the older spelling, common in vendored YOLOv5 code), they raise.
_SIZED_SINCE_2 = frozenset({"RandomResizedCrop", "RandomSizedCrop"})
_ALBUMENTATIONS_2 = (2, 0, 0)


def raises_from(project: Project, call: Value, where: FunctionRef) -> tuple[int, ...] | None:
    """Return the albumentations release from which building pipeline `call` fails, or
    builds it with no random step: one of its steps is made with arguments that release no
    longer takes, in a `try` that catches the error (YOLOv5's and YOLOv8's wrappers log it
    and go on without a pipeline). Uncaught, the error would stop the program: code that
    runs at all runs on an older release, which builds it.

    A step written out in the pipeline's own list makes building it fail. One in a list the
    pipeline may be given (`T = [A.RandomResizedCrop(height=h, width=w)]`, then more steps,
    then `A.Compose(T)`) leaves the lists built elsewhere: the pipeline is random from that
    release only if one of those is.
    """
    raising: list[Span] = []
    stack = [(value, True) for value in (*call.args, *(value for _, value in call.keywords))]
    seen = 0
    while stack and seen < _MAX_STEPS:
        (value, written_out), seen = stack.pop(), seen + 1
        if value.kind is Kind.SEQUENCE:
            stack.extend((item, written_out) for item in value.args)
        elif value.kind is Kind.ALTERNATIVES:
            stack.extend((option, False) for option in value.alternatives())
        elif value.kind is Kind.CALL and value.base is not None:
            caught = value.span in where.function.caught_calls
            if caught and value.span is not None and _sized_by_height(project, value, where):
                if written_out:
                    return _ALBUMENTATIONS_2
                raising.append(value.span)
            stack.extend((item, written_out) for item in value.args)
    if not raising:
        return None
    skipped = [
        span for step, after in where.function.raise_skips if step in raising for span in after
    ]

    def built(steps: Span) -> bool:
        """Return False for a list that holds a raising step or is made after one."""
        return not any(within(step, steps) for step in raising) and not any(
            within(steps, span) for span in skipped
        )

    transforms = call.keyword("transforms") or (call.args[0] if call.args else None)
    lists = () if transforms is None else transforms.alternatives()
    if lists and not any(steps.span is None or built(steps.span) for steps in lists):
        return _ALBUMENTATIONS_2  # every list it may be given raises, or is made after
    random = builds_random_pipeline(project, call, where, built)
    return None if random else _ALBUMENTATIONS_2


def _sized_by_height(project: Project, step: Value, where: FunctionRef) -> bool:
    """Return True for `A.RandomResizedCrop(height=h, width=w)`, without `size=`."""
    assert step.base is not None
    names = project.qualnames(step.base, where.module)
    return (
        bool(names)
        and pipeline_library(min(names)) is ALBUMENTATIONS
        and min(names).rpartition(".")[2] in _SIZED_SINCE_2
        and step.keyword("size") is None
        and (step.keyword("height") is not None or step.keyword("width") is not None)
    )


#: How many parts of a pipeline's arguments are looked at for steps.
_MAX_STEPS = 200
