"""Lightning's command-line interface, which makes the Trainer and the modules itself.

`LightningCLI(Model, Data)` makes the model and the data module (the classes passed, any of
their subclasses under `subclass_mode`, or those the configuration files name as
`class_path`), seeds with `seed_everything(<seed>, workers=True)` (unless told
`seed_everything_default=False`) and fits them; with `run=False` the script calls
`cli.trainer.fit(cli.model, datamodule=cli.datamodule)` itself. Either way the Trainer runs
the loader hooks of the classes the CLI makes, and gives their loaders Lightning's
per-worker, per-rank seeding.
"""

from __future__ import annotations

from .config_targets import named_classes
from .facts import Value
from .memo import per_project
from .project import Project
from .refs import ClassRef, FunctionRef
from .self_calls import subclasses

LIGHTNING_CLIS = frozenset(
    {
        "pytorch_lightning.cli.LightningCLI",
        "pytorch_lightning.utilities.cli.LightningCLI",
        "lightning.pytorch.cli.LightningCLI",
    }
)
#: `LightningCLI(model_class, datamodule_class, ...)`: the classes it may make.
_CLASS_ARGUMENTS = ("model_class", "datamodule_class")


@per_project
def cli_calls(project: Project) -> tuple[tuple[FunctionRef, Value], ...]:
    """Return every call making a LightningCLI (or a project subclass), with its function."""
    own = project.subclasses_of(LIGHTNING_CLIS)
    names = {"LightningCLI", *(ref.cls.name for ref in own)}
    found: list[tuple[FunctionRef, Value]] = []
    for function in project.functions_mentioning(*sorted(names)):
        for call in function.function.calls:
            if call.base is None:
                continue
            qualnames = project.qualnames(call.base, function.module)
            targets = project.targets(call.base, function.module)
            if (qualnames and qualnames <= LIGHTNING_CLIS) or (
                targets and all(target in own for target in targets)
            ):
                found.append((function, call))
    return tuple(found)


def seed_option(call: Value) -> Value | None:
    """Return the CLI's `seed_everything_default` (False: it does not seed)."""
    return call.keyword("seed_everything_default")


@per_project
def cli_makers(project: Project) -> dict[ClassRef, tuple[FunctionRef, ...]]:
    """Return the project classes a LightningCLI may make, each with the functions making
    that CLI: the classes passed to it and their subclasses, and those the configuration
    files name as `class_path`."""
    named = named_classes(project, "class_path")
    found: dict[ClassRef, dict[FunctionRef, None]] = {}
    for function, call in cli_calls(project):
        passed: list[ClassRef] = []
        for index, keyword in enumerate(_CLASS_ARGUMENTS):
            argument = call.keyword(keyword) or (
                call.args[index] if len(call.args) > index else None
            )
            if argument is None:
                continue
            for target in project.targets(argument, function.module):
                if isinstance(target, ClassRef):
                    passed.extend((target, *subclasses(project, target)))
        for ref in (*passed, *named):
            found.setdefault(ref, {})[function] = None
    return {ref: tuple(functions) for ref, functions in found.items()}
