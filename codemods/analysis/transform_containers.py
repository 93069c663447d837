"""Transform containers: library objects that hold callables and call them (all, or some
chosen at random) on every item they are applied to: `Compose([Flip(), Crop()])`,
`nn.Sequential(Jitter(), Mix())`."""

from __future__ import annotations

from . import catalog
from .facts import Kind, Value


def is_container(qualname: str) -> bool:
    """Return True for the qualified name of a transform container class."""
    return qualname in catalog.TRANSFORM_CONTAINERS or qualname in catalog.SPREAD_CONTAINERS


def container_steps(qualname: str, call: Value) -> Value | None:
    """Return what container `qualname`, made by `call`, holds: its list argument, or for a
    container given its steps one by one (`nn.Sequential(a, b)`), those steps as a list.
    None if nothing is passed where the steps go."""
    if qualname in catalog.SPREAD_CONTAINERS:
        return Value(Kind.SEQUENCE, span=call.span, args=call.args) if call.args else None
    return call.args[0] if call.args else call.keyword("transforms")
