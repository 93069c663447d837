"""How fixed code refers to numpy, torch and random: reuse a module's imports, else add one."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ..analysis.facts import Kind, ModuleFacts
from ..types import AddImport


@dataclass(frozen=True)
class Reference:
    """The text that names something in a module, and the imports that text needs."""

    expression: str
    imports: tuple[AddImport, ...] = ()


def _bound_to(module: ModuleFacts, qualname: str) -> str | None:
    """Return a module-level name bound only to `qualname` by an import, if one exists."""
    candidates = []
    for name, values in module.bindings:
        if len(values) == 1 and values[0].kind is Kind.NAME and values[0].qualnames == (qualname,):
            candidates.append(name)
    if not candidates:
        return None
    # Prefer the conventional spelling when several names are bound to it.
    return min(candidates, key=lambda name: (len(name), name))


def module_reference(
    module: ModuleFacts, qualname: str, preferred: str, *, avoid: Collection[str] = ()
) -> Reference:
    """Return how to refer to module `qualname` (e.g. "numpy" as "np") in `module`."""
    existing = _bound_to(module, qualname)
    if existing is not None and existing not in avoid:
        return Reference(existing)
    for alias in (preferred, qualname.replace(".", "_"), f"_{preferred}"):
        if alias not in module.module_names and alias not in avoid:
            asname = None if alias == qualname else alias
            return Reference(alias, (AddImport(qualname, asname=asname),))
    alias = f"_workerseed_{preferred}"
    return Reference(alias, (AddImport(qualname, asname=alias),))


def symbol_reference(
    module: ModuleFacts,
    package: str,
    name: str,
    *,
    via: Reference,
    avoid: Collection[str] = (),
) -> Reference:
    """Return how to refer to `package.name`: an existing import, a new one, or `via.<path>`.

    `via` is a reference to the top-level package of `package` (e.g. torch), used when the
    plain name is taken by something else.
    """
    qualname = f"{package}.{name}"
    existing = _bound_to(module, qualname)
    if existing is not None and existing not in avoid:
        return Reference(existing)
    if name not in module.module_names and name not in avoid:
        return Reference(name, (AddImport(package, obj=name),))
    _, _, rest = package.partition(".")
    path = f"{via.expression}.{rest}.{name}" if rest else f"{via.expression}.{name}"
    return Reference(path, via.imports)
