"""Visit expressions: record the calls, references and `self` reads of each function;
lambdas and comprehensions are visited as the scopes they are."""

from __future__ import annotations

import ast

from .binding_statements import dict_values
from .branch_records import conditional_expression_branches, operand_branches
from .expression_values import _ValueSummariser
from .facts import _LITERAL_CUT, FunctionFacts, Kind, Value, self_attribute
from .scopes import _Binding, _FunctionBuilder, _Scope

_COMPREHENSIONS = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})
#: Nodes without expressions inside: `Load`/`Store` markers and operators.
_SKIPPED = (ast.expr_context, ast.operator, ast.unaryop, ast.boolop, ast.cmpop)
#: Kinds a name can resolve to when it (or an attribute of it) may be a qualified name.
_MAY_NAME = frozenset({Kind.NAME, Kind.ALTERNATIVES, Kind.FUNCTION})


class _ExpressionVisitor(_ValueSummariser):
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
                    if type(base) is ast.Name and self._is_local(base.id, scope):
                        facts.attribute_bases.add(base.id)
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
                    sized = _sized_local(current)
                    if sized is not None and self._is_local(sized, scope) and self._is_len(scope):
                        facts.sized_reads[sized] = facts.sized_reads.get(sized, 0) + 1
                    if facts.caught:
                        facts.caught_calls.append(self._positions.span(current))
                    if facts.conditions:
                        facts.conditional_calls.append(self._positions.span(current))
                        if facts.conditions == facts.if_conditions:
                            facts.if_only_calls.append(self._positions.span(current))
                for keyword in reversed(current.keywords):
                    push((keyword.value, False))
                for arg in reversed(current.args):
                    push((arg, False))
                push((current.func, True))
                continue
            if kind is ast.Subscript:
                assert isinstance(current, ast.Subscript)
                held = current.value
                if type(held) is ast.Subscript:
                    held = held.value  # `self.datasets[i][index]`: an element's `__getitem__`
                if (
                    facts is not None
                    and type(current.ctx) is ast.Load
                    and type(held) is ast.Attribute
                    and type(held.value) is ast.Name
                    and self._resolve_name(held.value.id, scope, None).kind is Kind.SELF
                ):
                    # `self.dataset[index]`: runs the held object's `__getitem__`.
                    facts.self_subscripts.append(self.value(current, scope))
                elif (
                    facts is not None
                    and type(current.ctx) is ast.Load
                    and type(held) is ast.Name
                    and _held_by_self(
                        self._resolve_name(held.id, scope, self._positions.span(held))
                    )
                ):
                    # `dataset = self.datasets[i]`, then `dataset[index]`: the same.
                    facts.self_subscripts.append(self.value(current, scope))
                elif (
                    facts is not None
                    and type(current.ctx) is ast.Load
                    and type(held) is ast.Name
                    and any(
                        name == held.id and self_attribute(iterable) is not None
                        for name, iterable in facts.loops
                    )
                ):
                    # `for dataset in self.datasets: dataset[index]`: each held element's.
                    facts.self_subscripts.append(self.value(current, scope))
            elif kind is ast.Constant:
                continue
            if kind is ast.Lambda:
                assert isinstance(current, ast.Lambda)
                self._visit_lambda(current, scope)
                continue
            if kind is ast.IfExp and facts is not None:
                assert isinstance(current, ast.IfExp)
                facts.branches.extend(
                    conditional_expression_branches(
                        current, lambda test: self.value(test, scope), self._positions.span
                    )
                )
            if (
                kind is ast.BoolOp
                and facts is not None
                and id(current) not in self._statement_tests
            ):
                assert isinstance(current, ast.BoolOp)
                facts.branches.extend(
                    operand_branches(
                        current, lambda test: self.value(test, scope), self._positions.span
                    )
                )
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

    def _is_len(self, scope: _Scope) -> bool:
        """Return True if `len` in `scope` is the builtin (not a name the code binds)."""
        return "builtins.len" in self._resolve_name("len", scope, None).qualnames

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

    def _named_defaults(self, args: ast.arguments, scope: _Scope) -> tuple[tuple[str, Value], ...]:
        """Return the parameters of `args` whose default is a (dotted) name or a call, with
        its value in `scope`, where the function is defined (`klass=DataLoader`,
        `augmentor=ImgAugTransform()`: made once, when the function is defined)."""
        return tuple(
            (arg.arg, self.value(default, scope))
            for arg, default in _defaulted(args)
            if isinstance(default, ast.Name | ast.Attribute | ast.Call)
        )

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
        with self._loop_names_unknown(node):
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.expr):
                    self._visit_expression(child, scope)
                elif isinstance(child, ast.comprehension):
                    if scope.facts is not None and isinstance(child.target, ast.Name):
                        # `[t(x) for t in self.transforms]`: as a `for` loop over them.
                        iterable = self.value(child.iter, scope)
                        scope.facts.loops.append((child.target.id, iterable))
                    for sub in (child.iter, *child.ifs):
                        self._visit_expression(sub, scope)

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
                self_subscripts=tuple(builder.self_subscripts),
                has_var_keyword=node.args.kwarg is not None,
                references=tuple(sorted(builder.references)),
                definition_names=self._definition_names(_defaults(node.args), scope),
            )
        )

    def _visit_arguments(self, args: ast.arguments, scope: _Scope) -> None:
        for default in (*args.defaults, *args.kw_defaults):
            if default is not None:
                self._visit_expression(default, scope)

    def _record_loop(
        self, target: ast.expr, iterable: ast.expr, scope: _Scope, builder: _FunctionBuilder
    ) -> None:
        """Record the loop variables of `for target in iterable`: each with what it takes
        elements of, or, unpacked from each element (`for prob, p in pipeline`), each with
        the iterable it takes a part of an element of."""
        elements = self._loop_elements(target, iterable, scope)
        builder.loops.extend(elements)
        if not elements and isinstance(target, ast.Tuple):
            parts = self.value(iterable, scope)
            builder.loop_parts.extend(
                (part.id, parts) for part in target.elts if isinstance(part, ast.Name)
            )

    def _loop_elements(
        self, target: ast.expr, iterable: ast.expr, scope: _Scope
    ) -> list[tuple[str, Value]]:
        """Return each loop variable with the iterable it takes elements of: `for x in xs`,
        and `for a, b in zip(xs, ys)` / `for i, x in enumerate(xs)` element-wise, nested
        tuples included."""
        if isinstance(target, ast.Name):
            return [(target.id, self.value(iterable, scope))]
        values = dict_values(target, iterable)
        if values is not None:
            # `for key, value in d.items()`: `value` takes the elements of `d.values()`.
            return [(values[0], self.value(values[1], scope))]
        if not (
            isinstance(target, ast.Tuple)
            and isinstance(iterable, ast.Call)
            and not iterable.keywords
            and not any(isinstance(arg, ast.Starred) for arg in iterable.args)
        ):
            return []
        callee = self.value(iterable.func, scope)
        sources: list[ast.expr | None] = []
        if is_builtin(callee, "zip") and len(iterable.args) == len(target.elts):
            sources = list(iterable.args)
        elif is_builtin(callee, "enumerate") and len(target.elts) == 2 and iterable.args:
            sources = [None, iterable.args[0]]
        found: list[tuple[str, Value]] = []
        for element, source in zip(target.elts, sources, strict=False):
            if source is None:
                continue
            if isinstance(element, ast.Name):
                found.append((element.id, self.value(source, scope)))
            else:
                # `for i, (key, value) in enumerate(d.items())`: the inner tuple takes the
                # elements of `d.items()` as a loop over it would.
                found.extend(self._loop_elements(element, source, scope))
        return found


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


def _defaulted(args: ast.arguments) -> list[tuple[ast.arg, ast.expr | None]]:
    """Return each parameter of `args` that may have a default, with its default."""
    positional = [*args.posonlyargs, *args.args]
    return [
        *zip(positional[len(positional) - len(args.defaults) :], args.defaults, strict=True),
        *zip(args.kwonlyargs, args.kw_defaults, strict=True),
    ]


def _literal_defaults(args: ast.arguments) -> tuple[tuple[str, str], ...]:
    """Return the parameters of `args` whose default is a short literal, with its repr: a
    constant, or a tuple or list of constants (`odds=[0, 0]`, read as `odds[0]`)."""
    found: list[tuple[str, str]] = []
    for arg, default in _defaulted(args):
        if not isinstance(default, ast.Constant | ast.UnaryOp | ast.Tuple | ast.List):
            continue
        try:
            literal = ast.literal_eval(default)
        except ValueError:
            continue
        key = repr(literal)
        if len(key) < _LITERAL_CUT and not isinstance(literal, complex | bytes):
            found.append((arg.arg, key))
    return tuple(found)


def _has_docstring(body: list[ast.stmt]) -> bool:
    return bool(
        body
        and isinstance(body[0], ast.Expr)
        and isinstance(body[0].value, ast.Constant)
        and isinstance(body[0].value.value, str)
    )


def _only_raises(body: list[ast.stmt]) -> bool:
    """Return True if `body` (after a docstring) is a single `raise`."""
    statements = body[1:] if _has_docstring(body) else body
    return len(statements) == 1 and isinstance(statements[0], ast.Raise)


def is_builtin(value: Value, name: str) -> bool:
    return value.kind is Kind.NAME and f"builtins.{name}" in value.qualnames


def _held_by_self(value: Value) -> bool:
    """Return True for `self.<name>` or an element of it (`self.<name>[i]`)."""
    inner = value.base if value.kind is Kind.SUBSCRIPT and value.base is not None else value
    return self_attribute(inner) is not None


def _sized_local(call: ast.Call) -> str | None:
    """Return the name `call` takes the length of, if it is `len(name)`."""
    func, args = call.func, call.args
    if type(func) is ast.Name and func.id == "len" and len(args) == 1 and not call.keywords:
        argument = args[0]
        if type(argument) is ast.Name:
            return argument.id
    return None
