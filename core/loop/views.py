"""The loop's parts computed over a store: gate per trajectory, taint per candidate, where a
rule fires at injection against its replay evidence, tainted approvals. Read-only, Qt-free.

Each view is a read (``read_loop_inputs``: every trajectory and rule, once) followed by pure
computation on what was read (``*_of`` functions), so the GUI reads through its database
executor's read pool and computes on the CPU pool; the CLI and the report call the store
versions (read and compute in one call) directly."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.loop.gate import GATE_MODES, CorpusGateSummary, GateMode, GateRow, GateVerdict, gate_record, summarise
from core.loop.injection import InjectionOverlap, InjectionRule, PoolItem, overlap
from core.loop.taint import TaintJustificationRequired, TaintReport, check_approval, scan_record
from core.store.corpus_repo import CorpusRepository
from core.store.dto import RuleInfo, TrajectoryDetail
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository
from core.store.review_repo import ReviewRepository, append_audit
from core.store.rule_repo import RuleRepository

TAINTED_APPROVAL = "approve_tainted"  # audit action recorded by guard_approval


@dataclass(frozen=True)
class TrajectoryLoopInfo:
    pk: int
    strict: GateVerdict
    relaxed: GateVerdict
    taint: TaintReport


@dataclass(frozen=True)
class LoopInputs:
    """What the loop views need from a store, read in one go (then computed without it)."""

    trajectories: list[TrajectoryDetail]
    rules: list[RuleInfo]


def read_loop_inputs(store: Store) -> LoopInputs:
    return LoopInputs(CorpusRepository(store).get_trajectories(), RuleRepository(store).list_rules())


def trajectory_info(store: Store) -> dict[int, TrajectoryLoopInfo]:
    """Gate (both modes) and taint for every trajectory, by primary key."""
    return trajectory_info_of(CorpusRepository(store).get_trajectories())


def trajectory_info_of(trajectories: Iterable[TrajectoryDetail]) -> dict[int, TrajectoryLoopInfo]:
    out = {}
    for d in trajectories:
        record = d.record
        out[d.id] = TrajectoryLoopInfo(d.id, gate_record(record, "strict"), gate_record(record, "relaxed"),
                                       scan_record(record))
    return out


def gate_summaries(store: Store, modes: tuple[GateMode, ...] = GATE_MODES) -> list[CorpusGateSummary]:
    return gate_summaries_of(CorpusRepository(store).get_trajectories(), modes)


def gate_summaries_of(trajectories: Iterable[TrajectoryDetail],
                      modes: tuple[GateMode, ...] = GATE_MODES) -> list[CorpusGateSummary]:
    rows = []
    for d in trajectories:
        record = d.record
        rows += [GateRow(d.id, d.corpus, d.trajectory_id, d.expected_outcome, gate_record(record, m)) for m in modes]
    return summarise(rows)


# -- taint of candidates --------------------------------------------------------------------
@dataclass(frozen=True)
class CandidateTaint:
    rule: RuleInfo
    source_id: str | None
    report: TaintReport


def candidate_taint(store: Store, rule_ids: list[int] | None = None) -> dict[int, CandidateTaint]:
    """Taint of each rule's source trajectory (rules without a stored source are absent)."""
    rules = RuleRepository(store).list_rules(ids=rule_ids)
    pks = sorted({r.source_trajectory_pk for r in rules if r.source_trajectory_pk})
    details = CorpusRepository(store).get_trajectories(pks) if pks else []
    return candidate_taint_of(rules, {d.id: d for d in details})


def candidate_taint_of(rules: Iterable[RuleInfo], trajectories: Mapping[int, TrajectoryDetail]) -> dict[int, CandidateTaint]:
    out = {}
    for rule in rules:
        detail = trajectories.get(rule.source_trajectory_pk or -1)
        if detail is not None:
            out[rule.id] = CandidateTaint(rule, detail.trajectory_id, scan_record(detail.record))
    return out


def guard_approval_in(session: Any, store: Store, rule_id: int, reviewer: str, justification: str | None) -> str | None:
    """The decision path's taint check, inside the approval's own write transaction.

    Raises :class:`TaintJustificationRequired` when the rule's source is tainted and the
    justification is missing or too short. Otherwise, for a tainted source, records an
    ``approve_tainted`` audit event carrying the justification (what the report counts) in
    ``session`` and returns the justification; returns None for a clean source."""
    info = candidate_taint(store, [rule_id]).get(rule_id)
    text = check_approval(info.report if info else None, justification)
    if text is not None and info is not None:
        append_audit(session, reviewer, TAINTED_APPROVAL, "rule", rule_id, text,
                     after={"source": info.source_id, "taint": info.report.to_dict()})
    return text


def guard_approval(store: Store, rule_id: int, reviewer: str, justification: str | None) -> str | None:
    """:func:`guard_approval_in` in a transaction of its own (for callers outside ``decide``)."""
    with store.session() as session:
        return guard_approval_in(session, store, rule_id, reviewer, justification)


def taint_summary(store: Store) -> dict[str, Any]:
    """Tainted sources and candidates, and approvals of tainted candidates (with and without
    a recorded justification)."""
    reviews = ReviewRepository(store)
    taints = candidate_taint(store)
    tainted = {rid: t for rid, t in taints.items() if t.report.tainted}
    decisions = reviews.current_all()
    justified = {int(e.target_id) for e in reviews.audit("rule") if e.action == TAINTED_APPROVAL}
    approved = sorted(rid for rid in tainted if (d := decisions.get(rid)) is not None and d.action == "approve")
    trajectories = CorpusRepository(store).get_trajectories()
    reports = [scan_record(d.record) for d in trajectories]
    return {
        "trajectories": len(trajectories),
        "tainted_trajectories": sum(r.tainted for r in reports),
        "reference_tainted_trajectories": sum(r.reference for r in reports),
        "candidates": len(taints),
        "tainted_candidates": [
            {"rule_id": rid, "origin": t.rule.origin, "source": t.source_id, "reference_tainted": t.report.reference,
             "why": t.report.summary(), "approved": rid in approved, "justified": rid in justified}
            for rid, t in sorted(tainted.items())
        ],
        "tainted_approved": len(approved),
        "tainted_approved_with_justification": sum(1 for rid in approved if rid in justified),
    }


# -- injection ------------------------------------------------------------------------------
def injection_pool(store: Store) -> list[PoolItem]:
    """Every trajectory's task and success (three columns: the records are not read)."""
    return [PoolItem(pk, task, success) for pk, task, success in CorpusRepository(store).task_pool()]


def injection_pool_of(trajectories: Iterable[TrajectoryDetail]) -> list[PoolItem]:
    return [PoolItem(d.id, d.task, d.success) for d in trajectories]


def injection_rule(rule: RuleInfo) -> InjectionRule:
    return InjectionRule(rule.latest.trigger, rule.latest.context)


def injection_for_run(store: Store, run_id: int, rule_ids: list[int] | None = None,
                      pool: Sequence[PoolItem] | None = None) -> dict[int, InjectionOverlap]:
    """Per rule replayed in ``run_id``: where it fires at injection vs replay's buckets. Only
    the prevented and broken rows are read (the comparison needs nothing else)."""
    replay = ReplayRepository(store)
    rules = {r.id: r for r in RuleRepository(store).list_rules(ids=rule_ids)}
    items = list(pool) if pool is not None else injection_pool(store)
    out = {}
    for result in replay.results(run_id):
        rule = rules.get(result.rule_id)
        if rule is None:
            continue
        prevented = [o.trajectory_pk for o in replay.outcomes(result.id, "prevented")]
        broken = [o.trajectory_pk for o in replay.outcomes(result.id, "broken")]
        # The replayed version's text, not the latest one: the evidence belongs to it.
        when = InjectionRule(result.trigger, injection_rule(rule).context)
        out[result.rule_id] = overlap(when, items, prevented, broken, rule.source_trajectory_pk)
    return out


__all__ = ["TaintJustificationRequired", "guard_approval", "trajectory_info", "gate_summaries", "candidate_taint",
           "taint_summary", "injection_for_run", "injection_pool", "TAINTED_APPROVAL", "LoopInputs",
           "read_loop_inputs", "trajectory_info_of", "gate_summaries_of", "candidate_taint_of", "injection_pool_of"]
