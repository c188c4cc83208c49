"""Cross-session repeat failures (reference §9.2, #663 / #741): a protocol 0.3.1 defines but
its authors never ran.

A record is ``{session, failure_class, success}`` (extra trajectory fields are ignored). A
failure is a record whose ``success`` is not exactly true and whose ``failure_class`` is not
null; with a window, ``session`` must be an integer in it. Walking the failures in input
order, a failure is a *repeat* when its class was seen before -- in 0.3.1 only within the
window. repeat_rate = repeats / failures; reduction = 1 - rate_intervention / rate_baseline
(0 when the baseline rate is 0; all zeros when the baseline has no failures); the target is
a reduction of at least 0.50.

The Workbench additions (each tested separately): history carried into the window (an
option: a class first seen in sessions 1-3 *is* a repeat in 4-5), exact repeat counts (not
``round(rate * n)``), Wilson intervals, a per-class table and absolute failures per session.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.stats.wilson import Rate

REDUCTION_TARGET = 0.50
Record = Mapping[str, Any]


MAX_WINDOW_SESSIONS = 10_000  # far beyond any session series; bounds the window's set


def _in_window(record: Record, window: frozenset[int] | None) -> bool:
    session = record.get("session")
    # bool is an int in Python, and 0.3.1 uses isinstance(session, int): kept for parity.
    return window is None or (isinstance(session, int) and session in window)


def is_failure(record: Record) -> bool:
    return record.get("success") is not True and record.get("failure_class") is not None


@dataclass(frozen=True)
class ArmCounts:
    failures: int
    repeats: int
    per_class: dict[str, tuple[int, int]]  # class -> (failures, repeats) in the window
    per_session: dict[int, int]  # session -> failures (every session, not only the window)

    @property
    def rate(self) -> Rate:
        return Rate.of(self.repeats, self.failures)

    @property
    def repeat_rate(self) -> float:
        return self.repeats / self.failures if self.failures else 0.0


def count_arm(records: Sequence[Record], window: Iterable[int] | None = None, *,
              carry_history: bool = False) -> ArmCounts:
    win = None if window is None else frozenset(window)
    seen: set[Any] = set()
    failures = repeats = 0
    per_class: dict[str, list[int]] = {}
    per_session: dict[int, int] = {}
    for record in records:
        if not is_failure(record):
            continue
        session = record.get("session")
        if isinstance(session, int) and not isinstance(session, bool):
            per_session[session] = per_session.get(session, 0) + 1
        klass = record.get("failure_class")
        inside = _in_window(record, win)
        if not inside:
            if carry_history:
                seen.add(klass)  # history before (or outside) the window still counts as "seen"
            continue
        failures += 1
        row = per_class.setdefault(str(klass), [0, 0])
        row[0] += 1
        if klass in seen:
            repeats += 1
            row[1] += 1
        else:
            seen.add(klass)
    return ArmCounts(failures, repeats, {k: (v[0], v[1]) for k, v in sorted(per_class.items())},
                     dict(sorted(per_session.items())))


@dataclass(frozen=True)
class CrossSessionResult:
    baseline: ArmCounts
    intervention: ArmCounts
    window: tuple[int, ...] | None
    carry_history: bool

    @property
    def reduction(self) -> float:
        if not self.baseline.failures or not self.baseline.repeat_rate:
            return 0.0
        return 1.0 - self.intervention.repeat_rate / self.baseline.repeat_rate

    @property
    def meets_target(self) -> bool:
        return bool(self.baseline.failures) and self.reduction >= REDUCTION_TARGET

    def per_class(self) -> list[dict[str, Any]]:
        names = sorted(set(self.baseline.per_class) | set(self.intervention.per_class))
        rows = []
        for name in names:
            bf, br = self.baseline.per_class.get(name, (0, 0))
            inf, ir = self.intervention.per_class.get(name, (0, 0))
            rows.append({"failure_class": name, "baseline_failures": bf, "baseline_repeats": br,
                         "intervention_failures": inf, "intervention_repeats": ir})
        return rows

    def to_dict(self) -> dict[str, Any]:
        def arm(a: ArmCounts) -> dict[str, Any]:
            return {"failures": a.failures, "repeats": a.repeats, "repeat_rate": a.rate.to_dict(),
                    "failures_per_session": {str(k): v for k, v in a.per_session.items()}}

        return {
            "window": list(self.window) if self.window is not None else None, "carry_history": self.carry_history,
            "baseline": arm(self.baseline), "intervention": arm(self.intervention),
            "reduction": round(self.reduction, 4), "target": REDUCTION_TARGET, "meets_target": self.meets_target,
            "per_class": self.per_class(),
        }


def compare(baseline: Sequence[Record], intervention: Sequence[Record], window: Iterable[int] | None = None, *,
            carry_history: bool = False) -> CrossSessionResult:
    win = None if window is None else tuple(sorted(set(window)))
    base = count_arm(baseline, win, carry_history=carry_history)
    inter = count_arm(intervention, win, carry_history=carry_history)
    if not base.failures:
        # No signal in the baseline: 0.3.1 reports zeros for the intervention's repeats too.
        inter = ArmCounts(inter.failures, 0, inter.per_class, inter.per_session)
    return CrossSessionResult(base, inter, win, carry_history)


# -- reading session files --------------------------------------------------------------------
@dataclass(frozen=True)
class SessionIssue:
    file: str
    line: int
    field: str
    reason: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line} [{self.field}]: {self.reason}"


class SessionFileError(ValueError):
    def __init__(self, issues: list[SessionIssue]) -> None:
        self.issues = issues
        super().__init__("; ".join(map(str, issues[:5])) + (f" (+{len(issues) - 5} more)" if len(issues) > 5 else ""))


def read_sessions(path: Path) -> list[dict[str, Any]]:
    """Read session-numbered records (one JSON object per line; trajectories carrying a
    ``session`` number are fine). Every bad line is reported with file, line, field and what
    was expected; nothing is dropped silently."""
    name = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise SessionFileError([SessionIssue(name, 0, "", f"cannot read the file: {error}")]) from error
    records: list[dict[str, Any]] = []
    issues: list[SessionIssue] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as error:
            issues.append(SessionIssue(name, lineno, "", f"not JSON ({error.msg} at column {error.colno})"))
            continue
        if not isinstance(obj, dict):
            issues.append(SessionIssue(name, lineno, "", "expected a JSON object"))
            continue
        session = obj.get("session")
        if not isinstance(session, int) or isinstance(session, bool) or session < 1:
            issues.append(SessionIssue(name, lineno, "session", f"expected a session number >= 1, got {session!r}"))
        if not isinstance(obj.get("success"), bool):
            issues.append(SessionIssue(name, lineno, "success", f"expected true or false, got {obj.get('success')!r}"))
        klass = obj.get("failure_class")
        if klass is not None and not (isinstance(klass, str) and klass.strip()):
            issues.append(SessionIssue(name, lineno, "failure_class", f"expected text or null, got {klass!r}"))
        records.append(obj)
    if issues:
        raise SessionFileError(issues)
    if not records:
        raise SessionFileError([SessionIssue(name, 0, "", "no records in the file")])
    return records


def parse_window(text: str | None) -> tuple[int, ...] | None:
    """``"4,5"`` or ``"4-5"`` -> (4, 5); empty -> None (every session). A range that runs
    backwards (``5-4``) or a window of more than :data:`MAX_WINDOW_SESSIONS` sessions is refused
    (``1-99999999999`` would otherwise build a set until the memory runs out)."""
    if not text or not text.strip():
        return None
    out: set[int] = set()
    for part in text.split(","):
        try:
            if "-" in part:
                lo, hi = (int(p) for p in part.split("-", 1))
            else:
                lo = hi = int(part)
        except ValueError as error:
            raise ValueError(f"window {text!r}: expected session numbers like 4,5 or 4-5") from error
        if hi < lo:
            raise ValueError(f"window {text!r}: the range {lo}-{hi} runs backwards; write {hi}-{lo}")
        if hi - lo + 1 + len(out) > MAX_WINDOW_SESSIONS:
            raise ValueError(f"window {text!r}: more than {MAX_WINDOW_SESSIONS:,} sessions; name the sessions "
                             "to measure (or leave the window empty for every session)")
        out.update(range(lo, hi + 1))
    return tuple(sorted(out))
