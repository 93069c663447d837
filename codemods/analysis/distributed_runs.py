"""Which runs of a project are distributed: a seeding and a DataLoader take part in one
data-parallel job when they share a run (see `runs.entry_modules`) with evidence that it
starts or joins one (see `data_parallel.distributed_evidence`)."""

from __future__ import annotations

from pathlib import Path

from ..types import Span
from .branch_facts import Branch, within
from .branch_feasibility import outcome, passed_known, ruled_out_by_call
from .configured_trainers import hydra_entry_files
from .data_parallel import Evidence
from .facts import FunctionFacts, Kind, Value, spelled
from .known_values import passed_argument
from .loaders import LoaderCall
from .memo import per_project
from .project import Project
from .refs import CallSite, FunctionRef
from .runs import callers_up, entry_modules, overridden_in, spawn_sites
from .seed_classification import is_rank_name
from .seeds import parameters_of


def job_of(
    project: Project,
    loader: LoaderCall,
    entries: frozenset[Path],
    seeding_runs: frozenset[Path],
    evidence: list[Evidence],
) -> Evidence | None:
    """Return the evidence that the run shared by a seeding and a loader is distributed."""
    shared = [
        item
        for item in evidence
        if (run := evidence_runs(project, item) & entries & seeding_runs)
        # Configuration files ask for several processes only in a run Hydra starts.
        and (not item.chosen_by_hydra or run & hydra_entry_files(project))
        # A rank read with a fallback shows a launcher may start the script that reads
        # it, not the scripts that call it (a helper reading the rank for its logs).
        and (not item.fallback or item.function.path in run)
        and not _no_group_in(project, item, evidence)
        and not _replaced_in_run_of(project, loader, item)
    ]
    # Name evidence that rests on no configuration file chosen first, then the evidence
    # nearest the loader, and a call that starts the job before a read of the rank.
    shared.sort(
        key=lambda item: (
            bool(item.config_files),
            item.function.path != loader.module.path,
            item.is_read,
        )
    )
    return next(iter(shared), None)


def _no_group_in(project: Project, item: Evidence, evidence: list[Evidence]) -> bool:
    """Return True if `item` needs a process group (a `DistributedSampler`) that nothing
    makes: the project makes or joins none anywhere (nor reads a launcher's rank variable,
    nor imports a framework that makes one), so where its scripts run `item` it raises.
    Code no project script runs (a library's loader builder) is run by programs that may
    make one."""
    if not item.needs_a_group or not project.callers(item.function) or _uses_a_framework(project):
        return False
    runs = evidence_runs(project, item)
    # A rank read only where a launcher set it (`if "RANK" in os.environ:`) makes no group,
    # nor does a group maker that takes part in none of the runs that reach `item`.
    return all(
        other.needs_a_group or other.fallback or not evidence_runs(project, other) & runs
        for other in evidence
    )


#: Training frameworks that make a process group for the code they run (an old Lightning
#: `Trainer(distributed_backend=...)`, detectron2's `launch`, fairseq's `distributed_main`,
#: dora's `distrib.init()`).
_FRAMEWORKS = (
    "pytorch_lightning",
    "lightning",
    "accelerate",
    "deepspeed",
    "horovod",
    "detectron2",
    "mmcv",
    "mmengine",
    "fairseq",
    "transformers",
    "ignite",
    "colossalai",
    "ray",
    "composer",
    "catalyst",
    "dora",
)


@per_project
def _uses_a_framework(project: Project) -> bool:
    """Return True if some module of the project imports a training framework."""
    return any(
        qualname.partition(".")[0] in _FRAMEWORKS
        for module in project.modules_mentioning(*_FRAMEWORKS)
        for _, values in module.bindings
        for value in values
        for qualname in value.qualnames
    )


def joins_job(
    project: Project, path: Path | None, entries: frozenset[Path], evidence: list[Evidence]
) -> bool:
    """Return True if file `path` (any file, if None) holds evidence that a run of
    `entries` is distributed."""
    return any(
        path in (None, item.function.path) and evidence_runs(project, item) & entries
        for item in evidence
    )


@per_project
def evidence_runs(project: Project, evidence: Evidence) -> frozenset[Path]:
    """Return the runs `evidence` shows distributed.

    Evidence in a method of an object a script makes (a model wrapping itself in DDP when
    its options ask) does not show that each script making one is distributed. Nor does
    evidence in a shared helper under a test of its parameter (`if distributed:
    DistributedSampler(...)`) show it for a caller whose arguments rule that branch out
    (`create_loader(dataset)`, leaving `distributed=False`).
    """
    function, span = evidence.function, evidence.value.span
    sites = [*project.callers(function), *spawn_sites(project).get(function, ())]
    if not sites and never_runs(project, function):
        return frozenset()
    return _runs_reaching(project, function, span, sites, through_objects=False)


@per_project
def loader_runs(project: Project, loader: LoaderCall) -> frozenset[Path]:
    """Return the runs that build `loader`: those of its function, less the callers whose
    arguments rule out the branch around it (`create_loader(config, is_train=True)` never
    builds the evaluation loader of the `else`, so its run takes no part in that loader's)."""
    function = loader.function
    return _runs_reaching(
        project, function, loader.call.span, project.callers(function), through_objects=True
    )


def _runs_reaching(
    project: Project,
    function: FunctionRef,
    span: Span | None,
    sites: list[CallSite],
    *,
    through_objects: bool,
) -> frozenset[Path]:
    """Return the runs of `function` that reach the code at `span`: its entry modules, or,
    when the arguments of some call at `sites` rule that code out, its own file and the
    runs of the other calls (a method's are its entry modules: its callers are not all
    seen)."""
    if span is None or not sites or function.function.class_qualname is not None:
        return entry_modules(project, function, through_objects=through_objects)
    kept = [site for site in sites if not _rules_out(project, site, function, span)]
    if len(kept) == len(sites):
        return entry_modules(project, function, through_objects=through_objects)
    return frozenset(
        {function.path}.union(
            *(
                entry_modules(project, site.function, through_objects=through_objects)
                for site in kept
            )
        )
    )


@per_project
def never_runs(project: Project, function: FunctionRef) -> bool:
    """Return True for a function of a script that nothing runs: a plain module-level
    function that no code calls, passes or stores, in a module whose own code calls its
    functions (`if __name__ == "__main__": main()`, leaving an `init_dist` unused). A
    library's function may be run by name from outside (a console script): not this."""
    facts = function.function
    if (
        "." in facts.qualname
        or facts.qualname == "<module>"
        or facts.decorators
        or callers_up(project, function) != (function,)
        or project.is_referenced(function)
    ):
        return False
    module_code = function.module.function("<module>")
    return module_code is not None and any(
        isinstance(target, FunctionRef) and target.path == function.path
        for call in module_code.calls
        if call.base is not None
        for target in project.targets(call.base, function.module)
    )


def _rules_out(project: Project, site: CallSite, callee: FunctionRef, span: Span) -> bool:
    """Return True if the call at `site` never runs the code at `span` of `callee`: what it
    passes rules out the branch around it, or it passes on its own caller's parameter
    (`build_network(net, ddp)` in `trainer(..., ddp=True)`) and every call of it passes a
    value that does (`trainer(0, 1, ddp=False)`)."""
    if ruled_out_by_call(site.call, site.function, callee, span):
        return True
    caller = site.function.function
    for branch in callee.function.branches:
        if branch.subject not in callee.function.params or branch.governs(span) is None:
            continue
        passed = passed_argument(site.call, callee.function, branch.subject, 0)
        if not isinstance(passed, Value) or passed.kind is not Kind.PARAM:
            continue
        outer = project.callers(site.function)
        if outer and all(
            (known := passed_known(call.call, call.function, caller, passed.name)) is not None
            and (holds := outcome(branch, known)) is not None
            and branch.excludes(span, holds)
            for call in outer
        ):
            return True
    return False


def _replaced_in_run_of(project: Project, loader: LoaderCall, evidence: Evidence) -> bool:
    """Return True if the class holding the evidence replaces the loader's method."""
    owner = project.class_of_function(evidence.function)
    return owner is not None and overridden_in(project, loader.function, owner)


def separate_commands(project: Project, first: FunctionRef, second: FunctionRef) -> bool:
    """Return True for two plain functions of one file that nothing connects: neither calls
    the other and no function calls both, a few levels up (`@hydra.main def train()` and
    `@hydra.main def predict()`, each a command of its own). Sharing the file, they share
    its run (`entry_modules`) but never take part in one."""
    if first == second or first.path != second.path:
        return False
    if any(
        ref.function.class_qualname is not None
        or "." in ref.function.qualname
        or ref.function.qualname == "<module>"
        for ref in (first, second)
    ):
        return False
    return not set(callers_up(project, first)) & set(callers_up(project, second))


def exclusive_runs(project: Project, first: FunctionRef, second: FunctionRef) -> bool:
    """Return True if no run calls both functions: neither calls the other, and each
    function that calls both (a few levels up) calls them from different arms of one `if`
    that no loop repeats (`if args.sample: runner.sample() else: runner.train()`).

    Calls are told by the name they call, so a call that may lead to either counts for
    both: when unsure, the two share a run.
    """
    first_up, second_up = callers_up(project, first), callers_up(project, second)
    if first in second_up or second in first_up:
        return False
    common = set(first_up) & set(second_up)
    if not common:
        return False
    for caller in common:
        facts = caller.function
        towards_first = _calls_towards(caller, first_up)
        towards_second = _calls_towards(caller, second_up)
        if not towards_first or not towards_second:
            return False
        for one in towards_first:
            for other in towards_second:
                # One call leading to both is judged where their paths part, further down.
                if one != other and not _in_other_arms(facts, one, other):
                    return False
    return True


def _calls_towards(caller: FunctionRef, path: tuple[FunctionRef, ...]) -> list[Span]:
    """Return the calls of `caller` that call a function of `path` by name."""
    names = {ref.function.name for ref in path if ref != caller}
    return [
        call.span
        for call in caller.function.calls
        if call.span is not None
        and call.base is not None
        and not names.isdisjoint(spelled(call.base))
    ]


def _in_other_arms(facts: FunctionFacts, one: Span, other: Span) -> bool:
    """Return True if calls `one` and `other` lie in different arms of one `if` of `facts`,
    with no loop, `match` or `except` around either."""
    if one not in facts.if_only_calls or other not in facts.if_only_calls:
        return False
    return any(
        orelse is not None
        and (
            (within(one, body) and within(other, orelse))
            or (within(one, orelse) and within(other, body))
        )
        for body, orelse in facts.choices
    )


def rank_never_passed(project: Project, function: FunctionRef, seed: Value | None) -> bool:
    """Return True if `seed` mixes in a rank parameter of a plain function that nothing calls
    or uses as a value and no decorator hands to a framework: a seeding helper defined and
    never used (`def random_seed(seed, rank): torch.manual_seed(seed + rank)`) seeds no run."""
    facts = function.function
    return (
        seed is not None
        and any(is_rank_name(param) for param in parameters_of(seed) & set(facts.params))
        and facts.class_qualname is None
        and not facts.decorators
        and not project.callers(function)
        and not project.is_referenced(function)
    )


#: How many callers up a guard `if rank == 0:` around the loader's construction is sought.
_GUARD_DEPTH = 3


def built_on_rank_zero_only(project: Project, loader: LoaderCall) -> bool:
    """Return True if only the process of global rank 0 builds the loader: its call, or
    every call that leads to it (a few levels up), runs under `if <rank> == 0:` of a global
    rank (`self.global_rank`, a `rank` parameter; not `local_rank`, 0 on every node). No
    other rank has its workers, so none repeats their draws (evaluation on the main rank)."""
    span = loader.call.span
    return span is not None and _guarded(project, loader.function, span, _GUARD_DEPTH)


def _guarded(project: Project, function: FunctionRef, span: Span, depth: int) -> bool:
    if any(_runs_on_rank_zero(branch, span) for branch in function.function.branches):
        return True
    sites = project.callers(function) if depth else []
    return bool(sites) and all(
        site.call.span is not None and _guarded(project, site.function, site.call.span, depth - 1)
        for site in sites
    )


def _runs_on_rank_zero(branch: Branch, span: Span) -> bool:
    """Return True if `span` lies in the arm of `branch` that runs only where a global rank
    is 0 (`if rank == 0:`, or the `else` of `if rank != 0:`)."""
    subject = branch.subject.lower()
    if not is_rank_name(subject) or "local" in subject or branch.literals != ("0",):
        return False
    arm = branch.orelse if branch.negated else branch.body
    return arm is not None and within(span, arm)
