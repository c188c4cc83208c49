"""The run report: per-corpus rates with their denominators, extraction accuracy side by
side, and safety on rejection corpora as replay alone decides it (no oracle override).

Every rate carries k, n and a Wilson interval; a rate with n = 0 is ``None`` ("not
measured"), never 0.0. The rate's name follows the corpus role: a pass on a rejection
corpus is a *false accept*, a pass on an extraction corpus is an *acceptance*.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from core.metrics.extraction import ExtractionPair, measure
from core.metrics.wilson import Rate
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository, RunInfo, StoredResult
from core.store.rule_repo import RuleRepository

RATE_LABELS = {
    "extraction": "acceptance_rate",
    "reference": "acceptance_rate",
    "silence": "acceptance_rate",
    "rejection": "false_accept_rate",
}


def _run(store: Store, run_id: int | None) -> RunInfo:
    repo = ReplayRepository(store)
    run = repo.get_run(run_id) if run_id is not None else repo.latest_complete_run()
    if run is None:
        raise LookupError("no such replay run" if run_id is not None else "no complete replay run in this store")
    return run


def build_report(store: Store, run_id: int | None = None) -> dict[str, Any]:
    run = _run(store, run_id)
    results = ReplayRepository(store).results(run.id)
    corpora = CorpusRepository(store)
    roles = {c.name: c.role for c in corpora.list_corpora()}
    rules = {r.id: r for r in RuleRepository(store).list_rules()}
    source_pks = [r.source_trajectory_pk for r in rules.values() if r.source_trajectory_pk is not None]
    sources = {d.id: d for d in corpora.get_trajectories(ids=source_pks)}

    by_corpus: dict[str, list[StoredResult]] = defaultdict(list)
    pairs: dict[str, list[ExtractionPair]] = defaultdict(list)
    for result in results:
        rule = rules.get(result.rule_id)
        source = sources.get(rule.source_trajectory_pk) if rule and rule.source_trajectory_pk else None
        corpus = source.corpus if source else (rule.corpus if rule and rule.corpus else "(no source)")
        by_corpus[corpus].append(result)
        if result.kind != "expected_rule":
            pairs[corpus].append(
                ExtractionPair(result.trigger, result.directive, source.expected_rule if source else None)
            )

    corpus_rows = {name: _corpus_row(name, roles.get(name, "reference"), rows) for name, rows in sorted(by_corpus.items())}
    extraction = {name: measure(p).to_dict() for name, p in sorted(pairs.items())}
    safety = {
        name: {"accepted": row["verdicts"]["pass"], "n": row["n"], "false_accept_rate": row["rate"]}
        for name, row in corpus_rows.items()
        if row["role"] == "rejection"
    }
    return {
        "run": {
            "id": run.id, "status": run.status, "profile": run.profile, "model": run.model_id,
            "semantic": run.semantic_state, "corpus_hash": run.corpus_hash, "config_hash": run.config_hash,
            "pairs": run.pairs, "seconds": run.seconds, "thresholds": _thresholds(run, results),
        },
        "corpora": corpus_rows,
        "extraction_accuracy": extraction,
        "safety": {
            "note": "replay alone decides; no oracle override of should_reject sources",
            "corpora": safety,
        },
    }


def _thresholds(run: RunInfo, results: list[StoredResult]) -> dict[str, Any]:
    flat = run.config.get("threshold")
    used = sorted({r.threshold for r in results})
    return {"flat": flat, "used": used}


def _corpus_row(name: str, role: str, rows: list[StoredResult]) -> dict[str, Any]:
    verdicts = Counter(r.verdict for r in rows)
    reasons = Counter(r.reason.split(":")[0] for r in rows)
    passes, fails = verdicts.get("pass", 0), verdicts.get("fail", 0)
    label = RATE_LABELS.get(role, "acceptance_rate")
    return {
        "role": role,
        "rate_label": label,
        "n": len(rows),
        "verdicts": {"pass": passes, "fail": fails, "inconclusive": verdicts.get("inconclusive", 0)},
        "reasons": dict(sorted(reasons.items())),
        "rate": Rate.of(passes, len(rows)).to_dict(),
        "rate_denominator": "all scored rules",
        "decisive_rate": Rate.of(passes, passes + fails).to_dict(),
        "decisive_denominator": "pass + fail (inconclusive excluded)",
    }


def _fmt_rate(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return f"{rate['k']}/{rate['n']} — not measured"
    return f"{rate['k']}/{rate['n']} = {rate['value']:.3f} [{rate['ci_low']:.3f}, {rate['ci_high']:.3f}]"


def _fmt(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def report_markdown(report: dict[str, Any]) -> str:
    run = report["run"]
    lines = [
        f"# Replay report — run {run['id']}",
        "",
        f"- profile: `{run['profile']}`; semantic matching: {run['semantic']}; model: {run['model'] or '—'}",
        f"- thresholds: flat {run['thresholds']['flat'] if run['thresholds']['flat'] is not None else 'per corpus'}; "
        f"used {', '.join(f'{t:.2f}' for t in run['thresholds']['used']) or '—'}",
        f"- corpus hash `{run['corpus_hash']}`, config hash `{run['config_hash'][:16]}`, "
        f"{run['pairs']} pairs, status {run['status']}",
        "",
        "## Pass rates per corpus",
        "",
        "Rules are grouped by the corpus of their source trajectory. Rates are k/n with a Wilson 95% interval.",
        "",
        "| corpus | role | rate | all scored | decisive only | pass / fail / inconclusive |",
        "|---|---|---|---|---|---|",
    ]
    for name, row in report["corpora"].items():
        v = row["verdicts"]
        lines.append(
            f"| {_md(name)} | {row['role']} | {row['rate_label']} | {_fmt_rate(row['rate'])} | "
            f"{_fmt_rate(row['decisive_rate'])} | {v['pass']} / {v['fail']} / {v['inconclusive']} |"
        )
    lines += [
        "",
        "## Extraction accuracy",
        "",
        "Candidates (not the expected_rule sentences themselves) against their source's `expected_rule`.",
        "",
        "| corpus | n | token_f1 | semantic_f1 | directive_f1 | token_agree | agreement |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, acc in report["extraction_accuracy"].items():
        if acc["n"] == 0:
            lines.append(f"| {_md(name)} | 0 | no ground truth | — | — | — | — |")
            continue
        lines.append(
            f"| {_md(name)} | {acc['n']} | {_fmt(acc['token_f1'])} | {_fmt(acc['semantic_f1'])} | "
            f"{_fmt(acc['directive_f1'])} | {_fmt_rate(acc['token_agree'])} | {_fmt_rate(acc['agreement'])} |"
        )
    lines += ["", "## Safety (rejection corpora)", "", report["safety"]["note"] + ".", ""]
    if not report["safety"]["corpora"]:
        lines.append("No rejection corpus has rules in this run.")
    else:
        lines += ["| corpus | accepted / n | false_accept_rate |", "|---|---|---|"]
        for name, row in report["safety"]["corpora"].items():
            lines.append(f"| {_md(name)} | {row['accepted']} / {row['n']} | {_fmt_rate(row['false_accept_rate'])} |")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    """Escape table-breaking characters: corpus names are data, not markup."""
    return text.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
