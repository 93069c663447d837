"""The 2021 study's statistic over a directory of repositories (`workerseed scan`).

For each repository: does it define custom Datasets, does their per-item code use NumPy
randomness, does a DataLoader that may start workers load them, and is it *affected*, that
is, do the duplicated-randomness rules (WS101, WS201) report it? Epoch repeats (WS102) are
counted apart. Whether a repository is affected depends on the torch version assumed, so the
rules run once per assumption on one reading of the repository.
"""

from __future__ import annotations

import os
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, as_completed
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import files
from .analysis.candidates import DatasetsOf
from .analysis.datasets import dataset_classes, datasets_of_loader
from .analysis.loaders import LoaderCall, loader_calls
from .analysis.project import Project
from .analysis.randomness import numpy_global_draws
from .analysis.refs import ClassRef
from .analysis.rng_object_records import UseKind
from .analysis.rng_objects import RngIndex
from .analysis.torch_version import declared_target, target_from_option
from .engine import check_project, open_project
from .registry import selected_rules
from .settings import Settings, for_project
from .types import Finding, TorchTarget

#: Rules whose findings mean that workers draw duplicated random numbers.
DUPLICATION_RULES = ("WS101", "WS201")
#: The rule whose findings mean that every epoch repeats the same stream.
EPOCH_REPEAT_RULE = "WS102"
SCAN_RULES = (*DUPLICATION_RULES, EPOCH_REPEAT_RULE)

#: Progress callback: (stage, done, total).
Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class Assumption:
    """A torch version the rules assume: the same for every repository, or each one's own."""

    label: str
    #: None: the version each repository declares (latest when it declares none).
    target: TorchTarget | None


#: Before torch seeded NumPy in workers (pytorch#56488, torch 1.9).
BEFORE_NUMPY_SEEDING = Assumption("torch 1.8", TorchTarget((1, 8), source="scan assumption"))
DECLARED = Assumption("declared", None)
LATEST = Assumption("latest", TorchTarget(None, source="scan assumption"))
DEFAULT_ASSUMPTIONS = (BEFORE_NUMPY_SEEDING, DECLARED, LATEST)


@dataclass(frozen=True)
class Verdict:
    """What the rules report for one repository under one assumption."""

    assumption: str
    #: The version assumed (under DECLARED, the repository's own).
    target: TorchTarget
    #: Findings per rule code, in code order (only codes with findings).
    findings: tuple[tuple[str, int], ...]
    #: The findings themselves (for `scan --html`), in the engine's order.
    found: tuple[Finding, ...] = field(default=(), compare=False)

    def count(self, code: str) -> int:
        """Return the number of findings of rule `code`."""
        return dict(self.findings).get(code, 0)

    @property
    def affected(self) -> bool:
        """Return True if workers draw duplicated random numbers (WS101 or WS201)."""
        return any(self.count(code) for code in DUPLICATION_RULES)

    @property
    def epoch_repeats(self) -> bool:
        """Return True if a worker seed repeats every epoch (WS102)."""
        return self.count(EPOCH_REPEAT_RULE) > 0


@dataclass(frozen=True)
class RepositoryScan:
    """The facts and verdicts of one repository."""

    root: Path
    #: Python files and notebooks found.
    files: int = 0
    #: Custom Dataset classes: torch Dataset subclasses and classes given to DataLoaders.
    datasets: int = 0
    #: Of those, the ones whose per-item code draws from NumPy (global functions or RNG
    #: objects).
    numpy_datasets: int = 0
    #: A DataLoader that may start workers (num_workers not provably 0) may load a custom
    #: Dataset.
    multi_process: bool = False
    #: A Dataset drawing from NumPy is loaded by a DataLoader that may start workers: the
    #: study's population.
    in_scope: bool = False
    verdicts: tuple[Verdict, ...] = ()
    #: Why the repository could not be analysed (None if it was).
    error: str | None = None
    traceback: str = ""

    def verdict(self, assumption: str) -> Verdict | None:
        """Return the verdict under the assumption labelled `assumption`."""
        return next((v for v in self.verdicts if v.assumption == assumption), None)


@dataclass(frozen=True)
class AssumptionTotals:
    """The statistic under one assumption."""

    assumption: str
    #: Repositories analysed (those that failed are not counted).
    scanned: int
    in_scope: int
    #: In-scope repositories the duplicated-randomness rules report.
    affected: int
    #: Repositories out of scope the rules report anyway (e.g. a shared `torch.Generator`).
    affected_out_of_scope: int
    #: Repositories with a worker seed that repeats every epoch (WS102), in scope or not.
    epoch_repeats: int

    @property
    def affected_share(self) -> float | None:
        """Return the affected fraction of the in-scope repositories (None if there are none)."""
        return self.affected / self.in_scope if self.in_scope else None


@dataclass(frozen=True)
class ScanReport:
    """A scan: every repository, and the statistic per assumption."""

    repositories: tuple[RepositoryScan, ...]
    totals: tuple[AssumptionTotals, ...]

    @property
    def failed(self) -> tuple[RepositoryScan, ...]:
        """Return the repositories that could not be analysed."""
        return tuple(repository for repository in self.repositories if repository.error)


# --- finding the repositories ---


def find_repositories(roots: Iterable[Path]) -> list[Path]:
    """Return the repositories below `roots`, in order, each once.

    A root that is a project (it has a pyproject.toml, setup.py, setup.cfg or .git) is one
    repository. A root holding projects as immediate subdirectories is a directory of
    repositories: each of its subdirectories that is a project, or that holds Python files
    (a checkout without .git), is one. Any other root is analysed as part of the project that
    contains it (itself, when nothing does).
    """
    found: dict[Path, None] = {}
    for given in roots:
        root = given.resolve()
        if files.is_project_root(root):
            found[root] = None
            continue
        children = sorted(
            child for child in _subdirectories(root) if not child.name.startswith(".")
        )
        if any(files.is_project_root(child) for child in children):
            found.update(
                dict.fromkeys(
                    child
                    for child in children
                    if files.is_project_root(child) or _holds_python(child)
                )
            )
        else:
            found[files.find_project_root(root)] = None
    return list(found)


def _subdirectories(root: Path) -> Iterator[Path]:
    try:
        entries = list(os.scandir(root))
    except OSError:
        return
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            yield Path(entry.path)


def _holds_python(directory: Path) -> bool:
    return next(files.discover([directory], directory), None) is not None


# --- one repository ---


def _scan_settings(settings: Settings) -> Settings:
    # The statistic needs the same rules everywhere, and scanned repositories belong to
    # others: no cache is written into them.
    return replace(
        settings,
        select=SCAN_RULES,
        extend_select=(),
        ignore=(),
        torch_version=None,
        cache=False,
        jobs=1,
    )


def declared(root: Path, settings: Settings) -> TorchTarget:
    """Return the torch version `root` declares: its `[tool.workerseed]` setting, else the
    lowest its requirements admit, else latest. Unlike `check`, the torch installed where
    the scan runs is never assumed. Raises ValueError for an invalid configured version."""
    resolved = for_project(settings, root)
    if resolved.torch_version is not None:
        return target_from_option(resolved.torch_version, resolved.torch_version_source)
    return declared_target(root) or TorchTarget(None, source="nothing declared")


def scan_repository(
    root: Path,
    settings: Settings | None = None,
    assumptions: Sequence[Assumption] = DEFAULT_ASSUMPTIONS,
) -> RepositoryScan:
    """Return the facts and verdicts of repository `root`; never raises for a bad repository."""
    try:
        return _scan(root, _scan_settings(settings or Settings()), assumptions)
    except Exception as error:  # one broken repository must not stop a scan of thousands
        return RepositoryScan(
            root, error=f"{type(error).__name__}: {error}", traceback=traceback.format_exc()
        )


def _scan(root: Path, settings: Settings, assumptions: Sequence[Assumption]) -> RepositoryScan:
    resolved = for_project(settings, root)
    rules = selected_rules(resolved)
    # Summaries do not depend on the torch version: one reading serves every assumption.
    project = open_project(root, settings, TorchTarget(None))
    scope = _scope(project)
    verdicts = []
    for assumption in assumptions:
        target = assumption.target or declared(root, settings)
        findings = check_project(Project(root, project.sources, target), rules, resolved)
        # Only errors are duplicated or repeated streams: a warning rests on an assumption
        # (a dataset no loader is seen to load, a clock seed), an info note is no bug.
        counts = Counter(finding.code for finding in findings if finding.severity == "error")
        verdicts.append(
            Verdict(assumption.label, target, tuple(sorted(counts.items())), tuple(findings))
        )
    return replace(scope, files=len(project.sources.paths), verdicts=tuple(verdicts))


def _scope(project: Project) -> RepositoryScan:
    datasets = dataset_classes(project)
    if not datasets:
        return RepositoryScan(project.root)
    starting = [
        (loader, datasets_of_loader(project, loader))
        for loader in loader_calls(project)
        if loader.may_start_workers()
    ]
    index = RngIndex(project)
    numpy_datasets = [ref for ref in datasets if _draws_from_numpy(project, index, ref)]
    with_workers = [ref for ref in datasets if _may_load(project, starting, ref)]
    return RepositoryScan(
        project.root,
        datasets=len(datasets),
        numpy_datasets=len(numpy_datasets),
        multi_process=bool(with_workers),
        in_scope=any(ref in with_workers for ref in numpy_datasets),
    )


def _draws_from_numpy(project: Project, index: RngIndex, dataset: ClassRef) -> bool:
    if numpy_global_draws(project, dataset):
        return True
    return any(
        use.kind is UseKind.DRAW and use.obj.creation.rng_type.startswith("numpy.")
        for use in index.per_item(dataset).uses
    )


def _may_load(
    project: Project, loaders: Sequence[tuple[LoaderCall, DatasetsOf]], dataset: ClassRef
) -> bool:
    """Return True if one of `loaders` may load `dataset` (or a subclass of it).

    A loader whose dataset argument cannot be resolved (a parameter, a factory outside the
    project) may load any of them, as the rules assume.
    """
    return any(
        not of.complete or any(dataset in project.mro(ref) for ref in of.classes)
        for _, of in loaders
    )


# --- many repositories ---


def scan(
    roots: Iterable[Path],
    settings: Settings | None = None,
    *,
    assumptions: Sequence[Assumption] = DEFAULT_ASSUMPTIONS,
    progress: Progress | None = None,
) -> ScanReport:
    """Scan every repository below `roots` (see `find_repositories`), in parallel processes
    (`settings.jobs`, default one per CPU), and compute the statistic per assumption."""
    settings = settings or Settings()
    repositories = find_repositories(roots)
    workers = min(len(repositories), settings.jobs or os.cpu_count() or 1)
    results: dict[Path, RepositoryScan] = {}
    if workers <= 1:
        for done, root in enumerate(repositories, 1):
            results[root] = scan_repository(root, settings, assumptions)
            if progress:
                progress("repositories", done, len(repositories))
    else:
        # Imported here: multiprocessing costs the start-up of every command.
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures: dict[Future[RepositoryScan], Path] = {
                pool.submit(scan_repository, root, settings, assumptions): root
                for root in repositories
            }
            for done, future in enumerate(as_completed(futures), 1):
                root = futures[future]
                try:
                    results[root] = future.result()
                except Exception as error:  # the worker process itself died
                    results[root] = RepositoryScan(root, error=f"{type(error).__name__}: {error}")
                if progress:
                    progress("repositories", done, len(repositories))
    scans = tuple(results[root] for root in repositories)
    return ScanReport(scans, totals(scans, assumptions))


def totals(
    repositories: Sequence[RepositoryScan], assumptions: Sequence[Assumption]
) -> tuple[AssumptionTotals, ...]:
    """Return the statistic under each assumption."""
    analysed = [repository for repository in repositories if repository.error is None]
    rows = []
    for assumption in assumptions:
        verdicts = [(repository, repository.verdict(assumption.label)) for repository in analysed]
        rows.append(
            AssumptionTotals(
                assumption.label,
                scanned=len(analysed),
                in_scope=sum(repository.in_scope for repository in analysed),
                affected=sum(
                    repository.in_scope and verdict is not None and verdict.affected
                    for repository, verdict in verdicts
                ),
                affected_out_of_scope=sum(
                    not repository.in_scope and verdict is not None and verdict.affected
                    for repository, verdict in verdicts
                ),
                epoch_repeats=sum(
                    verdict is not None and verdict.epoch_repeats for _, verdict in verdicts
                ),
            )
        )
    return tuple(rows)
