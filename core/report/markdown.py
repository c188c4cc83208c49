"""The report as Markdown: every number rendered through its ``MetricWithFloor``; untrusted text escaped."""

from __future__ import annotations

from typing import Any

from core.metrics.registry import EXTRACTION_METRICS
from core.plain import markdown_code, markdown_text
from core.report.metrics import metrics_from_report


# -- Markdown -------------------------------------------------------------------------------
def _fmt_rate(rate: dict[str, Any]) -> str:
    if rate["value"] is None:
        return f"{rate['k']}/{rate['n']} — not measured"
    return f"{rate['k']}/{rate['n']} = {rate['value']:.3f} [{rate['ci_low']:.3f}, {rate['ci_high']:.3f}]"


def _fmt_rate_with_floor(rate: dict[str, Any], floor: dict[str, Any] | None) -> str:
    """A rate beside its floor; a measured rate whose floor cannot be measured is withheld (docs/ruler.md)."""
    if rate["value"] is not None and floor is not None and floor["value"] is None:
        return f"{rate['k']}/{rate['n']} — withheld (its floor cannot be measured)"
    return _fmt_rate(rate)


def _why_no_floor(floor: dict[str, Any] | None) -> str:
    if floor is None or floor["value"] is not None:
        return _fmt_floor(floor)
    return "not measured: " + markdown_text(str(floor.get("note") or floor.get("method") or "no mismatched pair"))


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
        f"- profile: `{run['profile']}`"
        + (f" (the store's adopted profile is `{run['adopted_profile']}`: this evidence is not from it)"
           if run.get("adopted_profile") else "")
        + f"; semantic matching: {run['semantic']}; model: {run['model'] or '—'}",
        f"- thresholds: flat {th['flat'] if th['flat'] is not None else 'per corpus'}; "
        f"used {', '.join(f'{t:.2f}' for t in th['used']) or '—'}"
        + (f"; strategies {_kv(th.get('strategies'))}" if th.get("strategies") else ""),
        f"- corpus hash `{run['corpus_hash']}`, config hash `{run['config_hash'][:16]}`, "
        f"{run['pairs']} pairs, status {run['status']}",
    ]
    if run.get("started_by"):  # a team store's run: the login that ran it (set by the server)
        lines.append(f"- run by: {_md(run['started_by'])}")
    if run.get("read"):
        lines.append(f"- read: {run['read']['description']}")  # our words and run numbers only
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
            f"| {_md(name)} | {row['role']} | {row['rate_label']} | "
            f"{_fmt_rate_with_floor(row['rate'], row.get('rate_floor'))} | {_why_no_floor(row.get('rate_floor'))} | "
            f"{_fmt_rate_with_floor(row['decisive_rate'], row.get('decisive_floor'))} | "
            f"{_why_no_floor(row.get('decisive_floor'))} | {v['pass']} / {v['fail']} / {v['inconclusive']} |"
        )
    lines += [
        "",
        "## Extraction accuracy",
        "",
        "Candidates (not the expected_rule sentences themselves) against their source's `expected_rule`. "
        "Each value is followed by its floor in parentheses (candidates against another rule's ground truth).",
        "",
        "| corpus | n | " + " | ".join(m.heading for m in EXTRACTION_METRICS) + " |",
        "|---|---|" + "---|" * len(EXTRACTION_METRICS),
    ]
    for name, acc in report["extraction_accuracy"].items():
        if acc["n"] == 0:
            lines.append(f"| {_md(name)} | 0 | no ground truth |" + " — |" * (len(EXTRACTION_METRICS) - 1))
            continue
        fl = acc.get("floors") or {}
        cells = [f"{_fmt(acc[m.key]) if m.aggregate == 'mean' else _fmt_rate(acc[m.key])} ({_fmt_floor(fl.get(m.key))})"
                 for m in EXTRACTION_METRICS]
        lines.append(f"| {_md(name)} | {acc['n']} | " + " | ".join(cells) + " |")
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
                  "| metric | value | k/n | 95% CI | floor | floor n | why not measured |",
                  "|---|---|---|---|---|---|---|"]
        for m in metrics:
            kn = f"{m.k}/{m.n}" if m.k is not None else f"n={m.n}"
            ci = "—" if m.ci is None else f"[{m.ci[0]:.3f}, {m.ci[1]:.3f}]"
            value = "not measured" if m.value is None else f"{m.value:.3f}"
            floor = "not measured" if m.floor.value is None else f"{m.floor.value:.3f}"
            why = "" if m.floor.value is not None else markdown_text(m.floor.note or "")
            if m.value is None and "(withheld:" in m.label:
                why = "withheld: " + (why or "its floor cannot be measured")
            lines.append(f"| {markdown_code(m.key)} | {value} | {kn} | {ci} | {floor} | {m.floor.n} | {why} |")
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
