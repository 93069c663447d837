"""Add a parameter to a libcst function definition, following its layout (the AddParameter edit)."""

from __future__ import annotations

from dataclasses import dataclass

import libcst as cst

_Item = cst.Param | cst.ParamStar | cst.ParamSlash


@dataclass
class _Slot:
    """One parameter-list item in source order, and which `cst.Parameters` field holds it."""

    field: str  # posonly_params, posonly_ind, params, star_arg, kwonly_params, star_kwarg
    item: _Item


def add_parameter(
    definition: cst.FunctionDef, name: str, annotation: str | None
) -> cst.FunctionDef:
    """Return `definition` with parameter `name` added (see `types.AddParameter`)."""
    params = definition.params
    new = cst.Param(
        name=cst.Name(name),
        annotation=cst.Annotation(cst.parse_expression(annotation)) if annotation else None,
    )
    slots = _slots(params)
    if _keyword_only(params):
        insert_at = next(
            (index for index, slot in enumerate(slots) if slot.field == "star_kwarg"), len(slots)
        )
        added = [_Slot("kwonly_params", new)]
        if isinstance(params.star_arg, cst.MaybeSentinel):
            added.insert(0, _Slot("star_arg", cst.ParamStar()))
    else:
        insert_at = len(slots)
        added = [_Slot("params", new)]
    slots = _insert(slots, insert_at, added, definition.whitespace_before_params)
    return definition.with_changes(params=_parameters(params, slots))


def _keyword_only(params: cst.Parameters) -> bool:
    """Return True if a new parameter must be keyword-only to keep the def valid."""
    plain = [*params.posonly_params, *params.params]
    return (
        not isinstance(params.star_arg, cst.MaybeSentinel)
        or bool(params.kwonly_params)
        or params.star_kwarg is not None
        or any(param.default is not None for param in plain)
    )


def _slots(params: cst.Parameters) -> list[_Slot]:
    slots = [_Slot("posonly_params", param) for param in params.posonly_params]
    if isinstance(params.posonly_ind, cst.ParamSlash):
        slots.append(_Slot("posonly_ind", params.posonly_ind))
    slots.extend(_Slot("params", param) for param in params.params)
    if isinstance(params.star_arg, cst.Param | cst.ParamStar):
        slots.append(_Slot("star_arg", params.star_arg))
    slots.extend(_Slot("kwonly_params", param) for param in params.kwonly_params)
    if params.star_kwarg is not None:
        slots.append(_Slot("star_kwarg", params.star_kwarg))
    return slots


def _insert(
    slots: list[_Slot],
    index: int,
    added: list[_Slot],
    opening: cst.BaseParenthesizableWhitespace,
) -> list[_Slot]:
    """Insert `added` at `index`, giving every item the comma the layout calls for."""
    if not slots:
        return added
    separator = _separator(slots, opening)
    for slot in added:
        slot.item = slot.item.with_changes(comma=separator)
    if index < len(slots):
        return [*slots[:index], *added, *slots[index:]]
    # Appending: the old last item's trailing comma (and the space after it) move to the new one.
    last = slots[-1]
    trailing = last.item.comma
    moved: dict[str, cst.BaseParenthesizableWhitespace] = {}
    if isinstance(last.item, cst.Param):
        moved["whitespace_after_param"] = last.item.whitespace_after_param
        last.item = last.item.with_changes(whitespace_after_param=cst.SimpleWhitespace(""))
    last.item = last.item.with_changes(comma=separator)
    final = added[-1]
    final.item = final.item.with_changes(
        comma=trailing if isinstance(trailing, cst.Comma) else cst.MaybeSentinel.DEFAULT
    )
    if isinstance(final.item, cst.Param):
        final.item = final.item.with_changes(**moved)
    return [*slots, *added]


def _separator(slots: list[_Slot], opening: cst.BaseParenthesizableWhitespace) -> cst.Comma:
    """Return the comma that separates two items in this layout (one per line, or not)."""
    between = [slot.item.comma for slot in slots[:-1] if isinstance(slot.item.comma, cst.Comma)]
    if between:
        return between[-1]
    if isinstance(opening, cst.ParenthesizedWhitespace):
        return cst.Comma(whitespace_after=opening)
    trailing = slots[-1].item.comma
    if isinstance(trailing, cst.Comma) and isinstance(
        trailing.whitespace_after, cst.ParenthesizedWhitespace
    ):
        return cst.Comma(whitespace_after=opening)
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))


def _parameters(original: cst.Parameters, slots: list[_Slot]) -> cst.Parameters:
    fields: dict[str, list[_Item]] = {}
    for slot in slots:
        fields.setdefault(slot.field, []).append(slot.item)
    star_arg = fields.get("star_arg", [])
    star_kwarg = fields.get("star_kwarg", [])
    slash = fields.get("posonly_ind", [])
    return original.with_changes(
        posonly_params=fields.get("posonly_params", []),
        posonly_ind=slash[0] if slash else cst.MaybeSentinel.DEFAULT,
        params=fields.get("params", []),
        star_arg=star_arg[0] if star_arg else cst.MaybeSentinel.DEFAULT,
        kwonly_params=fields.get("kwonly_params", []),
        star_kwarg=star_kwarg[0] if star_kwarg else None,
    )
