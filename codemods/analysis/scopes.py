"""Scopes and what each binds (pass 1 of `extract`), and the state the passes share.

Name resolution follows Python's rules closely enough for static analysis: a name bound
anywhere in a function is local to the whole function; class bodies are not visible from
the methods they contain; `global` and `nonlocal` redirect a name; imports, `def`, `class`,
assignments, parameters and loop targets all bind.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..lines import source_lines
from ..types import Span, shared_span
from .binding_statements import appended, extends_sequence, grown_container
from .branch_facts import Branch
from .facts import (
    Assignment,
    AttributeStore,
    ClassFacts,
    FunctionFacts,
    ItemStore,
    TypeTest,
    Value,
)
from .statement_flow import StatementFlow

_Function = ast.FunctionDef | ast.AsyncFunctionDef


class _Positions:
    """Convert ast positions (UTF-8 byte columns) to character columns."""

    def __init__(self, text: str) -> None:
        # Lines as Python counts them: not at form feeds or U+2028, as str.splitlines does.
        self._lines = None if text.isascii() else source_lines(text)
        #: Lines whose byte columns differ from their character columns (non-ASCII).
        self._wide: dict[int, bytes] = {}
        self._spans: dict[tuple[int, int, int, int], Span] = {}
        if self._lines is not None:
            for number, line in enumerate(self._lines, 1):
                if not line.isascii():
                    self._wide[number] = line.encode("utf-8")

    def column(self, line: int, byte_column: int) -> int:
        encoded = self._wide.get(line)
        if encoded is None:
            return byte_column
        return len(encoded[:byte_column].decode("utf-8", errors="ignore"))

    def span(self, node: ast.AST) -> Span:
        line: int = getattr(node, "lineno", 1)
        end_line: int = getattr(node, "end_lineno", None) or line
        column: int = getattr(node, "col_offset", 0)
        end_column: int = getattr(node, "end_col_offset", None) or 0
        if self._wide:
            column = self.column(line, column)
            end_column = self.column(end_line, end_column)
        # One object per distinct span of the module: a call, its callee and the value
        # summarising them often share one, and summaries hold millions of spans.
        key = (line, column, end_line, end_column)
        span = self._spans.get(key)
        if span is None:
            span = self._spans[key] = shared_span(line, column, end_line, end_column)
        return span


@dataclass
class _Binding:
    """One way a name gets bound in a scope."""

    #: "import", "def", "class", "assign", "param", "self", "unknown", or "global" (a store
    #: under `global` in function `qualname`)
    kind: str
    qualname: str = ""
    node: ast.expr | None = None
    #: The line of the statement or target that binds the name (None: bound on entry).
    line: int | None = None
    #: A `def` or `class` statement of the module's own top level (not in an `if`/`try`).
    top_level: bool = False
    #: A plain assignment (`name = value`): the last line of its statement. A read below it,
    #: in code that always runs it first, sees none of the bindings it replaces.
    replaces_until: int | None = None
    #: A name unpacked from a value not written as a tuple (`scale, flip = augment()`): the
    #: name where it is bound, which places the unknown value it gets.
    unpacked: ast.Name | None = None


@dataclass(eq=False)
class _Scope:
    # Compared and hashed by identity: caches are keyed by the scope object itself.
    kind: str  # "module", "class", "function"
    qualname: str
    parent: _Scope | None
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    facts: _FunctionBuilder | None = None
    #: The compound statements of a function's (or the module's) own code.
    flow: StatementFlow = field(default_factory=StatementFlow)

    def bind(self, name: str, binding: _Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)

    def reaching(self, bindings: list[_Binding], line: int) -> list[_Binding]:
        """Return the bindings of a function's own name that a read at `line` may see."""
        return self.flow.reaching(bindings, line)


@dataclass
class _FunctionBuilder:
    qualname: str
    calls: list[Value] = field(default_factory=list)
    assignments: list[Assignment] = field(default_factory=list)
    item_stores: list[ItemStore] = field(default_factory=list)
    attribute_stores: list[AttributeStore] = field(default_factory=list)
    returns: list[Value] = field(default_factory=list)
    free_names: set[str] = field(default_factory=set)
    self_reads: set[str] = field(default_factory=set)
    self_subscripts: list[Value] = field(default_factory=list)
    statement_calls: list[Span] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    type_tests: list[TypeTest] = field(default_factory=list)
    choices: list[tuple[Span, Span | None]] = field(default_factory=list)
    references: set[str] = field(default_factory=set)
    local_reads: dict[str, int] = field(default_factory=dict)
    sized_reads: dict[str, int] = field(default_factory=dict)
    attribute_bases: set[str] = field(default_factory=set)
    loops: list[tuple[str, Value]] = field(default_factory=list)
    loop_parts: list[tuple[str, Value]] = field(default_factory=list)
    unpacked: list[tuple[str, int, int, Value]] = field(default_factory=list)
    conditional_calls: list[Span] = field(default_factory=list)
    conditional_stores: list[Span] = field(default_factory=list)
    #: How many `if` / loop / `match` / `except` bodies enclose the statement being visited.
    conditions: int = 0
    #: How many of those are `if` statements.
    if_conditions: int = 0
    #: How many `try` bodies with a broad handler enclose the statement being visited.
    caught: int = 0
    caught_calls: list[Span] = field(default_factory=list)
    raise_skips: list[tuple[Span, tuple[Span, ...]]] = field(default_factory=list)
    #: Conditional calls under `if` statements only (no loop, `match` or `except`).
    if_only_calls: list[Span] = field(default_factory=list)


class _BindingCollector:
    def __init__(self, text: str, path: Path, module: str) -> None:
        self._text = text
        self._path = path
        self._module = module
        self._positions = _Positions(text)
        self._package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        self._classes: list[ClassFacts] = []
        self._functions: list[FunctionFacts] = []
        self._star_imports: list[str] = []
        self._cache: dict[tuple[ast.expr, _Scope], Value] = {}
        self._resolving: set[tuple[int, str]] = set()
        self._comprehension_names: list[set[str]] = []
        #: Guard clauses (by node id): the statements after them, their implicit `else`.
        self._fallthrough: dict[int, Span | None] = {}
        #: The statements of `if` arms that an earlier literal store rules out (see
        #: `statement_order.settled_arms`): never summarised, like code after a `return`.
        self._never_run: set[int] = set()
        #: The tests of `if` statements (by node id), whose `and` / `or` operands the
        #: statement's own branches already record.
        self._statement_tests: set[int] = set()
        self._module_scope = _Scope("module", "", None)
        #: Names resolved in a scope, by the bindings a read may see (None: every one).
        self._names: dict[tuple[_Scope, str, tuple[int, ...] | None], Value] = {}
        # `:=` cannot bind anything in a file whose text does not contain it.
        self._has_walrus = ":=" in text
        #: Top-level functions and methods whose bodies are summarised when asked for.
        self._pending: dict[str, list[tuple[_Function, _Scope]]] = {}

    # --- pass 1: what each scope binds ---

    def _collect_bindings(self, body: list[ast.stmt], scope: _Scope) -> None:
        for statement in body:
            self._collect_statement(statement, scope)
        if scope.kind == "module":
            top = {node.lineno for node in body if isinstance(node, _Function | ast.ClassDef)}
            for bindings in scope.bindings.values():
                for binding in bindings:
                    binding.top_level = binding.kind in ("def", "class") and binding.line in top

    def _bind_global_stores(self, tree: ast.Module) -> None:
        """Bind each module name a function rebinds under `global` to that function too
        (`model = None` at the top, then `global model; model = build()` in `main`): the
        value is read in the function, whose body is summarised later."""
        if "global" not in self._text:
            return
        for qualname, function in _functions_of(tree.body, ""):
            declared: set[str] = set()
            stored: set[str] = set()
            for node in _outside_definitions(function.body):
                if isinstance(node, ast.Global):
                    declared.update(node.names)
                elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                    stored.add(node.id)
            for name in sorted(declared & stored):
                self._module_scope.bind(name, _Binding("global", qualname))

    def _collect_statement(self, node: ast.stmt, scope: _Scope) -> None:
        prefix = f"{scope.qualname}." if scope.qualname else ""
        if scope.kind == "function":
            prefix = f"{scope.qualname}.<locals>."
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            scope.bind(node.name, _Binding("def", prefix + node.name, line=node.lineno))
            return
        if isinstance(node, ast.ClassDef):
            scope.bind(node.name, _Binding("class", prefix + node.name, line=node.lineno))
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    scope.bind(alias.asname, _Binding("import", alias.name, line=node.lineno))
                else:
                    top = alias.name.partition(".")[0]
                    scope.bind(top, _Binding("import", top, line=node.lineno))
            return
        if isinstance(node, ast.ImportFrom):
            base = self._import_base(node)
            for alias in node.names:
                if alias.name == "*":
                    if base is not None:
                        self._star_imports.append(base)
                    continue
                qualname = f"{base}.{alias.name}" if base else ""
                kind = "import" if base is not None else "unknown"
                scope.bind(alias.asname or alias.name, _Binding(kind, qualname, line=node.lineno))
            return
        if scope.kind != "class":
            scope.flow.note(node)
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
            return
        if isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
            return
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind_target(target, node.value, scope, replacing=node.end_lineno)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._bind_target(node.target, node.value, scope, replacing=node.end_lineno)
        elif isinstance(node, ast.Expr) and (added := appended(node, scope)) is not None:
            # `datasets.append(d)` on a list this scope made: the list also holds `d`.
            self._bind_target(added[0], added[1], scope)
        elif isinstance(node, ast.Expr) and (grown := grown_container(node, scope)) is not None:
            # `pipeline.transforms.append(Cutout())` on a `Compose([...])` this scope made:
            # the container also holds the step, as if built with it.
            self._bind_target(grown[0], grown[1], scope)
        elif isinstance(node, ast.AugAssign) and extends_sequence(node):
            # `steps += [Flip()]`: the name also holds the elements added (flow-insensitively,
            # one more value beside the ones assigned).
            self._bind_target(node.target, node.value, scope)
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
            # `seed += offset`: the name also holds `seed + offset` (its earlier values are
            # the other bindings, read back as the name itself).
            read = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
            combined = ast.copy_location(ast.BinOp(read, node.op, node.value), node)
            self._bind_target(node.target, combined, scope)
        elif isinstance(node, ast.AugAssign | ast.For | ast.AsyncFor):
            self._bind_target(node.target, None, scope)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    # `with Engine(...) as engine`: what `Engine(...).__enter__()` returns.
                    context = item.context_expr
                    method = ast.copy_location(
                        ast.Attribute(context, "__enter__", ast.Load()), context
                    )
                    entered = ast.copy_location(ast.Call(method, [], []), context)
                    self._bind_target(item.optional_vars, entered, scope)
        elif isinstance(node, ast.Try | ast.TryStar):
            for handler in node.handlers:
                if handler.name:
                    scope.bind(handler.name, _Binding("unknown", line=handler.lineno))
        elif isinstance(node, ast.Match):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    name = getattr(sub, "name", None)
                    if isinstance(name, str):
                        scope.bind(name, _Binding("unknown", line=case.pattern.lineno))
        # Walrus targets bind in this scope, wherever they appear in an expression.
        if self._has_walrus:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._collect_walrus(child, scope)
        for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field_name, None)
            if isinstance(children, list):
                for child in children:
                    if isinstance(child, ast.stmt):
                        self._collect_statement(child, scope)
                    elif isinstance(child, ast.ExceptHandler | ast.match_case):
                        for statement in child.body:
                            self._collect_statement(statement, scope)

    def _collect_declared(
        self, function: _Function, declaration: type[ast.stmt], outer: _Scope
    ) -> None:
        """Bind in `outer` what `function` assigns to the names it declares `global` (or
        `nonlocal`): those assignments bind the outer scope's name, not a local one.

        A value that reads the function's own locals cannot be summarised where `outer`
        sees it, so it binds the name to an unknown value.
        """
        statements = list(_own_statements(function.body))
        declared = {
            name
            for statement in statements
            if isinstance(statement, declaration)
            for name in getattr(statement, "names", ())
        }
        if not declared:
            return
        local = set(_argument_names(function.args))
        for statement in statements:
            for sub in ast.walk(statement):
                if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                    local.add(sub.id)
                elif isinstance(sub, ast.Import | ast.ImportFrom):
                    local.update((alias.asname or alias.name).split(".")[0] for alias in sub.names)
                elif isinstance(sub, _Function | ast.ClassDef):
                    local.add(sub.name)
        local -= declared
        for statement in statements:
            pairs: list[tuple[ast.expr, ast.expr | None]]
            if isinstance(statement, ast.Assign):
                pairs = [(target, statement.value) for target in statement.targets]
            elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                pairs = [(statement.target, statement.value)]
            elif isinstance(statement, ast.AugAssign | ast.For | ast.AsyncFor):
                pairs = [(statement.target, None)]
            else:
                continue
            for target, value in pairs:
                if not isinstance(target, ast.Name):
                    value = None
                reads_locals = value is not None and any(
                    isinstance(sub, ast.Name) and sub.id in local for sub in ast.walk(value)
                )
                for sub in ast.walk(target):
                    if isinstance(sub, ast.Name) and sub.id in declared:
                        known = value if not reads_locals else None
                        outer.bind(sub.id, _Binding("assign" if known else "unknown", node=known))

    def _collect_walrus(self, node: ast.expr, scope: _Scope) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                scope.bind(sub.target.id, _Binding("assign", node=sub.value, line=sub.lineno))

    def _bind_target(
        self,
        target: ast.expr,
        value: ast.expr | None,
        scope: _Scope,
        *,
        replacing: int | None = None,
    ) -> None:
        """Bind the names of `target` to `value`; `replacing`: the last line of a plain
        assignment statement, whose name then holds that value alone (unless the value reads
        the name: `cfg = complete(cfg)` is read as either binding)."""
        if isinstance(target, ast.Name):
            kind = "assign" if value is not None else "unknown"
            if value is not None and any(
                isinstance(node, ast.Name) and node.id == target.id for node in ast.walk(value)
            ):
                replacing = None
            binding = _Binding(kind, node=value, line=target.lineno, replaces_until=replacing)
            scope.bind(target.id, binding)
        elif isinstance(target, ast.Tuple | ast.List):
            pairs: list[tuple[ast.expr, ast.expr | None]]
            if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
                pairs = list(zip(target.elts, value.elts, strict=True))
            else:
                pairs = [(element, None) for element in target.elts]
            for element, element_value in pairs:
                if element_value is None and isinstance(element, ast.Name):
                    scope.bind(
                        element.id, _Binding("unknown", line=element.lineno, unpacked=element)
                    )
                    continue
                self._bind_target(element, element_value, scope)
        elif isinstance(target, ast.Starred):
            self._bind_target(target.value, None, scope)

    def _import_base(self, node: ast.ImportFrom) -> str | None:
        if not node.level:
            return node.module or ""
        parts = self._package.split(".") if self._package else []
        if node.level - 1 > len(parts):
            return None
        base_parts = parts[: len(parts) - (node.level - 1)]
        if node.module:
            base_parts.append(node.module)
        return ".".join(base_parts) if base_parts else None

    # --- naming helpers ---

    def _child_qualname(self, scope: _Scope, name: str) -> str:
        if scope.kind == "module":
            return name
        if scope.kind == "function":
            return f"{scope.qualname}.<locals>.{name}"
        return f"{scope.qualname}.{name}"

    def _lambda_qualname(self, node: ast.Lambda, scope: _Scope) -> str:
        span = self._positions.span(node)
        label = f"<lambda:{span.line}:{span.column}>"
        if scope.kind == "module":
            return label
        return f"{scope.qualname}.{label}"

    def _inside_function(self, scope: _Scope) -> bool:
        current: _Scope | None = scope
        while current is not None:
            if current.kind == "function":
                return True
            current = current.parent
        return False

    def _def_span(self, node: _Function | ast.ClassDef) -> Span:
        # ast's position already starts at `def`/`class`, after any decorators, as libcst's does.
        return self._positions.span(node)


def _own_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Yield the statements of a function body, nested blocks included, but not those of
    the functions and classes it defines."""
    for statement in body:
        yield statement
        if isinstance(statement, _Function | ast.ClassDef):
            continue
        for field_name in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(statement, field_name, None)
            if not isinstance(children, list):
                continue
            for child in children:
                if isinstance(child, ast.stmt):
                    yield from _own_statements([child])
                elif isinstance(child, ast.ExceptHandler | ast.match_case):
                    yield from _own_statements(child.body)


def _argument_names(args: ast.arguments) -> list[str]:
    every = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    every += [extra for extra in (args.vararg, args.kwarg) if extra is not None]
    return [arg.arg for arg in every]


def _functions_of(
    body: list[ast.stmt], prefix: str
) -> Iterator[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Yield every function defined in `body` (nested ones too) with its qualname."""
    for node in _outside_definitions(body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = prefix + node.name
            yield qualname, node
            yield from _functions_of(node.body, f"{qualname}.<locals>.")
        elif isinstance(node, ast.ClassDef):
            yield from _functions_of(node.body, f"{prefix}{node.name}.")


def _outside_definitions(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Yield the nodes of `body`, not entering the functions and classes defined in it."""
    pending: list[ast.AST] = list(reversed(body))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Lambda):
            pending.extend(reversed(list(ast.iter_child_nodes(node))))
