"""The one decision function: approve / reject / defer / retire / supersede, for every surface.

The Review tab, the Promotion tab and the CLI all call ``decide(store, DecisionRequest(...))``.
Every business rule is checked here, once, inside the write transaction that acts on it:

* a reason: required to reject, retire and supersede, to override replay's verdict and to
  acknowledge a failed agreement gate; optional to defer (deciding later needs no
  justification) and to approve a passing rule (``core.decisions.rules``: the rule set as data);
* approval against a verdict other than ``pass``: refused (``OverrideRequired``) unless the
  request says ``override_verdict`` AND gives a reason;
* approval while broken evidence is neither opened nor waived by this reviewer: refused
  (``BrokenNotOpened``, with the exact trajectory ids); waivers in the request are recorded
  in the same transaction first;
* approval while the blind agreement gate FAILED: refused (``AcknowledgementRequired``)
  unless ``acknowledge_gate``; the acknowledgement (with the gate's wording) is in the audit
  event. A gate that is not measured is recorded, not required;
* approval of a candidate whose source trajectory is tainted (``core.loop.taint``): refused
  (``TaintJustificationRequired``) unless the reason is a written justification; the
  ``approve_tainted`` audit event is written in the same transaction;
* reject / defer of an active standing rule, approved here or imported from a rule store:
  refused, retire or supersede it instead;
* approval rests on a COMPLETE run that replayed the rule.

A screen asks the reviewer what a refusal needs (a reason, an acknowledgement, a waiver) and
calls ``decide`` again: it never checks a rule itself. Every decision audit event has the
same keys whichever surface made it (``via`` names the surface).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.decisions.rules import ALWAYS_NEEDS_REASON, reason_needed, standing_rule_refusal
from core.decisions.split import SplitProposal, propose_split, tasks_fired
from core.domain.errors import ApprovalRefused, BrokenNotOpened, PromotionError, ReasonRequired
from core.domain.names import checked_name, checked_reason
from core.loop.views import guard_approval_in
from core.promotion.evidence import snapshot
from core.promotion.gates import Gate, agreement_gate
from core.store.engine import Store
from core.store.promotion_adopt import adopt_imported_in, find_imported, promotion_exists
from core.store.promotion_repo import (
    Promotion,
    PromotionRepository,
    active_in,
    promote_in,
    refuse_unreviewed_broken,
    retire_in,
    supersede_in,
)
from core.store.replay_repo import ReplayRepository, StoredResult
from core.store.review_repo import Decision, waivers_in, write_decision, write_waiver
from core.store.row_versions import rule_version
from core.store.rule_repo import RuleRepository
from core.timeutil import utc_now

ACTIONS = ("approve", "reject", "defer", "retire", "supersede")
SURFACES = ("review", "promotion", "cli", "api")


class OverrideRequired(ApprovalRefused):
    """Approving against replay's verdict needs ``override_verdict`` and a written reason."""

    def __init__(self, message: str, verdict: str) -> None:
        super().__init__(message)
        self.verdict = verdict


class AcknowledgementRequired(ApprovalRefused):
    """The blind agreement gate failed: the approving human must acknowledge it."""

    def __init__(self, message: str, wording: str) -> None:
        super().__init__(message)
        self.wording = wording


class SplitOffered(ApprovalRefused):
    """Trigger and directive are one sentence (an ``expected_rule`` copy): such a rule fires at
    injection on no task. Split it first (``proposal``), or approve with ``acknowledge_no_task``."""

    def __init__(self, message: str, proposal: Any, fired: int) -> None:
        super().__init__(message)
        self.proposal = proposal
        self.fired = fired


class RunNotComplete(ApprovalRefused, PromotionError):
    """Approvals rest only on complete runs (a cancelled or running run's evidence is partial)."""


@dataclass(frozen=True)
class DecisionRequest:
    action: str
    reviewer: str
    rule_id: int | None = None
    run_id: int | None = None  # approve: the complete run whose evidence it rests on (default: newest)
    standing_id: str | None = None  # retire / supersede (default: the rule's active standing rule)
    successor: str | None = None  # supersede
    reason: str | None = None
    override_verdict: bool = False
    acknowledge_gate: bool = False
    acknowledge_no_task: bool = False  # approve a one-sentence rule unsplit although it fires on no task
    waivers: Mapping[str, str] = field(default_factory=dict)  # broken trajectory id -> reason
    via: str = "api"
    expected_version: int | None = None  # the rule's row version the reviewer saw (None: not checked)


@dataclass(frozen=True)
class DecisionOutcome:
    action: str
    rule_id: int
    decision: Decision | None  # approve / reject / defer
    promotion: Promotion | None  # approve / retire / supersede
    created: bool  # approve: a new standing rule (False: an active one re-approved)
    message: str  # what every surface shows
    # The rule's row version right after this decision, read in its transaction: the version a
    # screen holds next, so the reviewer's own next decision on the rule is no conflict.
    row_version: int | None = None


def decide(store: Store, request: DecisionRequest) -> DecisionOutcome:
    if request.action not in ACTIONS:
        raise ValueError(f"unknown decision {request.action!r}; expected one of {ACTIONS}")
    if request.via not in SURFACES:
        raise ValueError(f"unknown surface {request.via!r}; expected one of {SURFACES}")
    reviewer = checked_name(request.reviewer)
    if not reviewer:
        raise ValueError(f"a decision ({request.action}) needs a reviewer")
    reason = checked_reason(request.reason)
    for trajectory_id, why in request.waivers.items():
        checked_reason(why, f"waiver reason for {trajectory_id!r}")
    if request.action in ALWAYS_NEEDS_REASON and reason is None:
        raise ReasonRequired(reason_needed(request.action) or "a reason is needed")
    if request.action in ("retire", "supersede"):
        return _lifecycle(store, request, reviewer, reason or "")
    if request.rule_id is None:
        raise ValueError(f"{request.action} needs a rule id")
    if request.action == "approve":
        return _approve(store, request, reviewer, reason)
    return _reject_or_defer(store, request, reviewer, reason)


def _audit_extra(request: DecisionRequest, gates: dict[str, Any] | None, acknowledgement: str | None) -> dict[str, Any]:
    # The same keys on every decision event, whichever surface or action made it.
    return {"via": request.via, "gates": gates, "acknowledgement": acknowledgement,
            "override_verdict": request.override_verdict}


def _label(store: Store, rule_id: int) -> str:
    rule = RuleRepository(store).get(rule_id)
    if rule is None:
        raise PromotionError(f"no rule {rule_id} in this store")
    return rule.rule_ref or rule.origin


def _reject_or_defer(store: Store, request: DecisionRequest, reviewer: str, reason: str | None) -> DecisionOutcome:
    assert request.rule_id is not None
    rule = RuleRepository(store).get(request.rule_id)
    if rule is None:
        raise PromotionError(f"no rule {request.rule_id} in this store")
    version_id, evidence = rule.latest.id, None
    if request.run_id is not None:
        ref = PromotionRepository(store).result_ref(request.run_id, request.rule_id)
        if ref is None:
            raise PromotionError(f"rule {request.rule_id} was not replayed in run #{request.run_id}")
        if ref.run_status != "complete":  # a partial run's verdicts cover only the rules it reached
            raise RunNotComplete(f"{request.action} refused: run #{request.run_id} is {ref.run_status}; decisions "
                                 "cite complete runs only (omit the run, or name a complete one)")
        version_id = ref.rule_version_id
        evidence = {"run_id": ref.run_id, "result_id": ref.result_id, "verdict": ref.verdict, "reason": ref.reason,
                    "run_status": ref.run_status}
    with store.session() as session:
        active = active_in(session, request.rule_id)
        imported = find_imported(session, rule_id=request.rule_id) if active is None else None
        if imported is not None and (imported.status or "active").lower() != "active":
            imported = None  # an imported rule already retired or superseded is history, not standing
        standing_id = active.standing_id if active is not None else (
            None if imported is None else imported.rule_ref or f"rule {rule.id}")
        if standing_id is not None:
            refusal = standing_rule_refusal(request.action, rule.rule_ref or rule.origin, standing_id,
                                            imported=active is None)
            if refusal is not None:
                raise PromotionError(refusal)
        decision = write_decision(session, request.rule_id, version_id, request.run_id, reviewer, request.action,
                                  reason, evidence, _audit_extra(request, None, None),
                                  expected_version=request.expected_version)
        version = rule_version(session, request.rule_id)
    past = {"reject": "rejected", "defer": "deferred"}[request.action]
    return DecisionOutcome(request.action, request.rule_id, decision, None, False,
                           f"{rule.rule_ref or rule.origin} {past} (saved).", version)


def _approval_result(store: Store, rule_id: int, run_id: int | None) -> tuple[StoredResult, Any]:
    replay = ReplayRepository(store)
    if run_id is None:
        ref = PromotionRepository(store).newest_complete_results_per_rule().get(rule_id)
        if ref is None:
            raise PromotionError(f"rule {rule_id} has no complete replay of its current text: replay it first")
        run_id = ref.run_id
    run = replay.get_run(run_id)
    if run is None:
        raise PromotionError(f"no replay run #{run_id} in this store")
    if run.status != "complete":
        raise RunNotComplete(f"approval refused: run #{run_id} is {run.status}; approvals rest only on complete runs")
    result = next((r for r in replay.results(run_id) if r.rule_id == rule_id), None)
    if result is None:
        raise PromotionError(f"rule {rule_id} was not replayed in run #{run_id}")
    return result, run


def _check_waivers(store: Store, result: StoredResult, waivers: Mapping[str, str]) -> dict[int, str]:
    """Waivers by trajectory pk; every one checked before any is written."""
    if not waivers:
        return {}
    broken = {o.trajectory_id: o.trajectory_pk for o in ReplayRepository(store).outcomes(result.id, "broken")}
    found: dict[int, str] = {}
    for trajectory_id, why in waivers.items():
        if trajectory_id not in broken:
            raise PromotionError(f"cannot waive {trajectory_id}: it is not a broken trajectory of this result "
                                 f"(broken: {', '.join(sorted(broken)) or 'none'})")
        if not (why or "").strip():
            raise ReasonRequired(f"a waiver needs a reason ({trajectory_id})")
        found[broken[trajectory_id]] = why.strip()
    return found


def _approve(store: Store, request: DecisionRequest, reviewer: str, reason: str | None) -> DecisionOutcome:
    assert request.rule_id is not None
    result, run = _approval_result(store, request.rule_id, request.run_id)
    waivers = _check_waivers(store, result, request.waivers)
    evidence = snapshot(store, result, run)
    provenance = _provenance(store, request.rule_id, result, run.config_hash, evidence, reviewer, reason)
    split = _split_check(store, result.rule_version_id)
    with store.session() as session:
        # Every rule is checked here, inside the transaction that writes the approval (a refusal
        # rolls back the waivers too). Broken evidence first: it is what the reviewer must go and do.
        for pk, why in waivers.items():
            write_waiver(session, reviewer, result.id, pk, why)
        session.flush()
        refuse_unreviewed_broken(session, reviewer, result.id)
        if result.verdict != "pass" and request.override_verdict and not reason:
            raise ReasonRequired(f"overriding replay's verdict ({result.verdict}) needs a written reason")
        if result.verdict != "pass" and not request.override_verdict:
            raise OverrideRequired(
                f"approval refused: replay's verdict on run #{result.run_id} is {result.verdict} ({result.reason}); "
                "approving against it needs an override with a written reason", result.verdict)
        # A candidate extracted from a tainted source needs a written justification (the reason).
        guard_approval_in(session, store, request.rule_id, reviewer, reason)
        gate = agreement_gate(store, result.run_id)
        acknowledgement = None
        if gate.state == "fail":
            if not request.acknowledge_gate:
                raise AcknowledgementRequired(
                    f"approval refused: {gate.detail}; approving needs your acknowledgement that replay alone is "
                    "not trusted here", gate.detail)
            if reason is None:
                raise ReasonRequired(reason_needed("approve", acknowledge_gate=True) or "a reason is needed")
            acknowledgement = f"{reviewer} acknowledged: {gate.detail}"
        injection = _injection_gate(split, request, reviewer)
        if injection is not None and injection.get("acknowledgement"):
            acknowledgement = "; ".join(a for a in (acknowledgement, injection["acknowledgement"]) if a)
        evidence["waivers"] = waivers_in(session, result.id, reviewer)
        evidence["reviewer"], evidence["approval_reason"] = reviewer, reason
        gates = {"verdict": {"state": "pass" if result.verdict == "pass" else "fail", "verdict": result.verdict,
                             "reason": result.reason}, "agreement": _gate_summary(gate)}
        if injection is not None:
            gates["injection"] = {k: v for k, v in injection.items() if k != "acknowledgement"}
        extra = _audit_extra(request, gates, acknowledgement)
        decision = write_decision(session, request.rule_id, result.rule_version_id, result.run_id, reviewer,
                                  "approve", reason, evidence, extra, expected_version=request.expected_version)
        promotion, created = promote_in(session, decision, request.rule_id, result.rule_version_id, result.run_id,
                                        reviewer, reason, provenance, evidence, extra)
        version = rule_version(session, request.rule_id)
    label = _label(store, request.rule_id)
    waived = f" ({len(waivers)} broken trajector{'y' if len(waivers) == 1 else 'ies'} waived)" if waivers else ""
    if created:
        message = f"{label} is now the standing rule {promotion.standing_id}, approved on run #{result.run_id}{waived}."
    else:
        message = (f"{promotion.standing_id} re-approved on run #{result.run_id}: its evidence snapshot is the new "
                   f"run's{waived}.")
    return DecisionOutcome("approve", request.rule_id, decision, promotion, created, message, version)


def _split_check(store: Store, version_id: int) -> tuple[SplitProposal, int] | None:
    """Read before the write transaction: the proposed split and the tasks the rule fires on."""
    version = RuleRepository(store).get_version(version_id)
    assert version is not None
    proposal = propose_split(version.trigger, version.directive)
    return None if proposal is None else (proposal, tasks_fired(store, version.trigger, version.context))


def _injection_gate(split: tuple[SplitProposal, int] | None, request: DecisionRequest,
                    reviewer: str) -> dict[str, Any] | None:
    """The one-sentence rule gate (core.decisions.split): None for a rule with two halves."""
    if split is None:
        return None
    proposal, fired = split
    wording = (f"trigger and directive are one sentence; it fires at injection on "
               f"{'no task' if fired == 0 else f'{fired} task(s)'}")
    if not request.acknowledge_no_task:
        raise SplitOffered(f"approval refused: {wording}. Split it first (proposed: {proposal.describe()}) "
                           "and replay the edit, or acknowledge that it fires on no task", proposal, fired)
    return {"state": "fail" if fired == 0 else "warn", "wording": wording, "fired": fired,
            "proposal": {"trigger": proposal.trigger, "directive": proposal.directive},
            "acknowledgement": f"{reviewer} acknowledged: {wording}"}


def _gate_summary(gate: Gate) -> dict[str, Any]:
    return {"state": gate.state, "wording": gate.detail}


def _adopt(session: Any, reviewer: str, standing_id: str | None, rule_id: int | None) -> str | None:
    """An imported standing rule named here is adopted first (same transaction); its id."""
    found = find_imported(session, standing_id=standing_id, rule_id=None if standing_id else rule_id)
    return None if found is None else adopt_imported_in(session, found, reviewer).standing_id


def _lifecycle(store: Store, request: DecisionRequest, reviewer: str, reason: str) -> DecisionOutcome:
    with store.session() as session:
        standing_id = request.standing_id
        if standing_id is not None and not promotion_exists(session, standing_id):
            standing_id = _adopt(session, reviewer, standing_id, None) or standing_id
        if standing_id is None:
            if request.rule_id is None:
                raise ValueError(f"{request.action} needs a standing rule id or a rule id")
            active = active_in(session, request.rule_id)
            standing_id = active.standing_id if active is not None else _adopt(session, reviewer, None, request.rule_id)
            if standing_id is None:
                raise PromotionError(f"rule {request.rule_id} is not an active standing rule; nothing to "
                                     f"{request.action}")
        if request.successor and not promotion_exists(session, request.successor):
            _adopt(session, reviewer, request.successor, None)
        extra = _audit_extra(request, None, None)
        # Like a decision, the write names the rule version the reviewer saw: a standing rule another
        # reviewer retired, superseded or re-approved since is a conflict and nothing is written.
        if request.action == "retire":
            promotion = retire_in(session, standing_id, reviewer, reason, extra, request.expected_version)
            message = f"{standing_id} retired."
        else:
            if not request.successor:
                raise ValueError("supersede needs the successor's standing id")
            promotion = supersede_in(session, standing_id, request.successor, reviewer, reason, extra,
                                     request.expected_version)
            message = f"{standing_id} superseded by {request.successor}."
        version = rule_version(session, promotion.rule_id)
    return DecisionOutcome(request.action, promotion.rule_id, None, promotion, False, message, version)


def _provenance(
    store: Store, rule_id: int, result: StoredResult, config_hash: str, evidence: dict[str, Any],
    reviewer: str, reason: str | None,
) -> dict[str, Any]:
    rules = RuleRepository(store)
    rule, version = rules.get(rule_id), rules.get_version(result.rule_version_id)
    assert rule is not None and version is not None
    return {
        "source_trajectory": rule.source_trajectory, "rule_origin": rule.origin, "rule_kind": rule.kind,
        "rule_version": version.version, "extract_timestamp": version.created_at, "replay_run_id": result.run_id,
        "replay_result_id": result.id, "run_config_hash": config_hash, "corpus_hash": evidence["run"]["corpus_hash"],
        "evidence_counts": evidence["counts"], "precision": result.precision, "recall": result.recall,
        "reviewer": reviewer, "reason": reason, "approved_at": utc_now(),
    }


__all__ = [
    "ACTIONS", "AcknowledgementRequired", "ApprovalRefused", "BrokenNotOpened", "DecisionOutcome", "DecisionRequest",
    "OverrideRequired", "PromotionError", "ReasonRequired", "SplitOffered", "decide",
]
