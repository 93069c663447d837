"""Calls that run a base class's `__init__` on the instance a subclass's `__init__` builds.

`super().__init__(phase, transform)`, `super(Sub, self).__init__(...)` and
`Base.__init__(self, phase, transform)` hand the subclass's arguments on to the base, which
often is what stores them (`self.transform = transform`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator

from .facts import FunctionFacts, Kind, Value
from .memo import per_project
from .project import Project
from .refs import FunctionRef
from .self_calls import subclasses


def base_init_calls(project: Project, init: FunctionRef) -> Iterator[tuple[Value, FunctionRef]]:
    """Yield the calls in `init` that run a project base class's `__init__` on `self`.

    Each call is given as if it were a constructor call of that base: without the explicit
    `self` of `Base.__init__(self, ...)`, so its arguments line up with the parameters after
    `self`. The second item is the base's `__init__`.
    """
    own = project.class_of_function(init)
    if own is None:
        return
    order = project.mro(own)
    for call in init.function.calls:
        callee = call.base
        if callee is None:
            continue
        if (
            callee.kind is Kind.ATTRIBUTE
            and callee.name == "__init__"
            and callee.base is not None
            and callee.base.is_call_to("builtins.super")
        ):
            # The next class after the one defining `init` that defines `__init__`.
            for owner in order[1:]:
                qualname = owner.cls.method("__init__")
                function = owner.module.function(qualname) if qualname else None
                if function is not None:
                    yield call, FunctionRef.of(owner.module, function)
                    break
            continue
        if callee.kind is not Kind.NAME or not call.args or call.args[0].kind is not Kind.SELF:
            continue
        for target in project.targets(callee, init.module):
            if (
                isinstance(target, FunctionRef)
                and target.function.name == "__init__"
                and project.class_of_function(target) in order[1:]
            ):
                yield dataclasses.replace(call, args=call.args[1:]), target


@per_project
def base_init_callers(project: Project, init: FunctionRef) -> tuple[tuple[Value, FunctionRef], ...]:
    """Return the calls in subclasses' `__init__`s that run `init` on their instance.

    Each call comes as `base_init_calls` gives it, with the subclass `__init__` it is in.
    Only the `__init__`s of the subclasses of `init`'s class can run it, and only the files
    that spell that family's names are read (nearly every file spells `__init__`).
    """
    own = project.class_of_function(init)
    if own is None:
        return ()
    found: list[tuple[Value, FunctionRef]] = []
    for sub in subclasses(project, own):
        qualname = sub.cls.method("__init__")
        function = sub.module.function(qualname) if qualname else None
        if function is None:
            continue
        caller = FunctionRef.of(sub.module, function)
        found.extend(
            (call, caller) for call, target in base_init_calls(project, caller) if target == init
        )
    return tuple(sorted(found, key=lambda pair: (pair[1].module.path, pair[1].function.span)))


def hands_on_keywords(call: Value, caller: FunctionFacts) -> bool:
    """Return True if `call` spreads the `**kwargs` of `caller` as they came
    (`super().__init__(**kwargs)`): no keyword was added, changed or taken out first."""
    if not caller.has_var_keyword or not caller.params:
        return False
    keywords = caller.params[-1]
    spread = [value for key, value in call.keywords if key is None]
    return (
        len(spread) == 1
        and spread[0].kind is Kind.PARAM
        and spread[0].name == keywords
        and not any(store.target == keywords for store in caller.item_stores)
        and not any(
            (base := made.base) is not None
            and base.kind is Kind.ATTRIBUTE
            and base.base is not None
            and base.base.kind is Kind.PARAM
            and base.base.name == keywords
            for made in caller.calls
        )
    )


def calls_no_init(init: FunctionRef) -> bool:
    """Return True if `__init__` `init` calls no other `__init__` (a subclass's overriding
    its base's without `super().__init__(...)`): no base's own runs on its instances."""
    return not any(
        call.base is not None
        and (
            (call.base.kind is Kind.ATTRIBUTE and call.base.name == "__init__")
            or any(name.endswith(".__init__") for name in call.base.qualnames)
        )
        for call in init.function.calls
    )
