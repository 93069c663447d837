"""What fixing an RNG object needs to know of the classes and modules that hold it: whether
an instance can carry the reseed bookkeeping, and whether reseed helpers a module already has
handle the object's type."""

from __future__ import annotations

from .facts import ModuleFacts
from .project import Project
from .refs import ClassRef, ExternalRef, FunctionRef
from .rng_draws import is_reseed_helper
from .rng_object_records import RESEED_IN_WORKER, RESEED_OBJECT

#: External bases whose instances have no `__dict__` of their own.
_SLOTTED_BASES = frozenset({"builtins.object", "typing.Generic", "typing.Protocol"})


def instances_have_dict(project: Project, ref: ClassRef) -> bool:
    """Return True unless every class in `ref`'s hierarchy declares `__slots__`."""
    if any(not owner.cls.has_slots for owner in project.mro(ref)):
        return True
    return any(
        not (isinstance(target, ExternalRef) and target.qualname in _SLOTTED_BASES)
        and not isinstance(target, ClassRef)
        for target in project.ancestors(ref)
    )


def reseed_helpers_handle(project: Project, module: ModuleFacts, rng_type: str) -> bool:
    """Return True unless `module` has reseed helpers that are not ours or skip `rng_type`."""
    own = module.function(RESEED_IN_WORKER)
    if own is not None and not is_reseed_helper(project, FunctionRef.of(module, own)):
        return False
    if own is None:
        return True
    # The RNG kinds are tested in `_reseed_rngs_in_worker` itself, or (in code fixed by an
    # earlier release) in the `_reseed_rng_object` it calls.
    helpers = [own, module.function(RESEED_OBJECT)]
    handled: set[str] = set()
    for call in (call for helper in helpers if helper is not None for call in helper.calls):
        if (
            call.base is not None
            and len(call.args) == 2
            and project.is_one_of(call.base, module, frozenset({"builtins.isinstance"}))
        ):
            handled |= project.qualnames(call.args[1], module)
    return rng_type in handled


def rng_library(rng_type: str) -> str:
    """Return the library an RNG type belongs to: "numpy", "random" or "torch"."""
    return rng_type.partition(".")[0]
