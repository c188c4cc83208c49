"""The promotion queue: every replayed rule with its gates, passing undecided ones first.

Each rule is judged on its newest complete replay result for its current version. Gates:

* ``verdict`` — pass / fail, with the replay reason;
* ``broken_reviewed`` — every broken trajectory opened or waived (by ``reviewer``, or by
  anyone when no reviewer is given);
* ``agreement`` — the human-vs-replay gate for the run (``gates.AGREEMENT_GATE``);
* ``duplicates`` — active standing rules whose trigger is near this one's;
* ``conflicts`` — active standing rules that fire on the same trajectories but direct
  something different.

Approved rules carry their stale-approval report (``evidence.compare``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core.promotion.evidence import StaleReport, compare
from core.promotion.gates import Gate, agreement_gate, rule_agreement_gate
from core.promotion.similarity import DIRECTIVE_AGREE_THRESHOLD, DUPLICATE_THRESHOLD, Similarity, lexical, normalized
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.profile_repo import ProfileRepository
from core.store.promotion_repo import Promotion, PromotionRepository, ResultRef
from core.store.replay_repo import ReplayRepository, StoredResult
from core.store.review_repo import ReviewRepository
from core.store.row_versions import rule_versions
from core.store.rule_repo import RuleRepository

MATCH_BUCKETS = ("prevented", "broken", "near_miss")
CONFLICT_MIN_OVERLAP = 0.5  # shared / the smaller matched set


@dataclass(frozen=True)
class RuleTexts:
    rule_id: int
    rule_version_id: int
    label: str  # standing id or origin
    trigger: str
    directive: str
    signature: str | None
    matched: frozenset[int]  # trajectory pks in prevented / broken / near_miss
    matched_ids: dict[int, str]
    run_id: int | None


@dataclass(frozen=True)
class QueueItem:
    rule_id: int
    rule_version_id: int
    version: int
    origin: str
    kind: str
    trigger: str
    directive: str
    source_trajectory: str | None
    run_id: int | None  # None: the rule's current text has no complete replay yet
    result_id: int | None
    verdict: str
    reason: str
    counts: dict[str, int]
    precision: float | None
    recall: float | None
    decision: str | None
    decision_reason: str | None
    decided_by: str | None
    standing_id: str | None
    promotion_status: str | None
    priority: int
    gates: tuple[Gate, ...]
    stale: StaleReport | None = None
    notes: tuple[str, ...] = ()
    imported: bool = False  # an imported standing rule (no Workbench approval behind it)
    row_version: int = 0  # the rule's row version, read before the rest: a decision names it (conflicts)

    def gate(self, name: str) -> Gate:
        return next(g for g in self.gates if g.name == name)

    @property
    def wording(self) -> str:
        """What the row means, in words (the queue's first column and the CLI say this)."""
        return queue_wording(self)

    def to_json(self) -> dict[str, Any]:
        return {
            "rule_id": self.rule_id, "rule_version_id": self.rule_version_id, "version": self.version,
            "origin": self.origin, "kind": self.kind, "trigger": self.trigger, "directive": self.directive,
            "source_trajectory": self.source_trajectory, "run_id": self.run_id, "result_id": self.result_id,
            "verdict": self.verdict, "reason": self.reason, "counts": self.counts, "precision": self.precision,
            "recall": self.recall, "decision": self.decision, "decision_reason": self.decision_reason,
            "decided_by": self.decided_by, "standing_id": self.standing_id,
            "promotion_status": self.promotion_status, "priority": self.priority,
            "gates": [g.to_json() for g in self.gates],
            "stale": None if self.stale is None else self.stale.to_json(), "notes": list(self.notes),
            "imported": self.imported, "wording": self.wording,
            # What a script sends back with its decision (``decide --expected-version``).
            "row_version": self.row_version,
        }


@dataclass(frozen=True)
class PromotionQueue:
    items: tuple[QueueItem, ...]
    similarity_method: str
    similarity_note: str | None
    stale: tuple[StaleReport, ...] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        return {
            "similarity": {"method": self.similarity_method, "note": self.similarity_note},
            "items": [i.to_json() for i in self.items],
            "stale_approvals": [s.to_json() for s in self.stale],
        }


def promotion_queue(
    store: Store, reviewer: str | None = None, similarity: Similarity | None = None,
    kinds: Sequence[str] | None = None,
) -> PromotionQueue:
    """Every rule in the store (all kinds unless ``kinds`` narrows it), each with its gates."""
    sim = similarity if similarity is not None else lexical()
    versions = rule_versions(store)  # first: a change made while the queue is read is a conflict later
    repo = PromotionRepository(store)
    rules = {r.id: r for r in RuleRepository(store).list_rules(kinds=None if kinds is None else list(kinds))}
    newest = {rid: ref for rid, ref in repo.newest_complete_results_per_rule().items() if rid in rules}
    decisions = ReviewRepository(store).current_all()
    active = repo.list(["active"])
    active_by_rule = {p.rule_id: p for p in active}
    latest_by_rule = {p.rule_id: p for p in repo.list()}  # ordered by id: the newest wins
    results = _stored_results(store, newest.values())
    approved_texts = _approved_texts(store, active)
    candidate_texts = _candidate_texts(store, results)
    agreement_by_run = {run_id: agreement_gate(store, run_id) for run_id in {r.run_id for r in results.values()}}
    judged_by_rule = _judged_by_rule(store, agreement_by_run.values())
    duplicates = _duplicates(sim, candidate_texts, approved_texts)
    conflicts = _conflicts(sim, candidate_texts, approved_texts)
    adopted_profile = ProfileRepository(store).adoption_in_force()
    items: list[QueueItem] = []
    stale_reports: list[StaleReport] = []
    for rule_id, info in sorted(rules.items()):
        result = results.get(rule_id)
        decision = decisions.get(rule_id)
        promotion = active_by_rule.get(rule_id)
        shown = promotion if promotion is not None else latest_by_rule.get(rule_id)
        stale = compare(store, promotion, adopted=adopted_profile) if promotion is not None else None
        if stale is not None and stale.stale:
            stale_reports.append(stale)
        imported = info.kind == "standing" and shown is None
        standing_id = shown.standing_id if shown is not None else (info.rule_ref if imported else None)
        status = shown.status if shown is not None else ((info.status or "active") if imported else None)
        notes: list[str] = []
        if promotion is not None and (decision is None or decision.action != "approve"):
            notes.append(f"{promotion.standing_id} is active but its approval was undone or replaced; "
                         "retire it or approve again")
        if result is None:
            items.append(replace(_unreplayed(info, decision, standing_id, status, imported, stale, notes),
                                 row_version=versions.get(rule_id, 0)))
            continue
        gates = (
            Gate("verdict", "pass" if result.verdict == "pass" else "fail", f"{result.verdict} ({result.reason})",
                 {"verdict": result.verdict, "reason": result.reason}),
            _broken_gate(store, repo, result, reviewer),
            rule_agreement_gate(agreement_by_run[result.run_id], judged_by_rule.get(rule_id, 0)),
            duplicates[rule_id],
            conflicts[rule_id],
        )
        items.append(QueueItem(
            row_version=versions.get(rule_id, 0),
            rule_id=rule_id, rule_version_id=result.rule_version_id, version=result.version, origin=info.origin,
            kind=info.kind, trigger=result.trigger, directive=result.directive,
            source_trajectory=info.source_trajectory, run_id=result.run_id, result_id=result.id,
            verdict=result.verdict, reason=result.reason,
            counts={"prevented": result.prevented_n, "broken": result.broken_n,
                    "near_miss": result.near_miss_n, "missed": result.missed_n},
            precision=result.precision, recall=result.recall,
            decision=None if decision is None else decision.action,
            decision_reason=None if decision is None else decision.reason,
            decided_by=None if decision is None else decision.reviewer,
            standing_id=standing_id, promotion_status=status,
            priority=_priority(result.verdict, decision.action if decision else None, stale),
            gates=gates, stale=stale, notes=tuple(notes), imported=imported,
        ))
    items.sort(key=lambda i: (i.priority, i.rule_id))
    return PromotionQueue(tuple(items), sim.method, sim.note, tuple(stale_reports))


NOT_REPLAYED = "not replayed"


def _judged_by_rule(store: Store, gates: Iterable[Gate]) -> dict[int, int]:
    """Per rule, the judgements of its own items in the blind sessions behind these gates."""
    sessions = sorted({int(s["id"]) for g in gates for s in (g.data.get("blind") or {}).get("sessions", [])})
    return AgreementRepository(store).judgements_per_rule(sessions)


def _unreplayed(info: Any, decision: Any, standing_id: str | None, status: str | None, imported: bool,
                stale: StaleReport | None, notes: list[str]) -> QueueItem:
    """A rule whose current text has no complete replay: listed, its gates not measured."""
    why = "its current text has no complete replay run: replay it to measure its gates"
    gates = tuple(Gate(name, "not_measured", why, {}) for name in
                  ("verdict", "broken_reviewed", "agreement", "duplicates", "conflicts"))
    return QueueItem(
        rule_id=info.id, rule_version_id=info.latest.id, version=info.latest.version, origin=info.origin,
        kind=info.kind, trigger=info.latest.trigger, directive=info.latest.directive,
        source_trajectory=info.source_trajectory, run_id=None, result_id=None, verdict=NOT_REPLAYED,
        reason=NOT_REPLAYED, counts={}, precision=None, recall=None,
        decision=None if decision is None else decision.action,
        decision_reason=None if decision is None else decision.reason,
        decided_by=None if decision is None else decision.reviewer, standing_id=standing_id,
        promotion_status=status, priority=5, gates=gates, stale=stale, notes=tuple(notes), imported=imported,
    )


def queue_wording(item: QueueItem) -> str:
    """The row's state in words. A failed or unmeasured agreement gate is never "ready": in
    CauterRule, below the gate replay alone is not trusted and a human must approve."""
    if item.standing_id and item.promotion_status and item.promotion_status != "active":
        return f"{item.standing_id} {item.promotion_status}"
    if item.imported:
        return f"imported standing rule {item.standing_id or ''} (active): retire or supersede here".replace("  ", " ")
    if item.decision is not None:
        past = {"approve": "approved", "reject": "rejected", "defer": "deferred"}.get(item.decision, item.decision)
        if item.stale is not None and item.stale.profile_changed:
            return f"{past}, {item.stale.profile_note}"
        if item.stale is not None and item.stale.stale:
            return f"{past}, stale: re-check the evidence"
        return past + (f" ({item.standing_id} {item.promotion_status})" if item.standing_id else "")
    if item.run_id is None:
        return "not replayed: replay it to measure its gates"
    agreement = item.gate("agreement")
    problems = [g.name.replace("_", " ") for g in item.gates if g.name != "agreement" and g.state == "fail"]
    if agreement.state != "pass":
        text = agreement.detail if agreement.detail.startswith("human approval required") else (
            f"human approval required: {agreement.detail}")
        return text + (f"; also failing: {', '.join(problems)}" if problems else "")
    if problems:
        return f"not ready: {', '.join(problems)} failing"
    return f"ready: {agreement.detail}"


def _priority(verdict: str, decision: str | None, stale: StaleReport | None) -> int:
    if decision is None:
        return 0 if verdict == "pass" else 2
    if stale is not None and stale.stale:
        return 1
    return 3 if decision == "defer" else 4


def _stored_results(store: Store, refs: Sequence[ResultRef] | Any) -> dict[int, StoredResult]:
    replay = ReplayRepository(store)
    wanted = {ref.result_id for ref in refs}
    found: dict[int, StoredResult] = {}
    for run_id in sorted({ref.run_id for ref in refs}):
        for result in replay.results(run_id):
            if result.id in wanted:
                found[result.rule_id] = result
    return found


def _broken_gate(store: Store, repo: PromotionRepository, result: StoredResult, reviewer: str | None) -> Gate:
    if result.broken_n == 0:
        return Gate("broken_reviewed", "pass", "no broken trajectories", {"unreviewed": []})
    missing = (ReviewRepository(store).unreviewed_broken(reviewer, result.id) if reviewer is not None
               else repo.unreviewed_broken_any(result.id))
    who = f"by {reviewer}" if reviewer else "by any reviewer"
    waived = repo.waivers(result.id, reviewer)
    data = {"unreviewed": missing, "broken": result.broken_n, "waivers": waived}
    if missing:
        return Gate("broken_reviewed", "fail",
                    f"{len(missing)} of {result.broken_n} broken not opened or waived {who}: {', '.join(missing[:5])}",
                    data)
    return Gate("broken_reviewed", "pass", f"all {result.broken_n} broken opened or waived {who}"
                + (f" ({len(waived)} waived)" if waived else ""), data)


def _texts(store: Store, label: str, rule_id: int, version_id: int, ref: ResultRef | None) -> RuleTexts | None:
    version = RuleRepository(store).get_version(version_id)
    if version is None:
        return None
    members = PromotionRepository(store).bucket_members([ref.result_id])[ref.result_id] if ref else {}
    ids = {pk: tid for b in MATCH_BUCKETS for pk, tid, _c in members.get(b, [])}
    return RuleTexts(rule_id, version_id, label, version.trigger, version.directive, version.signature,
                     frozenset(ids), ids, None if ref is None else ref.run_id)


def _approved_texts(store: Store, active: Sequence[Promotion]) -> list[RuleTexts]:
    repo = PromotionRepository(store)
    found = []
    for p in active:
        texts = _texts(store, p.standing_id, p.rule_id, p.rule_version_id,
                       repo.newest_complete_result_for_version(p.rule_version_id))
        if texts is not None:
            found.append(texts)
    return found


def _candidate_texts(store: Store, results: dict[int, StoredResult]) -> list[RuleTexts]:
    found = []
    for rule_id, r in sorted(results.items()):
        ref = ResultRef(r.id, r.run_id, rule_id, r.rule_version_id, r.verdict, r.reason, "complete")
        texts = _texts(store, r.origin, rule_id, r.rule_version_id, ref)
        if texts is not None:
            found.append(texts)
    return found


def _duplicates(sim: Similarity, candidates: list[RuleTexts], approved: list[RuleTexts]) -> dict[int, Gate]:
    threshold = DUPLICATE_THRESHOLD[sim.method]
    scores = sim.matrix([c.trigger for c in candidates], [a.trigger for a in approved])
    gates: dict[int, Gate] = {}
    for i, cand in enumerate(candidates):
        found: list[dict[str, Any]] = []
        for j, other in enumerate(approved):
            if other.rule_id == cand.rule_id:
                continue
            exact = (normalized(cand.trigger), normalized(cand.directive), normalized(cand.signature)) == (
                normalized(other.trigger), normalized(other.directive), normalized(other.signature))
            score = float(scores[i, j])
            if exact or score >= threshold:
                found.append({"standing_id": other.label, "rule_id": other.rule_id, "trigger": other.trigger,
                              "similarity": round(score, 4), "exact": exact})
        found.sort(key=lambda d: -d["similarity"])
        data = {"method": sim.method, "threshold": threshold, "matches": found}
        if found:
            detail = f"near-duplicate of {', '.join(d['standing_id'] for d in found)} ({sim.method})"
            gates[cand.rule_id] = Gate("duplicates", "warn", detail, data)
        else:
            gates[cand.rule_id] = Gate("duplicates", "pass", f"no near-duplicate among {len(approved)} approved "
                                       f"rules ({sim.method}, threshold {threshold})", data)
    return gates


def _conflicts(sim: Similarity, candidates: list[RuleTexts], approved: list[RuleTexts]) -> dict[int, Gate]:
    found = find_conflicts(sim, candidates, approved)
    threshold = DIRECTIVE_AGREE_THRESHOLD[sim.method]
    gates: dict[int, Gate] = {}
    for cand in candidates:
        mine = [c for c in found if c["rule_id"] == cand.rule_id]
        data = {"method": sim.method, "directive_threshold": threshold, "conflicts": mine}
        if mine:
            detail = "; ".join(f"{c['other']} fires on {len(c['shared'])} of the same trajectories with a "
                               f"different directive (similarity {c['directive_similarity']:.2f})" for c in mine)
            gates[cand.rule_id] = Gate("conflicts", "warn", detail, data)
        else:
            gates[cand.rule_id] = Gate("conflicts", "pass", f"no conflict with {len(approved)} approved rules", data)
    return gates


def find_conflicts(sim: Similarity, left: list[RuleTexts], right: list[RuleTexts]) -> list[dict[str, Any]]:
    """Pairs (left, right) that match overlapping trajectories yet direct different things."""
    threshold = DIRECTIVE_AGREE_THRESHOLD[sim.method]
    pairs = [(a, b) for a in left for b in right
             if a.rule_id != b.rule_id and a.matched and b.matched and _overlap(a, b) >= CONFLICT_MIN_OVERLAP]
    if not pairs:
        return []
    directive_scores = sim.matrix([a.directive for a, _ in pairs], [b.directive for _, b in pairs]).diagonal()
    conflicts = []
    for (a, b), score in zip(pairs, directive_scores):
        if float(score) < threshold:
            shared = sorted(a.matched_ids[pk] for pk in a.matched & b.matched)
            conflicts.append({"rule_id": a.rule_id, "label": a.label, "other": b.label, "other_rule_id": b.rule_id,
                              "shared": shared, "directive_similarity": round(float(score), 4),
                              "method": sim.method, "runs": [a.run_id, b.run_id]})
    return conflicts


def _overlap(a: RuleTexts, b: RuleTexts) -> float:
    return len(a.matched & b.matched) / min(len(a.matched), len(b.matched))


def conflicts_among_approved(store: Store, similarity: Similarity | None = None) -> list[dict[str, Any]]:
    """Conflicting pairs among the active standing rules (each pair once)."""
    sim = similarity if similarity is not None else lexical()
    approved = _approved_texts(store, PromotionRepository(store).list(["active"]))
    found = find_conflicts(sim, approved, approved)
    return [c for c in found if c["rule_id"] < c["other_rule_id"]]
