"""A team of reviewers: inter-reviewer agreement, the disagreement lists, adjudication.

The offline merge (export / import between reviewers' stores) is in ``core.agreement.merge``
and re-exported here.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from core.agreement.merge import (  # noqa: F401  (re-exported)
    FORMAT,
    FORMAT_VERSION,
    BadTeamFile,
    MergeConflict,
    MergeReport,
    export_reviewer,
    import_file,
)
from core.domain.agreement import CANT_TELL
from core.domain.labels import Adjudication, LabelText, strip_when
from core.labels.feedback import score_against
from core.labels.service import adjudicate as adjudicate_label
from core.metrics.extraction import AGREEMENT_THRESHOLD, EmbedFn
from core.metrics.interrater import KappaResult, grouped_kappa
from core.metrics.multirater import (
    AlphaResult,
    FleissResult,
    counts_table,
    fleiss_kappa,
    krippendorff_alpha_nominal,
    pairwise_percent_agreement,
)
from core.stats.wilson import Rate
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.label_repo import LabelRepository


# -- inter-reviewer agreement on judgements --------------------------------------------------
@dataclass(frozen=True)
class JudgementDisagreement:
    session_uid: str
    ordinal: int
    item_id: int
    kind: str
    trigger: str
    trajectory_id: str | None
    answers: dict[str, str]  # reviewer -> answer
    replay_answer: str


@dataclass(frozen=True)
class InterRaterResult:
    reviewers: tuple[str, ...]
    items: int  # items with at least two decisive judgements
    percent: Rate  # agreeing reviewer pairs / reviewer pairs on the same item
    cohen: KappaResult | None  # exactly two reviewers (items both judged)
    fleiss: FleissResult | None  # three or more (items every reviewer judged)
    alpha: AlphaResult  # any number, missing judgements allowed
    alpha_by_kind: dict[str, AlphaResult]
    disagreements: tuple[JudgementDisagreement, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "reviewers": list(self.reviewers), "items": self.items, "percent": self.percent.to_dict(),
            "cohen": None if self.cohen is None else self.cohen.to_dict(),
            "fleiss": None if self.fleiss is None else self.fleiss.to_dict(), "alpha": self.alpha.to_dict(),
            "alpha_by_kind": {k: a.to_dict() for k, a in self.alpha_by_kind.items()},
            "disagreements": [d.__dict__ for d in self.disagreements],
        }


def judgement_agreement(store: Store, session: int | str | None = None) -> InterRaterResult:
    """Human-vs-human agreement on the blind judgements (``cant_tell`` counts as missing)."""
    repo = AgreementRepository(store)
    infos = [repo.session(session)] if session is not None else repo.sessions()
    units: dict[tuple[str, int], dict[str, str]] = defaultdict(dict)
    meta: dict[tuple[str, int], Any] = {}
    for info in infos:
        items = {i.id: i for i in repo.items_with_answers(info.id)}
        for j in repo.judgements(info.id):
            unit = (info.uid, j.ordinal)
            if j.answer != CANT_TELL:
                units[unit][j.reviewer] = j.answer
            meta[unit] = items[j.item_id]
    reviewers = tuple(sorted({r for answers in units.values() for r in answers}))
    ordered = sorted(units)
    data = [[units[u].get(r) for u in ordered] for r in reviewers]
    kinds = sorted({meta[u].kind for u in ordered})
    cohen = None
    if len(reviewers) == 2:
        a, b = reviewers
        groups: dict[str, tuple[list[str], list[str]]] = {}
        for kind in kinds:
            both = [u for u in ordered if meta[u].kind == kind and a in units[u] and b in units[u]]
            groups[kind] = ([units[u][a] for u in both], [units[u][b] for u in both])
        cohen = grouped_kappa(groups)
    fleiss = None
    if len(reviewers) > 2:
        table = counts_table(data, complete_only=True)
        fleiss = fleiss_kappa(table) if table else FleissResult(None, 0, len(reviewers), None, None,
                                                                 note="no item was judged by every reviewer")
    by_kind = {
        kind: krippendorff_alpha_nominal([[units[u].get(r) for u in ordered if meta[u].kind == kind] for r in reviewers])
        for kind in kinds
    }
    disagreements = tuple(
        JudgementDisagreement(
            session_uid=u[0], ordinal=u[1], item_id=meta[u].id, kind=meta[u].kind, trigger=meta[u].trigger,
            trajectory_id=(meta[u].trajectory_key or {}).get("trajectory_id"), answers=dict(sorted(units[u].items())),
            replay_answer=meta[u].replay_answer,
        )
        for u in ordered if len(set(units[u].values())) > 1
    )
    return InterRaterResult(
        reviewers=reviewers, items=sum(1 for u in ordered if len(units[u]) >= 2),
        percent=pairwise_percent_agreement(data), cohen=cohen, fleiss=fleiss, alpha=krippendorff_alpha_nominal(data),
        alpha_by_kind=by_kind, disagreements=disagreements,
    )


# -- inter-reviewer agreement on labels ---------------------------------------------------------
@dataclass(frozen=True)
class LabelPairScore:
    a: str
    b: str
    token_f1: float
    semantic_f1: float | None
    directive_f1: float
    agreement: bool  # the extraction comparator: trigger semantic_f1 >= 0.6 (lexical without a model)


@dataclass(frozen=True)
class LabelDisagreement:
    trajectory_pk: int
    trajectory_id: str
    corpus: str
    labels: dict[str, str]  # reviewer -> sentence
    pairs: tuple[LabelPairScore, ...]
    comparator_agrees: bool  # every pair agrees by the comparator (the wording differs only)
    adjudicated: str | None  # the sentence in force, if a lead has ruled


@dataclass(frozen=True)
class LabelAgreementResult:
    reviewers: tuple[str, ...]
    trajectories: int  # labelled by at least two reviewers
    pairs: int
    agreement: Rate  # comparator agreement over reviewer pairs
    token_agree: Rate
    identical: Rate  # trajectories whose labels are word-for-word the same
    mean_token_f1: float | None
    mean_directive_f1: float | None
    agreement_basis: str  # "semantic" | "lexical"
    disagreements: tuple[LabelDisagreement, ...]


def compare_labels(a: LabelText, b: LabelText, embed: EmbedFn | None = None) -> tuple[float, float | None, float, bool]:
    """(token F1, semantic F1, directive F1, agreement) of two reviewers' labels, symmetric."""
    if a.is_empty or b.is_empty:
        agree = a.is_empty and b.is_empty
        return (1.0 if agree else 0.0), None, (1.0 if agree else 0.0), agree
    one, _ = score_against(strip_when(a.trigger), a.directive, b, embed)
    two, _ = score_against(strip_when(b.trigger), b.directive, a, embed)
    best = max(one, two, key=lambda s: (s.agreement, s.semantic_f1, s.token_f1))
    return (best.token_f1, best.semantic_f1 if embed is not None else None,
            max(one.directive_f1, two.directive_f1), one.agreement or two.agreement)


def label_agreement(store: Store, corpus: str | None = None, embed: EmbedFn | None = None) -> LabelAgreementResult:
    repo = LabelRepository(store)
    by_trajectory: dict[int, list[Any]] = defaultdict(list)
    for label in repo.labels(corpus=corpus):
        assert label.trajectory_pk is not None
        by_trajectory[label.trajectory_pk].append(label)
    adjudicated = {a.trajectory_pk: a for a in repo.adjudications(corpus=corpus)}
    pairs: list[LabelPairScore] = []
    disagreements: list[LabelDisagreement] = []
    multi = identical = 0
    for pk, labels in sorted(by_trajectory.items()):
        if len(labels) < 2:
            continue
        multi += 1
        scores = []
        for x, y in combinations(sorted(labels, key=lambda lb: lb.reviewer), 2):
            tf1, sf1, df1, agree = compare_labels(x.text, y.text, embed)
            scores.append(LabelPairScore(x.reviewer, y.reviewer, tf1, sf1, df1, agree))
        pairs.extend(scores)
        same = len({lb.text.content_hash() for lb in labels}) == 1
        identical += same
        if not same:
            ruling = adjudicated.get(pk)
            disagreements.append(LabelDisagreement(
                trajectory_pk=pk, trajectory_id=labels[0].key.trajectory_id, corpus=labels[0].key.corpus,
                labels={lb.reviewer: lb.sentence for lb in sorted(labels, key=lambda lb: lb.reviewer)},
                pairs=tuple(scores), comparator_agrees=all(s.agreement for s in scores),
                adjudicated=None if ruling is None else ruling.text.sentence(),
            ))
    n = len(pairs)
    return LabelAgreementResult(
        reviewers=tuple(sorted({lb.reviewer for ls in by_trajectory.values() if len(ls) > 1 for lb in ls})),
        trajectories=multi, pairs=n, agreement=Rate.of(sum(p.agreement for p in pairs), n),
        token_agree=Rate.of(sum(p.token_f1 >= AGREEMENT_THRESHOLD for p in pairs), n), identical=Rate.of(identical, multi),
        mean_token_f1=(sum(p.token_f1 for p in pairs) / n) if n else None,
        mean_directive_f1=(sum(p.directive_f1 for p in pairs) / n) if n else None,
        agreement_basis="semantic" if embed is not None else "lexical", disagreements=tuple(disagreements),
    )


# -- adjudication ------------------------------------------------------------------------------
def adjudicate(store: Store, lead: str, trajectory_pk: int, chosen: str | LabelText, reason: str,
               expected_current: int | None = None) -> Adjudication:
    """The lead's ruling: ``chosen`` is a reviewer (take their label) or a label the lead wrote.

    The ruling becomes the ground truth (``LabelRepository.ground_truth``); every earlier label
    and ruling stays in the history. The rules (a reason, the chosen label exists, the ruling
    the lead saw is still in force) are the label service's, checked in its one transaction.
    """
    if isinstance(chosen, str):
        return adjudicate_label(store, trajectory_pk, lead, None, reason, chosen_reviewer=chosen,
                                expected_current=expected_current)
    return adjudicate_label(store, trajectory_pk, lead, chosen, reason, expected_current=expected_current)
