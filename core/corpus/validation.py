"""Field-level validation of trajectory records, matching the 0.3.1 model's acceptance.

The reference ``Trajectory.from_dict`` (cauterule 0.3.1) raises on the first problem and
silently coerces or drops several others. The Workbench needs the same *acceptance* (a record
is importable exactly when the reference model would load it, so counts agree with published
numbers) but must explain itself: every problem is reported with a field path and a reason,
and the things the reference quietly papers over (non-object steps it drops, a ``null`` task it
reads as the text ``"None"``, ...) are surfaced as ``note``-level problems instead of vanishing.

Rule of the module: a problem with ``severity == "error"`` exists iff the reference model
would refuse the record. Notes never change acceptance. A test checks this against the
installed reference package as an oracle.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

ProblemSeverity = Literal["error", "note"]

QUALITY_LABELS: tuple[str, ...] = (
    "clear",
    "noisy",
    "ambiguous",
    "multi-causal",
    "misleading",
    "operator-induced",
    "open-ended",
)
SEVERITIES: tuple[str, ...] = ("low", "medium", "high")
EXPECTED_OUTCOMES: tuple[str, ...] = ("should_extract", "should_silence", "should_reject")

_ENUM_FIELDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("quality_label", QUALITY_LABELS),
    ("severity", SEVERITIES),
    ("expected_outcome", EXPECTED_OUTCOMES),
)
# Optional free-text fields the model stores without checking. A non-string there is legal
# for the reference but surprising for a reviewer, so it earns a note.
_OPTIONAL_TEXT_FIELDS: tuple[str, ...] = (
    "failure_point",
    "failure_class",
    "domain",
    "expected_outcome_rationale",
    "expected_rule",
)
_OPTIONAL_STEP_TEXT_FIELDS: tuple[str, ...] = ("input", "output", "error")
_BOOL_HINT = 'true/false, 0/1 or the strings "true"/"false"/"1"/"0"'


@dataclass(frozen=True)
class FieldProblem:
    """One problem with one field of a record.

    ``field`` is a path such as ``success``, ``steps[2].tool`` or ``agent_config.tools[0]``;
    an empty string means the record as a whole. ``error`` problems make the record
    unloadable (as in the reference model); ``note`` problems are accepted oddities.
    """

    field: str
    reason: str
    severity: ProblemSeverity = "error"

    @property
    def is_error(self) -> bool:
        return self.severity == "error"


def describe_value(value: object, limit: int = 40) -> str:
    """Name a JSON value's type plus a short rendering, for human-readable reasons."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {'true' if value else 'false'}"
    if isinstance(value, (int, float)):
        return f"number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= limit else value[:limit] + "…"
        return f"string {shown!r}"
    if isinstance(value, (list, tuple)):
        return f"list of {len(value)} item(s)"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def parse_strict_bool(value: object) -> bool | None:
    """Strict boolean coercion of #769; ``None`` means "not acceptable as a boolean".

    Plain truthiness would turn the string ``"false"`` into true, relabelling a failure as a
    success, so only real booleans, integer 0/1 and the four strings are accepted.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return {0: False, 1: True}.get(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in ("true", "1"):
            return True
        if word in ("false", "0"):
            return False
    return None


def text_like_reference(value: object) -> str | None:
    """``str(value)`` as the reference applies it to id / timestamp / task; None if it fails.

    ``str`` can only fail for pathological values (integers beyond the digit limit, very deep
    nesting); the reference then fails the record too.
    """
    try:
        return str(value)
    except (ValueError, RecursionError):
        return None


def effective_trajectory_id(obj: Mapping[str, Any]) -> tuple[str, str]:
    """Return ``(field used, id text)`` with the reference's ``trajectory_id`` → ``id`` fallback.

    The fallback fires when ``trajectory_id`` is absent *or falsy* (empty string, null, 0).
    """
    primary = obj.get("trajectory_id")
    if primary:
        return "trajectory_id", text_like_reference(primary) or ""
    return "id", text_like_reference(obj.get("id", "")) or ""


def int_like_reference(value: object) -> int | None:
    """``int(value)`` as the reference applies it to step numbers; None when it raises."""
    try:
        return int(value)  # type: ignore[call-overload, no-any-return]
    except (TypeError, ValueError, OverflowError):
        return None


def is_nonblank_str(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def validate_trajectory(obj: object) -> list[FieldProblem]:
    """Check one parsed JSON value against the 0.3.1 ``Trajectory`` rules (reference doc §1.6).

    Returns every problem found (not just the first), errors and notes mixed, in field order.
    """
    if not isinstance(obj, Mapping):
        return [FieldProblem("", f"expected a JSON object, got {describe_value(obj)}")]
    problems: list[FieldProblem] = []
    problems.extend(_check_id(obj))
    for name in ("timestamp", "task"):
        problems.extend(_check_required_text(obj, name))
    problems.extend(_check_success(obj))
    problems.extend(_check_steps(obj))
    for name, allowed in _ENUM_FIELDS:
        problems.extend(_check_enum(obj, name, allowed))
    problems.extend(_check_str_list(obj.get("tags", []), "tags"))
    problems.extend(_check_agent_config(obj))
    env = obj.get("environment")
    if env is not None and not isinstance(env, Mapping):
        problems.append(
            FieldProblem(
                "environment",
                f"expected an object or null, got {describe_value(env)}; the reference model ignores it",
                "note",
            )
        )
    for name in ("redacted", "injection_signal"):
        problems.extend(_check_optional_bool(obj, name))
    for name in _OPTIONAL_TEXT_FIELDS:
        problems.extend(_check_optional_text(obj, name, name))
    return problems


def _check_id(obj: Mapping[str, Any]) -> Iterator[FieldProblem]:
    used, text = effective_trajectory_id(obj)
    raw = obj.get(used)
    if not text.strip():
        if "trajectory_id" not in obj and "id" not in obj:
            yield FieldProblem("trajectory_id", "required: a non-blank trajectory_id (or id); neither is present")
        elif used not in obj:
            yield FieldProblem(
                "trajectory_id",
                f"expected a non-blank string, got {describe_value(obj.get('trajectory_id'))} and there is no id to fall back on",
            )
        else:
            yield FieldProblem(
                used,
                f"expected a non-blank string (trajectory_id, or id as fallback), got {describe_value(raw)}",
            )
        return
    if used == "id":
        how = "absent" if "trajectory_id" not in obj else f"empty ({describe_value(obj['trajectory_id'])})"
        yield FieldProblem("trajectory_id", f"trajectory_id is {how}; using id {text!r}", "note")
    if not isinstance(raw, str):
        yield FieldProblem(
            used,
            f"expected a string, got {describe_value(raw)}; the reference model reads it as the text {text!r}",
            "note",
        )


def _check_required_text(obj: Mapping[str, Any], name: str) -> Iterator[FieldProblem]:
    if name not in obj:
        yield FieldProblem(name, "required field is missing; expected a non-blank string")
        return
    raw = obj[name]
    text = text_like_reference(raw)
    if text is None or not text.strip():
        yield FieldProblem(name, f"expected a non-blank string, got {describe_value(raw)}")
    elif not isinstance(raw, str):
        # The reference runs str() first, so null becomes the text "None" and is accepted.
        yield FieldProblem(
            name,
            f"expected a string, got {describe_value(raw)}; the reference model reads it as the text {text!r}",
            "note",
        )


def _check_success(obj: Mapping[str, Any]) -> Iterator[FieldProblem]:
    if "success" not in obj:
        yield FieldProblem("success", f"required field is missing; expected a boolean ({_BOOL_HINT})")
        return
    raw = obj["success"]
    value = None if raw is None else parse_strict_bool(raw)
    if value is None:
        yield FieldProblem("success", f"expected a boolean ({_BOOL_HINT}), got {describe_value(raw)}")
    elif not isinstance(raw, bool):
        yield FieldProblem("success", f"{describe_value(raw)} read as {str(value).lower()}", "note")


def _check_optional_bool(obj: Mapping[str, Any], name: str) -> Iterator[FieldProblem]:
    if name not in obj:
        return  # defaults to false
    raw = obj[name]
    value = parse_strict_bool(raw)  # an explicit null is refused by the reference, too
    if value is None:
        yield FieldProblem(name, f"expected a boolean ({_BOOL_HINT}), got {describe_value(raw)}")
    elif not isinstance(raw, bool):
        yield FieldProblem(name, f"{describe_value(raw)} read as {str(value).lower()}", "note")


def _check_steps(obj: Mapping[str, Any]) -> Iterator[FieldProblem]:
    if "steps" not in obj:
        yield FieldProblem("steps", "field is missing; read as no steps", "note")
        return
    raw = obj["steps"]
    if isinstance(raw, (str, Mapping)):
        # The reference iterates it (characters / keys), finds no step objects and
        # carries on with zero steps. Legal, but almost certainly not what was meant.
        yield FieldProblem(
            "steps",
            f"expected a list of step objects, got {describe_value(raw)}; the reference model reads it as no steps",
            "note",
        )
        return
    if not isinstance(raw, (list, tuple)):
        yield FieldProblem("steps", f"expected a list of step objects, got {describe_value(raw)}")
        return
    for index, step in enumerate(raw):
        path = f"steps[{index}]"
        if not isinstance(step, Mapping):
            yield FieldProblem(
                path,
                f"expected a step object, got {describe_value(step)}; the reference model drops this entry",
                "note",
            )
            continue
        yield from _check_step(step, index, path)


def _check_step(step: Mapping[str, Any], index: int, path: str) -> Iterator[FieldProblem]:
    if "step_number" not in step:
        yield FieldProblem(
            f"{path}.step_number", f"missing; numbered {index + 1} by position (as the reference does)", "note"
        )
    else:
        raw = step["step_number"]
        number = int_like_reference(raw)
        if number is None or number < 1:
            yield FieldProblem(f"{path}.step_number", f"expected an integer ≥ 1, got {describe_value(raw)}")
        elif isinstance(raw, bool) or not isinstance(raw, int):
            yield FieldProblem(f"{path}.step_number", f"{describe_value(raw)} read as {number}", "note")
    if "tool" not in step:
        yield FieldProblem(f"{path}.tool", "required field is missing; expected a non-blank string")
    elif not is_nonblank_str(step["tool"]):
        yield FieldProblem(f"{path}.tool", f"expected a non-blank string, got {describe_value(step['tool'])}")
    for name in _OPTIONAL_STEP_TEXT_FIELDS:
        yield from _check_optional_text(step, name, f"{path}.{name}")
    state = step.get("state")
    if state is not None and not isinstance(state, Mapping):
        yield FieldProblem(f"{path}.state", f"expected an object or null, got {describe_value(state)}", "note")


def _check_enum(obj: Mapping[str, Any], name: str, allowed: tuple[str, ...]) -> Iterator[FieldProblem]:
    raw = obj.get(name)
    if raw is None or (isinstance(raw, str) and raw in allowed):
        return
    yield FieldProblem(name, f"expected one of {', '.join(allowed)} or null, got {describe_value(raw)}")


def _check_str_list(raw: object, path: str) -> Iterator[FieldProblem]:
    """Lists of non-blank strings (#771): a scalar string must not iterate into characters."""
    if raw is None:
        return
    if not isinstance(raw, (list, tuple)):
        yield FieldProblem(path, f"expected a list of non-blank strings, got {describe_value(raw)}")
        return
    for index, item in enumerate(raw):
        if not is_nonblank_str(item):
            yield FieldProblem(f"{path}[{index}]", f"expected a non-blank string, got {describe_value(item)}")


def _check_agent_config(obj: Mapping[str, Any]) -> Iterator[FieldProblem]:
    raw = obj.get("agent_config")
    if raw is None:
        return
    if not isinstance(raw, Mapping):
        yield FieldProblem(
            "agent_config",
            f"expected an object or null, got {describe_value(raw)}; the reference model ignores it",
            "note",
        )
        return
    yield from _check_str_list(raw.get("tools", []), "agent_config.tools")


def _check_optional_text(obj: Mapping[str, Any], name: str, path: str) -> Iterator[FieldProblem]:
    raw = obj.get(name)
    if raw is None or isinstance(raw, str):
        return
    try:
        shown = json.dumps(raw, ensure_ascii=False)[:60]
    except (TypeError, ValueError, RecursionError):
        shown = describe_value(raw)
    yield FieldProblem(path, f"expected a string or null, got {describe_value(raw)} ({shown}); kept as written", "note")
