"""The gates shown next to a promotion candidate.

A gate is a named state with its evidence: ``pass``, ``fail``, ``warn`` (found something a
human should look at) or ``not_measured`` (no data: never shown as a pass or as zero).

The human-vs-replay agreement gate is pluggable: ``AGREEMENT_GATE`` is a function
``(store, run_id) -> Gate``. The default computes agreement from the ``agreement_mark`` rows
on the run's results; the agreement protocol (blind sessions) replaces it with
``set_agreement_gate``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.stats.wilson import wilson_interval
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository

AGREEMENT_FLOOR = 0.80


@dataclass(frozen=True)
class Gate:
    name: str
    state: str  # pass | fail | warn | not_measured
    detail: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "state": self.state, "detail": self.detail, "data": self.data}


AgreementGate = Callable[[Store, int], Gate]


def marks_agreement_gate(store: Store, run_id: int) -> Gate:
    """Agreement = right / (right + wrong) over the run's marks; pass iff Wilson low ≥ 0.80.

    "can't tell" marks are counted and shown but are not in the denominator. No marks means
    "not measured", never 0 % and never a pass.
    """
    counts = PromotionRepository(store).run_mark_counts(run_id)
    n = counts.right + counts.wrong
    data: dict[str, Any] = {"right": counts.right, "wrong": counts.wrong, "cant_tell": counts.cant_tell,
                            "n": n, "floor": AGREEMENT_FLOOR, "source": "agreement_mark"}
    ci = wilson_interval(counts.right, n)
    if ci is None:
        return Gate("agreement", "not_measured", f"no human-vs-replay marks on run #{run_id}", data)
    value = counts.right / n
    data.update(agreement=round(value, 4), ci_low=round(ci[0], 4), ci_high=round(ci[1], 4))
    state = "pass" if ci[0] >= AGREEMENT_FLOOR else "fail"
    detail = (f"{counts.right}/{n} agree ({value:.0%}, 95% CI {ci[0]:.2f}–{ci[1]:.2f}); "
              f"{'lower bound ≥' if state == 'pass' else 'lower bound below'} {AGREEMENT_FLOOR:.2f}")
    return Gate("agreement", state, detail, data)


def _interval(agreement: dict[str, Any]) -> str:
    return f"{agreement['value']:.2f} [{agreement['ci_low']:.2f}–{agreement['ci_high']:.2f}]"


def agreement_wording(state: str, agreement: dict[str, Any] | None, threshold: float, run_id: int) -> str:
    """What an agreement gate means, in words: whether replay alone is trusted or a human must approve.

    CauterRule's rule: below the gate (0.80), replay's evidence alone is not trusted and a human
    approves. "Not measured" and "not enough data" are not passes either.
    """
    measured = agreement is not None and agreement.get("value") is not None and agreement.get("ci_low") is not None
    if state == "pass" and measured:
        return f"replay trusted: blind agreement {_interval(agreement)} ≥ {threshold:.2f}"  # type: ignore[arg-type]
    if state == "fail" and measured:
        return f"human approval required: blind agreement {_interval(agreement)} < {threshold:.2f}"  # type: ignore[arg-type]
    if measured:
        return (f"human approval required: blind agreement {_interval(agreement)} spans {threshold:.2f}; "  # type: ignore[arg-type]
                "judge more items to decide the gate")
    return f"human approval required: no blind agreement measured for run #{run_id}"


def blind_session_gate(store: Store, run_id: int) -> Gate:
    """The gate from BLIND agreement sessions on this run (or an identical one).

    Only firing and verdict judgements count (``core.agreement.results``). Unblinded marks are
    kept in the data for information and never decide it: a reviewer who saw replay's verdict
    before judging is anchored, so counting those marks would inflate agreement.
    """
    from core.agreement import agreement_gate_for_run

    state, details = agreement_gate_for_run(store, run_id)
    marks = marks_agreement_gate(store, run_id)
    data = {"source": "blind sessions", "blind": details, "unblinded_marks": marks.data}
    threshold = float(details.get("threshold", AGREEMENT_FLOOR))
    agreement = details.get("agreement")
    measured = bool(details.get("sessions")) and (agreement or {}).get("ci_low") is not None
    if not measured:
        state_out = "not_measured"
    elif state in ("pass", "fail"):
        state_out = state
    else:
        # Measured, but the interval spans the gate: a number to look at, not "not measured"
        # (the Promotion column and its detail read this one state and this one summary).
        state_out = "warn"
    text = agreement_wording(state, agreement if measured else None, threshold, run_id)
    data["wording"] = text
    data["summary"] = agreement_summary(state_out, agreement if measured else None, threshold)
    return Gate("agreement", state_out, text, data)


def agreement_summary(state: str, agreement: dict[str, Any] | None, threshold: float) -> str:
    """The agreement gate's value in a few words (the Promotion column), from the same numbers as its wording."""
    if agreement is None or agreement.get("value") is None or agreement.get("ci_low") is None:
        return "— not measured"
    relation = {"pass": "≥", "fail": "<"}.get(state, "spans")
    return f"{_interval(agreement)} {relation} {threshold:.2f}"


RUN_POOLED = "run_pooled"  # data["scope"]: none of the rule's own items was judged
RULE_ITEMS = "rule_items"  # data["scope"]: at least one of the rule's own items was judged


def rule_agreement_gate(run_gate: Gate, rule_judgements: int) -> Gate:
    """The run's agreement gate as one rule shows it, saying whether any of the rule's own
    items were judged. The gate is pooled over the run (agreement measures replay as a rater,
    not one rule), so the numbers are the same; a rule none of whose items was judged is
    marked as carrying the run's pooled gate, never as if its own evidence had been checked."""
    if run_gate.data.get("source") != "blind sessions":  # a replaced gate (set_agreement_gate) says its own scope
        return run_gate
    data = dict(run_gate.data, rule_judgements=rule_judgements,
                scope=RULE_ITEMS if rule_judgements else RUN_POOLED)
    if run_gate.state == "not_measured" or rule_judgements:
        return Gate(run_gate.name, run_gate.state, run_gate.detail, data)
    return Gate(run_gate.name, run_gate.state,
                run_gate.detail + " (the run's pooled gate: none of this rule's items was judged)", data)


AGREEMENT_GATE: AgreementGate = blind_session_gate


def set_agreement_gate(gate: AgreementGate) -> AgreementGate:
    """Replace the agreement gate (e.g. with the blind-session gate); returns the previous one."""
    global AGREEMENT_GATE
    previous = AGREEMENT_GATE
    AGREEMENT_GATE = gate
    return previous


def agreement_gate(store: Store, run_id: int) -> Gate:
    return AGREEMENT_GATE(store, run_id)
