"""Summarise an expression as a `Value`, resolving its names through scopes and imports.

The result is flow-insensitive: a name bound twice resolves to both values
(Kind.ALTERNATIVES).
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterator
from contextlib import contextmanager

from ..types import Span
from .facts import Kind, Value, literal_key
from .scopes import _Binding, _BindingCollector, _Scope

_BUILTINS = frozenset(dir(builtins))
#: Nested expressions deeper than this summarise as UNKNOWN (keeps summaries small).
_MAX_DEPTH = 24
#: Displays with more elements than this (data tables) summarise as UNKNOWN.
_MAX_ELEMENTS = 256


class _ValueSummariser(_BindingCollector):
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
            if _is_pairs(node) and self.value(node.func, scope, deeper).qualnames == _DICT:
                # `dict((key, make(key)) for key in keys)`: as `{key: make(key) for ...}`.
                pairs = node.args[0]
                assert isinstance(pairs, ast.GeneratorExp)
                assert isinstance(pairs.elt, ast.Tuple)
                made = self._per_item(pairs, pairs.elt.elts[1], scope, deeper)
                return Value(Kind.DICT, span, keywords=((None, made),))
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
            return Value(Kind.CONSTANT, span, name=_literal_text(node.value))
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
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            return Value(
                Kind.COMPARE,
                span,
                name=_COMPARISONS.get(type(node.ops[0]), "?"),
                args=(
                    self.value(node.left, scope, deeper),
                    self.value(node.comparators[0], scope, deeper),
                ),
            )
        if isinstance(node, ast.Subscript):
            return Value(
                Kind.SUBSCRIPT,
                span,
                base=self.value(node.value, scope, deeper),
                args=(self.value(node.slice, scope, deeper),),
            )
        if isinstance(node, ast.IfExp):
            # The test is kept as keyword "if": what picks the first option.
            return Value(
                Kind.ALTERNATIVES,
                span,
                args=(self.value(node.body, scope, deeper), self.value(node.orelse, scope, deeper)),
                keywords=(("if", self.value(node.test, scope, deeper)),),
            )
        if isinstance(node, ast.BoolOp):
            return Value(
                Kind.ALTERNATIVES,
                span,
                args=tuple(self.value(option, scope, deeper) for option in node.values),
                name="and" if isinstance(node.op, ast.And) else "or",
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
        if isinstance(node, ast.DictComp | ast.ListComp | ast.SetComp):
            return self._collected(node, scope, span, deeper)
        if isinstance(node, ast.Lambda):
            return Value(Kind.FUNCTION, span, name=self._lambda_qualname(node, scope))
        if isinstance(node, ast.JoinedStr):
            return Value(Kind.CONSTANT, span)
        return Value(Kind.UNKNOWN, span)

    def _collected(
        self, node: ast.DictComp | ast.ListComp | ast.SetComp, scope: _Scope, span: Span, depth: int
    ) -> Value:
        """Summarise `{c.name: c for c in CLASSES}` or `[c for c in CLASSES]` as holding the
        elements of `CLASSES` (like `[*CLASSES]`), also when only the Nones are left out
        (`[t for t in transforms if t is not None]`); other comprehensions are UNKNOWN."""
        element = node.value if isinstance(node, ast.DictComp) else node.elt
        loop = node.generators[0]
        if (
            len(node.generators) != 1
            or not all(_drops_only_none(test, loop.target) for test in loop.ifs)
            or not isinstance(loop.target, ast.Name)
            or not isinstance(element, ast.Name)
            or element.id != loop.target.id
        ):
            if not isinstance(element, ast.Call):
                return Value(Kind.UNKNOWN, span)
            # `{key: make(key) for key in keys}`: each element is what the call makes.
            made = self._per_item(node, element, scope, depth)
            if isinstance(node, ast.DictComp):
                return Value(Kind.DICT, span, keywords=((None, made),))
            return Value(Kind.SEQUENCE, span, args=(made,))
        elements = Value(Kind.STARRED, span, base=self.value(loop.iter, scope, depth))
        if isinstance(node, ast.DictComp):
            return Value(Kind.DICT, span, keywords=((None, elements),))
        return Value(Kind.SEQUENCE, span, args=(elements,))

    def _per_item(
        self,
        node: ast.DictComp | ast.ListComp | ast.SetComp | ast.GeneratorExp,
        element: ast.expr,
        scope: _Scope,
        depth: int,
    ) -> Value:
        """Return what `element` is for each item: the loop's names are unknown there."""
        with self._loop_names_unknown(node):
            return self.value(element, scope, depth)

    @contextmanager
    def _loop_names_unknown(
        self, node: ast.DictComp | ast.ListComp | ast.SetComp | ast.GeneratorExp
    ) -> Iterator[None]:
        """Within `node`, the names its loops bind stand for no one value."""
        names = {
            sub.id
            for generator in node.generators
            for sub in ast.walk(generator.target)
            if isinstance(sub, ast.Name)
        }
        self._comprehension_names.append(names)
        try:
            yield
        finally:
            self._comprehension_names.pop()

    def _resolve_name(self, name: str, scope: _Scope, span: Span | None, depth: int = 0) -> Value:
        if any(name in names for names in self._comprehension_names):
            return Value(Kind.UNKNOWN, span, name=name)
        seen = self._reaching(name, scope, span)
        key = (scope, name, seen)
        resolved = self._names.get(key)
        if resolved is None:
            resolved = self._names[key] = self._lookup(name, scope, depth, seen)
        return resolved

    @staticmethod
    def _reaching(name: str, scope: _Scope, span: Span | None) -> tuple[int, ...] | None:
        """Return which of a scope's own bindings of `name` a read at `span` may see (by
        index), or None for all of them.

        Module-level code runs top to bottom once, like a function's: a read there (in an
        `if __name__ == "__main__":` block, say) sees the bindings before it, not those in
        another arm. A function reading a module's name may run at any time and sees all.
        """
        bindings = scope.bindings.get(name)
        if name in scope.globals and scope.kind == "function" and bindings and span is not None:
            return _stored_before(scope, bindings, span.line)
        if scope.kind == "module" and bindings and span is not None:
            # The bases of `class Dataset(Dataset)` read the import, not the class itself.
            later = [binding for binding in bindings if binding.top_level and binding.line]
            if any(span.line <= (binding.line or 0) for binding in later):
                before = tuple(
                    index
                    for index, binding in enumerate(bindings)
                    if not binding.top_level or (binding.line or 0) < span.line
                )
                return before or None
        if (
            span is None
            or scope.kind == "class"
            or not bindings
            or name in scope.globals
            or name in scope.nonlocals
        ):
            return None
        seen = scope.reaching(bindings, span.line)
        if len(seen) == len(bindings):
            return None
        return tuple(index for index, binding in enumerate(bindings) if binding in seen)

    def _lookup(
        self, name: str, scope: _Scope, depth: int, seen: tuple[int, ...] | None = None
    ) -> Value:
        span = None
        current: _Scope | None = scope
        crossed: list[_Scope] = []
        while current is not None:
            # `global x` at module level (legal, if pointless) must not loop forever.
            if name in current.globals and current is not self._module_scope:
                if current is scope and seen is not None:
                    # The function's own store under `global` runs first on every path.
                    own = [current.bindings[name][index] for index in seen]
                    values = self._binding_values(name, current, own, depth)
                    return values[0] if len(values) == 1 else Value(Kind.ALTERNATIVES, args=values)
                current = self._module_scope
                continue
            is_visible = current is scope or current.kind != "class"
            if is_visible and name in current.bindings and name not in current.nonlocals:
                if current is not scope and current.kind == "function":
                    for inner in crossed:
                        if inner.facts is not None:
                            inner.facts.free_names.add(name)
                bindings = current.bindings[name]
                narrowed = seen if current is scope else None
                if narrowed is not None:
                    bindings = [bindings[index] for index in narrowed]
                # A module-level read that sees only some of the module's bindings of the
                # name reads their values, not the module variable (which holds them all).
                follow = narrowed is not None and scope.kind == "module"
                values = self._binding_values(name, current, bindings, depth, follow=follow)
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
            # the import is what the code means. A top-level `class Dataset(Dataset)` below
            # the import rebinds the name for everything that reads it after the class.
            if imports:
                shadowing = [binding for binding in bindings if _rebinds(binding, imports)]
                bindings = shadowing[-1:] or imports
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
        if binding.kind == "global":
            # Read where the function stores it: the project index resolves it there.
            return Value(Kind.UNKNOWN, name=name, qualnames=(binding.qualname,))
        if binding.kind == "assign" and binding.node is not None:
            key = (id(binding.node), name)
            if key in self._resolving:
                return Value(Kind.RECURSIVE, name=name)
            self._resolving.add(key)
            try:
                return self.value(binding.node, scope, depth)
            finally:
                self._resolving.discard(key)
        if binding.unpacked is not None:
            return Value(Kind.UNKNOWN, self._positions.span(binding.unpacked), name=name)
        return Value(Kind.UNKNOWN, name=name)


def _stored_before(scope: _Scope, stores: list[_Binding], line: int) -> tuple[int, ...] | None:
    """Return which of a function's own stores of a name it declares `global` a read at
    `line` may see (by index), or None when it may also see the module's value.

    `global MODE; MODE = "train"; Data(MODE)` reads the store just made. A call in between
    could rebind the module variable, but code that sets a global and hands it on at once
    means the value it set.
    """
    on_entry = _Binding("unknown")
    seen = scope.reaching([on_entry, *stores], line)
    if not seen or any(binding is on_entry for binding in seen):
        return None
    return tuple(index for index, binding in enumerate(stores) if any(binding is s for s in seen))


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

_COMPARISONS: dict[type[ast.cmpop], str] = {
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Is: "is",
    ast.IsNot: "is not",
}


#: The longest dotted path (`"pkg.data.images.ImageFolderDataset"`) a summary keeps whole:
#: a class or module named by a string is resolved from it.
_MAX_DOTTED = 200


def _literal_text(literal: object) -> str:
    """Return how a summary writes a literal: its repr, cut to 40 characters unless it is a
    dotted path."""
    text = repr(literal)
    if (
        isinstance(literal, str)
        and len(literal) <= _MAX_DOTTED
        and all(part.isidentifier() for part in literal.split("."))
    ):
        return text
    return text[:40]


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


def compared_literals(test: ast.Compare, right: Value) -> tuple[tuple[str, ...], bool] | None:
    """Return the literals `x == lit` / `x in (lit, ...)` compares with, and whether the
    operator negates the test (`!=`, `not in`); None for any other comparison."""
    operator = test.ops[0]
    if isinstance(operator, ast.Eq | ast.NotEq):
        options = [right]
    elif isinstance(operator, ast.In | ast.NotIn) and right.kind is Kind.SEQUENCE:
        options = list(right.args)
    elif isinstance(operator, ast.Is | ast.IsNot) and literal_key(right) == "None":
        # `x is None` holds exactly when `x == None` does for the values followed here.
        return ("None",), isinstance(operator, ast.IsNot)
    else:
        return None
    keys = [literal_key(option) for option in options]
    if not keys or None in keys:
        return None
    return tuple(key for key in keys if key is not None), isinstance(
        operator, ast.NotEq | ast.NotIn
    )


_DICT = ("builtins.dict",)


def _is_pairs(node: ast.Call) -> bool:
    """Return True for `dict(<generator of (key, call) pairs>)`."""
    if len(node.args) != 1 or node.keywords or not isinstance(node.args[0], ast.GeneratorExp):
        return False
    element = node.args[0].elt
    return (
        isinstance(element, ast.Tuple)
        and len(element.elts) == 2
        and isinstance(element.elts[1], ast.Call)
    )


def _rebinds(binding: _Binding, imports: list[_Binding]) -> bool:
    """Return True for a top-level `def` or `class` below every import of its name."""
    return binding.top_level and all(
        imported.line is not None and binding.line is not None and imported.line < binding.line
        for imported in imports
    )


def _drops_only_none(test: ast.expr, target: ast.expr) -> bool:
    """Return True if the comprehension filter `test` keeps every element but None (or a
    falsy one): `if t is not None`, `if t`; a transform object is never falsy."""
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        subject, compared, operator = test.left, test.comparators[0], test.ops[0]
        is_none = isinstance(compared, ast.Constant) and compared.value is None
        test = subject if is_none and isinstance(operator, ast.IsNot | ast.NotEq) else test
    return isinstance(test, ast.Name) and isinstance(target, ast.Name) and test.id == target.id
