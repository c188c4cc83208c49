"""Build the run report (a plain dict): per-corpus rates with their denominators, extraction accuracy,
safety, human-vs-replay agreement and the ruler's floors."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from core.domain.errors import RunNotUsable
from core.metrics.extraction import ExtractionPair, measure
from core.metrics.ruler import floors as F
from core.metrics.ruler.model import DEFAULT_SEED, RulerSuite
from core.report.metrics import displayed_metrics
from core.stats.wilson import Rate
from core.store.corpus_repo import CorpusRepository
from core.store.engine import Store
from core.store.profile_repo import ProfileRepository
from core.store.replay_repo import ReplayRepository, RunInfo, StoredResult
from core.store.rule_repo import RuleRepository
from core.store.run_coverage import ReportRun, report_run

RATE_LABELS = {
    "extraction": "acceptance_rate",
    "reference": "acceptance_rate",
    "silence": "acceptance_rate",
    "rejection": "false_accept_rate",
}
EXTRACTION_COMPARATOR = ("reference-0.3.1 lexical matcher for semantic_f1 (no embedding), the metric's own "
                         "tokenizer for token_f1 / directive_f1; agreement = semantic_f1 >= 0.6 on the trigger (J6)")


def resolve_report_run(store: Store, run_id: int | None) -> ReportRun:
    """The run to read: the one asked for, else the last complete picture (core.store.run_coverage).

    A run that did not complete (failed, cancelled, killed, still running) holds results for
    only the rules it reached; its pass rates and intervals would read as the whole corpus's
    with nothing but the header saying otherwise. So it is refused, in one line that says how
    far it got (issue 25 item 7)."""
    chosen = report_run(store, run_id)
    if chosen is None:
        raise LookupError(f"no replay run #{run_id} in this store" if run_id is not None
                          else "no complete replay run in this store")
    run = chosen.run
    if run.status != "complete":
        reached = len(ReplayRepository(store).results(run.id))
        raise RunNotUsable(
            f"replay run #{run.id} is {run.status}: its figures would cover only the {reached} rule result"
            f"{'s' if reached != 1 else ''} it reached, so no report is made from it; report a complete run "
            "(omit --run for the newest) or replay again")
    return chosen


def resolve_run(store: Store, run_id: int | None) -> RunInfo:
    return resolve_report_run(store, run_id).run


def build_report(
    store: Store, run_id: int | None = None, *, ruler: RulerSuite | None = None, seed: int = DEFAULT_SEED,
    embed: Any = None,
) -> dict[str, Any]:
    picture = resolve_report_run(store, run_id)
    run = picture.run
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
        accuracy = measure(p).to_dict()
        accuracy["floors"] = {k: v.to_dict() for k, v in ex_floors[name].items()}
        extraction[name] = accuracy
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
            "id": run.id, "status": run.status, "profile": run.profile, "started_by": run.started_by,
            "model": run.model_id,
            "semantic": run.semantic_state, "corpus_hash": run.corpus_hash, "config_hash": run.config_hash,
            "pairs": run.pairs, "seconds": run.seconds, "thresholds": _thresholds(run, results),
            "replay_choices": run.config.get("replay") or {}, "pools": _pools(results),
            "extraction_comparator": EXTRACTION_COMPARATOR, "seed": seed,
            "trajectories": len(details), "rules": len(results), "read": picture.to_dict(),
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
    adopted = ProfileRepository(store).adoption_in_force()
    if adopted is not None and adopted != run.profile:  # the team adopted another profile than this run's
        report["run"]["adopted_profile"] = adopted
    from core.loop.report import loop_sections  # gate, injection, taint, cross-session (H15)

    report["loop"] = loop_sections(store, run.id)
    report["metrics"] = [m.to_dict() for m in displayed_metrics(report)]
    return report


def _thresholds(run: RunInfo, results: list[StoredResult]) -> dict[str, Any]:
    thresholds = run.config.get("thresholds") or {}
    flat = thresholds.get("flat")  # where the config keeps it (it was read from a key no config has)
    used = sorted({r.threshold for r in results})
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
