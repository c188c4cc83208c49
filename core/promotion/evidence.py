"""Evidence snapshots and staleness.

An approval stores what it was made on: the run (profile, config hash, corpus hash, model,
semantic state), the verdict and reason, the counts and rates, and the trajectory ids in
each bucket. A later complete run that replayed the same rule version is compared with that
snapshot; a changed verdict or a trajectory that moved bucket makes the approval stale.
A different configuration alone does not: it is reported as the likely cause of a change,
and as "re-checked under another configuration" when the evidence held.

One exception (issue 26): once a team has adopted a profile, an approval made on a run of
another profile than the adopted one is flagged for a second look ("approved under profile X;
evidence now from Y — look again"), whether or not a run of Y exists yet: the team chose Y as
the profile whose evidence counts, and X's evidence was never read under it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Any

from core.store.engine import Store
from core.store.profile_repo import ProfileRepository
from core.store.promotion_repo import Promotion, PromotionRepository, ResultRef
from core.store.replay_repo import ReplayRepository, RunInfo, StoredResult
from core.store.rule_repo import RuleRepository

BUCKETS = ("prevented", "broken", "near_miss", "missed")
NO_EFFECT = "no_effect"
# Run facts whose change explains a change of evidence (reference doc §5.6, review-ux §3.4).
RUN_FACTS = ("profile", "config_hash", "corpus_hash", "model_id", "semantic_state")


@dataclass(frozen=True)
class Move:
    trajectory_id: str
    from_bucket: str
    to_bucket: str

    def __str__(self) -> str:
        return f"{self.trajectory_id}: {self.from_bucket} → {self.to_bucket}"


@dataclass(frozen=True)
class StaleReport:
    standing_id: str
    rule_id: int
    approved_run_id: int | None
    compared_run_id: int | None
    stale: bool
    verdict_before: str | None
    verdict_after: str | None
    moves: tuple[Move, ...] = ()
    config_changes: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    rule_edited: bool = False
    summary: str = ""
    approved_profile: str | None = None  # the profile of the run the approval rested on
    adopted_profile: str | None = None  # the store's adopted profile when compared

    @property
    def profile_changed(self) -> bool:
        """Approved under another profile than the adopted one (a second look is due)."""
        return (self.approved_profile is not None and self.adopted_profile is not None
                and self.approved_profile != self.adopted_profile)

    @property
    def profile_note(self) -> str:
        return (f"approved under profile {self.approved_profile}; evidence now from {self.adopted_profile} "
                "— look again") if self.profile_changed else ""

    def to_json(self) -> dict[str, Any]:
        return {
            "standing_id": self.standing_id, "rule_id": self.rule_id, "stale": self.stale,
            "approved_run": self.approved_run_id, "compared_run": self.compared_run_id,
            "verdict_before": self.verdict_before, "verdict_after": self.verdict_after,
            "moves": [{"trajectory_id": m.trajectory_id, "from": m.from_bucket, "to": m.to_bucket} for m in self.moves],
            "config_changes": {k: list(v) for k, v in self.config_changes.items()},
            "rule_edited": self.rule_edited, "summary": self.summary,
            "approved_profile": self.approved_profile, "adopted_profile": self.adopted_profile,
            "profile_changed": self.profile_changed,
        }


def snapshot(store: Store, result: StoredResult, run: RunInfo) -> dict[str, Any]:
    """The evidence an approval rests on, as stored with it (JSON-ready)."""
    members = PromotionRepository(store).bucket_members([result.id])[result.id]
    return {
        "run_id": run.id,
        "result_id": result.id,
        "rule_version_id": result.rule_version_id,
        "verdict": result.verdict,
        "reason": result.reason,
        "threshold": result.threshold,
        "counts": {"prevented": result.prevented_n, "broken": result.broken_n,
                   "near_miss": result.near_miss_n, "missed": result.missed_n},
        "precision": result.precision,
        "recall": result.recall,
        "precision_pool": result.precision_pool,
        "recall_pool": result.recall_pool,
        "buckets": {b: [tid for _pk, tid, _c in members.get(b, [])] for b in BUCKETS},
        "run": _run_facts(run),
    }


def _run_facts(run: RunInfo) -> dict[str, Any]:
    return {
        "profile": run.profile, "config_hash": run.config_hash, "corpus_hash": run.corpus_hash,
        "model_id": run.model_id, "semantic_state": run.semantic_state, "config": run.config,
    }


def bucket_moves(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[Move]:
    """Which trajectories changed bucket, by id; absent from every bucket means ``no_effect``.

    Ids can repeat across corpora, so each id's buckets are compared as multisets and the
    leftovers paired up (an unmatched leftover moved from or to ``no_effect``).
    """
    old = _by_id(before)
    new = _by_id(after)
    moves: list[Move] = []
    for tid in sorted(set(old) | set(new)):
        gone = list((old.get(tid, Counter()) - new.get(tid, Counter())).elements())
        came = list((new.get(tid, Counter()) - old.get(tid, Counter())).elements())
        gone.sort(), came.sort()
        for i in range(max(len(gone), len(came))):
            moves.append(Move(tid, gone[i] if i < len(gone) else NO_EFFECT, came[i] if i < len(came) else NO_EFFECT))
    return moves


def _by_id(buckets: dict[str, list[str]]) -> dict[str, Counter[str]]:
    found: dict[str, Counter[str]] = {}
    for bucket, ids in buckets.items():
        for tid in ids:
            found.setdefault(tid, Counter())[bucket] += 1
    return found


def _config_changes(before: dict[str, Any], run: RunInfo) -> dict[str, tuple[Any, Any]]:
    after = _run_facts(run)
    changes = {k: (before.get(k), after.get(k)) for k in RUN_FACTS if before.get(k) != after.get(k)}
    old_config, new_config = before.get("config") or {}, after.get("config") or {}
    for key in sorted(set(old_config) | set(new_config)):
        if key in ("corpus_hash",):
            continue
        if old_config.get(key) != new_config.get(key):
            changes[f"config.{key}"] = (old_config.get(key), new_config.get(key))
    return changes


def compare(store: Store, promotion: Promotion, run_id: int | None = None,
            adopted: str | None = None) -> StaleReport:
    """Compare one approval's snapshot with a later run (default: the newest complete one).

    ``adopted``: the profile the team adopted (read from the store when not given; none adopted
    yet: nothing is flagged for its profile, as before adoption existed)."""
    report = _compare(store, promotion, run_id)
    approved_profile = (promotion.evidence.get("run") or {}).get("profile")
    adopted = adopted if adopted is not None else ProfileRepository(store).adoption_in_force()
    flagged = replace(report, approved_profile=approved_profile, adopted_profile=adopted)
    if not flagged.profile_changed:
        return flagged
    return replace(flagged, stale=True, summary=flagged.profile_note + "; " + report.summary)


def _compare(store: Store, promotion: Promotion, run_id: int | None) -> StaleReport:
    repo = PromotionRepository(store)
    replay = ReplayRepository(store)
    evidence = promotion.evidence
    approved_run = evidence.get("run_id")
    latest = RuleRepository(store).get(promotion.rule_id)
    edited = latest is not None and latest.latest.id != promotion.rule_version_id
    ref: ResultRef | None
    if run_id is not None:
        ref = repo.result_ref(run_id, promotion.rule_id)
        if ref is not None and (ref.rule_version_id != promotion.rule_version_id or ref.run_status != "complete"):
            ref = None
    else:
        ref = repo.newest_complete_result_for_version(promotion.rule_version_id)
    base: dict[str, Any] = dict(standing_id=promotion.standing_id, rule_id=promotion.rule_id, approved_run_id=approved_run,
                verdict_before=evidence.get("verdict"), rule_edited=edited)
    edited_note = " The rule's text was edited after approval; the approval covers the older version." if edited else ""
    if ref is None or ref.run_id == approved_run:
        note = "no later complete run replayed this rule version" if ref is None else "evidence is the approval's own run"
        return StaleReport(compared_run_id=None if ref is None else ref.run_id, stale=False,
                           verdict_after=None if ref is None else ref.verdict, summary=note + "." + edited_note, **base)
    run = replay.get_run(ref.run_id)
    assert run is not None
    members = repo.bucket_members([ref.result_id])[ref.result_id]
    after = {b: [tid for _pk, tid, _c in members.get(b, [])] for b in BUCKETS}
    moves = tuple(bucket_moves(evidence.get("buckets", {}), after))
    verdict_changed = ref.verdict != evidence.get("verdict")
    changes = _config_changes(evidence.get("run", {}), run)
    stale = verdict_changed or bool(moves)
    parts: list[str] = []
    if verdict_changed:
        parts.append(f"verdict {evidence.get('verdict')} → {ref.verdict} ({ref.reason})")
    if moves:
        parts.append(f"{len(moves)} trajector{'y' if len(moves) == 1 else 'ies'} moved: "
                     + "; ".join(str(m) for m in moves[:8]) + ("; …" if len(moves) > 8 else ""))
    if changes:
        label = ", ".join(sorted(changes))
        parts.append(f"run configuration differs ({label})" if stale
                     else f"re-checked under another configuration ({label}); evidence unchanged")
    if not parts:
        parts.append(f"run #{ref.run_id} reproduces the approved evidence")
    return StaleReport(compared_run_id=ref.run_id, stale=stale, verdict_after=ref.verdict, moves=moves,
                       config_changes=changes, summary="; ".join(parts) + "." + edited_note, **base)


def stale_approvals(store: Store, run_id: int | None = None, only_stale: bool = True) -> list[StaleReport]:
    """Every active approval compared with the newest complete run of its rule version.

    ``run_id`` compares against that run instead (approvals it did not replay are skipped).
    """
    adopted = ProfileRepository(store).adoption_in_force()
    reports = [compare(store, p, run_id, adopted) for p in PromotionRepository(store).list(["active"])]
    if run_id is not None:
        reports = [r for r in reports if r.compared_run_id == run_id]
    return [r for r in reports if r.stale] if only_stale else reports
