"""WS202's mapping from legacy `np.random.*` calls to Generator methods, checked by NumPy.

Every case is a legacy call inside a Dataset's per-item code. The engine fixes the whole
table once (as `workerseed fix --select WS202 --unsafe-fixes` would); each rewritten body
is then run on a `numpy.random.Generator` and the original on a `numpy.random.RandomState`,
many times, and both must return the same type, shape and dtype, and draw from the same
range of values. A safe rewrite must match for every input; an unsafe one is shown to
differ for the input its fix title warns about.
"""

from __future__ import annotations

import ast
import copy
import inspect
import textwrap
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from codemods import Changed, Safety, Settings, run_source
from codemods.analysis import catalog
from codemods.fixes.generator_api import generator_method

#: How many numbers each side draws (at least) to compare the ranges of values.
SAMPLES = 4000


@dataclass(frozen=True)
class Case:
    """A legacy call (a function body) and the inputs its arguments name."""

    body: str
    inputs: dict[str, Any] = field(default_factory=dict)
    #: For an unsafe rewrite: inputs for which the result differs in more than the numbers.
    differs_with: dict[str, Any] | None = None

    @property
    def unsafe(self) -> bool:
        return self.differs_with is not None

    @property
    def statements(self) -> str:
        return self.body if "return" in self.body else f"return {self.body}"


def case(
    body: str, *, differs_with: dict[str, Any] | None = None, **inputs: Any
) -> Any:  # a pytest ParameterSet
    return pytest.param(Case(body, inputs, differs_with), id=body.replace("\n", "; "))


CASES = [
    # rand / randn: dimensions one by one -> one shape
    case("np.random.rand()"),
    case("np.random.rand(3)"),
    case("np.random.rand(0)"),
    case("np.random.rand(n)", n=4),
    case("np.random.rand(2, 3)"),
    case("np.random.rand(2, 3, 4)"),
    case("np.random.rand(n, 2)", n=3),
    case("np.random.rand(2, *rest)", rest=(3,)),
    case("np.random.rand(2, *rest)", rest=()),
    case("np.random.rand(*shape)", shape=(2, 3), differs_with={"shape": ()}),
    case("np.random.rand(*a, *b)", a=(2,), b=(3,), differs_with={"a": (), "b": ()}),
    case("np.random.randn()"),
    case("np.random.randn(5)"),
    case("np.random.randn(2, 3)"),
    case("np.random.randn(*shape)", shape=(4,), differs_with={"shape": ()}),
    # randint: Python int scalars and numpy.int_ arrays, `high=None` means [0, low)
    case("np.random.randint(5)"),
    case("np.random.randint(2, 7)"),
    case("np.random.randint(-3, 3)"),
    case("np.random.randint(2, 7, 10)"),
    case("np.random.randint(2, 7, size=(3, 4))"),
    case("np.random.randint(5, size=6)"),
    case("np.random.randint(low=1, high=4)"),
    case("np.random.randint(5, None, 3)"),
    case("np.random.randint(0, 2**40)"),
    case("np.random.randint(0, 5, dtype=np.int32)"),
    case("np.random.randint(-3, 3, size=5, dtype=np.int8)"),
    case("np.random.randint(0, 3, 4, np.uint8)"),
    case("np.random.randint(0, 2, dtype=bool)"),
    case("np.random.randint(*bounds)", bounds=(0, 5), differs_with={"bounds": (0, 5)}),
    # random_integers: inclusive, and a missing high means [1, low]
    case("np.random.random_integers(5)"),
    case("np.random.random_integers(2, 5)"),
    case("np.random.random_integers(2, 5, 10)"),
    case("np.random.random_integers(5, size=(2, 2))"),
    case("np.random.random_integers(low=3)"),
    case("np.random.random_integers(3, None, 4)"),
    case("np.random.random_integers(low=2, high=4, size=3)"),
    # the aliases of random
    case("np.random.random_sample()"),
    case("np.random.random_sample(4)"),
    case("np.random.random_sample(size=(2, 2))"),
    case("np.random.ranf((2, 2))"),
    case("np.random.sample(size=3)"),
    case("np.random.random()"),
    case("np.random.random((2, 3))"),
    # order and selection
    case("np.random.choice(5)"),
    case("np.random.choice(5, 3)"),
    case("np.random.choice(items)", items=[10, 20, 30]),
    case("np.random.choice(words)", words=["a", "b", "c"]),
    case("np.random.choice(5, size=3, replace=False)"),
    case("np.random.choice(4, p=[0.1, 0.2, 0.3, 0.4])"),
    case("np.random.choice(values, (2, 2))", values=np.arange(6.0)),
    case("np.random.shuffle(values)\nreturn values", values=np.arange(8)),
    case("np.random.shuffle(items)\nreturn items", items=[1, 2, 3, 4, 5]),
    case("np.random.shuffle(grid)\nreturn grid", grid=np.arange(12).reshape(4, 3)),
    case("np.random.permutation(6)"),
    case("np.random.permutation(values)", values=np.arange(5.0)),
    case("np.random.permutation(items)", items=[3, 1, 2]),
    case("np.random.bytes(8)"),
    # distributions keep their names and parameters
    case("np.random.normal()"),
    case("np.random.normal(5, 2)"),
    case("np.random.normal(loc=1.0, scale=3.0, size=(2, 3))"),
    case("np.random.normal(means, 0.1)", means=np.array([0.0, 10.0, 100.0])),
    case("np.random.uniform(-1, 1, 5)"),
    case("np.random.uniform(low=2, high=3)"),
    case("np.random.standard_normal(3)"),
    case("np.random.standard_normal(size=(2, 2))"),
    case("np.random.exponential(2.0, 4)"),
    case("np.random.exponential(scale=0.5)"),
    case("np.random.poisson(3.0)"),
    case("np.random.poisson(lam=[1.0, 5.0], size=(3, 2))"),
    case("np.random.binomial(10, 0.3, 6)"),
    case("np.random.binomial(n=4, p=0.5)"),
    case("np.random.beta(2, 3)"),
    case("np.random.gamma(2.0, scale=2.0, size=3)"),
    case("np.random.chisquare(3)"),
    case("np.random.dirichlet([1, 2, 3])"),
    case("np.random.dirichlet(alpha=[1, 1], size=4)"),
    case("np.random.f(3, 4)"),
    case("np.random.geometric(0.3, 5)"),
    case("np.random.gumbel()"),
    case("np.random.hypergeometric(10, 5, 4, 6)"),
    case("np.random.hypergeometric(ngood=3, nbad=3, nsample=2)"),
    case("np.random.laplace(0, 2)"),
    case("np.random.logistic(size=3)"),
    case("np.random.lognormal(0, 0.5, 3)"),
    case("np.random.lognormal(mean=1.0, sigma=0.2)"),
    case("np.random.logseries(0.6)"),
    case("np.random.multinomial(10, [0.2, 0.8])"),
    case("np.random.multinomial(5, pvals=[0.5, 0.5], size=3)"),
    case("np.random.multivariate_normal([0, 0], [[1, 0], [0, 1]])"),
    case("np.random.multivariate_normal(mean=[0, 1], cov=[[1, 0.5], [0.5, 1]], size=4)"),
    case("np.random.negative_binomial(5, 0.5)"),
    case("np.random.noncentral_chisquare(3, 2)"),
    case("np.random.noncentral_f(3, 4, 2)"),
    case("np.random.pareto(3)"),
    case("np.random.power(2, 3)"),
    case("np.random.rayleigh(2)"),
    case("np.random.standard_cauchy(3)"),
    case("np.random.standard_exponential()"),
    case("np.random.standard_gamma(2.5, 4)"),
    case("np.random.standard_gamma(shape=1.0)"),
    case("np.random.standard_t(5)"),
    case("np.random.triangular(0, 1, 3)"),
    case("np.random.triangular(left=0, mode=0, right=1, size=2)"),
    case("np.random.vonmises(0, 4)"),
    case("np.random.wald(1, 2)"),
    case("np.random.weibull(1.5, 4)"),
    case("np.random.zipf(2.5)"),
]


def _table_module() -> str:
    """Return a module whose Dataset runs every case (method `case_<n>`) per item."""
    methods = []
    for index, param in enumerate(CASES):
        body = textwrap.indent(param.values[0].statements, " " * 8)
        methods.append(f"    def case_{index}(self):\n{body}\n")
    calls = ", ".join(f"self.case_{index}()" for index in range(len(CASES)))
    return (
        "import numpy as np\n"
        "from torch.utils.data import Dataset\n\n\n"
        "class Table(Dataset):\n"
        "    def __len__(self):\n"
        "        return 1\n\n"
        "    def __getitem__(self, index):\n"
        f"        return [{calls}]\n\n" + "\n".join(methods)
    )


@dataclass(frozen=True)
class Fixed:
    """The table after the fix: each case's new body, and its fix's safety."""

    bodies: dict[int, str]
    safety: dict[int, Safety]


@pytest.fixture(scope="module")
def fixed() -> Fixed:
    source = _table_module()
    settings = Settings(select=("WS202",), unsafe_fixes=True, jobs=1, cache=False)
    result = run_source(source, settings=settings, fix=True)
    assert isinstance(result, Changed), result
    tree = ast.parse(result.new)
    table = next(node for node in tree.body if isinstance(node, ast.ClassDef))
    bodies = {}
    for node in table.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("case_"):
            first, *rest = node.body
            assert ast.unparse(first) == "rng = _numpy_rng(self)", ast.unparse(node)
            bodies[int(node.name.removeprefix("case_"))] = "\n".join(ast.unparse(s) for s in rest)
    lines = {
        node.lineno: int(node.name.removeprefix("case_"))
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef) and node.name.startswith("case_")
    }
    safety = {}
    for finding in result.findings:
        assert finding.fix is not None, finding.message
        owner = max(line for line in lines if line < finding.span.line)
        safety[lines[owner]] = finding.fix.safety
    return Fixed(bodies, safety)


def _compile(statements: str, names: list[str]) -> Callable[..., Any]:
    namespace: dict[str, Any] = {}
    body = textwrap.indent(statements, "    ")
    exec(f"def probe({', '.join(names)}):\n{body}\n", namespace)
    return namespace["probe"]  # type: ignore[no-any-return]


def _runners(
    item: Case, fixed_body: str, inputs: dict[str, Any]
) -> tuple[Callable[[], Any], Callable[[], Any]]:
    """Return (legacy, rewritten) runners, each on its own seeded RNG."""
    names = sorted(inputs)
    legacy = _compile(item.statements, ["np", *names])
    rewritten = _compile(fixed_body, ["rng", "np", *names])
    state = np.random.RandomState(1)
    # NumPy's module-level aliases of `random_sample`, which RandomState does not have.
    aliases = {"ranf": state.random_sample, "sample": state.random_sample}
    random = SimpleNamespace(**{name: getattr(state, name) for name in dir(state)}, **aliases)
    legacy_np = SimpleNamespace(**{**vars(np), "random": random})
    generator = np.random.default_rng(2)

    def run_legacy() -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # random_integers
            return legacy(legacy_np, *(copy.deepcopy(inputs[name]) for name in names))

    def run_rewritten() -> Any:
        return rewritten(generator, np, *(copy.deepcopy(inputs[name]) for name in names))

    return run_legacy, run_rewritten


def _kind(value: Any) -> tuple[Any, ...]:
    """Return what must not change: the type, and for arrays the shape and dtype."""
    if isinstance(value, np.ndarray):
        return (np.ndarray, value.shape, value.dtype)
    if isinstance(value, list):
        return (list, len(value), tuple(type(element) for element in value))
    if isinstance(value, bytes):
        return (bytes, len(value))
    return (type(value),)


def _draws(run: Callable[[], Any]) -> list[Any]:
    """Run until at least SAMPLES numbers are drawn; return them flattened."""
    values: list[Any] = []
    for _ in range(SAMPLES):
        result = run()
        values.extend(list(result) if isinstance(result, bytes) else np.ravel(result).tolist())
        if len(values) >= SAMPLES:
            break
    return values


def _frequent(values: list[Any]) -> set[Any]:
    """Return the values that make up at least 0.5% of `values` (not the rare tail)."""
    return {value for value, count in Counter(values).items() if count >= 0.005 * len(values)}


def _assert_same_range(legacy: list[Any], rewritten: list[Any]) -> None:
    if all(isinstance(value, int | str) for value in legacy):
        # Discrete: every common value of one side occurs on the other (bounds included).
        assert _frequent(rewritten) <= set(legacy)
        assert _frequent(legacy) <= set(rewritten)
        if len(set(legacy)) <= 64:
            return
    lower, middle, upper = np.quantile(legacy, [0.1, 0.5, 0.9])
    tolerance = 0.15 * (upper - lower) + 1e-9
    quantiles = np.quantile(rewritten, [0.1, 0.5, 0.9])
    for ours, theirs in zip(quantiles, (lower, middle, upper), strict=True):
        assert abs(ours - theirs) <= tolerance, (ours, theirs)
    assert min(rewritten) >= min(legacy) - 2 * (upper - lower) - 1e-9
    if min(legacy) >= 0:
        assert min(rewritten) >= 0


@pytest.mark.parametrize("item", CASES)
def test_rewritten_call_draws_like_the_legacy_call(item: Case, fixed: Fixed) -> None:
    index = next(n for n, param in enumerate(CASES) if param.values[0] is item)
    body = fixed.bodies[index]
    assert "np.random" not in body
    assert "rng." in body
    assert fixed.safety[index] is (Safety.UNSAFE if item.unsafe else Safety.SAFE)
    run_legacy, run_rewritten = _runners(item, body, item.inputs)
    if not item.unsafe:
        assert _kind(run_rewritten()) == _kind(run_legacy())
    _assert_same_range(_draws(run_legacy), _draws(run_rewritten))


@pytest.mark.parametrize("item", [param for param in CASES if param.values[0].unsafe])
def test_unsafe_rewrite_differs_in_more_than_the_numbers(item: Case, fixed: Fixed) -> None:
    index = next(n for n, param in enumerate(CASES) if param.values[0] is item)
    assert item.differs_with is not None
    run_legacy, run_rewritten = _runners(item, fixed.bodies[index], item.differs_with)
    assert _kind(run_rewritten()) != _kind(run_legacy())


def test_every_legacy_draw_is_in_the_table() -> None:
    called = {
        node.func.attr
        for param in CASES
        for node in ast.walk(ast.parse(param.values[0].statements))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert called >= catalog.NUMPY_LEGACY_DRAWS


@pytest.mark.parametrize("name", sorted(catalog.NUMPY_LEGACY_DRAWS - {"rand", "randn"}))
def test_generator_method_takes_every_legacy_parameter(name: str) -> None:
    method = generator_method(name)
    assert method is not None
    legacy = inspect.signature(
        getattr(np.random.RandomState, name, None) or getattr(np.random, name)
    )
    ours = inspect.signature(getattr(np.random.Generator, method))
    legacy_names = [p for p in legacy.parameters if p != "self"]
    if not legacy_names or legacy_names == ["args", "kwargs"]:  # ranf, sample: aliases
        legacy_names = list(inspect.signature(np.random.RandomState.random).parameters)
        legacy_names.remove("self")
    generator_names = [p for p in ours.parameters if p != "self"]
    # Same names in the same order, so positional and keyword arguments both carry over.
    assert generator_names[: len(legacy_names)] == legacy_names


@pytest.mark.parametrize("name", sorted(catalog.NUMPY_LEGACY_STATE))
def test_state_functions_have_no_generator_method(name: str) -> None:
    assert generator_method(name) is None
