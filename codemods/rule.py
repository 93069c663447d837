"""The base class every rule derives from.

A rule is a class with a code, a kebab-case name that describes the pattern, and its user
documentation as the class docstring (sections: What it does, Why it matters, Example, Fix,
Fix safety, Known limitations, References). `check()` reads the shared analysis and calls
`report()`; it never prints and never edits a file.
"""

from __future__ import annotations

import enum
import inspect
import re
from abc import ABC, abstractmethod
from pathlib import Path
from typing import ClassVar

from .analysis.loaders import LoaderCall
from .analysis.project import Project
from .analysis.refs import FunctionRef
from .types import Finding, Fix, Location, Safety, Span, TorchTarget

DOC_SECTIONS = (
    "What it does",
    "Why it matters",
    "Example",
    "Fix",
    "Fix safety",
    "Known limitations",
    "References",
)


class FixAvailability(enum.Enum):
    """Whether the rule's findings come with an automatic fix (as in ruff)."""

    ALWAYS = "always"
    SOMETIMES = "sometimes"
    NEVER = "never"


class FixSafety(enum.Enum):
    """Which `Safety` the fixes of a rule have: declared on the rule, shown by `rules`, the
    README table and SARIF, and checked against every fix the fixtures produce."""

    SAFE = "safe"
    UNSAFE = "unsafe"
    #: Some fixes are safe, some unsafe (the rule's "Fix safety" section says which).
    SOMETIMES_UNSAFE = "sometimes unsafe"
    #: The rule has no fix.
    NONE = "none"

    def allows(self, safety: Safety) -> bool:
        """Return True if a fix of `safety` is within this declaration."""
        if self is FixSafety.SOMETIMES_UNSAFE:
            return True
        return bool(self.value == safety.value)


class Rule(ABC):
    """A check over a `Project` that reports `Finding`s."""

    CODE: ClassVar[str]
    NAME: ClassVar[str]
    #: Enabled without `--select`.
    DEFAULT: ClassVar[bool] = True
    FIX: ClassVar[FixAvailability] = FixAvailability.SOMETIMES
    #: The safety of the fixes the rule emits (each `Fix` carries its own).
    FIX_SAFETY: ClassVar[FixSafety]

    def __init__(self, project: Project) -> None:
        self.project = project
        self.findings: list[Finding] = []

    @classmethod
    def prefetch(cls, target: TorchTarget) -> tuple[bytes, ...]:
        """Return byte strings whose files `check()` will certainly read: they are parsed up
        front, in parallel. Only a hint for speed; what is read is decided by the queries."""
        del target
        return ()

    @abstractmethod
    def check(self) -> None:
        """Inspect `self.project` and report each problem with `self.report()`."""

    def report(
        self,
        where: FunctionRef,
        span: Span,
        message: str,
        *,
        fix: Fix | None = None,
        severity: str = "error",
        related: tuple[Location, ...] = (),
    ) -> None:
        """Record a finding at `span` of the file that defines `where` (and at `related`)."""
        if fix is not None and any(self._not_rewritable(edits.path) for edits in fix.files):
            fix = None  # libcst cannot parse it, so no fix can be applied there
        self.findings.append(
            Finding(
                code=self.CODE,
                name=self.NAME,
                message=message,
                path=where.path,
                span=span,
                target=self.project.target,
                fix=fix,
                severity=severity,
                related=related,
            )
        )

    def _not_rewritable(self, path: Path) -> bool:
        module = self.project.module_at(path)
        return module is not None and module.legacy_grammar

    def reported_at(self, path: Path, span: Span) -> bool:
        """Return True if a finding of this rule already names `span` of `path`."""
        return any(
            (finding.path, finding.span) == (path, span) or Location(path, span) in finding.related
            for finding in self.findings
        )

    def location(self, path: Path, line: int) -> str:
        """Return `path:line` as messages show it: relative to the project root."""
        return self.project.location(path, line)

    def unresolved_note(self, loader: LoaderCall) -> str:
        """Say that no DataLoader is seen to load a Dataset, naming the one whose dataset
        could not be resolved (a finding that rests on it is a note)."""
        span = loader.call.span
        assert span is not None
        where = self.location(loader.module.path, span.line)
        return (
            "no DataLoader in the project is seen to load it (the dataset of the one at "
            f"{where} could not be resolved)"
        )

    @classmethod
    def documentation(cls) -> str:
        """Return the rule's documentation (its docstring), dedented."""
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        """Return the first sentence of "What it does"."""
        section = cls.sections().get("What it does", "")
        return section.split("\n\n")[0].replace("\n", " ").strip()

    @classmethod
    def fix_safety(cls) -> str:
        """Return the declared safety of the rule's fixes: "safe", "unsafe", "sometimes
        unsafe", or "none" when it has no fix."""
        if cls.FIX is FixAvailability.NEVER:
            return FixSafety.NONE.value
        return cls.FIX_SAFETY.value

    @classmethod
    def sections(cls) -> dict[str, str]:
        """Return the documentation's `## Heading` sections by heading."""
        parts = re.split(r"^## +(.+)$", cls.documentation(), flags=re.MULTILINE)
        return {
            heading.strip(): body.strip()
            for heading, body in zip(parts[1::2], parts[2::2], strict=True)
        }
