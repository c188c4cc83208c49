"""Tables of the agreement results: agreement per stratum (and per item kind), Wilson intervals."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.stats.wilson import Rate

from cauterule_gui.models.formatting import BUCKET_WORDS
from cauterule_gui.models.rows_table_model import RowsTableModel


def rate_cell(rate: Rate) -> str:
    if rate.value is None or rate.ci is None:
        return f"{rate.k}/{rate.n} = —"
    return f"{rate.k}/{rate.n} = {rate.value:.2f} [{rate.ci[0]:.2f}–{rate.ci[1]:.2f}]"


def stratum_text(stratum: str) -> str:
    """``evidence:near_miss@failures`` -> ``evidence: near-miss (failures)``."""
    kind, _, rest = stratum.partition(":")
    bucket, _, corpus = rest.partition("@")
    return f"{kind}: {BUCKET_WORDS.get(bucket, bucket)}" + (f" ({corpus})" if corpus else "")


@dataclass(frozen=True)
class StratumRow:
    group: str  # "stratum" | "kind"
    name: str
    agreement: Rate
    abstained: int
    sampled: int | None  # items sampled in the stratum
    population: int | None  # items in the run


COLUMNS: tuple[tuple[str, str], ...] = (
    ("Stratum", "replay's verdict or evidence bucket the items were sampled from"),
    ("Agreement", "decisive judgements agreeing with replay, with the Wilson 95 % interval"),
    ("Can't tell", "committed as can't tell: left out of every statistic"),
    ("Sampled / run", "items sampled in this stratum / items the run offered"),
)


class AgreementStratumModel(RowsTableModel[StratumRow]):
    COLUMNS = COLUMNS
    CENTRED = frozenset({2, 3})

    def cell(self, item: StratumRow, column: int) -> str:
        if column == 0:
            return stratum_text(item.name) if item.group == "stratum" else f"all {item.name} items"
        if column == 1:
            return rate_cell(item.agreement)
        if column == 2:
            return str(item.abstained)
        if column == 3:
            if item.sampled is None:
                return "—"
            return f"{item.sampled} / {item.population}" if item.population is not None else str(item.sampled)
        return ""


def stratum_rows(result: object) -> list[StratumRow]:
    """Per item kind, then per stratum, from a ``SessionResult``."""
    comparison = result.comparison  # type: ignore[attr-defined]
    strata = result.session.strata  # type: ignore[attr-defined]
    rows = [StratumRow("kind", k.kind, k.agreement, k.abstained, None, None) for k in comparison.per_kind]
    for s in comparison.per_stratum:
        info = strata.get(s.stratum, {})
        rows.append(StratumRow("stratum", s.stratum, s.agreement, s.abstained, info.get("sampled"),
                               info.get("population")))
    return rows


def scope_lines(result: Any) -> list[str]:
    """Scope agreement and the scope-corrected recall, reported apart from the gate (firing + verdict)."""
    if result.session.old_question:
        return ["Old single question: this session was made before firing and scope were asked apart; its "
                "results are kept as they were and its evidence items do not feed the gate."]
    scope, recall = result.scope, result.scoped_recall
    lines = [f"Scope agreement (share of replay's recall denominator a human judges in scope): "
             f"{rate_cell(scope.agreement)}; domain-less rules {rate_cell(scope.domain_less)}"
             + (f"; {scope.cant_tell} can't tell" if scope.cant_tell else "")]
    if recall.estimate is not None and recall.ci is not None and recall.replay_recall is not None:
        lines.append(f"Recall: replay {recall.replay_recall:.2f} · scope-corrected {recall.estimate:.2f} "
                     f"[{recall.ci[0]:.2f}–{recall.ci[1]:.2f}] ({recall.label})")
    else:
        lines.append(f"Scope-corrected recall: — ({recall.label})")
    return lines
