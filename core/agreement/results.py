"""Results of the human-vs-replay agreement protocol, and the gate.

Only committed judgements count (an unjudged item is not a disagreement); ``cant_tell`` is
committed but left out of every statistic and reported as ``abstained``. Replay is rater 2:
confusion matrices have replay's answers as rows and the human's as columns.

Blind sessions, unblinded sessions and the workspace's unblinded marks (``agreement_mark``
with ``blinded = 0``, where the reviewer saw replay's answer) are reported separately; only
blind sessions feed the gate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from core.agreement.early_reveal import judgements_seen_first
from core.agreement.scope import ScopeAgreement, ScopedRecall, scope_agreement, scoped_recall
from core.domain.agreement import (
    CANT_TELL,
    DEFAULT_GATE,
    EVIDENCE_ANSWERS,
    FIRING_ANSWERS,
    GATE_FAIL,
    GATE_KINDS,
    GATE_NOT_ENOUGH,
    GATE_PASS,
    VERDICT_ANSWERS,
    Judgement,
    SessionInfo,
)
from core.metrics.interrater import ConfusionMatrix, KappaResult, cohens_kappa, confusion_matrix, grouped_kappa
from core.stats.wilson import Rate
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.review_repo import ReviewRepository

_KIND_ANSWERS = {"verdict": VERDICT_ANSWERS, "evidence": EVIDENCE_ANSWERS, "firing": FIRING_ANSWERS}
OLD_QUESTION_NOTE = ("made before the two questions: its evidence items asked one question (prevented / broken / "
                     "near-miss / missed / no effect), so 'missed' was scored against 'no effect'; its results are kept "
                     "as they were, and its evidence items no longer feed the gate")


@dataclass(frozen=True)
class GateResult:
    state: str  # "pass" | "fail" | "not enough data"
    threshold: float
    agreement: Rate
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "threshold": self.threshold, "agreement": self.agreement.to_dict(),
                "reason": self.reason}


def gate_state(agreement: Rate, threshold: float = DEFAULT_GATE) -> GateResult:
    """Pass when the Wilson lower bound >= gate, fail when the upper bound < gate, else not enough data."""
    if agreement.ci is None:
        return GateResult(GATE_NOT_ENOUGH, threshold, agreement, "no committed judgements")
    low, high = agreement.ci
    if low >= threshold:
        return GateResult(GATE_PASS, threshold, agreement, f"95% lower bound {low:.3f} >= gate {threshold:.2f}")
    if high < threshold:
        return GateResult(GATE_FAIL, threshold, agreement, f"95% upper bound {high:.3f} < gate {threshold:.2f}")
    return GateResult(
        GATE_NOT_ENOUGH, threshold, agreement,
        f"the interval [{low:.3f}, {high:.3f}] contains the gate {threshold:.2f}: judge more items",
    )


@dataclass(frozen=True)
class StratumAgreement:
    stratum: str
    agreement: Rate
    abstained: int

    def to_dict(self) -> dict[str, Any]:
        return {"stratum": self.stratum, "agreement": self.agreement.to_dict(), "abstained": self.abstained}


@dataclass(frozen=True)
class KindAgreement:
    kind: str  # "verdict" | "evidence"
    agreement: Rate
    kappa: KappaResult
    confusion: ConfusionMatrix
    abstained: int

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "agreement": self.agreement.to_dict(), "kappa": self.kappa.to_dict(),
                "confusion": self.confusion.to_dict(), "abstained": self.abstained}


@dataclass(frozen=True)
class Comparison:
    """Human answers against replay's, for any set of committed judgements."""

    judgements: int
    abstained: int
    agreement: Rate
    kappa: KappaResult
    confusion: ConfusionMatrix  # rows: replay, columns: human
    per_kind: tuple[KindAgreement, ...]
    per_stratum: tuple[StratumAgreement, ...]
    gate: GateResult

    def to_dict(self) -> dict[str, Any]:
        return {
            "judgements": self.judgements, "abstained": self.abstained, "agreement": self.agreement.to_dict(),
            "kappa": self.kappa.to_dict(), "confusion": self.confusion.to_dict(),
            "per_kind": [k.to_dict() for k in self.per_kind], "per_stratum": [s.to_dict() for s in self.per_stratum],
            "gate": self.gate.to_dict(),
        }


def compare(judgements: Sequence[Judgement], gate: float = DEFAULT_GATE) -> Comparison:
    decisive = [j for j in judgements if j.answer != CANT_TELL]
    abstained = len(judgements) - len(decisive)
    kinds = sorted({j.kind for j in judgements}, key=lambda k: (k != "verdict", k))  # verdict, evidence, firing
    labels: list[str] = [a for k in kinds for a in _KIND_ANSWERS.get(k, ())]
    replay = [j.replay_answer for j in decisive]
    human = [j.answer for j in decisive]
    per_kind: list[KindAgreement] = []
    groups: dict[str, tuple[list[str], list[str]]] = {}
    for kind in kinds:
        of_kind = [j for j in decisive if j.kind == kind]
        a, b = [j.replay_answer for j in of_kind], [j.answer for j in of_kind]
        groups[kind] = (a, b)
        per_kind.append(KindAgreement(
            kind, Rate.of(sum(x == y for x, y in zip(a, b)), len(a)),
            cohens_kappa(a, b, list(_KIND_ANSWERS.get(kind, ()))),
            confusion_matrix(a, b, list(_KIND_ANSWERS.get(kind, ()))),
            sum(1 for j in judgements if j.kind == kind and j.answer == CANT_TELL),
        ))
    strata: dict[str, list[Judgement]] = defaultdict(list)
    for j in judgements:
        strata[j.stratum].append(j)
    per_stratum = tuple(
        StratumAgreement(
            s, Rate.of(sum(1 for j in js if j.answer != CANT_TELL and j.answer == j.replay_answer),
                       sum(1 for j in js if j.answer != CANT_TELL)),
            sum(1 for j in js if j.answer == CANT_TELL),
        )
        for s, js in sorted(strata.items())
    )
    agreement = Rate.of(sum(x == y for x, y in zip(replay, human)), len(decisive))
    return Comparison(
        judgements=len(judgements), abstained=abstained, agreement=agreement, kappa=grouped_kappa(groups),
        confusion=confusion_matrix(replay, human, labels), per_kind=tuple(per_kind), per_stratum=per_stratum,
        gate=gate_state(agreement, gate),
    )


@dataclass(frozen=True)
class UnblindedSummary:
    """The workspace's right / wrong marks, made while replay's answer was on screen."""

    marks: int
    right: int
    wrong: int
    cant_tell: int
    agreement: Rate  # right / (right + wrong)
    note: str = "unblinded: the reviewer saw replay's answer before marking (anchoring inflates agreement)"

    def to_dict(self) -> dict[str, Any]:
        return {"marks": self.marks, "right": self.right, "wrong": self.wrong, "cant_tell": self.cant_tell,
                "agreement": self.agreement.to_dict(), "note": self.note}


def unblinded_summary(store: Store, run_id: int | None = None, reviewer: str | None = None) -> UnblindedSummary:
    marks = ReviewRepository(store).marks(reviewer=reviewer, blinded=False)
    if run_id is not None:
        results = {r.id for r in _run_results(store, run_id)}
        marks = [m for m in marks if m.result_id in results]
    right = sum(1 for m in marks if m.mark == "right")
    wrong = sum(1 for m in marks if m.mark == "wrong")
    return UnblindedSummary(len(marks), right, wrong, len(marks) - right - wrong, Rate.of(right, right + wrong))


def _run_results(store: Store, run_id: int) -> list[Any]:
    from core.store.replay_repo import ReplayRepository

    return ReplayRepository(store).results(run_id)


@dataclass(frozen=True)
class SessionResult:
    session: SessionInfo
    reviewer: str | None  # None: every reviewer's judgements pooled (each judgement one comparison)
    reviewers: tuple[str, ...]
    size: int
    progress: dict[str, int]  # reviewer -> committed judgements
    comparison: Comparison
    per_reviewer: dict[str, Comparison]
    unblinded: UnblindedSummary
    scope: ScopeAgreement
    scoped_recall: ScopedRecall
    # Judgements committed after the reviewer chose to see that rule's evidence before finishing
    # the session (core.agreement.early_reveal): counted, and the agreement without them.
    seen_first: int = 0
    without_seen_first: Comparison | None = None

    @property
    def blind(self) -> bool:
        return self.session.blind

    @property
    def population_weighted(self) -> float | None:
        """Agreement re-weighted to the run's stratum sizes: sum_h (N_h / N) * p_h.

        With proportional allocation this is close to the pooled rate; with equal allocation
        (rare strata over-sampled) it is the estimate for the run as a whole. Strata without a
        decisive judgement are left out and the weights renormalised. A point estimate only.
        """
        rates = {s.stratum: s.agreement.value for s in self.comparison.per_stratum if s.agreement.value is not None}
        sizes = {s: v.get("population", 0) for s, v in self.session.strata.items() if s in rates}
        total = sum(sizes.values())
        if not total:
            return None
        return sum(sizes[s] / total * rates[s] for s in sizes)

    def to_dict(self) -> dict[str, Any]:
        s = self.session
        return {
            "session": {"id": s.id, "uid": s.uid, "name": s.name, "run_id": s.run_id, "seed": s.seed, "size": s.size,
                        "blind": s.blind, "allocation": s.allocation, "min_per_stratum": s.min_per_stratum,
                        "target_half_width": s.target_half_width, "assumed_p": s.assumed_p, "gate": s.gate,
                        "strata": s.strata, "created_by": s.created_by, "created_at": s.created_at},
            "mode": "blind" if s.blind else "unblinded session",
            "question": s.question, "old_question": s.old_question,
            "question_note": OLD_QUESTION_NOTE if s.old_question else None,
            "reviewer": self.reviewer, "reviewers": list(self.reviewers),
            "population_weighted_agreement": None if self.population_weighted is None
            else round(self.population_weighted, 4),
            "progress": {r: {"committed": c, "size": self.size} for r, c in self.progress.items()},
            **self.comparison.to_dict(),
            "per_reviewer": {r: c.to_dict() for r, c in self.per_reviewer.items()},
            "unblinded_marks": self.unblinded.to_dict(),
            "scope": self.scope.to_dict(), "scoped_recall": self.scoped_recall.to_dict(),
            "seen_evidence_first": {
                "judgements": self.seen_first,
                "note": SEEN_FIRST_NOTE if self.seen_first else None,
                "without_them": None if self.without_seen_first is None else self.without_seen_first.to_dict(),
            },
        }


SEEN_FIRST_NOTE = ("judgements committed after the reviewer chose \"Show evidence anyway\" for that rule: made with "
                   "replay's answer seen; 'without_them' is the agreement of the other judgements")


def session_result(
    store: Store, session: int | str | SessionInfo, reviewer: str | None = None, gate: float | None = None,
) -> SessionResult:
    repo = AgreementRepository(store)
    info = session if isinstance(session, SessionInfo) else repo.session(session)
    threshold = info.gate if gate is None else gate
    judgements = repo.judgements(info.id, reviewer)
    reviewers = tuple(sorted({j.reviewer for j in repo.judgements(info.id)}))
    counted = reviewers if reviewer is None else (reviewer,)
    progress = {r: sum(1 for j in judgements if j.reviewer == r) for r in counted}
    per_reviewer = {r: compare([j for j in judgements if j.reviewer == r], threshold) for r in progress}
    unblinded = (unblinded_summary(store, info.run_id, reviewer) if info.run_id is not None
                 else UnblindedSummary(0, 0, 0, 0, Rate.of(0, 0)))
    seen = judgements_seen_first(store, info.id, reviewer)
    seen_first = sum(1 for j in judgements if (j.item_id, j.reviewer) in seen)
    without = (compare([j for j in judgements if (j.item_id, j.reviewer) not in seen], threshold)
               if seen_first else None)
    return SessionResult(info, reviewer, reviewers, info.size, progress, compare(judgements, threshold),
                         per_reviewer, unblinded, scope_agreement(judgements), scoped_recall(judgements, info.strata),
                         seen_first=seen_first, without_seen_first=without)


def agreement_gate_for_run(store: Store, run_id: int, gate: float | None = None) -> tuple[str, dict[str, Any]]:
    """The agreement gate for promotion from ``run_id``: ("pass" | "fail" | "not enough data", details).

    Uses the committed judgements of every BLIND session sampled from this run, or from another
    run with the same configuration and corpus hashes (replay is deterministic, so its answers
    are the same). All reviewers' judgements are pooled, each one comparison. Unblinded marks
    are in ``details`` for information and never decide the gate. ``gate`` defaults to the
    newest session's threshold (0.80 when there is none).
    """
    repo = AgreementRepository(store)
    identity = repo.run_identity(run_id)
    if identity is None:
        raise LookupError(f"no replay run #{run_id}")
    sessions = {s.id: s for s in repo.sessions(run_id)}
    for s in repo.sessions_like_run(identity["config_hash"], identity["corpus_hash"]):
        sessions.setdefault(s.id, s)
    blind = [s for s in sorted(sessions.values(), key=lambda s: s.id) if s.blind]
    threshold = gate if gate is not None else (blind[-1].gate if blind else DEFAULT_GATE)
    every = [j for s in blind for j in repo.judgements(s.id)]
    # Firing and verdict items only: an old session's evidence items asked a question replay
    # does not answer (its `missed` against the reviewer's "no effect").
    judgements = [j for j in every if j.kind in GATE_KINDS]
    comparison = compare(judgements, threshold)
    details: dict[str, Any] = {
        "run_id": run_id, "threshold": threshold,
        "sessions": [{"id": s.id, "uid": s.uid, "run_id": s.run_id, "size": s.size,
                      "matched_by": "run" if s.run_id == run_id else "same config and corpus"} for s in blind],
        "reviewers": sorted({j.reviewer for j in judgements}),
        **comparison.to_dict(),
        "unblinded_marks": unblinded_summary(store, run_id).to_dict(),
        "scope": scope_agreement(every).to_dict(),
        "old_question_judgements_not_used": sum(1 for j in every if j.kind not in GATE_KINDS),
    }
    if not blind:
        details["gate"] = dict(details["gate"], reason="no blind agreement session for this run")
    return comparison.gate.state, details
