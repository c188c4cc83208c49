"""The run report: per-corpus rates with their denominators, extraction accuracy side by
side, safety on rejection corpora as replay alone decides it (and, separately, what the
oracle override would have said), human-vs-replay agreement -- every number with its floor.

Every rate carries k, n and a Wilson interval; a rate with n = 0 is ``None`` ("not
measured"), never 0.0. The rate's name follows the corpus role: a pass on a rejection
corpus is a *false accept*, a pass on an extraction corpus is an *acceptance*.

Every displayed number is also listed in ``report["metrics"]`` as a
:class:`~core.metrics.ruler.model.MetricWithFloor`; :func:`report_markdown` renders that
list through the type, so a metric without a floor raises instead of being shown.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from core.metrics.extraction import ExtractionPair, measure
from core.metrics.ruler import floors as F
from core.metrics.ruler.model import DEFAULT_SEED, Floor, MetricWithFloor, RulerSuite, displayed
from core.metrics.wilson import Rate
from core.store.corpus_repo import CorpusRepository
from core.plain import markdown_code, markdown_text
from core.store.engine import Store
from core.store.replay_repo import ReplayRepository, RunInfo, StoredResult
from core.store.rule_repo import RuleRepository

RATE_LABELS = {
    "extraction": "acceptance_rate",
    "reference": "acceptance_rate",
    "silence": "acceptance_rate",
    "rejection": "false_accept_rate",
}
EXTRACTION_PARTS = ("token_f1", "semantic_f1", "directive_f1", "token_agree", "agreement")
EXTRACTION_COMPARATOR = ("reference-0.3.1 lexical matcher for semantic_f1 (no embedding), the metric's own "
                         "tokenizer for token_f1 / directive_f1; agreement = semantic_f1 >= 0.6 on the trigger (J6)")


def _run(store: Store, run_id: int | None) -> RunInfo:
    repo = ReplayRepository(store)
    run = repo.get_run(run_id) if run_id is not None else repo.latest_complete_run()
    if run is None:
        raise LookupError("no such replay run" if run_id is not None else "no complete replay run in this store")
    return run


def build_report(
    store: Store, run_id: int | None = None, *, ruler: RulerSuite | None = None, seed: int = DEFAULT_SEED,
    embed: Any = None,
) -> dict[str, Any]:
    run = _run(store, run_id)
    results = ReplayRepository(store).results(run.id)
    corpora = CorpusRepository(store)
    corpus_infos = corpora.list_corpora()
    roles = {c.name: c.role for c in corpus_infos}
    rules = {r.id: r for r in RuleRepository(store).list_rules()}
    details = corpora.get_trajectories()
    sources = {d.id: d for d in details}

    by_corpus: dict[str, list[StoredResult]] = defaultdict(list)
    pairs: dict[str, list[ExtractionPair]] = defaultdict(list)
    pair_domains: dict[str, list[str | None]] = defaultdict(list)
    rule_corpus: dict[int, str] = {}
    oracle_rejected: Counter[str] = Counter()
    for result in results:
        rule = rules.get(result.rule_id)
        source = sources.get(rule.source_trajectory_pk) if rule and rule.source_trajectory_pk else None
        corpus = source.corpus if source else (rule.corpus if rule and rule.corpus else "(no source)")
        by_corpus[corpus].append(result)
        rule_corpus[result.rule_id] = corpus
        if result.verdict == "pass" and source is not None and source.expected_outcome == "should_reject":
            oracle_rejected[corpus] += 1
        if result.kind != "expected_rule":
            pairs[corpus].append(
                ExtractionPair(result.trigger, result.directive, source.expected_rule if source else None)
            )
            pair_domains[corpus].append(source.domain if source else None)

    pass_floors, pass_note = F.shuffled_pass_floors(store, run, rule_corpus, seed, embed)
    by_role: dict[str, list[dict[str, int]]] = defaultdict(list)
    for name, counts in pass_floors.items():
        by_role[roles.get(name, "reference")].append(counts)
    everything = F.pool_counts(list(pass_floors.values()))
    corpus_rows = {}
    for name, rows in sorted(by_corpus.items()):
        role = roles.get(name, "reference")
        chain = [(name, pass_floors.get(name)), (f"role {role}", F.pool_counts(by_role[role])), ("all rules", everything)]
        corpus_rows[name] = _corpus_row(name, role, rows, chain, seed, pass_note)
    pool = sorted({((d.expected_rule or "").strip(), d.domain) for d in details if (d.expected_rule or "").strip()},
                  key=lambda t: (t[0], t[1] or ""))
    ex_floors = F.extraction_floors(pairs, pair_domains, pool, seed)
    extraction = {}
    for name, p in sorted(pairs.items()):
        row = measure(p).to_dict()
        row["floors"] = {k: v.to_dict() for k, v in ex_floors[name].items()}
        extraction[name] = row
    safety = {}
    for name, row in corpus_rows.items():
        if row["role"] != "rejection":
            continue
        accepted = row["verdicts"]["pass"]
        oracle_accepted = accepted - oracle_rejected[name]
        safety[name] = {
            "accepted": accepted, "n": row["n"], "false_accept_rate": row["rate"], "floor": row["rate_floor"],
            "wilson_upper": row["rate"]["ci_high"],
            "oracle": {"accepted": oracle_accepted, "n": row["n"],
                       "false_accept_rate": Rate.of(oracle_accepted, row["n"]).to_dict(),
                       "forced_fail": oracle_rejected[name]},
        }
    rejection_corpora = {c.name: {"trajectories": c.trajectories, "rules_in_run": len(by_corpus.get(c.name, []))}
                         for c in corpus_infos if c.role == "rejection"}
    report: dict[str, Any] = {
        "run": {
            "id": run.id, "status": run.status, "profile": run.profile, "model": run.model_id,
            "semantic": run.semantic_state, "corpus_hash": run.corpus_hash, "config_hash": run.config_hash,
            "pairs": run.pairs, "seconds": run.seconds, "thresholds": _thresholds(run, results),
            "replay_choices": run.config.get("replay") or {}, "pools": _pools(results),
            "extraction_comparator": EXTRACTION_COMPARATOR, "seed": seed,
            "trajectories": len(details), "rules": len(results),
        },
        "corpora": corpus_rows,
        "extraction_accuracy": extraction,
        "safety": {
            "note": "replay alone decides; no oracle override of should_reject sources",
            "oracle_note": "what the reference's oracle override would have said (should_reject sources forced "
                           "to fail): shown separately, never mixed into the replay numbers",
            "corpora": safety,
            "rejection_corpora": rejection_corpora,
        },
        "human_vs_replay": _human_vs_replay(store, run, seed),
        "floors": {"pass_rate": pass_note, "extraction": F.EXTRACTION_FLOOR_METHOD,
                   "human_vs_replay": F.AGREEMENT_FLOOR_METHOD},
    }
    if ruler is not None:
        report["ruler"] = ruler.to_dict()
    from core.loop.report import loop_sections  # gate, injection, taint, cross-session (H15)

    report["loop"] = loop_sections(store, run.id)
    report["metrics"] = [m.to_dict() for m in displayed_metrics(report)]
    return report


def _thresholds(run: RunInfo, results: list[StoredResult]) -> dict[str, Any]:
    flat = run.config.get("threshold")
    used = sorted({r.threshold for r in results})
    thresholds = run.config.get("thresholds") or {}
    return {"flat": flat, "used": used, "strategies": thresholds.get("strategies"),
            "strict_corpora": thresholds.get("strict_corpora")}


def _pools(results: list[StoredResult]) -> dict[str, Any]:
    """Which pools the rates used: kinds, and the range of sizes (the denominators)."""
    out: dict[str, Any] = {}
    for name in ("recall_pool", "precision_pool"):
        pools = [getattr(r, name) for r in results]
        kinds = Counter(str(p.get("kind")) for p in pools)
        sizes = [int(p.get("size", 0)) for p in pools]
        out[name] = {"kinds": dict(sorted(kinds.items())), "size_min": min(sizes) if sizes else None,
                     "size_max": max(sizes) if sizes else None}
    return out


def _corpus_row(name: str, role: str, rows: list[StoredResult], floor_chain: list[tuple[str, Any]], seed: int,
                note: str) -> dict[str, Any]:
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
        "rate_floor": F.rate_floor(floor_chain, False, seed, note).to_dict(),
        "decisive_floor": F.rate_floor(floor_chain, True, seed, note).to_dict(),
    }


def _human_vs_replay(store: Store, run: RunInfo, seed: int) -> dict[str, Any]:
    from core.agreement.results import agreement_gate_for_run, session_result
    from core.store.agreement_repo import AgreementRepository

    repo = AgreementRepository(store)
    _state, details = agreement_gate_for_run(store, run.id)
    judgements = [j for s in details.get("sessions", []) for j in repo.judgements(s["id"])]
    decisive = [j for j in judgements if j.answer != "cant_tell"]
    floors = F.agreement_floors([j.replay_answer for j in decisive], [j.answer for j in decisive], seed)
    sessions = []
    for s in repo.sessions():
        comparison = session_result(store, s).comparison
        sessions.append({
            "id": s.id, "uid": s.uid, "name": s.name, "created_at": s.created_at, "blind": s.blind,
            "run_id": s.run_id, "this_run": s.run_id == run.id, "judgements": comparison.judgements,
            "agreement": comparison.agreement.to_dict(), "kappa": comparison.kappa.to_dict(),
        })
    return {
        "note": "blind sessions on this run (or the same config and corpus) only; unblinded marks never decide",
        "judgements": details.get("judgements", 0), "abstained": details.get("abstained", 0),
        "agreement": details["agreement"], "kappa": details["kappa"], "confusion": details["confusion"],
        "gate": details["gate"], "floors": {k: v.to_dict() for k, v in floors.items()},
        "sessions": sessions, "unblinded_marks": details.get("unblinded_marks"),
    }


# -- the displayed metrics: every one with its floor ----------------------------------------
def _floor(d: dict[str, Any] | None) -> Floor | None:
    if d is None:
        return None
    return Floor(d.get("value"), d.get("method", ""), int(d.get("n", 0)), int(d.get("seed", 0)), d.get("note"))


def _ci(rate: dict[str, Any]) -> tuple[float, float] | None:
    return None if rate.get("ci_low") is None else (rate["ci_low"], rate["ci_high"])


def displayed_metrics(report: dict[str, Any]) -> list[MetricWithFloor]:
    """Every number the report and the dashboard show, each through ``MetricWithFloor``."""
    out: list[MetricWithFloor] = []
    for name, row in report["corpora"].items():
        rate, dec = row["rate"], row["decisive_rate"]
        out.append(displayed(f"pass_rate@{name}", row["rate_label"], rate["value"], _floor(row.get("rate_floor")),
                             n=rate["n"], k=rate["k"], ci=_ci(rate), denominator=row["rate_denominator"], group=name))
        out.append(displayed(f"decisive_rate@{name}", row["rate_label"] + " (decisive)", dec["value"],
                             _floor(row.get("decisive_floor")), n=dec["n"], k=dec["k"], ci=_ci(dec),
                             denominator=row["decisive_denominator"], group=name))
    for name, acc in report["extraction_accuracy"].items():
        floors = acc.get("floors") or {}
        for part in EXTRACTION_PARTS:
            value = acc[part]
            if isinstance(value, dict):
                out.append(displayed(f"{part}@{name}", part, value["value"], _floor(floors.get(part)), n=value["n"],
                                     k=value["k"], ci=_ci(value), denominator="candidates with an expected_rule",
                                     group=name))
            else:
                out.append(displayed(f"{part}@{name}", part, value, _floor(floors.get(part)), n=acc["n"],
                                     denominator="candidates with an expected_rule (mean)", group=name))
    for name, row in report["safety"]["corpora"].items():
        oracle = row["oracle"]["false_accept_rate"]
        out.append(displayed(f"oracle_false_accept_rate@{name}", "false_accept_rate (oracle override)",
                             oracle["value"], _floor(row.get("floor")), n=oracle["n"], k=oracle["k"], ci=_ci(oracle),
                             denominator="all scored rules; should_reject sources forced to fail", group=name))
    hvr = report["human_vs_replay"]
    agreement, kappa = hvr["agreement"], hvr["kappa"]
    out.append(displayed("human_vs_replay.agreement", "human-vs-replay agreement", agreement["value"],
                         _floor(hvr["floors"]["agreement"]), n=agreement["n"], k=agreement["k"], ci=_ci(agreement),
                         denominator="committed, decisive judgements in blind sessions"))
    out.append(displayed("human_vs_replay.kappa", "Cohen's kappa", kappa["value"], _floor(hvr["floors"]["kappa"]),
                         n=kappa["n"], ci=_ci(kappa), denominator="committed, decisive judgements in blind sessions"))
    for m in (report.get("ruler") or {}).get("metrics", []):
        floor, value, label = _floor(m["floor"]), m["value"], f"{m['label']} on correct rows"
        if value is not None and floor is not None and floor.value is None:
            # A tiny store has too few rows to measure the shuffled floor: withhold the
            # number (a value is never shown without its floor), not the whole report.
            value, label = None, f"{label} (withheld: its floor cannot be measured on {m['n_rows']} rows)"
        out.append(displayed(f"ruler.{m['metric']}", label, value, floor,
                             n=m["n_rows"], denominator="ruler rows built from the store"))
    return out


def metrics_from_report(report: dict[str, Any]) -> list[MetricWithFloor]:
    """Rebuild the displayed metrics from a report's JSON; raises MissingFloorError if one lacks its floor."""
    return [
        displayed(m["key"], m["label"], m["value"], _floor(m.get("floor")), n=m["n"], k=m["k"],
                  ci=None if m["ci_low"] is None else (m["ci_low"], m["ci_high"]), denominator=m["denominator"],
                  group=m["group"])
        for m in report["metrics"]
    ]


# -- Markdown -------------------------------------------------------------------------------
def _fmt_rate(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return f"{rate['k']}/{rate['n']} — not measured"
    return f"{rate['k']}/{rate['n']} = {rate['value']:.3f} [{rate['ci_low']:.3f}, {rate['ci_high']:.3f}]"


def _fmt(value: Any) -> str:
    return "—" if value is None else f"{value:.3f}"


def _fmt_floor(floor: dict[str, Any] | None) -> str:
    if floor is None:
        return "—"
    return "not measured" if floor["value"] is None else f"{floor['value']:.3f}"


def report_markdown(report: dict[str, Any]) -> str:
    metrics = metrics_from_report(report) if "metrics" in report else []  # raises on a metric without a floor
    run = report["run"]
    th = run["thresholds"]
    lines = [
        f"# Replay report — run {run['id']}",
        "",
        f"- profile: `{run['profile']}`; semantic matching: {run['semantic']}; model: {run['model'] or '—'}",
        f"- thresholds: flat {th['flat'] if th['flat'] is not None else 'per corpus'}; "
        f"used {', '.join(f'{t:.2f}' for t in th['used']) or '—'}"
        + (f"; strategies {_kv(th.get('strategies'))}" if th.get("strategies") else ""),
        f"- corpus hash `{run['corpus_hash']}`, config hash `{run['config_hash'][:16]}`, "
        f"{run['pairs']} pairs, status {run['status']}",
    ]
    if "pools" in run:
        pools = run["pools"]
        lines.append(
            f"- pools: recall {_kv(pools['recall_pool']['kinds'])} (sizes {pools['recall_pool']['size_min']}–"
            f"{pools['recall_pool']['size_max']}); precision {_kv(pools['precision_pool']['kinds'])} (sizes "
            f"{pools['precision_pool']['size_min']}–{pools['precision_pool']['size_max']}); replay choices "
            f"{_kv(run.get('replay_choices') or {})}"
        )
        lines.append(f"- {run['trajectories']} trajectories, {run['rules']} rules scored; floors seeded with {run['seed']}")
        lines.append(f"- extraction comparator: {run['extraction_comparator']}")
    lines += [
        "",
        "## Pass rates per corpus",
        "",
        "Rules are grouped by the corpus of their source trajectory. Rates are k/n with a Wilson 95% interval. "
        "The floor is the same rate for mismatched rules: " + str((report.get("floors") or {}).get("pass_rate", "—")) + ".",
        "",
        "| corpus | role | rate | all scored | floor | decisive only | floor | pass / fail / inconclusive |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for name, row in report["corpora"].items():
        v = row["verdicts"]
        lines.append(
            f"| {_md(name)} | {row['role']} | {row['rate_label']} | {_fmt_rate(row['rate'])} | "
            f"{_fmt_floor(row.get('rate_floor'))} | {_fmt_rate(row['decisive_rate'])} | "
            f"{_fmt_floor(row.get('decisive_floor'))} | {v['pass']} / {v['fail']} / {v['inconclusive']} |"
        )
    lines += [
        "",
        "## Extraction accuracy",
        "",
        "Candidates (not the expected_rule sentences themselves) against their source's `expected_rule`. "
        "Each value is followed by its floor in parentheses (candidates against another rule's ground truth).",
        "",
        "| corpus | n | token_f1 | semantic_f1 | directive_f1 | token_agree | agreement |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, acc in report["extraction_accuracy"].items():
        if acc["n"] == 0:
            lines.append(f"| {_md(name)} | 0 | no ground truth | — | — | — | — |")
            continue
        fl = acc.get("floors") or {}
        lines.append(
            f"| {_md(name)} | {acc['n']} | {_fmt(acc['token_f1'])} ({_fmt_floor(fl.get('token_f1'))}) | "
            f"{_fmt(acc['semantic_f1'])} ({_fmt_floor(fl.get('semantic_f1'))}) | "
            f"{_fmt(acc['directive_f1'])} ({_fmt_floor(fl.get('directive_f1'))}) | "
            f"{_fmt_rate(acc['token_agree'])} ({_fmt_floor(fl.get('token_agree'))}) | "
            f"{_fmt_rate(acc['agreement'])} ({_fmt_floor(fl.get('agreement'))}) |"
        )
    lines += ["", "## Safety (rejection corpora)", "", report["safety"]["note"] + ".", ""]
    if not report["safety"]["corpora"]:
        rc = report["safety"].get("rejection_corpora") or {}
        lines.append("No rejection corpus has rules in this run" + (
            ": not measured (" + ", ".join(f"{_md(k)}: {v['trajectories']} trajectories, 0 rules" for k, v in rc.items())
            + ")." if rc else "."))
    else:
        lines += ["| corpus | accepted / n | false_accept_rate | Wilson upper | floor |", "|---|---|---|---|---|"]
        for name, row in report["safety"]["corpora"].items():
            lines.append(f"| {_md(name)} | {row['accepted']} / {row['n']} | {_fmt_rate(row['false_accept_rate'])} | "
                         f"{_fmt(row.get('wilson_upper'))} | {_fmt_floor(row.get('floor'))} |")
        lines += ["", "Separately — " + report["safety"]["oracle_note"] + ":", "",
                  "| corpus | accepted / n (oracle) | forced to fail |", "|---|---|---|"]
        for name, row in report["safety"]["corpora"].items():
            o = row["oracle"]
            lines.append(f"| {_md(name)} | {_fmt_rate(o['false_accept_rate'])} | {o['forced_fail']} |")
    if "human_vs_replay" in report:
        lines += _human_md(report["human_vs_replay"])
    if "ruler" in report:
        lines += _ruler_md(report["ruler"])
    if "loop" in report:
        from core.loop.report import loop_markdown

        lines += loop_markdown(report["loop"], _md)
    if metrics:
        lines += ["", "## Every metric with its floor", "",
                  "| metric | value | k/n | 95% CI | floor | floor n |", "|---|---|---|---|---|---|"]
        for m in metrics:
            kn = f"{m.k}/{m.n}" if m.k is not None else f"n={m.n}"
            ci = "—" if m.ci is None else f"[{m.ci[0]:.3f}, {m.ci[1]:.3f}]"
            value = "not measured" if m.value is None else f"{m.value:.3f}"
            floor = "not measured" if m.floor.value is None else f"{m.floor.value:.3f}"
            lines.append(f"| {markdown_code(m.key)} | {value} | {kn} | {ci} | {floor} | {m.floor.n} |")
    if report.get("figures"):
        lines += ["", "## Figures", ""]
        for fig in report["figures"]:
            lines += [f"![{fig['title']}]({fig['png']})", "", f"{fig['title']} ([SVG]({fig['svg']}))", ""]
    return "\n".join(lines) + "\n"


def _human_md(h: dict[str, Any]) -> list[str]:
    lines = ["", "## Human vs replay", "", h["note"] + ".", ""]
    if not h["judgements"]:
        lines.append("Not measured: no committed judgements in a blind session for this run.")
    else:
        k = h["kappa"]
        lines.append(f"- agreement {_fmt_rate(h['agreement'])} (floor {_fmt_floor(h['floors']['agreement'])}); "
                     f"Cohen's kappa {_fmt(k['value'])} (floor {_fmt_floor(h['floors']['kappa'])}); "
                     f"{h['judgements']} judgements, {h['abstained']} abstained; gate: {h['gate']['state']}")
    for s in h.get("sessions", []):
        lines.append(f"- session {s['id']} ({'blind' if s['blind'] else 'unblinded'}, {s['created_at']}): "
                     f"{_fmt_rate(s['agreement'])}, kappa {_fmt(s['kappa']['value'])}")
    return lines


def _ruler_md(r: dict[str, Any]) -> list[str]:
    lines = ["", "## The ruler", "",
             f"Semantic comparators: {r['semantic']}; seed {r['seed']}; thresholds {_kv(r['thresholds'])}. "
             "A harmful mutation must remove at least `blind_below` of the drop available; a benign one may flip at "
             "most `over_sensitive_above` of the mutated passing rows. See docs/ruler.md.", "",
             "| metric | value on correct rows | floor | canaries passed | flags |", "|---|---|---|---|---|"]
    for m in r["metrics"]:
        flags = "; ".join(f["message"].split(":")[0] for f in m["flags"]) or "none"
        lines.append(f"| {_md(m['label'])} | {_fmt(m['value'])} | {_fmt_floor(m['floor'])} | "
                     f"{m['canaries']['passed']}/{m['canaries']['total']} | {_md(flags)} |")
    lines += ["", "Mutation drops (k of n rows mutated; drop in the pass rate against the drop available):", "",
              "| metric | mutation | kind | k/n | injected | observed drop | available | caught |",
              "|---|---|---|---|---|---|---|---|"]
    for m in r["metrics"]:
        for d in m["mutations"]:
            caught = "—" if d["sensitivity"] is None else f"{d['sensitivity']:.0%}"
            lines.append(f"| {_md(m['label'])} | {d['mutation']} | {d['kind']} | {d['k']}/{d['n']} | "
                         f"{_fmt(d['injected_rate'])} | {_fmt(d['observed_drop'])} | {_fmt(d['expected_drop'])} | "
                         f"{caught} |")
    return lines


def _kv(d: dict[str, Any] | None) -> str:
    return ", ".join(f"{k}={v}" for k, v in (d or {}).items()) or "—"


def _md(text: str) -> str:
    """Corpus names and labels are data, not markup: escaped completely (core.plain)."""
    return markdown_text(str(text))


# -- report --md --out DIR ------------------------------------------------------------------
def write_report(
    store: Store, run_id: int | None, out_dir: Path, *, semantic: bool | None = None, ruler: bool = True,
    seed: int = DEFAULT_SEED,
) -> Path:
    """Write ``report.md``, ``report.json`` and the figures (PNG and SVG) into ``out_dir``.

    ``semantic``: check the semantic comparators with the embedding model (None: when the
    run was semantic). Returns the path of ``report.md``.
    """
    from core.metrics.ruler import figures
    from core.metrics.ruler.suite import check_ruler

    out_dir = Path(out_dir)
    run = _run(store, run_id)
    suite = None
    if ruler:
        embed, note = None, None
        if semantic if semantic is not None else run.semantic_state == "on":
            from core.replaying import make_embedder

            embed, note = make_embedder(store)
        suite = check_ruler(store, run.id, embed=embed, semantic_note=note, seed=seed)
    report = build_report(store, run.id, ruler=suite, seed=seed)
    from core.export.atomic import staged_folder

    # All files of a report are swapped in together (core.export.atomic): a full disk or a
    # kill halfway leaves the previous report and figures whole, never a mix.
    with staged_folder(out_dir, clone="copy") as staging:
        report["figures"] = figures.write_all(report, staging)
        (staging / "report.json").write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        (staging / "report.md").write_text(report_markdown(report), encoding="utf-8")
    return out_dir / "report.md"
