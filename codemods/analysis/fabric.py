"""Lightning Fabric (and its predecessor LightningLite), held by the project's own code.

`fabric.seed_everything(seed)` seeds torch like Lightning's function, but asks for per-worker
seeding unless told `workers=False`: it sets `PL_SEED_WORKERS`, which `fabric.setup_dataloaders`
reads when it is called, giving each loader it is handed, that has no `worker_init_fn`,
Lightning's rank-aware one. A loader set up before the seeding keeps no worker seeding.
"""

from __future__ import annotations

from .branch_feasibility import bound_values
from .facts import Kind, Value
from .project import Project
from .refs import ClassRef, FunctionRef
from .self_calls import self_class

#: Fabric, and LightningLite (Lightning 1.x), by every path they are imported from.
FABRICS = frozenset(
    {
        "lightning.Fabric",
        "lightning.fabric.Fabric",
        "lightning.fabric.fabric.Fabric",
        "lightning_fabric.Fabric",
        "lightning_fabric.fabric.Fabric",
        "pytorch_lightning.lite.LightningLite",
        "pytorch_lightning.lite.lite.LightningLite",
        "lightning.pytorch.lite.LightningLite",
    }
)


def is_fabric(project: Project, receiver: Value, where: FunctionRef) -> bool:
    """Return True if `receiver` (in `where`) is certainly a Fabric: made by `L.Fabric(...)`
    or a project subclass, a parameter annotated as one (`fabric: L.Fabric`), or `self` in a
    Fabric or LightningLite subclass."""
    if receiver.kind is Kind.SELF:
        owner = self_class(project, where)
        return owner is not None and project.derives_from(owner, FABRICS)
    options = bound_values(project, receiver, where)
    return bool(options) and all(_made_fabric(project, option, where) for option in options)


def _made_fabric(project: Project, value: Value, where: FunctionRef) -> bool:
    if value.kind is Kind.PARAM:
        annotation = dict(where.function.annotations).get(value.name)
        return annotation is not None and _names_fabric(project, annotation, where)
    return (
        value.kind is Kind.CALL
        and value.base is not None
        and _names_fabric(project, value.base, where)
    )


def _names_fabric(project: Project, name: Value, where: FunctionRef) -> bool:
    """Return True if `name` denotes Fabric, LightningLite, or a project subclass of one."""
    if project.is_one_of(name, where.module, FABRICS):
        return True
    targets = project.targets(name, where.module)
    return bool(targets) and all(
        isinstance(target, ClassRef) and project.derives_from(target, FABRICS) for target in targets
    )
