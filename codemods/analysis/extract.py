"""Summarise one parsed file into `ModuleFacts`, resolving names through imports and scopes.

Name resolution follows Python's rules closely enough for static analysis: a name bound
anywhere in a function is local to the whole function; class bodies are not visible from
the methods they contain; `global` and `nonlocal` redirect a name; imports, `def`, `class`,
assignments, parameters and loop targets all bind. The result is flow-insensitive: a name
bound twice resolves to both values (Kind.ALTERNATIVES).

The passes are layered: `scopes` (what each scope binds), `expression_values` (what an
expression holds), `expression_visitor` (calls and references in expressions), and here
the statements, functions and classes.
"""

from __future__ import annotations

import ast
from functools import cached_property, partial
from pathlib import Path

from ..types import Span
from .binding_statements import grown_attribute, unpacked_pairs
from .branch_records import assert_branches, block_span, if_branches
from .expression_visitor import (
    _defaults,
    _ExpressionVisitor,
    _has_docstring,
    _literal_defaults,
    _only_raises,
    _parameter_names,
    is_builtin,
)
from .facts import (
    UNKNOWN,
    Assignment,
    AttributeStore,
    ClassFacts,
    FunctionFacts,
    ItemStore,
    Kind,
    ModuleFacts,
    TypeTest,
    Value,
)
from .function_table import FunctionSource, FunctionTable
from .name_errors import first_failing, may_bind_otherwise
from .scopes import _Binding, _Function, _FunctionBuilder, _own_statements, _Scope
from .statement_order import (
    always_raises,
    caught_body,
    constructions,
    nested_blocks,
    raise_skips,
    reachable,
    settled_arms,
    statement_reaches,
    unreachable,
)


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


def extract(
    tree: ast.Module, text: str, path: Path, module: str, *, keep_tree: bool = False
) -> ModuleFacts:
    """Summarise the parsed module `tree` of file `path`, imported as `module`.

    Every function is summarised now, while the tree is at hand: a summary keeps no part
    of the tree, which is many times larger than the file and would otherwise live as long
    as the run (see `function_table.FunctionTable.release`). With `keep_tree`, module-level code,
    classes and bindings are summarised now and each function when first asked for, from
    the tree the summary keeps: less work when few functions matter, more memory.
    """
    facts = _Extractor(text, path, module).run(tree)
    if not keep_tree:
        facts.table.release(text)
    return facts


def function_source(tree: ast.Module, text: str, path: Path, module: str) -> FunctionSource:
    """Return what summarises the functions of a module again (for a cached summary)."""
    extractor = _Extractor(text, path, module)
    extractor.run(tree)
    return extractor


class _Extractor(_ExpressionVisitor):
    # --- functions summarised on demand (facts.FunctionSource) ---

    @property
    def text(self) -> str:
        """Return the module's text."""
        return self._text

    def summarise(self, qualname: str) -> tuple[list[FunctionFacts], list[ClassFacts]]:
        """Summarise the pending function `qualname` (every definition of it) and what it
        contains; return the facts of its functions and of the classes defined in it."""
        start, classes = len(self._functions), len(self._classes)
        for node, scope in self._pending.pop(qualname, []):
            self._visit_body_of(node, scope, qualname)
        return self._functions[start:], self._classes[classes:]

    # --- entry point ---

    def run(self, tree: ast.Module) -> ModuleFacts:
        scope = self._module_scope
        self._collect_bindings(tree.body, scope)
        self._bind_global_stores(tree)
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
                # A script's top-level code under `if __name__ == "__main__":` (or any `if`)
                # is not run again by the processes `mp.spawn` starts (see `seeding_reach`).
                conditional_calls=tuple(builder.conditional_calls),
                references=tuple(sorted(builder.references)),
                type_tests=tuple(builder.type_tests),
                choices=tuple(builder.choices),
                loops=tuple(builder.loops),
                loop_parts=tuple(builder.loop_parts),
                unpacked=tuple(builder.unpacked),
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

    # --- pass 2: visit statements, summarise expressions ---

    def _visit_body(self, body: list[ast.stmt], scope: _Scope) -> None:
        if scope.kind != "module":
            # A module's own top level is read whole: a top-level `raise` (or `sys.exit()`)
            # stopping a file at import is rare, and must not silence the whole file.
            body = reachable(body)
        self._never_run |= settled_arms(body)
        for index, statement in enumerate(body):
            if (
                isinstance(statement, ast.If)
                and not statement.orelse
                and isinstance(statement.body[-1], ast.Return | ast.Raise)
            ):
                # A guard clause (`if not self.train: return x`): what follows is its `else`.
                self._fallthrough[id(statement)] = block_span(
                    body[index + 1 :], self._positions.span
                )
            if (
                isinstance(statement, ast.Assert)
                and scope.facts is not None
                and index + 1 < len(body)
            ):
                rest = block_span(body[index + 1 :], self._positions.span)
                if rest is not None:

                    def summarise(expression: ast.expr, scope: _Scope = scope) -> Value:
                        return self.value(expression, scope)

                    scope.facts.branches.extend(assert_branches(statement, rest, summarise))
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
            builder.if_conditions += isinstance(node, ast.If)
        dead = unreachable(node)
        for block in nested_blocks(node):
            self._never_run |= settled_arms(block)
        caught = caught_body(node) if builder is not None else frozenset()
        if builder is not None and caught:
            assert isinstance(node, ast.Try | ast.TryStar)
            builder.raise_skips.extend(raise_skips(node.body, self._positions.span))
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._visit_expression(child, scope)
            elif (
                isinstance(child, ast.stmt)
                and id(child) not in dead
                and id(child) not in self._never_run
            ):
                if builder is not None and id(child) in caught:
                    builder.caught += 1
                self._visit_statement(child, scope)
                if builder is not None and id(child) in caught:
                    builder.caught -= 1
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
            builder.if_conditions -= isinstance(node, ast.If)

    def _record_branch(self, node: ast.If, scope: _Scope, builder: _FunctionBuilder) -> None:
        self._statement_tests.add(id(node.test))

        def summarise(expression: ast.expr) -> Value:
            return self.value(expression, scope)

        span_of = self._positions.span
        body = block_span(node.body, span_of)
        if body is None:
            return
        builder.choices.append((body, block_span(node.orelse, span_of)))
        orelse = (
            block_span(node.orelse, span_of) if node.orelse else self._fallthrough.get(id(node))
        )
        tested, inverted = node.test, False
        if isinstance(tested, ast.UnaryOp) and isinstance(tested.op, ast.Not):
            tested, inverted = tested.operand, True
        # `if isinstance(x, Kind):` (alone, or under `not`) narrows what `x` may be.
        is_and = isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And)
        if (
            not is_and
            and isinstance(tested, ast.Call)
            and len(tested.args) == 2
            and not tested.keywords
        ):
            builder.type_tests.append(TypeTest(summarise(tested), inverted, body, orelse))
        builder.branches.extend(if_branches(node, orelse, summarise, span_of))

    def _record_assignment(self, node: ast.stmt, scope: _Scope, builder: _FunctionBuilder) -> None:
        targets: list[ast.expr]
        if isinstance(node, ast.For | ast.AsyncFor):
            self._record_loop(node.target, node.iter, scope, builder)
            return
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif (grown := grown_attribute(node)) is not None and self._target_name(grown.left, scope):
            # `self.steps.append(step)` stores `self.steps + [step]`: the list holds it too.
            targets, value = [grown.left], grown
        elif (
            isinstance(node, ast.AugAssign)
            and isinstance(node.target, ast.Attribute | ast.Subscript)
            and self._target_name(node.target, scope) is None
        ):
            # `cfg.seed += rank` stores `cfg.seed + rank`: recorded as a store of that sum.
            # Names and `self.<attr>` stay out: their assignments are values read back.
            targets = [node.target]
            value = ast.copy_location(ast.BinOp(node.target, node.op, node.value), node)
        else:
            return
        for target in targets:
            taken = self._unpacked(target, value, scope, builder)
            for element, element_value in unpacked_pairs(target, value):
                # `options["k"] = v`; a holder that is no plain name (`cfg["loader"]["k"] =
                # v`) is recorded with an empty target, for what its key and value show.
                holder = (
                    self._target_name(element.value, scope) or ""
                    if isinstance(element, ast.Subscript)
                    else None
                )
                if isinstance(element, ast.Subscript) and holder is not None:
                    key = element.slice
                    literal = key.value if isinstance(key, ast.Constant) else None
                    builder.item_stores.append(
                        ItemStore(
                            holder,
                            literal if isinstance(literal, str) else None,
                            self.value(element_value, scope) if element_value else UNKNOWN,
                            self._positions.span(element),
                            scope.flow.block_end(element.lineno),
                        )
                    )
                    continue
                name = self._target_name(element, scope)
                summary = self.value(element_value, scope) if element_value else UNKNOWN
                if name is not None and name.startswith("self.") and id(element) in taken:
                    summary = taken[id(element)]
                if name is not None:
                    span = self._positions.span(element)
                    builder.assignments.append(Assignment(name, summary, span))
                    if builder.conditions and name.startswith("self."):
                        builder.conditional_stores.append(span)
                elif isinstance(element, ast.Attribute):
                    builder.attribute_stores.append(
                        AttributeStore(
                            self.value(element.value, scope),
                            element.attr,
                            summary,
                            self._positions.span(element),
                            scope.flow.block_end(element.lineno),
                        )
                    )

    def _unpacked(
        self, target: ast.expr, value: ast.expr, scope: _Scope, builder: _FunctionBuilder
    ) -> dict[int, Value]:
        """Record the names `a, b = value` binds to positions of a value that is not a tuple
        display (name, position, how many names); return, by node id, what each element
        takes: `value[0]`, `value[1]` (`self.train, self.val = [make(s) for s in splits]`)."""
        if not isinstance(target, ast.Tuple | ast.List) or isinstance(value, ast.Tuple | ast.List):
            return {}
        if any(isinstance(element, ast.Starred) for element in target.elts):
            return {}
        whole = self.value(value, scope)
        elements = list(enumerate(target.elts))
        builder.unpacked.extend(
            (element.id, position, len(elements), whole)
            for position, element in elements
            if isinstance(element, ast.Name)
        )
        return {id(element): _at_position(whole, position) for position, element in elements}

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

    def _visit_function(self, node: _Function, scope: _Scope) -> None:
        for decorator in node.decorator_list:
            self._visit_expression(decorator, scope)
        self._visit_arguments(node.args, scope)
        qualname = self._child_qualname(scope, node.name)
        if not self._inside_function(scope):
            self._pending.setdefault(qualname, []).append((node, scope))
            return
        self._visit_body_of(node, scope, qualname)

    def _annotations(self, args: ast.arguments, scope: _Scope) -> tuple[tuple[str, Value], ...]:
        """Return the parameters annotated with a dotted name (`fabric: L.Fabric`, or the
        string `"L.Fabric"`), each with that name read where the function is defined."""
        found: list[tuple[str, Value]] = []
        for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
            annotation = arg.annotation
            if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
                try:
                    annotation = ast.parse(annotation.value.strip(), mode="eval").body
                except (SyntaxError, ValueError):
                    continue  # not Python (or a null byte): no name to read
            if annotation is not None and _is_dotted_name(annotation):
                found.append((arg.arg, self.value(annotation, scope)))
        return tuple(found)

    def _visit_body_of(self, node: _Function, scope: _Scope, qualname: str) -> None:
        """Summarise function `node`, defined in `scope`, whose decorators and defaults were
        visited where it is defined."""
        decorators = tuple(self.value(decorator, scope) for decorator in node.decorator_list)
        is_static = any(is_builtin(value, "staticmethod") for value in decorators)
        params = _parameter_names(node.args)
        inner = _Scope("function", qualname, scope)
        builder = _FunctionBuilder(qualname)
        inner.facts = builder
        for index, param in enumerate(params):
            is_self = scope.kind == "class" and index == 0 and not is_static
            inner.bind(param, _Binding("self" if is_self else "param"))
        self._collect_bindings(node.body, inner)
        for statement in _own_statements(node.body):
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                self._collect_declared(statement, ast.Nonlocal, inner)
        self._note_name_errors(node.body, inner)
        self._visit_body(node.body, inner)
        self._functions.append(
            FunctionFacts(
                qualname=qualname,
                name=node.name,
                span=self._def_span(node),
                params=params,
                positional_count=len(node.args.posonlyargs) + len(node.args.args),
                annotations=self._annotations(node.args, scope),
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
                self_subscripts=tuple(builder.self_subscripts),
                has_docstring=_has_docstring(node.body),
                only_raises=_only_raises(node.body),
                always_raises=always_raises(node.body),
                constructions=tuple(constructions(node.body, self._positions.span)),
                has_var_keyword=node.args.kwarg is not None,
                has_var_positional=node.args.vararg is not None,
                statement_calls=tuple(builder.statement_calls),
                statement_reaches=statement_reaches(node.body, self._positions.span),
                references=tuple(sorted(builder.references)),
                local_reads=tuple(sorted(builder.local_reads.items())),
                sized_reads=tuple(sorted(builder.sized_reads.items())),
                attribute_bases=tuple(sorted(builder.attribute_bases)),
                loops=tuple(builder.loops),
                loop_parts=tuple(builder.loop_parts),
                unpacked=tuple(builder.unpacked),
                conditional_calls=tuple(builder.conditional_calls),
                caught_calls=tuple(builder.caught_calls),
                raise_skips=tuple(builder.raise_skips),
                if_only_calls=tuple(builder.if_only_calls),
                conditional_stores=tuple(builder.conditional_stores),
                nonlocals=tuple(sorted(inner.nonlocals)),
                branches=tuple(builder.branches),
                type_tests=tuple(builder.type_tests),
                choices=tuple(builder.choices),
                literal_defaults=_literal_defaults(node.args),
                named_defaults=self._named_defaults(node.args, scope),
                definition_names=self._definition_names(
                    [*node.decorator_list, *_defaults(node.args)], scope
                ),
            )
        )

    def _note_name_errors(self, body: list[ast.stmt], scope: _Scope) -> None:
        """Record the `if` arms of function `body` that stop at a name bound nowhere: what
        they bind is never seen below them."""
        if self._star_imports or self._binds_otherwise:
            return
        is_bound = partial(self._is_bound, scope=scope)
        for statement in _own_statements(body):
            # The arms of an `if`: one that stops binds nothing another arm's reader sees.
            if isinstance(statement, ast.If):
                for block in (statement.body, statement.orelse):
                    failing = first_failing(block, is_bound) if block else None
                    if failing is not None:
                        scope.flow.leaves(block, failing)

    @cached_property
    def _binds_otherwise(self) -> bool:
        """Whether the module may bind names its statements do not spell out (read once)."""
        return may_bind_otherwise(self._text)

    def _is_bound(self, name: str, scope: _Scope) -> bool:
        """Return True if `name`, read in function `scope`, is bound by some scope it sees."""
        current: _Scope | None = scope
        while current is not None:
            if name in current.globals and current is not self._module_scope:
                current = self._module_scope
                continue
            if (current is scope or current.kind != "class") and name in current.bindings:
                return True
            current = current.parent
        return False

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
                    for element, element_value in unpacked_pairs(target, statement.value):
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


#: Statements whose bodies may not run: calls inside them happen only under a condition.
_BRANCHING = (ast.If, ast.While, ast.For, ast.AsyncFor, ast.Match)


def _at_position(whole: Value, position: int) -> Value:
    """Return `whole[position]`."""
    index = Value(Kind.INT, whole.span, number=position)
    return Value(Kind.SUBSCRIPT, whole.span, base=whole, args=(index,))


def _is_dotted_name(node: ast.expr) -> bool:
    """Return True for `Fabric` or `L.Fabric`: a name, or attributes of one."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name)
