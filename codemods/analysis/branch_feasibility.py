"""Which branches of per-item code run for the instances a DataLoader loads.

Per-item code often tests a value set from a constructor argument (`if self.train:`,
`if self.split == "train":`). When every construction of the instances in question passes
that argument as a literal, leaves it to a literal default, or passes a parameter that an
enclosing `if mode == "test":` / `elif` / `else` pins down, the outcome of the test is known
and the code in the branch not taken never runs in a worker. Arguments are followed through
the `super().__init__(...)` calls that hand them on to the base `__init__` storing them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from ..types import Span
from .base_inits import base_init_callers, calls_no_init, hands_on_keywords
from .branch_facts import Branch, cased, literal_of, ordered_outcome, within
from .caller_arguments import passed_by_every_caller, written_by_every_caller
from .configured_literals import configured_literals
from .facts import (
    Assignment,
    FunctionFacts,
    Kind,
    Value,
    looked_up,
    self_attribute,
)
from .known_values import Known, literal_known, passed_argument, union_of
from .loader_kwargs import entry_at_call, module_dict_entry
from .memo import on_reentry
from .module_constants import constant_keys
from .module_lookups import constructions_of
from .project import Project
from .refs import ClassRef, FunctionRef, VariableRef
from .self_calls import stored_for_init, subclasses
from .stored_attributes import stored_before

if TYPE_CHECKING:
    from .candidates import Construction, DatasetsOf
    from .per_item import Reached


def branch_not_taken(project: Project, reached: Reached, span: Span) -> bool:
    """Return True if the code at `span` of `reached` never runs on the instances built, or
    is a draw whose value decides nothing there (`random.random() < self.p` with p 0).

    The instances are those `reached.made_by` makes, or, when those are not known, those
    every construction of the class in the project makes. A test of a parameter counts when
    the way to `reached` knows its argument (`reached.arguments`).
    """
    ref = reached.self_class
    arguments = dict(reached.arguments)
    for branch in reached.function.function.branches:
        drawn = branch.draw is not None and within(span, branch.draw)
        if branch.governs(span) is None and not drawn:
            continue
        values: Sequence[Known] | None = None
        if branch.lookup is not None:
            # An entry of a dict the dataset holds (`self.hyp.get("mosaic", 0.0)`).
            if ref is not None and (reached.holder == () or reached.made_by is not None):
                values = _entry_values(project, ref, branch.lookup, reached.made_by)
        elif not branch.subject.startswith("self."):
            # A parameter whose argument the way here knows (`self.augment(x, self.flip)`).
            values = arguments.get(branch.subject)
        elif ref is not None and (reached.holder == () or reached.made_by is not None):
            # The dataset itself, or an object it holds whose constructor calls are known.
            values = _attribute_values(project, ref, branch.subject, reached.made_by)
        if values is None:
            continue
        outcomes = {outcome(branch, known) for known in values}
        holds = outcomes.pop() if len(outcomes) == 1 else None
        if holds is not None and branch.excludes(span, holds):
            return True
        if holds is not None and drawn and branch.settles in (None, holds):
            return True  # `random.random() < self.p` with p 0: the draw decides nothing
    return False


def arm_always_taken(project: Project, reached: Reached, arm: Span) -> bool:
    """Return True if, on the instances built, the `if` of which `arm` is the body (or the
    `else`) of `reached` takes that arm whenever it runs."""
    ref = reached.self_class
    if ref is None or reached.holder != ():
        return False
    for branch in reached.function.function.branches:
        if branch.body == arm:
            holds = True
        elif branch.orelse == arm:
            holds = False
        else:
            continue
        if not branch.subject.startswith("self."):
            return False
        values = _attribute_values(project, ref, branch.subject, reached.made_by)
        if values is None:
            return False
        return {outcome(branch, known) for known in values} == {holds}
    return False


def outcome(branch: Branch, known: Known) -> bool | None:
    """Return whether `branch`'s test holds for a value of which `known` is known."""
    result: bool | None = None
    if branch.order is not None:
        result = ordered_outcome(branch.order, known.one_of or ())
    elif not branch.literals:
        result = known.truth
        if result is None and known.one_of:
            truths = {bool(literal_of(key)) for key in known.one_of}
            result = truths.pop() if len(truths) == 1 else None
    elif known.one_of:
        matches = {
            any(
                cased(literal_of(key), branch.case) == literal_of(other)
                for other in branch.literals
            )
            for key in known.one_of
        }
        result = matches.pop() if len(matches) == 1 else None
    elif branch.case is None and set(branch.literals) <= known.excluded:
        result = False
    return None if result is None else result != branch.negated


def _entry_values(
    project: Project, ref: ClassRef, lookup: Value, made_by: tuple[Construction, ...] | None
) -> list[Known] | None:
    """Return what `self.<attr>.get("key", default)` (or `self.<attr>["key"]`) may be in the
    instances of `ref` built (None: unknown): the entry of each dict literal `__init__` may
    store there (`self.hyp = hyp if hyp is not None else {}`), of a dict literal passed for a
    parameter stored there, or of a store `self.hyp["key"] = value` in `__init__`.

    Unknown when any other code changes the dict: an item store outside `__init__` or with a
    key that is not a literal, or a method that changes a dict in place (`self.hyp.update`).
    """
    found = looked_up(lookup)
    holder = None if found is None else self_attribute(found[0])
    if found is None or holder is None:
        return None
    _, key, missing = found
    target = f"self.{holder}"
    stored: list[Known | None] = []
    for owner in project.mro(ref):
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                continue
            if any(_changes_in_place(call, holder) for call in function.calls):
                return None
            for store in function.item_stores:
                if store.target != target:
                    continue
                if function.name != "__init__" or store.key is None:
                    return None
                if store.key == key:
                    stored.append(literal_known(store.value))

    def entry(
        arguments: ConstructionArguments, init: FunctionRef, option: Value, index: int
    ) -> Known | None:
        if option.kind is Kind.PARAM:
            # `self.hyp = hyp`: the entry of the dict literal the construction passes.
            return arguments.entry(init, _looked_up_in(lookup, option), index)
        if option.kind is not Kind.DICT or any(name is None for name, _ in option.keywords):
            return None
        value = dict(option.keywords).get(key, missing)
        return None if value is None else literal_known(value)

    values = _attribute_values(project, ref, target, made_by, entry)
    if values is None or not stored:
        return values
    widened = [union_of([known, *stored]) for known in values]
    return None if None in widened else [known for known in widened if known is not None]


#: Methods of a dict that change it in place.
_IN_PLACE = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__"})


def _changes_in_place(call: Value, holder: str) -> bool:
    """Return True for `self.<holder>.update(...)` and the like."""
    base = call.base
    return (
        base is not None
        and base.kind is Kind.ATTRIBUTE
        and base.name in _IN_PLACE
        and base.base is not None
        and self_attribute(base.base) == holder
    )


def _looked_up_in(lookup: Value, container: Value) -> Value:
    """Return `lookup` (`x.get("key")` or `x["key"]`) made in `container` instead."""
    if lookup.kind is Kind.SUBSCRIPT:
        return replace(lookup, base=container)
    assert lookup.base is not None
    return replace(lookup, base=replace(lookup.base, base=container))


#: How one option of a value `__init__` stores is read at a construction (`_option_known`).
ReadOption = Callable[["ConstructionArguments", FunctionRef, Value, int], "Known | None"]


def _attribute_values(
    project: Project,
    ref: ClassRef,
    subject: str,
    made_by: tuple[Construction, ...] | None,
    read: ReadOption | None = None,
) -> list[Known] | None:
    """Return what `self.<attribute>` may be in the instances of `ref` built (None: unknown).

    Only an attribute stored by `__init__` (of `ref` or a candidate base), or by a helper
    method only `__init__` calls, counts: one set by other methods may change between items.
    A base's `__init__` that a subclass's own never calls (no `super().__init__(...)`) does
    not run, and stores nothing.
    A store in a branch of `__init__` that the arguments at a construction rule out does not
    count for the instances it builds.
    """
    order = project.mro(ref)
    alone = _init_alone(project, ref)
    stores: list[tuple[FunctionRef, Assignment]] = []
    for owner in order:
        for _, qualname in owner.cls.methods:
            function = owner.module.function(qualname)
            if function is None:
                continue
            for assignment in function.assignments:
                if assignment.target != subject:
                    continue
                if function.name == "__init__":
                    init = FunctionRef.of(owner.module, function)
                    if alone is None or init == alone:
                        stores.append((init, assignment))
                    continue
                # `self.set_mode(mode)` in `__init__`, and only there, stores it for `__init__`.
                passed = stored_for_init(project, owner, function, assignment)
                if passed is None:
                    return None
                stores.append(passed)
    if not stores:
        return None
    sites = made_by
    if sites is None:
        sites = constructions_of(project, ref)
    if not sites:
        return None
    arguments = ConstructionArguments(project, order, sites)
    found: list[Known] = []
    for index in range(len(sites)):
        options: list[Known | None] = []
        for init, assignment in stores:
            if arguments.rules_out(init, assignment.span, index):
                continue
            options.extend(
                (read or _option_known)(arguments, init, option, index)
                for option in assignment.value.alternatives()
                # `self.occluders = load() if train else None`: the arm the arguments rule out.
                if option.span is None or not arguments.rules_out(init, option.span, index)
            )
        known = union_of(options)
        if known is None:
            return None
        found.append(known)
    return found


def _init_alone(project: Project, ref: ClassRef) -> FunctionRef | None:
    """Return the `__init__` an instance of `ref` runs, when it calls no other `__init__`:
    the bases' own do not run, and what they store is not there."""
    found = project.find_method(ref, "__init__")
    return found[1] if found is not None and calls_no_init(found[1]) else None


@on_reentry(None)
def held_by_maker(project: Project, where: FunctionRef, attribute: str) -> Known | None:
    """Return what `self.<attribute>` is in method `where` of the class that builds a dataset
    (a trainer's `Clips(transform=self.val_transform)`): what `__init__` stores there in
    every instance the project makes of that class or of a subclass (None: unknown)."""
    owner = project.class_of_function(where)
    if owner is None or where.function.name == "__init__":
        return None  # `__init__` may read it before storing it
    options: list[Known | None] = []
    for ref in (owner, *subclasses(project, owner)):
        if not constructions_of(project, ref):
            continue  # no instance of this class is made
        values = _attribute_values(project, ref, f"self.{attribute}", None)
        if values is None:
            return None
        options.extend(values)
    return union_of(options) if options else None


def _option_known(
    arguments: ConstructionArguments, init: FunctionRef, option: Value, index: int, depth: int = 0
) -> Known | None:
    """Return what one option of a value `__init__` stores is known to be at construction
    `index`: a parameter, an attribute `__init__` stores a parameter as (`self.augment` in
    `self.mosaic = self.augment and not self.rect`), a lookup in one, or a literal."""
    if option.kind is Kind.ATTRIBUTE and option.base is not None and option.base.kind is Kind.SELF:
        param = decided_by_param(init, f"self.{option.name}")
        return None if param is None else arguments.at(init, param, index)
    if option.kind is Kind.PARAM:
        return arguments.at(init, option.name, index)
    if option.kind is Kind.ATTRIBUTE and option.base is not None and option.base.kind is Kind.PARAM:
        return arguments.attribute(init, option.base.name, option.name, index)
    if looked_up(option) is not None:
        return arguments.entry(init, option, index)
    if option.kind is Kind.CALL and option.base is not None and depth < _MAX_HELPER_DEPTH:
        return _returned_known(arguments, init, option, index, depth + 1)
    return literal_known(option)


#: How many helper methods deep `_option_known` follows what `__init__` stores.
_MAX_HELPER_DEPTH = 2


def _returned_known(
    arguments: ConstructionArguments, init: FunctionRef, call: Value, index: int, depth: int
) -> Known | None:
    """Return what `self.<method>(...)`, called by `__init__`, returns at construction
    `index` (`self.mapping = self.read_mapping(self.mapping_file)`, which returns None when
    no file is given): the literals its `return`s may give, leaving out those in an arm of
    an `if` on a parameter that the arguments rule out."""
    callee = call.base
    assert callee is not None
    built = arguments.built
    if callee.kind is not Kind.ATTRIBUTE or self_attribute(callee) is None or built is None:
        return None
    found = arguments.project.find_method(built, callee.name)
    if found is None or not found[1].function.returns:
        return None
    method = found[1].function
    passed: dict[str, Known | None] = {}
    for position, argument in enumerate(call.args):
        if argument.kind is Kind.STARRED or position + 1 >= method.positional_count:
            return None
        passed[method.params[position + 1]] = _option_known(arguments, init, argument, index, depth)
    for name, argument in call.keywords:
        if name is None:
            return None
        passed[name] = _option_known(arguments, init, argument, index, depth)
    options: list[Known | None] = []
    for returned in method.returns:
        for option in returned.alternatives():
            if option.span is not None and _ruled_out(method, option.span, passed.get):
                continue
            options.append(literal_known(option))
    return union_of(options) if options else None


def _ruled_out(
    function: FunctionFacts, span: Span, known_of: Callable[[str], Known | None]
) -> bool:
    """Return True if code at `span` of `function` does not run where each branch subject is
    what `known_of` says of it (None: unknown)."""
    for branch in function.branches:
        if branch.governs(span) is None:
            continue
        known = known_of(branch.subject)
        holds = None if known is None else outcome(branch, known)
        if holds is not None and branch.excludes(span, holds):
            return True
    return False


def constructed_with(
    project: Project,
    ref: ClassRef,
    sites: tuple[Construction, ...],
    index: int,
    init: FunctionRef,
    param: str,
) -> Known | None:
    """Return what parameter `param` of `init` (the `__init__` of `ref`, or of a base that
    it runs on the same instance) is when construction `index` of `sites` builds a `ref`."""
    return ConstructionArguments(project, project.mro(ref), sites).at(init, param, index)


class ConstructionArguments:
    """What the parameters of the `__init__`s run on the instances that `sites` build are.

    The constructor's own `__init__` takes its arguments from each construction; a base's
    `__init__` takes them from the `super().__init__(...)` / `Base.__init__(self, ...)` calls
    that hand them on, back to the construction.
    """

    def __init__(
        self,
        project: Project,
        order: list[ClassRef],
        sites: tuple[Construction, ...],
    ) -> None:
        self.project = project
        self._order = order
        self._sites = sites
        self._seen: dict[tuple[FunctionRef, str, int], Known | None] = {}

    @property
    def built(self) -> ClassRef | None:
        """Return the class the constructions build (whose methods `self.<name>` runs)."""
        return self._order[0] if self._order else None

    def at(self, init: FunctionRef, param: str, index: int, depth: int = 0) -> Known | None:
        """Return what parameter `param` of `init` is for construction `index`."""
        key = (init, param, index)
        if key not in self._seen:
            self._seen[key] = None  # a cycle of `__init__` calls tells nothing
            self._seen[key] = self._resolve(init, param, index, depth)
        return self._seen[key]

    def entry(self, init: FunctionRef, lookup: Value, index: int) -> Known | None:
        """Return what `conf.get("key")` / `conf["key"]` (or the same of `self.conf`, stored
        from a parameter) is for construction `index`, when the argument is a dict literal
        (`Dataset(path, conf={"noise": False})`, or a name bound to one)."""
        found = looked_up(lookup)
        assert found is not None
        container, key, default = found
        if container.kind is Kind.ATTRIBUTE and container.base is not None:
            if container.base.kind is not Kind.SELF:
                return None
            params = [
                assignment.value.name
                for assignment in init.function.assignments
                if assignment.target == f"self.{container.name}"
                and assignment.value.kind is Kind.PARAM
            ]
            if len(set(params)) != 1:
                return None
            container = Value(Kind.PARAM, name=params[0])
        if container.kind is not Kind.PARAM or self._overridden(init):
            return None
        call, where = self._sites[index]
        passed = passed_argument(call, init.function, container.name)
        if not isinstance(passed, Value):
            return None
        options: list[Known | None] = []
        for option in self._dicts(passed, where):
            if option.kind is not Kind.DICT or any(name is None for name, _ in option.keywords):
                return None
            value = dict(option.keywords).get(key, default)
            options.append(None if value is None else literal_known(value))
        return union_of(options) if options else None

    def attribute(self, init: FunctionRef, param: str, name: str, index: int) -> Known | None:
        """Return what `hps.<name>` of parameter `hps` of `init` is for construction `index`:
        what the code making it stores there just before (`hps.aug_shift = False`, then
        `Dataset(hps)`; see `stored_attributes`)."""
        if self._overridden(init):
            return None
        call, where = self._sites[index]
        passed = passed_argument(call, init.function, param)
        if not isinstance(passed, Value):
            return None
        read = Value(Kind.ATTRIBUTE, name=name, base=passed)
        stored = stored_before(self.project, where, call, read)
        return None if stored is None else literal_known(stored)

    def _dicts(self, passed: Value, where: FunctionRef) -> list[Value]:
        """Return what a dict argument may be: bound values, and for a parameter of a plain
        function (`extract(conf)` building `Dataset(audio_conf=conf)`), what its calls pass."""
        found: list[Value] = []
        for option in bound_values(self.project, passed, where):
            written = (
                written_by_every_caller(self.project, where, option.name)
                if option.kind is Kind.PARAM
                else None
            )
            if written is None:
                found.append(option)
                continue
            for value, caller in written:
                if not isinstance(value, Value):
                    return [Value(Kind.UNKNOWN)]
                found.extend(bound_values(self.project, value, caller))
        return found

    def rules_out(self, init: FunctionRef, span: Span, index: int) -> bool:
        """Return True if code at `span` of `init` does not run for construction `index`."""

        def known_of(subject: str) -> Known | None:
            param = decided_by_param(init, subject)
            return None if param is None else self.at(init, param, index)

        return _ruled_out(init.function, span, known_of)

    def _resolve(self, init: FunctionRef, param: str, index: int, depth: int) -> Known | None:
        if not self._overridden(init):
            return self._at_construction(init, param, index)
        if depth > _MAX_FORWARDING:
            return None
        options: list[Known | None] = []
        for call, caller in base_init_callers(self.project, init):
            owner = self.project.class_of_function(caller)
            if owner not in self._order:
                continue
            passed = passed_argument(call, init.function, param)
            if passed is None and hands_on_keywords(call, caller.function):
                # `caller` hands its `**kwargs` on whole: `param` is what reaches it there.
                handed = param not in caller.function.params
                options.append(
                    self._handed_on(caller, init, param, index, depth + 1) if handed else None
                )
            elif isinstance(passed, Known) or passed is None:
                options.append(passed)
            elif passed.kind is Kind.PARAM:
                options.append(self.at(caller, passed.name, index, depth + 1))
            else:
                options.append(self._constant(passed, caller))
        return union_of(options) if options else None

    def _handed_on(
        self, holder: FunctionRef, init: FunctionRef, param: str, index: int, depth: int
    ) -> Known | None:
        """Return what keyword `param` of `init` is for construction `index`, when `holder`
        (an `__init__` on the way to `init`) receives it in the `**kwargs` it hands on whole:
        from the construction itself, or from the `__init__`s of subclasses that pass it, or
        hand their own `**kwargs` on in turn (`Hmdb(**kw)` -> `Ucf(**kw)` -> `Base(mode=...)`).
        """
        if not self._overridden(holder):
            return self._at_construction(init, param, index, positional=False)
        if depth > _MAX_FORWARDING:
            return None
        options: list[Known | None] = []
        for call, caller in base_init_callers(self.project, holder):
            if self.project.class_of_function(caller) not in self._order:
                continue
            passed = call.keyword(param)
            if passed is None:
                handed = hands_on_keywords(call, caller.function)
                handed = handed and param not in caller.function.params
                options.append(
                    self._handed_on(caller, init, param, index, depth + 1) if handed else None
                )
            elif passed.kind is Kind.PARAM:
                options.append(self.at(caller, passed.name, index, depth + 1))
            else:
                options.append(literal_known(passed) or self._constant(passed, caller))
        return union_of(options) if options else None

    def _at_construction(
        self, init: FunctionRef, param: str, index: int, *, positional: bool = True
    ) -> Known | None:
        """Return what construction `index` passes as `param` of `init` (see
        `passed_argument` for `positional`); a factory's parameter passed on is what every
        call of the factory passes."""
        call, where = self._sites[index]
        known = _passed(call, where, init.function, param, positional=positional)
        passed = passed_argument(call, init.function, param, positional=positional)
        if known is None and isinstance(passed, Value) and passed.kind is Kind.PARAM:
            return passed_by_every_caller(self.project, where, passed.name)
        if known is None and isinstance(passed, Value) and self_attribute(passed) is not None:
            return held_by_maker(self.project, where, passed.name)
        if known is None and passed is None:
            return self._splatted(call, where, init.function, param, positional)
        return known or self._constant(passed, where)

    def _splatted(
        self,
        call: Value,
        where: FunctionRef,
        init: FunctionFacts,
        param: str,
        positional: bool,
    ) -> Known | None:
        """Return what a construction's `**config` passes as `param`, when `config` is a
        local dict whose entry for it is known at the call (`config["ratio"] = 0` first), or
        a dict literal of the module level (`**cfgs.dataset_cfgs["dataset_test_args"]`)."""
        if positional and any(arg.kind is Kind.STARRED for arg in call.args):
            return None  # a `*args` may fill it
        values = entry_at_call(self.project, where, call, param)
        if values is None:
            values = module_dict_entry(self.project, where, call, param)
        if values is None:
            return None
        default = init.default_of(param)
        options = [
            (None if default is None else Known(frozenset({default})))
            if value is None
            else literal_known(value) or self._constant(value, where)
            for value in values
        ]
        return union_of(options) if options else None

    def _constant(self, passed: Value | Known | None, where: FunctionRef) -> Known | None:
        """Return the literals a module-level constant passed in `where` may be, or a
        setting read from a configuration dict (`config["VAL"]["AUGMENT"]`)."""
        if not isinstance(passed, Value):
            return None
        keys = constant_keys(self.project, passed, where.module) or configured_literals(
            self.project, passed
        )
        return None if keys is None else Known(keys)

    def _overridden(self, init: FunctionRef) -> bool:
        """Return True if a subclass of `init`'s class in the order defines its own `__init__`
        (then that `__init__`, not the construction, decides what reaches `init`)."""
        owner = self.project.class_of_function(init)
        return any(
            other != owner and other.cls.method("__init__") and owner in self.project.mro(other)
            for other in self._order
        )


#: How many `__init__`s a value is followed through on its way to the one storing it.
_MAX_FORWARDING = 8


def bound_values(project: Project, value: Value, where: FunctionRef) -> tuple[Value, ...]:
    """Return what `value` may be, following a module-level name to what it is bound to."""
    found: list[Value] = []
    for option in value.alternatives():
        targets = project.targets(option, where.module) if option.kind is Kind.NAME else ()
        variables = [target for target in targets if isinstance(target, VariableRef)]
        if option.kind is Kind.NAME and len(variables) == 1:
            found.extend(
                bound for assigned in variables[0].values for bound in assigned.alternatives()
            )
        else:
            found.append(option)
    return tuple(found)


def ruled_out_by_call(call: Value, where: FunctionRef, callee: FunctionRef, span: Span) -> bool:
    """Return True if code at `span` of plain function `callee` does not run when `call` (in
    `where`) calls it: `get_transforms(False, size)` never runs the `if train:` body.

    Only tests of `callee`'s own parameters count; the arguments are read as for a
    construction (literals, literal defaults, a parameter an enclosing `if` pins down).
    """
    function = callee.function
    for branch in function.branches:
        if branch.subject not in function.params or branch.governs(span) is None:
            continue
        known = passed_known(call, where, function, branch.subject)
        holds = None if known is None else outcome(branch, known)
        if holds is not None and branch.excludes(span, holds):
            return True
    return False


def left_open(
    values: Iterable[Value], call: Value, where: FunctionRef, callee: FunctionRef
) -> list[Value]:
    """Return the options of `values` (written in plain function `callee`) that `call`, in
    `where`, leaves possible: those bound in a branch its arguments rule out are left out
    (`pick_transform("val")` never returns the `if split == "train":` arm's transform)."""
    return [
        option
        for value in values
        for option in value.alternatives()
        if option.span is None or not ruled_out_by_call(call, where, callee, option.span)
    ]


def passed_known(
    call: Value, where: FunctionRef, callee: FunctionFacts, param: str
) -> Known | None:
    """Return what `call` (in `where`) passes as `param` of plain function `callee`, read as
    for a construction (literals, literal defaults, a parameter an enclosing `if` pins down)."""
    return _passed(call, where, callee, param, bound=0)


def open_to_call(
    found: DatasetsOf, call: Value, where: FunctionRef, callee: FunctionRef
) -> DatasetsOf:
    """Drop from what `callee` returns the classes it makes only in branches `call` (in
    `where`) never runs: `build_transforms(cfg, is_train=False)` holds none of the
    augmentations its `if is_train:` body appends."""

    def shut(ref: ClassRef) -> bool:
        sites = [site for made, site in found.made if made == ref]
        return bool(sites) and all(
            made_in == callee
            and made.span is not None
            and ruled_out_by_call(call, where, callee, made.span)
            for made, made_in in sites
        )

    closed = {ref for ref in (*found.classes, *found.contained) if shut(ref)}
    if not closed:
        return found
    return replace(
        found,
        classes=tuple(ref for ref in found.classes if ref not in closed),
        contained=tuple(ref for ref in found.contained if ref not in closed),
        made=tuple(site for site in found.made if site[0] not in closed),
    )


def closed_to_call(
    found: DatasetsOf, call: Value, where: FunctionRef, callee: FunctionRef
) -> DatasetsOf:
    """Return `found` (what `callee` returns when `call` in `where` calls it) with the
    constructions `callee` writes itself read without the values their arguments take only
    in branches `call` never runs: after `if augmentation == "hard": augs = hard() else:
    augs = []`, `Dataset(transform=Compose(augs))` made for `factory(augmentation=None)` is
    given no step of `hard()`."""

    def ruled_out(span: Span) -> bool:
        return ruled_out_by_call(call, where, callee, span)

    made = tuple(
        (ref, (_without_options(value, ruled_out, {}), made_in) if made_in == callee else site)
        for ref, site in found.made
        for value, made_in in [site]
    )
    return found if made == found.made else replace(found, made=made)


def _without_options(
    value: Value, ruled_out: Callable[[Span], bool], done: dict[int, Value]
) -> Value:
    """Return `value` without the options of a name bound in several places that code at
    a span `ruled_out` binds (all of them kept if every one is)."""
    known = done.get(id(value))
    if known is not None:
        return known
    args = value.args
    if value.kind is Kind.ALTERNATIVES and not value.name and not value.keywords:
        kept = tuple(arg for arg in args if arg.span is None or not ruled_out(arg.span))
        args = kept or args
    base = None if value.base is None else _without_options(value.base, ruled_out, done)
    new_args = tuple(_without_options(arg, ruled_out, done) for arg in args)
    keywords = tuple((key, _without_options(item, ruled_out, done)) for key, item in value.keywords)
    same = (
        base is value.base
        and len(new_args) == len(value.args)
        and all(new is old for new, old in zip(new_args, value.args, strict=True))
        and all(new is old for (_, new), (_, old) in zip(keywords, value.keywords, strict=True))
    )
    result = value if same else replace(value, base=base, args=new_args, keywords=keywords)
    done[id(value)] = result
    return result


def _passed(
    call: Value,
    where: FunctionRef,
    init: FunctionFacts,
    param: str,
    bound: int = 1,
    *,
    positional: bool = True,
) -> Known | None:
    """Return what construction `call` (in `where`) passes as `param` of `__init__` `init`
    (`bound`: how many leading parameters the call binds itself, 1 for `self`; see
    `passed_argument` for `positional`)."""
    passed = passed_argument(call, init, param, bound, positional=positional)
    if passed is None or isinstance(passed, Known):
        return passed
    if passed.kind is Kind.PARAM and call.span is not None:
        return constrained(where, passed.name, call.span)
    return None


def constrained(where: FunctionRef, param: str, span: Span) -> Known | None:
    """Return what the `if` statements enclosing `span` in `where` say of parameter `param`."""
    one_of: frozenset[str] | None = None
    excluded: set[str] = set()
    truth: bool | None = None
    for branch in where.function.branches:
        governs = branch.governs(span)
        if branch.subject != param or governs is None or branch.order is not None:
            continue
        if branch.case is not None:
            continue  # `split.lower() == "train"` holds for more than "train"
        holds = governs != branch.negated
        if not branch.literals:
            truth = holds
        elif holds:
            literals = frozenset(branch.literals)
            one_of = literals if one_of is None else one_of & literals
        else:
            excluded.update(branch.literals)
    if one_of is None and not excluded and truth is None:
        return None
    return Known(one_of, frozenset(excluded), truth)


def decided_by_param(init: FunctionRef, subject: str) -> str | None:
    """Return the parameter of `__init__` `init` a branch on `subject` tests: the parameter
    itself, or the one `init` stores as that attribute and nothing else stores there
    (`self.augment = augment`, then `if self.augment:`)."""
    if not subject.startswith("self."):
        return subject
    stored = [item.value for item in init.function.assignments if item.target == subject]
    if len(stored) == 1 and stored[0].kind is Kind.PARAM:
        return stored[0].name
    return None
