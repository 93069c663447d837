"""Values passed between the analysis, the rules, the fixer, the engine and the CLI.

Every type here is a frozen dataclass or an Enum, so results can cross process boundaries
(pickle) and be cached.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar


@dataclass(frozen=True, order=True, slots=True)
class Span:
    """A source range: 1-based lines, 0-based columns counted in characters (not bytes)."""

    line: int
    column: int
    end_line: int
    end_column: int

    def __reduce__(self) -> tuple[Callable[[int, int, int, int], Span], tuple[int, int, int, int]]:
        return (shared_span, (self.line, self.column, self.end_line, self.end_column))


#: Every line and column number a span was made with: summaries hold millions of numbers
#: but few distinct ones, and each number above 256 is an object of its own unless shared.
_NUMBERS: dict[int, int] = {}


def shared_span(line: int, column: int, end_line: int, end_column: int) -> Span:
    """Return the span, made of numbers shared with every other span made this way."""
    numbers = _NUMBERS
    return Span(
        numbers.setdefault(line, line),
        numbers.setdefault(column, column),
        numbers.setdefault(end_line, end_line),
        numbers.setdefault(end_column, end_column),
    )


@dataclass(frozen=True, slots=True)
class Location:
    """A span of one file: another place a finding's cause shows at."""

    path: Path
    span: Span


class Safety(enum.Enum):
    """Whether applying a fix can change anything beyond which random numbers are drawn."""

    SAFE = "safe"
    UNSAFE = "unsafe"


# --- Edits: what a fix does, as data. The fixer applies them with libcst. ---
#
# Every edit type answers two questions, so that no other code lists the types:
# - `span`: the source it rewrites, or None for an addition with no place of its own (a
#   helper, an import);
# - `is_insertion`: whether two fixes may both make it at one place, because such edits
#   merge (statements inserted into one function, parameters added to one def). Fixes whose
#   non-insertion spans overlap wait for the next round.
# Its applier is registered in `fixes/edits.py`.


@dataclass(frozen=True)
class AddKeyword:
    """Append `keyword=value` to the call at `call`."""

    call: Span
    keyword: str
    value: str

    @property
    def span(self) -> Span | None:
        return self.call

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class AddDictEntry:
    """Add `"key": value` to the dict literal (`key=value` to the `dict(...)` call) at `target`."""

    target: Span
    key: str
    value: str

    @property
    def span(self) -> Span | None:
        return self.target

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class InsertStatements:
    """Insert `code` (one or more statements) into the function defined at `function`.

    `at_top` puts them first in the body (after a docstring); otherwise they go last.
    """

    function: Span
    code: str
    at_top: bool = True

    @property
    def span(self) -> Span | None:
        return self.function

    is_insertion: ClassVar[bool] = True


@dataclass(frozen=True)
class ReplaceExpression:
    """Replace the expression at `target` with `code`.

    `keep` names sub-expressions of the target that survive: the names `__keep_0__`,
    `__keep_1__`, ... in `code` are replaced by the original code at those spans, comments
    and layout included.
    """

    target: Span
    code: str
    keep: tuple[Span, ...] = ()

    @property
    def span(self) -> Span | None:
        return self.target

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class PackArguments:
    """Make the positional arguments of the call at `call` one tuple: `f(a, b)` -> `f((a, b))`.

    Comments and line breaks between the arguments stay, inside the tuple.
    """

    call: Span

    @property
    def span(self) -> Span | None:
        return self.call

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class WrapExpression:
    """Replace the expression at `target` with `before` + its own code + `after`."""

    target: Span
    before: str
    after: str

    @property
    def span(self) -> Span | None:
        return self.target

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class RemoveStatement:
    """Remove the simple statement that contains the expression at `target`."""

    target: Span

    @property
    def span(self) -> Span | None:
        return self.target

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class RemoveUnreadAssignment:
    """Remove `name = ...` (its target at `target`, in the function at `function`) if the
    other edits leave nothing in that function reading `name`, where something did before.

    For what only served a seeding call a fix removes (`base_seed = os.urandom(...)`). Two
    fixes may both ask for it: it merges.
    """

    function: Span
    target: Span
    name: str

    @property
    def span(self) -> Span | None:
        return self.target

    is_insertion: ClassVar[bool] = True


@dataclass(frozen=True)
class RemoveEmptiedMethod:
    """Remove the method at `function` (its `def` and body), and the statements calling it
    at `calls`, if the other edits leave its body doing nothing (`def _reseed(self, i):`
    whose every statement a fix removes would stay behind as `pass`, still called)."""

    function: Span
    calls: tuple[Span, ...]

    @property
    def span(self) -> Span | None:
        return self.function

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class AddHelper:
    """Define a module-level helper once per module, after the imports.

    `name` identifies the helper: if the module already defines it, nothing is added.
    """

    name: str
    code: str

    @property
    def span(self) -> Span | None:
        return None

    is_insertion: ClassVar[bool] = True


@dataclass(frozen=True)
class HoistFunction:
    """Move the lambda or nested `def` at `target` to module level as `def name(...)`.

    The new def goes right before the module-level statement that contains `target`.
    A lambda becomes a def whose body calls (or returns) the lambda's body, and the lambda
    is replaced by `replacement`; with `replaces_assignment`, the lambda is the whole value
    of `name = lambda ...`, and that statement is replaced by the def instead (in place at
    module level; removed from a function, whose uses of `name` then find the def).
    A nested def is moved out of its function as it is; if `name` is not its own name, the
    names in the function that referred to it are renamed. `leading_params` are prepended
    to the parameters (the replacement passes them, e.g. through `functools.partial`).
    """

    target: Span
    name: str
    replacement: str = ""
    leading_params: tuple[str, ...] = ()
    replaces_assignment: bool = False

    @property
    def span(self) -> Span | None:
        return self.target

    is_insertion: ClassVar[bool] = False


@dataclass(frozen=True)
class AddParameter:
    """Add parameter `name` (annotated with `annotation`, if given) to the def at `definition`.

    It goes last among the plain parameters, or, after `*args`, a `*`, or a parameter with a
    default, among the keyword-only ones (before any `**kwargs`). Callers must pass it by
    keyword. Several AddParameter edits of one def merge.
    """

    definition: Span
    name: str
    annotation: str | None = None

    @property
    def span(self) -> Span | None:
        return self.definition

    is_insertion: ClassVar[bool] = True


@dataclass(frozen=True)
class AddImport:
    """Ensure `import module [as asname]` or `from module import obj [as asname]`."""

    module: str
    obj: str | None = None
    asname: str | None = None

    @property
    def span(self) -> Span | None:
        return None

    is_insertion: ClassVar[bool] = True


@dataclass(frozen=True)
class RemoveUnusedImport:
    """Remove `import module [as asname]` or `from module import obj [as asname]` if unused."""

    module: str
    obj: str | None = None
    asname: str | None = None

    @property
    def span(self) -> Span | None:
        return None

    is_insertion: ClassVar[bool] = True


Edit = (
    AddKeyword
    | AddDictEntry
    | InsertStatements
    | ReplaceExpression
    | PackArguments
    | WrapExpression
    | RemoveStatement
    | RemoveUnreadAssignment
    | RemoveEmptiedMethod
    | AddHelper
    | HoistFunction
    | AddParameter
    | AddImport
    | RemoveUnusedImport
)


@dataclass(frozen=True)
class FileEdits:
    """The edits one fix makes to one file."""

    path: Path
    edits: tuple[Edit, ...]


@dataclass(frozen=True)
class Fix:
    """An automatic fix: what it does (`title`), how safe it is, and its edits per file."""

    title: str
    safety: Safety
    files: tuple[FileEdits, ...]


# --- Findings ---


@dataclass(frozen=True)
class TorchTarget:
    """The torch version the analysis assumed, and where that assumption came from."""

    #: The lowest torch version the project admits, as (major, minor, micro); None = latest.
    version: tuple[int, ...] | None
    #: True when only an exclusive upper bound is known (`torch<1.9`): every admitted
    #: version is below `version`.
    below: bool = False
    #: Where the version came from, e.g. "requirements.txt", "--torch-version", "installed".
    source: str = "latest"

    def is_before(self, version: tuple[int, ...]) -> bool:
        """Return True if every torch version the project admits may be older than `version`."""
        if self.version is None:
            return False
        if self.below:
            return self.version <= version
        return self.version < version

    def describe(self) -> str:
        """Return e.g. "torch 1.8 (requirements.txt)" or "torch<1.9 (setup.py)"."""
        if self.version is None:
            return f"latest torch ({self.source})"
        text = ".".join(str(part) for part in self.version)
        prefix = "torch<" if self.below else "torch "
        return f"{prefix}{text} ({self.source})"


@dataclass(frozen=True)
class Finding:
    """One reported problem at one place in one file."""

    code: str
    name: str
    message: str
    path: Path
    span: Span
    target: TorchTarget
    fix: Fix | None = None
    #: "error" for duplicated or repeated streams; "warning" when that rests on a stated
    #: assumption (a clock seed); "info" for what duplicates nothing (OS-entropy seeds, seeding
    #: code no loader uses): it never changes the exit status and `scan` does not count it.
    severity: str = "error"
    #: In a notebook: the 1-based number of the cell (counting every cell), and `span` counts
    #: lines from that cell's first line. None for a Python file.
    cell: int | None = None
    #: Other places that take part in the same bug (one worker_init_fn reseeding NumPy,
    #: `random` and torch from the worker id is one finding; the seeding calls of every
    #: script that builds one shared loader). A place in this file is in `span`'s coordinates.
    related: tuple[Location, ...] = ()

    @property
    def fixable(self) -> bool:
        """Return True if an automatic fix is attached."""
        return self.fix is not None

    @property
    def sort_key(self) -> tuple[str, int, int, int, str, str]:
        """Order findings by file, cell, position, code and message, so output is stable."""
        return (
            self.path.as_posix(),
            self.cell or 0,
            self.span.line,
            self.span.column,
            self.code,
            self.message,
        )


# --- Per-file results ---


class SkipReason(enum.Enum):
    """Why a file was not analysed."""

    GENERATED = "generated"
    EXCLUDED = "excluded"
    NOT_UTF8 = "not_utf8"
    SYNTAX_ERROR = "syntax_error"
    UNREADABLE = "unreadable"
    #: A notebook that is not valid nbformat 4 JSON (other languages are EXCLUDED).
    INVALID_NOTEBOOK = "invalid_notebook"


@dataclass(frozen=True)
class SourceFile:
    """A file's text together with what is needed to write it back byte for byte."""

    path: Path
    raw: bytes
    text: str
    encoding: str
    #: The file started with a UTF-8 byte order mark (not part of `text`).
    bom: bool
    mode: int
    #: Something the reader should know about how the file was read (an unknown coding
    #: cookie read as UTF-8), or "".
    note: str = ""


@dataclass(frozen=True)
class Unchanged:
    """The file was analysed and no fix changes it (it may still have findings)."""

    path: Path
    findings: tuple[Finding, ...]
    #: How the file was read, if the reader should know (see `SourceFile.note`).
    note: str = ""


@dataclass(frozen=True)
class Changed:
    """Fixes change the file: `new` is the complete fixed text, which parses."""

    path: Path
    findings: tuple[Finding, ...]
    source: SourceFile
    new: str
    #: The findings whose fixes produced `new`.
    fixed: tuple[Finding, ...] = field(default=())
    #: The findings `new` still has.
    remaining: tuple[Finding, ...] = field(default=())

    @property
    def old(self) -> str:
        """Return the original text."""
        return self.source.text

    @property
    def note(self) -> str:
        """Return how the file was read, if the reader should know."""
        return self.source.note


@dataclass(frozen=True)
class Skipped:
    """The file was not analysed, for `reason` (described by `detail`)."""

    path: Path
    reason: SkipReason
    detail: str = ""


@dataclass(frozen=True)
class Failed:
    """An internal error while processing this file; the run went on."""

    path: Path
    error: str
    traceback: str = ""


FileResult = Unchanged | Changed | Skipped | Failed
