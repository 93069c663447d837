"""Record the `if` statements (and `a if test else b` expressions) of a function as `Branch`
facts while it is summarised.

Only tests of `self.<attribute>` or of a parameter are kept (truth tests, comparisons with
literals, `not`), with the span of each body: what a construction or a call passes later
decides which body runs.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from dataclasses import replace

from ..types import Span
from . import catalog
from .branch_facts import CASE_METHODS, UNIT_DRAW, Branch
from .catalog import GET_WORKER_INFO
from .expression_values import compared_literals
from .facts import Kind, Value, looked_up, number_literal, self_attribute, string_literal
from .version_tests import TORCH_VERSION, TORCH_VERSION_TEXT

#: Summarises an expression of the function being summarised.
Summarise = Callable[[ast.expr], Value]
#: The span of a node of the file being summarised.
SpanOf = Callable[[ast.AST], Span]


def if_branches(
    node: ast.If, orelse: Span | None, value: Summarise, span_of: SpanOf
) -> list[Branch]:
    """Return the branches `node` records; `orelse` is its `else` (or implicit `else`) block."""
    body = block_span(node.body, span_of)
    if body is None:
        return []
    if isinstance(node.test, ast.BoolOp):
        merged = _merged_membership(node.test, body, orelse, value)
        return [*_joined_tests(node.test, body, orelse, value, span_of), *merged]
    test = _branch_test(node.test, value)
    if test is None:
        return _local_conjunction_tests(node.test, body, orelse, value)
    return [replace(test, body=body, orelse=orelse)]


def _merged_membership(
    test: ast.BoolOp, body: Span, orelse: Span | None, value: Summarise
) -> list[Branch]:
    """Return one branch for `x == "a" or x == "b"` (or `x != "a" and x != "b"`): a test of
    `x` against the union of the literals, decided where each operand alone is not."""
    either = isinstance(test.op, ast.Or)
    operands = [_branch_test(operand, value) for operand in test.values]
    if any(
        branch is None
        or branch.order is not None
        or branch.case is not None
        or not branch.literals
        or branch.lookup is not None
        for branch in operands
    ):
        return []
    subjects = {branch.subject for branch in operands if branch is not None}
    negations = {branch.negated for branch in operands if branch is not None}
    if len(subjects) != 1 or negations != {not either}:
        return []
    literals = tuple(
        dict.fromkeys(
            literal for branch in operands if branch is not None for literal in branch.literals
        )
    )
    return [Branch(subjects.pop(), not either, body, orelse, literals)]


def _local_conjunction_tests(
    test: ast.expr, body: Span, orelse: Span | None, value: Summarise
) -> list[Branch]:
    """Return the branches of a test of a local bound only to an `and`: after
    `mosaic = self.mosaic and random.random() < p` (YOLOv5's `__getitem__`), `if mosaic:`
    runs its body only where `self.mosaic` holds (`if not mosaic:`, its `else`)."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    if isinstance(test, ast.UnaryOp) and negated:
        test = test.operand
    governed = orelse if negated else body
    if not isinstance(test, ast.Name) or governed is None:
        return []
    bound = value(test)
    if bound.kind is not Kind.ALTERNATIVES or bound.name != "and":
        return []
    subjects = (_branch_subject(operand) for operand in bound.args)
    return [Branch(subject, False, governed) for subject in subjects if subject is not None]


def _joined_tests(
    test: ast.BoolOp, body: Span, orelse: Span | None, value: Summarise, span_of: SpanOf
) -> list[Branch]:
    """Return the branches of the operands of an `and` / `or` test.

    `if self.train and np.random.random() < p:`: what follows an operand (the rest of the
    test, and the body) runs only where that operand holds; after an operand of `or`, only
    where it fails, and so does the `else` of an `or` (`if self.mode == "test" or
    self.window: ... else: np.random.choice(...)`). An operand before it that draws
    (`np.random.random() < 0.5 or not self.train`) decides nothing where it settles the test.
    """
    either = isinstance(test.op, ast.Or)
    found: list[Branch] = []
    operands = test.values
    for index, operand in enumerate(operands):
        branch = _branch_test(operand, value)
        if branch is None:
            continue
        if not either:
            rest = operands[index + 1] if index + 1 < len(operands) else None
            start = span_of(rest) if rest is not None else body
            span = Span(start.line, start.column, body.end_line, body.end_column)
            found.append(replace(branch, body=span))
        elif index + 1 < len(operands):
            following = span_of(operands[index + 1])
            last = span_of(operands[-1])
            span = Span(following.line, following.column, last.end_line, last.end_column)
            found.append(replace(branch, negated=not branch.negated, body=span))
        if either and orelse is not None:
            found.append(replace(branch, negated=not branch.negated, body=orelse))
        for earlier in operands[:index]:
            found.append(replace(branch, draw=span_of(earlier), settles=either))
    return found


def conditional_expression_branches(
    node: ast.IfExp, value: Summarise, span_of: SpanOf
) -> list[Branch]:
    """Return the branch `a if self.random_shift else b` records: `a` runs only where the
    test holds, `b` only where it fails. In `a if x and y else b`, `a` runs only where each
    operand holds; in `a if x or y else b`, `b` only where each fails."""
    if isinstance(node.test, ast.BoolOp):
        either = isinstance(node.test.op, ast.Or)
        governed = span_of(node.orelse if either else node.body)
        operands = [_branch_test(operand, value) for operand in node.test.values]
        return [
            replace(branch, negated=branch.negated != either, body=governed)
            for branch in operands
            if branch is not None
        ]
    test = _branch_test(node.test, value)
    if test is None:
        return []
    return [replace(test, body=span_of(node.body), orelse=span_of(node.orelse))]


def operand_branches(node: ast.BoolOp, value: Summarise, span_of: SpanOf) -> list[Branch]:
    """Return the branches `a and b` records: `b` is evaluated only where `a` holds (in
    `a or b`, only where it fails), so `self.mosaic = augment and not rect` is `augment`
    wherever `augment` is false."""
    either = isinstance(node.op, ast.Or)
    last = span_of(node.values[-1])
    found: list[Branch] = []
    for operand, following in itertools.pairwise(node.values):
        branch = _branch_test(operand, value)
        if branch is None:
            continue
        start = span_of(following)
        rest = Span(start.line, start.column, last.end_line, last.end_column)
        found.append(replace(branch, negated=branch.negated != either, body=rest))
    return found


def block_span(body: list[ast.stmt], span_of: SpanOf) -> Span | None:
    """Return the span from the first to the last statement of `body`."""
    if not body:
        return None
    first, last = span_of(body[0]), span_of(body[-1])
    return Span(first.line, first.column, last.end_line, last.end_column)


def _branch_test(test: ast.expr, value: Summarise) -> Branch | None:
    """Return the branch a test records, its bodies left empty (set by the caller)."""
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    literals: tuple[str, ...] = ()
    stored = _worker_dataset_attribute(test, value)
    if stored is not None:
        return Branch(stored, negated, _NO_BODY, None)
    affix = _affix_test(test, value) or _substring_test(test, value)
    if affix is not None:
        return replace(affix, negated=negated != affix.negated)
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if isinstance(test.ops[0], _ORDERS):
            ordered = _ordered_test(test, value)
            return None if ordered is None else replace(ordered, negated=negated)
        compared = compared_literals(test, value(test.comparators[0]))
        if compared is None:
            return None
        literals, flips = compared
        negated = negated != flips
        test = test.left
        cased = _cased_subject(test)
        if cased is not None:
            # `split.lower() == "train"`: a test of `split`, read through the method.
            subject = _branch_subject(value(cased[1]))
            if subject is None:
                return None
            return Branch(subject, negated, _NO_BODY, None, literals, case=cased[0])
    tested = value(test)
    subject = _branch_subject(tested)
    if subject is None and _held_entry(tested):
        return Branch("", negated, _NO_BODY, None, literals, lookup=tested)
    return None if subject is None else Branch(subject, negated, _NO_BODY, None, literals)


def assert_branches(node: ast.Assert, rest: Span, value: Summarise) -> list[Branch]:
    """Return the branches an `assert test` records: the statements after it in its block
    run only where the test holds (`assert args.task in ["val", "test"]`)."""
    test = node.test
    if (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and not isinstance(test.ops[0], _ORDERS)
    ):
        compared = compared_literals(test, value(test.comparators[0]))
        if compared is not None:
            subject = _branch_subject(value(test.left)) or option_subject(value(test.left))
            if subject is not None:
                literals, flips = compared
                return [Branch(subject, flips, rest, None, literals)]
    branch = _branch_test(test, value)
    return [] if branch is None else [replace(branch, body=rest, orelse=None)]


def option_subject(value: Value) -> str | None:
    """Return "param.attr" for an attribute of a parameter (`args.task`)."""
    if value.kind is Kind.ATTRIBUTE and value.base is not None and value.base.kind is Kind.PARAM:
        return f"{value.base.name}.{value.name}"
    return None


def _worker_dataset_attribute(test: ast.expr, value: Summarise) -> str | None:
    """Return the subject of `hasattr(get_worker_info().dataset, "conf")` (`WORKER_DATASET`
    and the attribute), if `test` is one."""
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "hasattr"
        and len(test.args) == 2
        and not test.keywords
        and isinstance(test.args[1], ast.Constant)
        and isinstance(test.args[1].value, str)
    ):
        return None
    held = value(test.args[0])
    if not (
        held.kind is Kind.ATTRIBUTE
        and held.name == "dataset"
        and held.base is not None
        and _branch_subject(held.base) == WORKER_INFO
    ):
        return None
    return f"{WORKER_DATASET}.{test.args[1].value}"


#: String methods a test may call with one literal: `if self.split.startswith("train"):`.
_AFFIX_METHODS = frozenset({"startswith", "endswith"})


def _affix_test(test: ast.expr, value: Summarise) -> Branch | None:
    """Return the branch of `subject.startswith("literal")` (or `endswith`), if it is one."""
    if not (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr in _AFFIX_METHODS
        and len(test.args) == 1
        and not test.keywords
        and isinstance(test.args[0], ast.Constant)
        and isinstance(test.args[0].value, str)
    ):
        return None
    subject = _branch_subject(value(test.func.value))
    if subject is None:
        return None
    return Branch(subject, False, _NO_BODY, order=(test.func.attr, repr(test.args[0].value)))


def _substring_test(test: ast.expr, value: Summarise) -> Branch | None:
    """Return the branch of `"literal" in subject` (or `not in`), if it is one."""
    if not (
        isinstance(test, ast.Compare)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.In | ast.NotIn)
        and isinstance(test.left, ast.Constant)
        and isinstance(test.left.value, str)
    ):
        return None
    container = value(test.comparators[0])
    subject = _branch_subject(container)
    if subject is None and "os.environ" in container.qualnames:
        subject = ENVIRONMENT
    if subject is None:
        return None
    negated = isinstance(test.ops[0], ast.NotIn)
    return Branch(subject, negated, _NO_BODY, order=("__contains__", repr(test.left.value)))


#: The comparison operators of an ordering test, as read with the subject on the left, and
#: as read with it on the right (`0 < prob` is `prob > 0`).
_ORDER_NAMES: dict[type[ast.cmpop], tuple[str, str]] = {
    ast.Lt: ("<", ">"),
    ast.LtE: ("<=", ">="),
    ast.Gt: (">", "<"),
    ast.GtE: (">=", "<="),
}
_ORDERS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
#: A placeholder for the bodies of a test not yet placed in its `if`.
_NO_BODY = Span(0, 0, 0, 0)


def _ordered_test(test: ast.Compare, value: Summarise) -> Branch | None:
    """Return the branch of `subject < number` (any order, either side) or of a draw from
    [0, 1) compared with the subject (`random.random() < self.p`, `self.p > rand()`)."""
    left, right = value(test.left), value(test.comparators[0])
    as_left, as_right = _ORDER_NAMES[type(test.ops[0])]
    version = _version_test(left, right, as_left, as_right)
    if version is not None:
        return version
    subject = _branch_subject(left)
    operator, other = as_left, right
    if subject is None:
        subject, operator, other = _branch_subject(right), as_right, left
    if subject is None:
        return _entry_compared(left, right, as_left, as_right) or _compared_with_number(
            left, right, as_left, as_right
        )
    if _is_unit_draw(other):
        return Branch(subject, False, _NO_BODY, order=(operator, UNIT_DRAW), draw=other.span)
    if number_literal(other) is None:
        return None
    return Branch(subject, False, _NO_BODY, order=(operator, repr(number_literal(other))))


def _cased_subject(test: ast.expr) -> tuple[str, ast.expr] | None:
    """Return the method and the subject of `subject.lower()` (or another of
    `CASE_METHODS`), if the test is one."""
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Attribute)
        and test.func.attr in CASE_METHODS
        and not test.args
        and not test.keywords
    ):
        return test.func.attr, test.func.value
    return None


def _entry_compared(left: Value, right: Value, as_left: str, as_right: str) -> Branch | None:
    """Return the branch of an entry of a dict held on `self` compared with a number or a
    draw from [0, 1) (`random.random() < self.hyp.get("mosaic", 0.0)`)."""
    for entry, other, operator in ((left, right, as_left), (right, left, as_right)):
        if not _held_entry(entry):
            continue
        if _is_unit_draw(other):
            order = (operator, UNIT_DRAW)
            return Branch("", False, _NO_BODY, order=order, draw=other.span, lookup=entry)
        if number_literal(other) is not None:
            order = (operator, repr(number_literal(other)))
            return Branch("", False, _NO_BODY, order=order, compared=entry, lookup=entry)
    return None


def _held_entry(value: Value) -> bool:
    """Return True for `self.<attr>.get("key"[, default])` or `self.<attr>["key"]`."""
    found = looked_up(value)
    return found is not None and self_attribute(found[0]) is not None


def _compared_with_number(left: Value, right: Value, as_left: str, as_right: str) -> Branch | None:
    """Return the branch of another expression compared with a number (`if workers > 0:`)."""
    for compared, number, operator in ((left, right, as_left), (right, left, as_right)):
        if number_literal(number) is not None and number_literal(compared) is None:
            order = (operator, repr(number_literal(number)))
            return Branch("", False, _NO_BODY, order=order, compared=compared)
    return None


#: Names of torch's version string: `torch.__version__` and mmcv's copy of it.
_TORCH_VERSION_NAMES = frozenset(
    {"torch.__version__", "mmcv.utils.TORCH_VERSION", "mmcv.utils.parrots_wrapper.TORCH_VERSION"}
)
#: The last part of the names of functions that parse a version string into comparable parts
#: (`packaging.version.parse`, `Version`, `LooseVersion`, mmcv's `digit_version`, ...).
_VERSION_PARSERS = frozenset(
    {"parse", "Version", "LooseVersion", "StrictVersion", "parse_version", "digit_version"}
)


def _version_test(left: Value, right: Value, as_left: str, as_right: str) -> Branch | None:
    """Return the branch of torch's version compared with a literal version: as text
    (`torch.__version__ >= "1.8.0"`) or parsed on both sides (`digit_version(...)`)."""
    for version, other, operator in ((left, right, as_left), (right, left, as_right)):
        if _is_torch_version(version):
            literal = string_literal(other)
            if literal is not None:
                return Branch(TORCH_VERSION_TEXT, False, _NO_BODY, order=(operator, literal))
        parsed, literal_parsed = _parsed(version), _parsed(other)
        if parsed is not None and _is_torch_version(parsed) and literal_parsed is not None:
            literal = string_literal(literal_parsed)
            if literal is not None:
                return Branch(TORCH_VERSION, False, _NO_BODY, order=(operator, literal))
    return None


def _is_torch_version(value: Value) -> bool:
    return bool(set(value.qualnames) & _TORCH_VERSION_NAMES) or (
        value.kind is Kind.ATTRIBUTE
        and value.name == "__version__"
        and value.base is not None
        and "torch" in value.base.qualnames
    )


def _parsed(value: Value) -> Value | None:
    """Return what a version parser is given (`version.parse(text)` -> `text`)."""
    if value.kind is not Kind.CALL or value.base is None or len(value.args) != 1:
        return None
    names = {name.rpartition(".")[2] for name in value.base.qualnames}
    if value.base.kind is Kind.ATTRIBUTE:
        names.add(value.base.name)
    return value.args[0] if names & _VERSION_PARSERS else None


def _is_unit_draw(value: Value) -> bool:
    """Return True for a call to a global-RNG function that draws one number from [0, 1)."""
    if value.kind is not Kind.CALL or value.base is None or value.keywords:
        return False
    names = set(value.base.qualnames)
    if not value.args:
        return bool(names & catalog.UNIT_DRAWS)
    numbers = [number_literal(arg) for arg in value.args]
    if numbers == [0, 1]:
        return bool(names & catalog.RANGE_DRAWS)
    return numbers == [1] and bool(names & catalog.TENSOR_UNIT_DRAWS)


#: The subject of a test of what `get_worker_info()` returned: not None in every worker.
WORKER_INFO = "<worker info>"
#: The subject of `hasattr(get_worker_info().dataset, name)`, before `.name`.
WORKER_DATASET = "<worker dataset>"
#: The subject of a test of the process environment (`if "RANK" in os.environ:`).
ENVIRONMENT = "<environment>"


def _branch_subject(value: Value) -> str | None:
    """Return what a branch test reads: "self.<attribute>", a parameter's name, or
    `WORKER_INFO`."""
    if (
        value.kind is Kind.CALL
        and value.base is not None
        and set(value.base.qualnames) & GET_WORKER_INFO
    ):
        return WORKER_INFO
    if value.kind is Kind.ATTRIBUTE and value.base is not None:
        return f"self.{value.name}" if value.base.kind is Kind.SELF else None
    return value.name if value.kind is Kind.PARAM else None
