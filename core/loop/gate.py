"""The pre-extraction gate (reference §5.2), re-implemented from the 0.3.1 behaviour.

For each trajectory: would CauterRule silence it before extraction, and why. The reference
checks raw telemetry only (exit codes, assertion / schema flags, step errors, failure_point,
failure_class); a success whose failure_class names a recovery keyword, or whose steps show
an early failure followed by a success, is a near miss. Relaxed mode silences only clean
successes. ``tests/core/test_loop_gate.py`` checks every shared-corpus record against
``cauterule.extraction.gate.run_gate`` in both modes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from core.stats.wilson import Rate

GateMode = Literal["strict", "relaxed"]
GATE_MODES: tuple[GateMode, ...] = ("strict", "relaxed")
NO_FAILURE_SIGNAL = "no_failure_signal"
NEARMISS_RECOVERED = "nearmiss_recovery_succeeded"
FAILURE_WITHOUT_SIGNAL = "failure_without_signal"

# Token-level recovery words (the gate's set; the simulator uses another one, §12.2).
RECOVERY_TOKENS = frozenset({"temp", "near", "retry", "recover", "intermittent", "flaky"})
_TOKEN_SPLIT = re.compile(r"[/_\-\s]+")
# Error words printed to stdout rather than captured in ``error`` (#693): not a success signal.
_ERROR_WORDS = re.compile(r"\b(error|failed|failure|exception|traceback|fatal|refused|denied)\b", re.IGNORECASE)


@dataclass(frozen=True)
class GateStep:
    number: int
    output: Any = None
    error: Any = None
    state: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GateInput:
    success: bool
    failure_class: Any = None
    failure_point: Any = None
    steps: tuple[GateStep, ...] = ()

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> GateInput:
        """Read a validated record the way the 0.3.1 model does (non-object steps dropped,
        missing step numbers filled by position, strict boolean ``success``)."""
        from core.corpus.validation import parse_strict_bool

        steps: list[GateStep] = []
        raw_steps = record.get("steps") or []
        for index, raw in enumerate(raw_steps if isinstance(raw_steps, list) else []):
            if not isinstance(raw, Mapping):
                continue
            number = int(raw["step_number"]) if "step_number" in raw else index + 1
            state = raw.get("state")
            steps.append(GateStep(number, raw.get("output"), raw.get("error"),
                                  state if isinstance(state, Mapping) else {}))
        return cls(bool(parse_strict_bool(record.get("success"))), record.get("failure_class"),
                   record.get("failure_point"), tuple(steps))


@dataclass(frozen=True)
class GateVerdict:
    """``extract`` False means the gate silences the trajectory; ``reason`` says why."""

    mode: GateMode
    extract: bool
    reason: str | None
    signals: tuple[str, ...]

    @property
    def silenced(self) -> bool:
        return not self.extract

    @property
    def why(self) -> str:
        if self.reason:
            return self.reason
        return "; ".join(self.signals) or "extract"


def _blank(value: Any) -> bool:
    return not (value and str(value).strip())


def _exit_code(state: Mapping[str, Any]) -> int | None:
    code = state.get("exit_code")
    if code is None:
        return None
    try:
        return int(code)
    except (TypeError, ValueError):
        return None


def _fails(step: GateStep) -> bool:
    code = _exit_code(step.state)
    if code is not None and code != 0:
        return True
    if step.state.get("assertion_failed") or step.state.get("schema_violation"):
        return True
    return not _blank(step.error)


def _succeeds(step: GateStep) -> bool:
    code = _exit_code(step.state)
    if code is not None:
        # An explicit exit code decides, unless an assertion or schema flag overrides a 0.
        return code == 0 and not (step.state.get("assertion_failed") or step.state.get("schema_violation"))
    if step.state.get("assertion_failed") or step.state.get("schema_violation") or not _blank(step.error):
        return False
    if not _blank(step.output):
        return _ERROR_WORDS.search(str(step.output)) is None
    return True


def is_recovered(trajectory: GateInput) -> bool:
    """A success that self-resolved: a recovery word in failure_class, or fail-then-succeed steps."""
    if not trajectory.success:
        return False
    if trajectory.failure_class:
        if set(_TOKEN_SPLIT.split(str(trajectory.failure_class).lower())) & RECOVERY_TOKENS:
            return True
    if len(trajectory.steps) < 2:
        return False
    failed_before = recovered = False
    for step in trajectory.steps:
        if _fails(step):
            failed_before = True
        elif failed_before and _succeeds(step):
            recovered = True
    return failed_before and recovered


def failure_signals(trajectory: GateInput) -> list[str]:
    """The failure evidence in the raw telemetry, in the reference's order and wording."""
    out: list[str] = []
    for step in trajectory.steps:
        code = _exit_code(step.state)
        if code is not None and code != 0:
            out.append(f"step {step.number}: non-zero exit code {code}")
    for step in trajectory.steps:
        if step.state.get("assertion_failed"):
            out.append(f"step {step.number}: assertion failed ({step.state.get('assertion_failed')})")
    for step in trajectory.steps:
        if step.state.get("schema_violation"):
            out.append(f"step {step.number}: schema violation ({step.state.get('schema_violation')})")
    out += [f"step {s.number}: error" for s in trajectory.steps if not _blank(s.error)]
    if trajectory.failure_point:
        out.append(f"failure_point: {trajectory.failure_point}")
    if not _blank(trajectory.failure_class):
        out.append(f"failure_class: {trajectory.failure_class}")
    return out


def run_gate(trajectory: GateInput, mode: GateMode = "strict") -> GateVerdict:
    signals = tuple(failure_signals(trajectory))
    if mode == "relaxed":
        # Relaxed mode never checks recovery (§12.2); it silences only clean successes (#709).
        if trajectory.success and not signals:
            return GateVerdict(mode, False, NO_FAILURE_SIGNAL, ())
        return GateVerdict(mode, True, None, signals)
    if not signals:
        return GateVerdict(mode, False, NO_FAILURE_SIGNAL if trajectory.success else FAILURE_WITHOUT_SIGNAL, ())
    if is_recovered(trajectory):
        return GateVerdict(mode, False, NEARMISS_RECOVERED, signals)
    return GateVerdict(mode, True, None, signals)


def gate_record(record: Mapping[str, Any], mode: GateMode = "strict") -> GateVerdict:
    return run_gate(GateInput.from_record(record), mode)


# -- per-corpus summary: silence rates against what expected_outcome says -------------------
@dataclass(frozen=True)
class GateRow:
    pk: int
    corpus: str
    trajectory_id: str
    expected_outcome: str | None
    verdict: GateVerdict

    @property
    def disagrees(self) -> bool:
        """The gate and the label disagree: a should_silence record it passes, or a
        should_extract record it silences. should_reject records may go either way (replay
        must reject what the gate lets through), so they never disagree."""
        if self.expected_outcome == "should_silence":
            return not self.verdict.silenced
        if self.expected_outcome == "should_extract":
            return self.verdict.silenced
        return False


@dataclass(frozen=True)
class CorpusGateSummary:
    corpus: str
    mode: GateMode
    n: int
    silenced: Rate
    reasons: dict[str, int]
    expected: dict[str, int]  # expected_outcome -> count ("none" for missing)
    expected_silence: Rate  # share of records labelled should_silence
    disagreements: tuple[GateRow, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "corpus": self.corpus, "mode": self.mode, "n": self.n, "silence_rate": self.silenced.to_dict(),
            "reasons": self.reasons, "expected_outcome": self.expected,
            "expected_silence_rate": self.expected_silence.to_dict(),
            "disagreements": [{"trajectory": r.trajectory_id, "pk": r.pk, "expected_outcome": r.expected_outcome,
                               "gate": "silence" if r.verdict.silenced else "extract", "why": r.verdict.why}
                              for r in self.disagreements],
        }


def summarise(rows: Iterable[GateRow]) -> list[CorpusGateSummary]:
    by_corpus: dict[tuple[str, GateMode], list[GateRow]] = {}
    for row in rows:
        by_corpus.setdefault((row.corpus, row.verdict.mode), []).append(row)
    out = []
    for (corpus, mode), items in sorted(by_corpus.items()):
        reasons: dict[str, int] = {}
        expected: dict[str, int] = {}
        for r in items:
            key = r.verdict.reason or "extract"
            reasons[key] = reasons.get(key, 0) + 1
            exp = r.expected_outcome or "none"
            expected[exp] = expected.get(exp, 0) + 1
        silenced = sum(1 for r in items if r.verdict.silenced)
        out.append(CorpusGateSummary(
            corpus, mode, len(items), Rate.of(silenced, len(items)), dict(sorted(reasons.items())),
            dict(sorted(expected.items())), Rate.of(expected.get("should_silence", 0), len(items)),
            tuple(r for r in items if r.disagrees),
        ))
    return out
