"""Report sections for the loop: the gate, where rules fire at injection, source taint and
the last cross-session measurement. ``core/report/`` adds them under ``report["loop"]``
and renders them after its own sections (append-only hooks)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from core.loop.saved import load_cross_session
from core.loop.views import gate_summaries, injection_for_run, taint_summary
from core.store.engine import Store

GATE_NOTE = ("Would 0.3.1's pre-extraction gate silence each record (strict and relaxed), beside what "
             "`expected_outcome` says; silence rates are k/n with a Wilson 95% interval. A disagreement is a "
             "should_silence record the gate lets through or a should_extract record it silences.")
INJECTION_NOTE = ("Where each rule fires at injection (0.3.1 `match_rules`: trigger is a case-insensitive substring "
                  "of the task, no domain filter), against replay's prevented / broken sets. Precision here = fired "
                  "failures / fired trajectories (source excluded), with a Wilson 95% interval.")


def loop_sections(store: Store, run_id: int) -> dict[str, Any]:
    injection = injection_for_run(store, run_id)
    return {
        "gate": [s.to_dict() for s in gate_summaries(store)],
        "injection": {"note": INJECTION_NOTE, "rules": {str(k): v.to_dict() for k, v in injection.items()}},
        "taint": taint_summary(store),
        "cross_session": load_cross_session(store),
    }


def _rate(rate: dict[str, Any]) -> str:
    if rate.get("value") is None:
        return f"{rate['k']}/{rate['n']} — not measured"
    return f"{rate['k']}/{rate['n']} = {rate['value']:.3f} [{rate['ci_low']:.3f}, {rate['ci_high']:.3f}]"


def loop_markdown(loop: dict[str, Any], md: Callable[[str], str]) -> list[str]:
    """Markdown lines; ``md`` is the report's escape helper for data (names, ids, reasons)."""
    lines = ["", "## Pre-extraction gate", "", GATE_NOTE, "",
             "| corpus | mode | silenced | expected_outcome | reasons | disagreements |", "|---|---|---|---|---|---|"]
    for g in loop["gate"]:
        expected = ", ".join(f"{md(k)} {v}" for k, v in g["expected_outcome"].items())
        reasons = ", ".join(f"{md(k)} {v}" for k, v in g["reasons"].items())
        lines.append(f"| {md(g['corpus'])} | {g['mode']} | {_rate(g['silence_rate'])} | {expected} | {reasons} | "
                     f"{len(g['disagreements'])} |")
    listed = [(g, d) for g in loop["gate"] if g["mode"] == "strict" for d in g["disagreements"]]
    if listed:
        lines += ["", "Disagreements (strict gate):", ""]
        lines += [f"- {md(g['corpus'])} / {md(d['trajectory'])}: expected {md(str(d['expected_outcome']))}, gate "
                  f"{d['gate']} ({md(d['why'])})" for g, d in listed[:50]]
        if len(listed) > 50:
            lines.append(f"- … and {len(listed) - 50} more (see report.json)")
    inj = loop["injection"]
    lines += ["", "## Fires at injection", "", inj["note"], ""]
    if not inj["rules"]:
        lines.append("No rules in this run.")
    else:
        lines += ["| rule | fires on | failures / successes | precision | also prevented | also broken | "
                  "injection only | prevented, not fired |", "|---|---|---|---|---|---|---|---|"]
        for rule_id, o in inj["rules"].items():
            lines.append(f"| {rule_id} | {o['fired']} | {o['fired_failures']} / {o['fired_successes']} | "
                         f"{_rate(o['precision'])} | {o['also_prevented']} | {o['also_broken']} | {o['fired_only']} | "
                         f"{o['prevented_not_fired']} |")
    t = loop["taint"]
    lines += ["", "## Source trust (taint)", "",
              f"{t['tainted_trajectories']} of {t['trajectories']} trajectories tainted "
              f"({t['reference_tainted_trajectories']} by the 0.3.1 scan of step input/output alone); "
              f"{len(t['tainted_candidates'])} of {t['candidates']} candidates have a tainted source. Tainted "
              f"candidates approved: {t['tainted_approved']} ({t['tainted_approved_with_justification']} with a "
              "recorded justification).", ""]
    if t["tainted_candidates"]:
        lines += ["| rule | source | why | approved |", "|---|---|---|---|"]
        lines += [f"| {c['rule_id']} {md(c['origin'])} | {md(str(c['source']))} | {md(c['why'])} | "
                  f"{'yes' + (' (justified)' if c['justified'] else ' (no justification recorded)') if c['approved'] else 'no'} |"
                  for c in t["tainted_candidates"]]
    cs = loop.get("cross_session")
    lines += ["", "## Cross-session repeat failures", ""]
    if not cs:
        lines.append("Not measured: run `cauterule-workbench cross-session --baseline … --intervention … --save`.")
    else:
        b, i = cs["baseline"], cs["intervention"]
        lines += [f"Files: {md(str(cs.get('baseline_file')))} vs {md(str(cs.get('intervention_file')))}; window "
                  f"{cs['window'] or 'all sessions'}; history carried into the window: {cs['carry_history']}.", "",
                  f"- baseline repeats {_rate(b['repeat_rate'])}; intervention repeats {_rate(i['repeat_rate'])}",
                  f"- reduction {cs['reduction']:.3f} (target {cs['target']:.2f}: "
                  f"{'met' if cs['meets_target'] else 'not met'})",
                  "- failures per session: baseline " + ", ".join(f"s{k} {v}" for k, v in b["failures_per_session"].items())
                  + "; intervention " + ", ".join(f"s{k} {v}" for k, v in i["failures_per_session"].items()), "",
                  "| failure class | baseline repeats / failures | intervention repeats / failures |", "|---|---|---|"]
        lines += [f"| {md(r['failure_class'])} | {r['baseline_repeats']} / {r['baseline_failures']} | "
                  f"{r['intervention_repeats']} / {r['intervention_failures']} |" for r in cs["per_class"]]
    return lines
