"""What a fix leaves dead inside the function it edits: a flag that only guarded a removed
reseed, an `if` guarding nothing, a name nothing reads any more."""

from __future__ import annotations

from collections.abc import Collection

import libcst as cst


def is_pass(statement: cst.BaseStatement) -> bool:
    """Return True for a line of only `pass`."""
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Pass) for small in statement.body
    )


def sets_only(statement: cst.BaseStatement, flags: set[str]) -> bool:
    """Return True for `flag = <literal>` lines whose target is one of `flags`."""
    return isinstance(statement, cst.SimpleStatementLine) and all(
        isinstance(small, cst.Assign)
        and all(isinstance(t.target, cst.Name) and t.target.value in flags for t in small.targets)
        and isinstance(small.value, cst.Name | cst.Integer | cst.SimpleString)
        for small in statement.body
    )


def plain_test(test: cst.BaseExpression) -> bool:
    """Return True for a test that only reads names (`seeded`, `not self.seeded`, `a == 0`)."""
    if isinstance(test, cst.Name | cst.Integer | cst.SimpleString):
        return True
    if isinstance(test, cst.Attribute):
        return plain_test(test.value)
    if isinstance(test, cst.UnaryOperation):
        return isinstance(test.operator, cst.Not) and plain_test(test.expression)
    if isinstance(test, cst.BooleanOperation):
        return plain_test(test.left) and plain_test(test.right)
    if isinstance(test, cst.Comparison):
        return plain_test(test.left) and all(
            plain_test(target.comparator) for target in test.comparisons
        )
    return False


def names_in(node: cst.CSTNode) -> list[cst.Name]:
    class Names(cst.CSTVisitor):
        def __init__(self) -> None:
            super().__init__()
            self.found: list[cst.Name] = []

        def visit_Name(self, name: cst.Name) -> None:
            self.found.append(name)

    names = Names()
    node.visit(names)
    return names.found


def reads(function: cst.FunctionDef, name: str, skip: Collection[cst.CSTNode] = ()) -> bool:
    """Return True if `function` mentions `name` anywhere but as the target of `name = ...`
    (or in the statements of `skip`)."""

    class Mentions(cst.CSTVisitor):
        found = False

        def visit_SimpleStatementLine(self, node: cst.SimpleStatementLine) -> bool:
            return node not in skip

        def visit_AssignTarget(self, node: cst.AssignTarget) -> bool:
            return not (isinstance(node.target, cst.Name) and node.target.value == name)

        def visit_Name(self, node: cst.Name) -> None:
            self.found = self.found or node.value == name

    mentions = Mentions()
    function.body.visit(mentions)
    return mentions.found


class DropStatements(cst.CSTTransformer):
    """Remove the given statements; a block left empty gets `pass`."""

    def __init__(self, statements: set[cst.SimpleStatementLine]) -> None:
        super().__init__()
        self.statements = statements

    def leave_SimpleStatementLine(
        self, original_node: cst.SimpleStatementLine, updated_node: cst.SimpleStatementLine
    ) -> cst.SimpleStatementLine | cst.RemovalSentinel:
        if original_node in self.statements:
            return cst.RemoveFromParent()
        return updated_node

    def leave_IndentedBlock(
        self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock
    ) -> cst.IndentedBlock:
        if updated_node.body:
            return updated_node
        return updated_node.with_changes(body=[cst.SimpleStatementLine(body=[cst.Pass()])])
