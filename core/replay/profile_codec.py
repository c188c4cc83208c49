"""A ``ReplayProfile`` as JSON and back, field by field, so a stored profile is exactly the one it was.

Generic over the dataclass fields (``dataclasses.fields``), the nested ``MatcherProfile``
included: a field added to either class later is written and read with no change here. A
stored profile written by a newer Workbench, naming a field this code does not know, is
refused in one line (:class:`ProfileFormatError`) rather than run without it.
"""

from __future__ import annotations

import dataclasses
import enum
import math
import types
import typing
from typing import Any

from core.domain.errors import DomainError
from core.matching.profile import REFERENCE_0_3_1 as MATCHER_REFERENCE
from core.matching.profile import MatcherProfile
from core.replay.profiles import ReplayProfile
from core.replay.snapshot import _plain

__all__ = ["ProfileFormatError", "profile_from_dict", "profile_to_dict"]


class ProfileFormatError(DomainError, ValueError):
    """A stored profile this code cannot read exactly (unknown field, wrong type)."""


def profile_to_dict(profile: ReplayProfile) -> dict[str, Any]:
    """Every field of the profile (the matcher's too, the reference matcher when it has none)."""
    data: dict[str, Any] = _plain(profile)
    data["matcher"] = _plain(profile.matcher if profile.matcher is not None else MATCHER_REFERENCE)
    return data


def profile_from_dict(data: dict[str, Any], name: str | None = None) -> ReplayProfile:
    """The profile ``profile_to_dict`` wrote; ``name`` replaces the stored one (e.g. ``team@2``)."""
    values = _typed(ReplayProfile, {k: v for k, v in data.items() if k != "matcher"})
    matcher = data.get("matcher")
    if matcher is not None:
        if not isinstance(matcher, dict):
            raise ProfileFormatError("stored profile: field 'matcher' must be an object")
        values["matcher"] = MatcherProfile(**_typed(MatcherProfile, matcher))
    if name is not None:
        values["name"] = name
    if "name" not in values or "semantic" not in values:
        raise ProfileFormatError("stored profile: fields 'name' and 'semantic' are required")
    try:
        return ReplayProfile(**values)
    except (TypeError, ValueError) as error:  # a value of the right type the profile refuses
        raise ProfileFormatError(f"stored profile: {error}") from None


def _typed(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ProfileFormatError(f"stored profile: unknown {cls.__name__} field(s) {', '.join(unknown)} "
                                 "(written by a newer Workbench?)")
    hints = typing.get_type_hints(cls)
    out: dict[str, Any] = {}
    for key, value in data.items():
        hint = hints.get(key)
        if isinstance(hint, type) and issubclass(hint, enum.Enum) and value is not None:
            try:
                value = hint(value)
            except ValueError:
                raise ProfileFormatError(f"stored profile: field {key!r} has unknown value {value!r}") from None
        elif not _fits(value, hint):
            raise ProfileFormatError(f"stored profile: field {key!r} is {value!r}; expected {_expected(hint)}")
        out[key] = value
    return out


def _fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value is of the field's declared type (a value replay would otherwise fail on
    mid-run, or silently compare as something else: a string margin, a boolean threshold)."""
    if hint is None or hint is Any:
        return True
    origin = typing.get_origin(hint)
    if origin is typing.Literal:
        return value in typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arm) for arm in typing.get_args(hint))
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if hint is str:
        return isinstance(value, str)
    return True  # containers (domain_margins) are checked by the dataclass itself


def _expected(hint: Any) -> str:
    if typing.get_origin(hint) is typing.Literal:
        return "one of " + ", ".join(repr(a) for a in typing.get_args(hint))
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return " or ".join(_expected(arm) for arm in typing.get_args(hint))
    return {bool: "true or false", int: "a whole number", float: "a finite number", str: "text",
            type(None): "null"}.get(hint, str(hint))
