"""The files of one project, summarised only when a question needs them.

Most files of a repository can never matter to a finding: model code, CLI glue, tests. A
`SourceSet` holds every file's bytes but parses a file only when the analysis asks for it,
in one of two ways:

- by module name, when a resolved qualified name points into the file (an import of it);
- by mention, when a project-wide question ("every DataLoader call", "every subclass of
  this Dataset", "every caller of this function") names the identifiers its answer must
  contain. Any Python reference to a name spells the name out, so a file whose bytes do not
  contain any of those identifiers cannot contribute to the answer.

Both are exact: they never change a finding, only how many files are parsed. Inside a
file, the same holds for functions (see `facts.FunctionTable`). With `filtered=False` no
text question filters anything: every module "mentions" everything and every function is
summarised (the reference behaviour the tests compare with).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .facts import ModuleFacts
from .function_table import FunctionSource, TableAnswers
from .text_index import TextIndex

#: Summarise one file: its facts, or None if it cannot be analysed.
Summarise = Callable[[Path], ModuleFacts | None]
#: Read a file again to summarise what its summary left for later.
ReopenPath = Callable[[Path], FunctionSource]
#: Get ready to summarise many files soon (e.g. in worker processes, all at once).
Prepare = Callable[[list[Path]], None]


#: Libraries every project the rules apply to has installed: their bare names import the
#: library, never a project file of that name (`utils/torch.py`).
INSTALLED_LIBRARIES = frozenset({"numpy", "torch", "torchvision", "torchaudio"})


class SourceSet:
    """Every analysable file of a project, with facts computed on demand."""

    def __init__(
        self,
        root: Path,
        raw: dict[Path, bytes],
        summarise: Summarise,
        *,
        parsed: Iterable[ModuleFacts] = (),
        filtered: bool = True,
        reopen: ReopenPath | None = None,
        prepare: Prepare | None = None,
    ) -> None:
        self.root = root
        self._raw = raw
        self._summarise = summarise
        self._reopen = reopen
        self._prepare = prepare
        self._facts: dict[Path, ModuleFacts | None] = {facts.path: facts for facts in parsed}
        self._by_name: dict[str, list[Path]] = {}
        paths = sorted(set(raw) | set(self._facts), key=os.fspath)
        self._paths = tuple(paths)
        packages = {
            os.path.dirname(os.fspath(path)) for path in paths if path.name == "__init__.py"
        }
        self._packages = frozenset(packages)
        for path in paths:
            for alias in module_aliases(path, root, packages):
                self._by_name.setdefault(alias, []).append(path)
        self._mention_cache: dict[frozenset[str], tuple[Path, ...]] = {}
        self._pattern_cache: dict[bytes, tuple[Path, ...]] = {}
        self._index: TextIndex | None = None
        self._indexed: tuple[Path, ...] = ()
        #: Files whose text changed since the index was built, each searched on its own.
        self._replaced: dict[Path, TextIndex] = {}
        self._unindexed: frozenset[Path] = frozenset()
        self._order: dict[Path, int] = {}
        #: Text questions skip files (False: every file is taken to match every question).
        self.filtered = filtered
        #: The files whose summaries the analysis read (see `answers` for the rest).
        self.consulted: set[Path] = set()
        #: What each match of a pattern asked for contains.
        self._containing: dict[bytes, bytes] = {}

    @classmethod
    def of(cls, root: Path, modules: Iterable[ModuleFacts]) -> SourceSet:
        """Return a set of already summarised modules (nothing left to parse)."""
        return cls(root, {}, lambda path: None, parsed=modules)

    @property
    def paths(self) -> tuple[Path, ...]:
        """Return every file of the project, sorted."""
        return self._paths

    def facts(self, path: Path) -> ModuleFacts | None:
        """Return the summary of `path`, summarising it now if needed."""
        self.consulted.add(path)
        if path not in self._facts:
            self.add(path, self._summarise(path))
        return self._facts[path]

    def summarised(self, path: Path) -> bool:
        """Return True if `path` was summarised (or found not to be analysable)."""
        return path in self._facts

    def named(self, name: str, near: Path | None = None) -> list[Path]:
        """Return the files that may be imported as module `name` (by the code of file `near`)."""
        paths = self._by_name.get(name, [])
        if near is None:
            return paths
        return [path for path in paths if self._importable_from(path, name, near)]

    def module_names(self, prefix: str) -> tuple[str, ...]:
        """Return the names of the modules whose dotted names start with `prefix`, sorted."""
        return tuple(sorted(name for name in self._by_name if name.startswith(prefix)))

    def submodule_names(self, package: str) -> tuple[str, ...]:
        """Return the names of the modules directly inside package `package` (`pkg.a`, ...)."""
        prefix = package + "."
        return tuple(
            sorted(
                name
                for name in self._by_name
                if name.startswith(prefix) and "." not in name[len(prefix) :]
            )
        )

    def _importable_from(self, path: Path, name: str, near: Path) -> bool:
        """Return True if the code of `near` may import file `path` as `name`.

        A file outside any package, in a directory below the root, is importable by its bare
        name only from that directory and the ones under it: a script there has its own
        directory first on `sys.path`. A module of a package is importable by its bare name
        only from its own directory (a script there, run directly). Elsewhere the bare name
        is another module's, perhaps a library's (a stray `torch.py` in one folder does not
        hide torch from the others). A dotted name (`datasets.factory`) is kept for every
        file: scripts put such folders on `sys.path` themselves (`sys.path.insert(0, "lib")`).
        A file named like a library the rules are about (`util/torch.py`) is never what its
        bare name imports, even beside it: no code meant to run imports such a file for it.
        """
        if name in INSTALLED_LIBRARIES and path.name != "__init__.py":
            return False
        base = path.parent
        if "." not in name and path.name != "__init__.py" and os.fspath(base) in self._packages:
            return base == near.parent  # a package's module, by its bare name: beside it only
        if "." in name or os.fspath(base) in self._packages:
            return True
        if base in (self.root, self.root / "src"):
            return True
        return base == near.parent or base in near.parents

    def mentioning(self, names: Iterable[str]) -> Iterator[ModuleFacts]:
        """Yield the modules whose text contains one of the identifiers `names`."""
        key = frozenset(names)
        if not key:
            return
        paths = self._mention_cache.get(key)
        if paths is None:
            paths = self._mention_cache[key] = self._mentioning(key)
        yield from self._summaries(paths)

    def matching(self, pattern: bytes, containing: bytes) -> Iterator[ModuleFacts]:
        """Yield the modules whose text matches the regular expression `pattern`, every
        match of which contains `containing` (in any case)."""
        self._containing[pattern] = containing
        paths = self._pattern_cache.get(pattern)
        if paths is None:
            compiled = re.compile(pattern)
            paths = self._pattern_cache[pattern] = self._select(
                lambda index: index.matching(compiled, containing)
            )
        yield from self._summaries(paths)

    def answers(self) -> TextAnswers:
        """Return the text questions asked since the files last changed, and the files
        that answer each: a file the analysis never read (`consulted`) may change without
        changing any answer the analysis got if it answers the same ones (`same_answers`).
        """
        return TextAnswers(
            {key: frozenset(paths) for key, paths in self._mention_cache.items()},
            {
                pattern: (self._containing[pattern], frozenset(paths))
                for pattern, paths in self._pattern_cache.items()
            },
        )

    def table_answers(self) -> dict[Path, TableAnswers]:
        """Return what the text of each consulted file answered through its summary."""
        return {
            path: facts.table.answers()
            for path in self.consulted
            if (facts := self._facts.get(path)) is not None
        }

    def _summaries(self, paths: tuple[Path, ...]) -> Iterator[ModuleFacts]:
        if self._prepare is not None:
            missing = [path for path in paths if path not in self._facts]
            if missing:
                self._prepare(missing)
        for path in paths:
            facts = self.facts(path)
            if facts is not None:
                yield facts

    def _mentioning(self, names: frozenset[str]) -> tuple[Path, ...]:
        return self._select(lambda index: index.spelling(names))

    def _select(self, search: Callable[[TextIndex], frozenset[int]]) -> tuple[Path, ...]:
        """Return the files `search` finds in the text index, and every file without text."""
        if not self.filtered:
            return self.paths
        if self._index is None:
            self._indexed = tuple(path for path in self.paths if path in self._raw)
            self._index = TextIndex([self._raw[path] for path in self._indexed])
            self._replaced.clear()
            # A file summarised from text we no longer hold is never skipped.
            self._unindexed = frozenset(self.paths) - set(self._indexed)
            self._order = {path: position for position, path in enumerate(self.paths)}
        found = {self._indexed[index] for index in search(self._index)}
        if self._replaced:
            found -= self._replaced.keys()
            found.update(path for path, index in self._replaced.items() if search(index))
        # In the order of `paths`; sorting what was found costs less than visiting every file.
        return tuple(sorted(found | self._unindexed, key=self._order.__getitem__))

    def add(self, path: Path, facts: ModuleFacts | None) -> None:
        """Record the summary of `path`, made elsewhere (None: it cannot be analysed)."""
        self._facts[path] = facts
        reopen = self._reopen
        if facts is not None and reopen is not None:
            # A summary from the cache or another process summarises the rest of its
            # functions from the file, if they are ever asked for.
            facts.table.attach(lambda: reopen(path))
        if facts is not None and not self.filtered:
            facts.table.all()  # the reference: every function summarised, none skipped

    def replace(self, facts: ModuleFacts, raw: bytes) -> None:
        """Use new facts and bytes for a file (after a fix rewrote it)."""
        self._facts[facts.path] = facts
        if facts.path in self._raw:
            self._raw[facts.path] = raw
            # The index of every file stays: answers about this file come from its own
            # small index, so one changed file (an editor's keystroke, a fix) costs
            # searching that file again, not all of them.
            self._replaced[facts.path] = TextIndex([raw])
        self._mention_cache.clear()
        self._pattern_cache.clear()


@dataclass(frozen=True)
class TextAnswers:
    """Text questions and the files that answered them."""

    #: Identifiers asked for -> the files that spell one of them.
    names: dict[frozenset[str], frozenset[Path]]
    #: Pattern -> what each match contains, and the files it matches.
    patterns: dict[bytes, tuple[bytes, frozenset[Path]]]

    def same_answers(self, path: Path, raw: bytes) -> bool:
        """Return True if `path` with the bytes `raw` answers exactly the same questions."""
        index = TextIndex([raw])
        for names, paths in self.names.items():
            if bool(index.spelling(names)) != (path in paths):
                return False
        for pattern, (containing, paths) in self.patterns.items():
            if bool(index.matching(re.compile(pattern), containing)) != (path in paths):
                return False
        return True


#: A notebook: summarised like a module, but never what an `import` loads.
NOTEBOOK_SUFFIX = ".ipynb"


def module_aliases(path: Path, root: Path, packages: set[str]) -> set[str]:
    """Return the dotted names a file may be imported as.

    Its name inside its package; its path from the project root (scripts run from the
    root); from `src/`; and, for a file outside any package, its bare name and its path
    from any directory above it (scripts that import their siblings, or modules of a
    namespace package beside them). `packages` holds the directories that have an `__init__.py`.

    A notebook is no module `import` can load (the import system finds `.py` files, not
    `.ipynb`): it keeps only the name its own code is summarised under, so that a notebook
    named `torch.ipynb` never stands for the library every other file imports.
    """
    text = os.fspath(path)
    directory, _, filename = text.rpartition(os.sep)
    stem = os.path.splitext(filename)[0]
    parts = [] if stem == "__init__" else [stem]
    package: list[str] = []
    while directory in packages:
        directory, _, name = directory.rpartition(os.sep)
        package.insert(0, name)
    aliases = {".".join(package + parts)} if package else set()
    # A script that puts a directory inside the package on `sys.path` (or runs from there)
    # imports the subpackages below it by their own dotted names: `training.data` for
    # `laion_clap/training/data.py` (a bare name stays the package's or a library's).
    inner = (package[start:] + parts for start in range(1, len(package)))
    aliases.update(".".join(names) for names in inner if len(names) > 1)
    if package and parts:
        # A script inside the package, run directly, has its own directory first on
        # `sys.path`: it imports its siblings by their bare names (see `_importable_from`).
        aliases.add(stem)
    base = os.fspath(root).rstrip(os.sep) + os.sep
    if not text.startswith(base):
        return aliases or {".".join(parts)}
    relative = text[len(base) :].split(os.sep)
    relative[-1] = stem
    if relative[-1] == "__init__":
        relative.pop()
    if filename.endswith(NOTEBOOK_SUFFIX):
        return aliases or {".".join(relative)}
    if relative:
        aliases.add(".".join(relative))
        if root.name.isidentifier() and not _library_name(root.name):
            # A repository imported under its own folder's name, its parent on `sys.path`
            # (`import MambaCD.changedetection.datasets.imutils` in the `MambaCD` clone).
            aliases.add(".".join([root.name, *relative]))
        if relative[0] == "src" and len(relative) > 1:
            aliases.add(".".join(relative[1:]))
        # A script imports modules relative to its own directory, which may sit anywhere
        # below the root: `dataloaders/dataset.py` (a namespace package) is
        # `dataloaders.dataset` to a script beside `dataloaders/`, and so is
        # `ldm/data/imagenet.py` (a package inside a namespace package) `ldm.data.imagenet`
        # to a script beside `ldm/`. The package's own dotted name stays whole.
        outside = len(relative) - len(package) - 1  # the folders above the package
        aliases.update(".".join(relative[start:]) for start in range(1, outside + 1))
    return aliases


def _library_name(name: str) -> bool:
    """Return True if `name` is a standard-library module or a library the rules are about:
    a project folder so named (a clone of torch) does not stand for it."""
    return name in sys.stdlib_module_names or name in INSTALLED_LIBRARIES
