"""The text views of a trajectory record (§4.2), built from the raw JSON object.

Views are built the way the 0.3.1 ``Trajectory`` model plus ``_build_haystack`` /
``_build_signature`` / ``_reference_signature`` build them:

* ``task`` is always present (``str()`` of the value, ``""`` when missing);
* ``failure_class`` / ``failure_point`` and step ``error`` / ``output`` / ``input`` are used
  only when truthy (``None`` and ``""`` are skipped);
* non-dict steps are skipped (the model drops them); a missing ``step_number`` does not
  matter (the model numbers by position); steps keep their raw list index in field names;
* parts are joined with a space and normalised, which equals joining the normalised
  non-empty parts with a space (used here so positions can be mapped back to fields).

Where 0.3.1 would raise (a non-string ``error``, ``steps: null``) the views coerce with
``str()`` / treat as no steps instead: the matcher never fails on a record.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from core.matching.text import normalize, normalize_mapped

__all__ = ["FieldRange", "Span", "TrajectoryViews", "VIEW_NAMES"]

VIEW_NAMES = ("haystack", "signature", "classfree_signature", "reference_signature")

Source = tuple[str, str]  # (field name, original text)


@dataclass(frozen=True)
class Span:
    """A highlight: characters ``[start, end)`` of the ORIGINAL text of ``field``.

    ``field`` is ``task``, ``failure_class``, ``failure_point`` or ``steps[i].error`` /
    ``steps[i].output`` / ``steps[i].input`` (``i`` = index in the record's ``steps`` list).
    ``kind`` is ``exact`` | ``token`` | ``alias`` | ``phrase``.
    """

    field: str
    start: int
    end: int
    kind: str


@dataclass(frozen=True)
class FieldRange:
    field: str
    start: int
    end: int


def _text(value: Any) -> str | None:
    """Truthy values as text; ``None``/empty/false values as None."""
    if not value:
        return None
    return value if isinstance(value, str) else str(value)


def _as_bool(value: Any) -> bool:
    """0.3.1's strict boolean coercion; anything it would reject counts as a failure."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        return value.strip().lower() in {"true", "1"}
    return False


@dataclass(frozen=True)
class TrajectoryViews:
    """Normalised views of one trajectory plus the sources needed to map positions back.

    ``haystack`` H, ``signature`` S (#722), ``classfree_signature`` S⁻ (J11),
    ``reference_signature`` R (#725). ``domain`` is the record's ``domain`` field.
    """

    haystack: str
    signature: str
    classfree_signature: str
    reference_signature: str
    domain: str | None
    failure_class: str | None
    success: bool
    include_input: bool = True
    haystack_sources: tuple[Source, ...] = ()
    signature_sources: tuple[Source, ...] = ()
    classfree_sources: tuple[Source, ...] = ()
    reference_sources: tuple[Source, ...] = ()

    @classmethod
    def from_record(cls, record: dict[str, Any], include_input: bool = True) -> TrajectoryViews:
        task = record.get("task", "")
        task_text = task if isinstance(task, str) else str(task)
        failure_class = _text(record.get("failure_class"))
        failure_point = _text(record.get("failure_point"))
        raw_steps = record.get("steps")
        steps = raw_steps if isinstance(raw_steps, list) else []

        hay: list[Source] = [("task", task_text)]
        errors: list[Source] = []
        if failure_class is not None:
            hay.append(("failure_class", failure_class))
        for index, step in enumerate(steps):
            if not isinstance(step, dict):
                continue
            error = _text(step.get("error"))
            output = _text(step.get("output"))
            step_input = _text(step.get("input"))
            if error is not None:
                hay.append((f"steps[{index}].error", error))
                errors.append((f"steps[{index}].error", error))
            if output is not None:
                hay.append((f"steps[{index}].output", output))
            if include_input and step_input is not None:
                hay.append((f"steps[{index}].input", step_input))

        point: list[Source] = [("failure_point", failure_point)] if failure_point else []
        klass: list[Source] = [("failure_class", failure_class)] if failure_class else []
        signature = tuple(point + klass + errors)
        classfree = tuple(point + errors)
        reference = tuple(klass + errors)

        domain = record.get("domain")
        # Error texts are in all four views and the class in three: normalise each text once.
        normalised: dict[str, str] = {}
        return cls(
            haystack=_join(hay, normalised),
            signature=_join(signature, normalised),
            classfree_signature=_join(classfree, normalised),
            reference_signature=_join(reference, normalised),
            domain=None if domain is None else (domain if isinstance(domain, str) else str(domain)),
            failure_class=failure_class,
            success=_as_bool(record.get("success")),
            include_input=include_input,
            haystack_sources=tuple(hay),
            signature_sources=signature,
            classfree_sources=classfree,
            reference_sources=reference,
        )

    @classmethod
    def from_parts(
        cls, texts: tuple[str, str, str, str], domain: str | None, failure_class: str | None, success: bool,
        include_input: bool, haystack_sources: tuple[Source, ...], failure_point: str | None,
        errors: tuple[Source, ...] | None = None,
    ) -> TrajectoryViews:
        """The views ``from_record`` returned, from their stored parts (``core.replay.side_codec``):
        the normalised texts, the haystack's sources and the failure point. The other views'
        sources are the ones ``from_record`` picks: point, class, step errors (the haystack's
        ``steps[i].error`` sources; ``errors``: those, picked by the caller)."""
        if errors is None:
            errors = tuple(s for s in haystack_sources if s[0].endswith(".error"))
        point: tuple[Source, ...] = (("failure_point", failure_point),) if failure_point else ()
        klass: tuple[Source, ...] = (("failure_class", failure_class),) if failure_class else ()
        # Filled without the frozen ``__init__`` (a checked ``object.__setattr__`` per field): a
        # stored side reads thousands of views, and that was a third of reading it. Same fields,
        # same values: the instance equals the one ``cls(...)`` makes (the round-trip tests).
        views = cls.__new__(cls)
        views.__dict__.update(
            haystack=texts[0], signature=texts[1], classfree_signature=texts[2], reference_signature=texts[3],
            domain=domain, failure_class=failure_class, success=success, include_input=include_input,
            haystack_sources=haystack_sources, signature_sources=point + klass + errors,
            classfree_sources=point + errors, reference_sources=klass + errors,
        )
        return views

    @property
    def failure_point(self) -> str | None:
        """The record's failure point as the views hold it (None: none)."""
        return self.signature_sources[0][1] if self.signature_sources[:1] and \
            self.signature_sources[0][0] == "failure_point" else None

    @property
    def error_text(self) -> str:
        """The steps' error texts E alone, normalised and joined (no failure point, no class
        label): what ``SemanticTarget.*_VS_ERRORS`` embeds. ``""`` when no step has one."""
        return _join(tuple(s for s in self.classfree_sources if s[0] != "failure_point"))

    def view_text(self, view: str) -> str:
        return {
            "haystack": self.haystack,
            "signature": self.signature,
            "classfree_signature": self.classfree_signature,
            "reference_signature": self.reference_signature,
        }[view]

    def sources(self, view: str) -> tuple[Source, ...]:
        return {
            "haystack": self.haystack_sources,
            "signature": self.signature_sources,
            "classfree_signature": self.classfree_sources,
            "reference_signature": self.reference_sources,
        }[view]

    def locate(self, view: str, start: int, end: int) -> tuple[FieldRange, ...]:
        """Map characters ``[start, end)`` of a normalised view to original field ranges
        (one per field the range touches; the joining spaces belong to no field)."""
        ranges: list[FieldRange] = []
        for offset, field, _norm, starts, ends in _segments(self.sources(view)):
            lo = max(start, offset)
            hi = min(end, offset + len(starts))
            if lo >= hi:
                continue
            a, b = lo - offset, hi - offset
            ranges.append(FieldRange(field, starts[a], max(ends[a:b])))
        return tuple(ranges)


def _join(sources: tuple[Source, ...] | list[Source], normalised: dict[str, str] | None = None) -> str:
    """The normalised texts joined by one space (empty ones skipped); ``normalised``: texts
    normalised before (filled as it goes)."""
    if normalised is None:
        normalised = {}
    parts = []
    for _, text in sources:
        norm = normalised.get(text)
        if norm is None:
            norm = normalised[text] = normalize(text)
        if norm:
            parts.append(norm)
    return " ".join(parts)


@lru_cache(maxsize=512)
def _segments(
    sources: tuple[Source, ...],
) -> tuple[tuple[int, str, str, tuple[int, ...], tuple[int, ...]], ...]:
    """``(offset in view, field, normalised text, starts, ends)`` per non-empty part."""
    out = []
    offset = 0
    for field, text in sources:
        norm, starts, ends = normalize_mapped(text)
        if not norm:
            continue
        out.append((offset, field, norm, starts, ends))
        offset += len(norm) + 1
    return tuple(out)
