"""Summarise one parsed file into `ModuleFacts`, resolving names through imports and scopes.

Name resolution follows Python's rules closely enough for static analysis: a name bound
anywhere in a function is local to the whole function; class bodies are not visible from
the methods they contain; `global` and `nonlocal` redirect a name; imports, `def`, `class`,
assignments, parameters and loop targets all bind. The result is flow-insensitive: a name
bound twice resolves to both values (Kind.ALTERNATIVES).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..lines import source_lines
from ..types import Span
from .facts import (
    UNKNOWN,
    Assignment,
    AttributeStore,
    Branch,
    ClassFacts,
    FunctionFacts,
    FunctionSource,
    FunctionTable,
    ItemStore,
    Kind,
    ModuleFacts,
    Value,
)

_BUILTINS = frozenset(dir(builtins))
#: Nested expressions deeper than this summarise as UNKNOWN (keeps summaries small).
_MAX_DEPTH = 24
#: Displays with more elements than this (data tables) summarise as UNKNOWN.
_MAX_ELEMENTS = 256
_Function = ast.FunctionDef | ast.AsyncFunctionDef
_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
#: Nodes without expressions inside: `Load`/`Store` markers and operators.
_SKIPPED = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
#: Kinds a name can resolve to when it (or an attribute of it) may be a qualified name.
_MAY_NAME = frozenset({Kind.NAME, Kind.ALTERNATIVES, Kind.FUNCTION})


class _Positions:
    """Convert ast positions (UTF-8 byte columns) to character columns."""

    def __init__(self, text: str) -> None:
        # Lines as Python counts them: not at form feeds or U+2028, as str.splitlines does.
        self._lines = None if text.isascii() else source_lines(text)
        #: Lines whose byte columns differ from their character columns (non-ASCII).
        self._wide: dict[int, bytes] = {}
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
        return Span(line, column, end_line, end_column)


@dataclass
class _Binding:
    """One way a name gets bound in a scope."""

    kind: str  # "import", "def", "class", "assign", "param", "self", "unknown"
    qualname: str = ""
    node: ast.expr | None = None


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

    def bind(self, name: str, binding: _Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


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
    statement_calls: list[Span] = field(default_factory=list)
    branches: list[Branch] = field(default_factory=list)
    references: set[str] = field(default_factory=set)
    local_reads: dict[str, int] = field(default_factory=dict)
    loops: list[tuple[str, Value]] = field(default_factory=list)
    conditional_calls: list[Span] = field(default_factory=list)
    #: How many `if` / loop / `match` / `except` bodies enclose the statement being visited.
    conditions: int = 0


def module_name_for(path: Path, root: Path) -> str:
    """Return the dotted name a file is imported as: from its package, else from `root`."""
    path = path.resolve()
    parts = [path.stem] if path.name != "__init__.py" else []
    directory = path.parent
    if (directory / "__init__.py").exists():
        while (directory / "__init__.py").exists() and directory != directory.parent:
            parts.insert(0, directory.name)
            directory = directory.parent
        return ".".join(parts)
    try:
        relative = directory.relative_to(root.resolve())
    except ValueError:
        return ".".join(parts)
    return ".".join([*relative.parts, *parts])


def extract(tree: ast.Module, text: str, path: Path, module: str) -> ModuleFacts:
    """Summarise the parsed module `tree` of file `path`, imported as `module`.

    Module-level code, classes and bindings are summarised now; the bodies of top-level
    functions and methods when they are first asked for (see `facts.FunctionTable`).
    """
    return _Extractor(text, path, module).run(tree)


def function_source(tree: ast.Module, text: str, path: Path, module: str) -> FunctionSource:
    """Return what summarises the functions of a module again (for a cached summary)."""
    extractor = _Extractor(text, path, module)
    extractor.run(tree)
    return extractor


class _Extractor:
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
        self._module_scope = _Scope("module", "", None)
        self._names: dict[tuple[_Scope, str], Value] = {}
        # `:=` cannot bind anything in a file whose text does not contain it.
        self._has_walrus = ":=" in text
        #: Top-level functions and methods whose bodies are summarised when asked for.
        self._pending: dict[str, list[tuple[_Function, _Scope]]] = {}
        self._lines: list[str] | None = None

    # --- functions summarised on demand (facts.FunctionSource) ---

    @property
    def lines(self) -> list[str]:
        """Return the module's text, line by line (line ends kept)."""
        if self._lines is None:
            self._lines = source_lines(self._text)
        return self._lines

    def summarise(self, qualname: str) -> list[FunctionFacts]:
        """Summarise the pending function `qualname` (every definition of it) and what it
        contains; return their facts."""
        start = len(self._functions)
        for node, scope in self._pending.pop(qualname, []):
            self._visit_body_of(node, scope, qualname)
        return self._functions[start:]

    # --- entry point ---

    def run(self, tree: ast.Module) -> ModuleFacts:
        scope = self._module_scope
        self._collect_bindings(tree.body, scope)
        builder = _FunctionBuilder("<module>")
        scope.facts = builder
        self._visit_body(tree.body, scope)
        end = self._positions.span(tree.body[-1]) if tree.body else Span(1, 0, 1, 0)
        self._functions.append(
            FunctionFacts(
                qualname="<module>",
                name="<module>",
                span=Span(1, 0, end.end_line, end.end_column),
                params=(),
                calls=tuple(builder.calls),
                assignments=tuple(builder.assignments),
                item_stores=tuple(builder.item_stores),
                attribute_stores=tuple(builder.attribute_stores),
                has_docstring=_has_docstring(tree.body),
                statement_calls=tuple(builder.statement_calls),
                references=tuple(sorted(builder.references)),
            )
        )
        pending = {
            qualname: (
                min(node.lineno for node, _ in nodes),
                max(node.end_lineno or node.lineno for node, _ in nodes),
            )
            for qualname, nodes in self._pending.items()
        }
        return ModuleFacts(
            path=self._path,
            module=self._module,
            bindings=self._module_bindings(),
            classes=tuple(self._classes),
            table=FunctionTable(self._functions, pending, self),
            star_imports=tuple(self._star_imports),
            module_names=frozenset(scope.bindings),
        )

    def _module_bindings(self) -> tuple[tuple[str, tuple[Value, ...]], ...]:
        result = []
        for name, bindings in self._module_scope.bindings.items():
            if all(binding.kind in ("def", "class") for binding in bindings):
                continue
            values = self._binding_values(name, self._module_scope, bindings, 0, follow=True)
            result.append((name, values))
        return tuple(result)

    # --- pass 1: what each scope binds ---

    def _collect_bindings(self, body: list[ast.stmt], scope: _Scope) -> None:
        for statement in body:
            self._collect_statement(statement, scope)

    def _collect_statement(self, node: ast.stmt, scope: _Scope) -> None:
        prefix = f"{scope.qualname}." if scope.qualname else ""
        if scope.kind == "function":
            prefix = f"{scope.qualname}.<locals>."
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            scope.bind(node.name, _Binding("def", prefix + node.name))
            return
        if isinstance(node, ast.ClassDef):
            scope.bind(node.name, _Binding("class", prefix + node.name))
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    scope.bind(alias.asname, _Binding("import", alias.name))
                else:
                    top = alias.name.partition(".")[0]
                    scope.bind(top, _Binding("import", top))
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
                scope.bind(alias.asname or alias.name, _Binding(kind, qualname))
            return
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
            return
        if isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
            return
        if isinstance(node, ast.Assign):
            for target in node.targets:
                self._bind_target(target, node.value, scope)
        elif isinstance(node, ast.AnnAssign):
            if node.value is not None:
                self._bind_target(node.target, node.value, scope)
        elif isinstance(node, ast.AugAssign | ast.For | ast.AsyncFor):
            self._bind_target(node.target, None, scope)
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    self._bind_target(item.optional_vars, None, scope)
        elif isinstance(node, ast.Try | ast.TryStar):
            for handler in node.handlers:
                if handler.name:
                    scope.bind(handler.name, _Binding("unknown"))
        elif isinstance(node, ast.Match):
            for case in node.cases:
                for sub in ast.walk(case.pattern):
                    name = getattr(sub, "name", None)
                    if isinstance(name, str):
                        scope.bind(name, _Binding("unknown"))
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

    def _collect_walrus(self, node: ast.expr, scope: _Scope) -> None:
        for sub in ast.walk(node):
            if isinstance(sub, ast.NamedExpr) and isinstance(sub.target, ast.Name):
                scope.bind(sub.target.id, _Binding("assign", node=sub.value))

    def _bind_target(self, target: ast.expr, value: ast.expr | None, scope: _Scope) -> None:
        if isinstance(target, ast.Name):
            kind = "assign" if value is not None else "unknown"
            scope.bind(target.id, _Binding(kind, node=value))
        elif isinstance(target, ast.Tuple | ast.List):
            pairs: list[tuple[ast.expr, ast.expr | None]]
            if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
                pairs = list(zip(target.elts, value.elts, strict=True))
            else:
                pairs = [(element, None) for element in target.elts]
            for element, element_value in pairs:
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

    # --- pass 2: visit statements, summarise expressions ---

    def _visit_body(self, body: list[ast.stmt], scope: _Scope) -> None:
        for index, statement in enumerate(body):
            if (
                isinstance(statement, ast.If)
                and not statement.orelse
                and isinstance(statement.body[-1], ast.Return | ast.Raise)
            ):
                # A guard clause (`if not self.train: return x`): what follows is its `else`.
                self._fallthrough[id(statement)] = self._block(body[index + 1 :])
            self._visit_statement(statement, scope)

    def _visit_statement(self, node: ast.stmt, scope: _Scope) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            self._visit_function(node, scope)
            return
        if isinstance(node, ast.ClassDef):
            self._visit_class(node, scope)
            return
        builder = scope.facts
        if builder is not None:
            self._record_assignment(node, scope, builder)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
                builder.statement_calls.append(self._positions.span(node.value))
            if isinstance(node, ast.Return) and node.value is not None:
                builder.returns.append(self.value(node.value, scope))
            if isinstance(node, ast.If):
                self._record_branch(node, scope, builder)
        branches = isinstance(node, _BRANCHING) and builder is not None
        if builder is not None and branches:
            builder.conditions += 1
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._visit_expression(child, scope)
            elif isinstance(child, ast.stmt):
                self._visit_statement(child, scope)
            elif isinstance(child, ast.ExceptHandler | ast.match_case):
                if builder is not None:
                    builder.conditions += 1
                for sub in ast.iter_child_nodes(child):
                    if isinstance(sub, ast.expr):
                        self._visit_expression(sub, scope)
                self._visit_body(child.body, scope)
                if builder is not None:
                    builder.conditions -= 1
            elif isinstance(child, ast.withitem):
                self._visit_expression(child.context_expr, scope)
        if builder is not None and branches:
            builder.conditions -= 1

    def _record_branch(self, node: ast.If, scope: _Scope, builder: _FunctionBuilder) -> None:
        test, negated = node.test, False
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test, negated = test.operand, True
        if not isinstance(test, ast.Attribute):
            return
        value = self.value(test, scope)
        if value.base is None or value.base.kind is not Kind.SELF:
            return
        body = self._block(node.body)
        if body is None:
            return
        orelse = self._block(node.orelse) if node.orelse else self._fallthrough.get(id(node))
        builder.branches.append(Branch(value.name, negated, body, orelse))

    def _block(self, body: list[ast.stmt]) -> Span | None:
        if not body:
            return None
        first, last = self._positions.span(body[0]), self._positions.span(body[-1])
        return Span(first.line, first.column, last.end_line, last.end_column)

    def _record_assignment(self, node: ast.stmt, scope: _Scope, builder: _FunctionBuilder) -> None:
        targets: list[ast.expr]
        if isinstance(node, ast.For | ast.AsyncFor) and isinstance(node.target, ast.Name):
            builder.loops.append((node.target.id, self.value(node.iter, scope)))
            return
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            return
        for target in targets:
            for element, element_value in _unpack(target, value):
                if isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name):
                    key = element.slice
                    literal = key.value if isinstance(key, ast.Constant) else None
                    builder.item_stores.append(
                        ItemStore(
                            element.value.id,
                            literal if isinstance(literal, str) else None,
                            self.value(element_value, scope) if element_value else UNKNOWN,
                            self._positions.span(element),
                        )
                    )
                    continue
                name = self._target_name(element, scope)
                summary = self.value(element_value, scope) if element_value else UNKNOWN
                if name is not None:
                    span = self._positions.span(element)
                    builder.assignments.append(Assignment(name, summary, span))
                elif isinstance(element, ast.Attribute):
                    builder.attribute_stores.append(
                        AttributeStore(
                            self.value(element.value, scope),
                            element.attr,
                            summary,
                            self._positions.span(element),
                        )
                    )

    def _target_name(self, target: ast.expr, scope: _Scope) -> str | None:
        if isinstance(target, ast.Name):
            return target.id
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and self._resolve_name(target.value.id, scope, None).kind is Kind.SELF
        ):
            return f"self.{target.attr}"
        return None

    def _visit_expression(self, node: ast.expr, scope: _Scope) -> None:
        """Record every call, reference and `self` read in `node`; lambdas are functions."""
        facts = scope.facts
        # Each entry says whether the node is called (`f` in `f()`) or is the base of an
        # attribute (`m` in `m.f`): neither is a use of the name as a value.
        stack: list[tuple[ast.AST, bool]] = [(node, False)]
        pop, push = stack.pop, stack.append
        while stack:
            current, inside = pop()
            kind = type(current)
            if kind is ast.Name:
                assert isinstance(current, ast.Name)
                if not inside and facts is not None and type(current.ctx) is ast.Load:
                    self._record_reference(current, scope, facts)
                    if self._is_local(current.id, scope):
                        reads = facts.local_reads
                        reads[current.id] = reads.get(current.id, 0) + 1
                continue
            if kind is ast.Attribute:
                assert isinstance(current, ast.Attribute)
                base = current.value
                if facts is not None:
                    if not inside and type(current.ctx) is ast.Load:
                        self._record_reference(current, scope, facts)
                    if (
                        type(base) is ast.Name
                        and self._resolve_name(base.id, scope, None).kind is Kind.SELF
                    ):
                        facts.self_reads.add(current.attr)
                push((base, True))
                continue
            if kind is ast.Call:
                assert isinstance(current, ast.Call)
                if facts is not None:
                    facts.calls.append(self.value(current, scope))
                    if facts.conditions:
                        facts.conditional_calls.append(self._positions.span(current))
                for keyword in reversed(current.keywords):
                    push((keyword.value, False))
                for arg in reversed(current.args):
                    push((arg, False))
                push((current.func, True))
                continue
            if kind is ast.Constant:
                continue
            if kind is ast.Lambda:
                assert isinstance(current, ast.Lambda)
                self._visit_lambda(current, scope)
                continue
            if kind in _COMPREHENSIONS:
                self._visit_comprehension(current, scope)  # type: ignore[arg-type]
                continue
            children: list[tuple[ast.AST, bool]] = []
            for name in kind._fields:
                child = getattr(current, name, None)
                if isinstance(child, ast.AST):
                    if not isinstance(child, _SKIPPED):
                        children.append((child, False))
                elif isinstance(child, list):
                    children.extend(
                        (item, False)
                        for item in child
                        if isinstance(item, ast.AST) and not isinstance(item, _SKIPPED)
                    )
            children.reverse()
            stack.extend(children)

    def _record_reference(
        self, node: ast.Name | ast.Attribute, scope: _Scope, builder: _FunctionBuilder
    ) -> None:
        root: ast.expr = node
        while type(root) is ast.Attribute:
            root = root.value
        if type(root) is not ast.Name:
            return  # an attribute of a call or a subscript never names a function or module
        if self._resolve_name(root.id, scope, None).kind not in _MAY_NAME:
            return  # `self.x`, `param.y`: no qualified name to record
        value = self.value(node, scope)
        for option in value.alternatives():
            if option.kind is Kind.NAME:
                builder.references.update(option.qualnames)
            elif option.kind is Kind.FUNCTION:
                builder.references.add(option.name)

    def _is_local(self, name: str, scope: _Scope) -> bool:
        return (
            scope.kind == "function"
            and name in scope.bindings
            and name not in scope.globals
            and name not in scope.nonlocals
            and not any(name in names for names in self._comprehension_names)
        )

    def _definition_names(self, expressions: list[ast.expr], scope: _Scope) -> tuple[str, ...]:
        """Return the names in `expressions` bound by an enclosing function of `scope`."""
        found = set()
        for expression in expressions:
            for sub in ast.walk(expression):
                if isinstance(sub, ast.Name) and self._bound_in_function(sub.id, scope):
                    found.add(sub.id)
        return tuple(sorted(found))

    def _bound_in_function(self, name: str, scope: _Scope) -> bool:
        if any(name in names for names in self._comprehension_names):
            return True
        current: _Scope | None = scope
        while current is not None:
            if name in current.globals:
                return False
            is_visible = current is scope or current.kind != "class"
            if is_visible and name in current.bindings and name not in current.nonlocals:
                return current.kind != "module"
            current = current.parent
        return False

    def _visit_comprehension(
        self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp, scope: _Scope
    ) -> None:
        names = {
            sub.id
            for generator in node.generators
            for sub in ast.walk(generator.target)
            if isinstance(sub, ast.Name)
        }
        self._comprehension_names.append(names)
        try:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._visit_expression(child, scope)
                elif isinstance(child, ast.comprehension):
                    for sub in (child.iter, *child.ifs):
                        self._visit_expression(sub, scope)
        finally:
            self._comprehension_names.pop()

    def _visit_function(self, node: _Function, scope: _Scope) -> None:
        for decorator in node.decorator_list:
            self._visit_expression(decorator, scope)
        self._visit_arguments(node.args, scope)
        qualname = self._child_qualname(scope, node.name)
        if not self._inside_function(scope):
            self._pending.setdefault(qualname, []).append((node, scope))
            return
        self._visit_body_of(node, scope, qualname)

    def _visit_body_of(self, node: _Function, scope: _Scope, qualname: str) -> None:
        """Summarise function `node`, defined in `scope`, whose decorators and defaults were
        visited where it is defined."""
        decorators = tuple(self.value(decorator, scope) for decorator in node.decorator_list)
        is_static = any(_is_builtin(value, "staticmethod") for value in decorators)
        params = _parameter_names(node.args)
        inner = _Scope("function", qualname, scope)
        builder = _FunctionBuilder(qualname)
        inner.facts = builder
        for index, param in enumerate(params):
            is_self = scope.kind == "class" and index == 0 and not is_static
            inner.bind(param, _Binding("self" if is_self else "param"))
        self._collect_bindings(node.body, inner)
        self._visit_body(node.body, inner)
        self._functions.append(
            FunctionFacts(
                qualname=qualname,
                name=node.name,
                span=self._def_span(node),
                params=params,
                positional_count=len(node.args.posonlyargs) + len(node.args.args),
                class_qualname=scope.qualname if scope.kind == "class" else None,
                nested=self._inside_function(scope),
                decorators=decorators,
                calls=tuple(builder.calls),
                assignments=tuple(builder.assignments),
                item_stores=tuple(builder.item_stores),
                attribute_stores=tuple(builder.attribute_stores),
                returns=tuple(builder.returns),
                free_names=tuple(sorted(builder.free_names)),
                self_reads=tuple(sorted(builder.self_reads)),
                has_docstring=_has_docstring(node.body),
                has_var_keyword=node.args.kwarg is not None,
                statement_calls=tuple(builder.statement_calls),
                references=tuple(sorted(builder.references)),
                local_reads=tuple(sorted(builder.local_reads.items())),
                loops=tuple(builder.loops),
                conditional_calls=tuple(builder.conditional_calls),
                nonlocals=tuple(sorted(inner.nonlocals)),
                branches=tuple(builder.branches),
                definition_names=self._definition_names(
                    [*node.decorator_list, *_defaults(node.args)], scope
                ),
            )
        )

    def _visit_lambda(self, node: ast.Lambda, scope: _Scope) -> None:
        self._visit_arguments(node.args, scope)
        qualname = self._lambda_qualname(node, scope)
        inner = _Scope("function", qualname, scope)
        builder = _FunctionBuilder(qualname)
        inner.facts = builder
        params = _parameter_names(node.args)
        for param in params:
            inner.bind(param, _Binding("param"))
        self._collect_walrus(node.body, inner)
        self._visit_expression(node.body, inner)
        builder.returns.append(self.value(node.body, inner))
        self._functions.append(
            FunctionFacts(
                qualname=qualname,
                name="<lambda>",
                span=self._positions.span(node),
                params=params,
                positional_count=len(node.args.posonlyargs) + len(node.args.args),
                nested=True,
                is_lambda=True,
                calls=tuple(builder.calls),
                returns=tuple(builder.returns),
                free_names=tuple(sorted(builder.free_names)),
                self_reads=tuple(sorted(builder.self_reads)),
                has_var_keyword=node.args.kwarg is not None,
                references=tuple(sorted(builder.references)),
                definition_names=self._definition_names(_defaults(node.args), scope),
            )
        )

    def _visit_arguments(self, args: ast.arguments, scope: _Scope) -> None:
        for default in (*args.defaults, *args.kw_defaults):
            if default is not None:
                self._visit_expression(default, scope)

    def _visit_class(self, node: ast.ClassDef, scope: _Scope) -> None:
        for expression in (*node.decorator_list, *node.bases):
            self._visit_expression(expression, scope)
        qualname = self._child_qualname(scope, node.name)
        inner = _Scope("class", qualname, scope)
        # Code in a class body runs once, like the enclosing code: record its calls there.
        inner.facts = scope.facts
        self._collect_bindings(node.body, inner)
        attributes: list[Assignment] = []
        methods: dict[str, str] = {}
        has_slots = False
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                methods[statement.name] = f"{qualname}.{statement.name}"
            elif isinstance(statement, ast.Assign | ast.AnnAssign):
                targets = (
                    statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                )
                for target in targets:
                    for element, element_value in _unpack(target, statement.value):
                        if not isinstance(element, ast.Name):
                            continue
                        has_slots = has_slots or element.id == "__slots__"
                        value = self.value(element_value, inner) if element_value else UNKNOWN
                        attributes.append(
                            Assignment(element.id, value, self._positions.span(element))
                        )
        enclosing_facts = inner.facts
        for statement in node.body:
            if isinstance(statement, ast.Assign | ast.AnnAssign | ast.Expr):
                # Class attributes are recorded above; only the calls they make matter here.
                inner.facts = enclosing_facts
                for child in ast.iter_child_nodes(statement):
                    if isinstance(child, ast.expr):
                        self._visit_expression(child, inner)
            else:
                inner.facts = None
                self._visit_statement(statement, inner)
        self._classes.append(
            ClassFacts(
                qualname=qualname,
                name=node.name,
                span=self._def_span(node),
                bases=tuple(self.value(base, scope) for base in node.bases),
                methods=tuple(methods.items()),
                attributes=tuple(attributes),
                has_slots=has_slots,
                decorators=tuple(self.value(decorator, scope) for decorator in node.decorator_list),
            )
        )

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

    # --- expression summaries ---

    def value(self, node: ast.expr, scope: _Scope, depth: int = 0) -> Value:
        """Summarise expression `node` as seen from `scope`."""
        key = (node, scope)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        result = self._summarise(node, scope, depth)
        self._cache[key] = result
        return result

    def _summarise(self, node: ast.expr, scope: _Scope, depth: int) -> Value:
        span = self._positions.span(node)
        if depth > _MAX_DEPTH:
            return Value(Kind.UNKNOWN, span)
        deeper = depth + 1
        if isinstance(node, ast.Name):
            resolved = self._resolve_name(node.id, scope, span, deeper)
            # The value takes the span of this use; a fix that must edit a local variable's
            # definition finds it through the function's assignments.
            return resolved if resolved.span == span else _with_span(resolved, span)
        if isinstance(node, ast.Attribute):
            base = self.value(node.value, scope, deeper)
            return _attribute(base, node.attr, span)
        if isinstance(node, ast.Call):
            args = tuple(self.value(arg, scope, deeper) for arg in node.args)
            keywords = tuple(
                (keyword.arg, self.value(keyword.value, scope, deeper)) for keyword in node.keywords
            )
            return Value(
                Kind.CALL,
                span,
                base=self.value(node.func, scope, deeper),
                args=args,
                keywords=keywords,
            )
        if isinstance(node, ast.Constant):
            if isinstance(node.value, int) and not isinstance(node.value, bool):
                return Value(Kind.INT, span, number=node.value)
            return Value(Kind.CONSTANT, span, name=repr(node.value)[:40])
        if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
            operand = self.value(node.operand, scope, deeper)
            if operand.kind is Kind.INT and operand.number is not None:
                number = -operand.number if isinstance(node.op, ast.USub) else operand.number
                return Value(Kind.INT, span, number=number)
            return Value(Kind.CONSTANT, span)
        if isinstance(node, ast.BinOp):
            return Value(
                Kind.BINOP,
                span,
                name=_OPERATORS.get(type(node.op), "?"),
                args=(self.value(node.left, scope, deeper), self.value(node.right, scope, deeper)),
            )
        if isinstance(node, ast.Subscript):
            return Value(
                Kind.SUBSCRIPT,
                span,
                base=self.value(node.value, scope, deeper),
                args=(self.value(node.slice, scope, deeper),),
            )
        if isinstance(node, ast.IfExp):
            return Value(
                Kind.ALTERNATIVES,
                span,
                args=(self.value(node.body, scope, deeper), self.value(node.orelse, scope, deeper)),
            )
        if isinstance(node, ast.BoolOp):
            return Value(
                Kind.ALTERNATIVES,
                span,
                args=tuple(self.value(option, scope, deeper) for option in node.values),
            )
        if isinstance(node, ast.NamedExpr):
            return self.value(node.value, scope, deeper)
        if isinstance(node, ast.Dict | ast.Tuple | ast.List | ast.Set) and (
            len(node.keys if isinstance(node, ast.Dict) else node.elts) > _MAX_ELEMENTS
        ):
            return Value(Kind.UNKNOWN, span)
        if isinstance(node, ast.Dict):
            entries: list[tuple[str | None, Value]] = []
            for key, item in zip(node.keys, node.values, strict=True):
                literal = key.value if isinstance(key, ast.Constant) else None
                entries.append(
                    (literal if isinstance(literal, str) else None, self.value(item, scope, deeper))
                )
            return Value(Kind.DICT, span, keywords=tuple(entries))
        if isinstance(node, ast.Tuple | ast.List | ast.Set):
            return Value(
                Kind.SEQUENCE,
                span,
                args=tuple(self.value(element, scope, deeper) for element in node.elts),
            )
        if isinstance(node, ast.Starred):
            return Value(Kind.STARRED, span, base=self.value(node.value, scope, deeper))
        if isinstance(node, ast.Lambda):
            return Value(Kind.FUNCTION, span, name=self._lambda_qualname(node, scope))
        if isinstance(node, ast.JoinedStr):
            return Value(Kind.CONSTANT, span)
        return Value(Kind.UNKNOWN, span)

    def _resolve_name(self, name: str, scope: _Scope, span: Span | None, depth: int = 0) -> Value:
        if any(name in names for names in self._comprehension_names):
            return Value(Kind.UNKNOWN, span, name=name)
        key = (scope, name)
        resolved = self._names.get(key)
        if resolved is None:
            resolved = self._names[key] = self._lookup(name, scope, depth)
        return resolved

    def _lookup(self, name: str, scope: _Scope, depth: int) -> Value:
        span = None
        current: _Scope | None = scope
        crossed: list[_Scope] = []
        while current is not None:
            # `global x` at module level (legal, if pointless) must not loop forever.
            if name in current.globals and current is not self._module_scope:
                current = self._module_scope
                continue
            is_visible = current is scope or current.kind != "class"
            if is_visible and name in current.bindings and name not in current.nonlocals:
                if current is not scope and current.kind == "function":
                    for inner in crossed:
                        if inner.facts is not None:
                            inner.facts.free_names.add(name)
                values = self._binding_values(name, current, current.bindings[name], depth)
                if len(values) == 1:
                    return values[0]
                return Value(Kind.ALTERNATIVES, span, args=values)
            if current.kind == "function":
                crossed.append(current)
            current = current.parent
        if self._star_imports:
            qualnames = tuple(f"{module}.{name}" for module in self._star_imports)
            if name in _BUILTINS:
                qualnames = (*qualnames, f"builtins.{name}")
            return Value(Kind.NAME, span, qualnames=qualnames)
        if name in _BUILTINS:
            return Value(Kind.NAME, span, qualnames=(f"builtins.{name}",))
        return Value(Kind.UNKNOWN, span, name=name)

    def _binding_values(
        self,
        name: str,
        scope: _Scope,
        bindings: list[_Binding],
        depth: int,
        *,
        follow: bool = False,
    ) -> tuple[Value, ...]:
        if scope.kind == "module":
            imports = [binding for binding in bindings if binding.kind == "import"]
            # `try: import x except ImportError: x = None` is an import with a fallback:
            # the import is what the code means.
            if imports:
                bindings = imports
        values: list[Value] = []
        for binding in bindings:
            value = self._binding_value(name, scope, binding, depth, follow=follow)
            if value not in values:
                values.append(value)
        return tuple(values)

    def _binding_value(
        self, name: str, scope: _Scope, binding: _Binding, depth: int, *, follow: bool = False
    ) -> Value:
        if binding.kind == "import":
            return Value(Kind.NAME, qualnames=(binding.qualname,))
        if binding.kind == "self":
            return Value(Kind.SELF, name=name)
        if binding.kind == "param":
            return Value(Kind.PARAM, name=name)
        if binding.kind in ("def", "class"):
            if self._inside_function(scope) and binding.kind == "def":
                return Value(Kind.FUNCTION, name=binding.qualname)
            return Value(Kind.NAME, qualnames=(f"{self._module}.{binding.qualname}",))
        if scope.kind == "module" and not follow:
            # A module-level variable: the project index follows it, so that the module's
            # own bindings table is the single place that says what it holds.
            return Value(Kind.NAME, qualnames=(f"{self._module}.{name}",))
        if binding.kind == "assign" and binding.node is not None:
            key = (id(binding.node), name)
            if key in self._resolving:
                return Value(Kind.UNKNOWN, name=name)
            self._resolving.add(key)
            try:
                return self.value(binding.node, scope, depth)
            finally:
                self._resolving.discard(key)
        return Value(Kind.UNKNOWN, name=name)


#: Statements whose bodies may not run: calls inside them happen only under a condition.
_BRANCHING = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Match)

_OPERATORS: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.MatMult: "@",
}


def _attribute(base: Value, attr: str, span: Span) -> Value:
    """Summarise `base.attr`, extending resolved names."""
    if base.kind is Kind.NAME:
        return Value(Kind.NAME, span, qualnames=tuple(f"{qn}.{attr}" for qn in base.qualnames))
    if base.kind is Kind.ALTERNATIVES:
        return Value(
            Kind.ALTERNATIVES,
            span,
            args=tuple(_attribute(option, attr, span) for option in base.args),
        )
    return Value(Kind.ATTRIBUTE, span, name=attr, base=base)


def _with_span(value: Value, span: Span) -> Value:
    return Value(
        value.kind,
        span,
        value.qualnames,
        value.name,
        value.base,
        value.args,
        value.keywords,
        value.number,
    )


def _unpack(target: ast.expr, value: ast.expr | None) -> Iterator[tuple[ast.expr, ast.expr | None]]:
    if isinstance(target, ast.Tuple | ast.List):
        if isinstance(value, ast.Tuple | ast.List) and len(value.elts) == len(target.elts):
            for element, element_value in zip(target.elts, value.elts, strict=True):
                yield from _unpack(element, element_value)
        else:
            for element in target.elts:
                yield from _unpack(element, None)
    elif isinstance(target, ast.Starred):
        yield from _unpack(target.value, None)
    else:
        yield target, value


def _parameter_names(args: ast.arguments) -> tuple[str, ...]:
    names = [arg.arg for arg in (*args.posonlyargs, *args.args)]
    if args.vararg:
        names.append(args.vararg.arg)
    names.extend(arg.arg for arg in args.kwonlyargs)
    if args.kwarg:
        names.append(args.kwarg.arg)
    return tuple(names)


def _defaults(args: ast.arguments) -> list[ast.expr]:
    return [default for default in (*args.defaults, *args.kw_defaults) if default is not None]


def _has_docstring(body: list[ast.stmt]) -> bool:
    return bool(
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def _is_builtin(value: Value, name: str) -> bool:
    return value.kind is Kind.NAME and f"builtins.{name}" in value.qualnames
