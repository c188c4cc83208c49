"""A lab run as a Markdown report and matplotlib figures (``lab --out DIR``).

Reads the plain dict of ``LabResult.to_dict()`` only, so a stored report can be drawn again.
Every number is printed with its truth, n, Wilson interval and shuffled-labels floor; a null
figure prints as "null (n = 0)". Figures use matplotlib's ``Figure`` (never pyplot, no Qt).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from core.lab.settings import REFERENCE_SEMANTIC
from core.plain import markdown_text as plain

METRICS = ("precision", "recall", "f1", "false_break", "false_accept", "net_positive")
LABELS = {"precision": "precision", "recall": "recall", "f1": "F1", "false_break": "false-break (successes)",
          "false_accept": "false-accept (rejection)", "net_positive": "net positive (rules)"}
CURVE_WEIGHTS = (0.2, 0.3, 0.4, 0.5)
CURVE_THRESHOLDS = (0.5, 0.6, 0.7)


def _number(value: float | None) -> str:
    return "null" if value is None else f"{value:.3f}"


def figure_text(fig: dict[str, Any]) -> str:
    """``0.812 [0.770, 0.853] k/n, floor 0.118``; null as ``null (n = 0)``."""
    if fig["value"] is None:
        return f"null (n = {fig['n']})"
    ci = fig["ci"]
    band = f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""
    floor = "null" if fig["floor"] is None else f"{fig['floor']:.3f}"
    return f"{fig['value']:.3f}{band} {fig['k']}/{fig['n']}, floor {floor}"


def resplit_text(rows: Sequence[dict[str, Any]]) -> str:
    """One line: how the same choice rule fares on other seeds' splits (``Choice.resplits``)."""
    read = [r for r in rows if r["f1"] is not None and r["reference_f1"] is not None]
    if not read:
        return f"re-splits ({len(rows)} other seeds): nothing chosen on any of them"
    gaps = [r["f1"] - r["reference_f1"] for r in read]
    accepts = sum(1 for r in read if r["false_accept"] is not None and r["reference_false_accept"] is not None
                  and r["false_accept"] > r["reference_false_accept"])
    return (f"re-splits ({len(rows)} other seeds, the same choice rule on each tuning part): above reference-0.3.1 "
            f"semantic's held-back F1 in {sum(1 for r in read if r['above'])} of {len(read)}, mean gap "
            f"{statistics.mean(gaps):+.3f} (median {statistics.median(gaps):+.3f}); a higher false-accept rate in "
            f"{accepts}")


def _row(name: str, readout: dict[str, Any]) -> str:
    cells = [plain(name)] + [figure_text(readout[m]) for m in METRICS]
    return "| " + " | ".join(cells) + " |"


def _header(first: str) -> list[str]:
    return ["| " + first + " | " + " | ".join(LABELS[m] for m in METRICS) + " |",
            "|" + "---|" * (len(METRICS) + 1)]


def markdown(result: dict[str, Any], figures: Sequence[str] = ()) -> str:
    lines = ["# Calibration lab report", ""]
    scores = result["scores"]
    lines += [f"Pairs scored once: {scores['pairs']} (model {plain(str(scores['model_id']))}); "
              f"scores key `{scores['key'][:16]}`. Settings swept: {len(result['settings'])} in "
              f"{result['seconds'].get('sweep', 0.0):.2f} s.", ""]
    lines += ["## Ground truths", ""]
    for name, truth in result["truths"].items():
        kind = "PROXY" if truth["proxy"] else "label"
        data = "no data: every figure on it is null" if truth["empty"] else (
            f"{truth['rules']} rules, {truth['pairs']} judged pairs, {truth['positives']} positives")
        lines.append(f"* **{name}** ({kind}, built from `{truth['built_from']}`): {data}. Caveat: {truth['caveat']}.")
    lines.append("")
    for name, choice in result["choices"].items():
        split = result["splits"][name]
        lines += [f"## Choice under `{name}`", ""]
        lines.append(f"Split by {split['group_by']} (seed {split['seed']}, held-back share "
                     f"{split['held_back_share']}): {split['rules']['tuning']} tuning rules, "
                     f"{split['rules']['held_back']} held-back rules. Held-back groups: "
                     + (", ".join(plain(g) for g in split["groups"]["held_back"]) or "none") + ".")
        lines.append("")
        verdict = "SHIPPABLE" if choice["shippable"] else "not shippable"
        lines.append(f"Chosen: {plain(choice['chosen'] or 'nothing')} ({verdict}): {choice['reason']}.")
        lines.append("")
        if choice["reference_held_back"] is not None:
            lines += ["Held-back part only:", ""] + _header("setting (held-back)")
            circular = " (circular: reads " + ", ".join(choice.get("reference_reads") or ()) + ")"
            lines.append(_row(REFERENCE_SEMANTIC.name + (circular if choice.get("reference_reads") else ""),
                              choice["reference_held_back"]))
            if choice.get("withheld_held_back") is not None:
                lines.append(_row(f"{choice['withheld']} (the reference, label withheld)", choice["withheld_held_back"]))
            if choice["chosen_held_back"] is not None:
                lines.append(_row(str(choice["chosen"]), choice["chosen_held_back"]))
            lines.append("")
        if choice.get("resplits"):
            lines += [resplit_text(choice["resplits"]) + ":", "", "| seed | chosen on its tuning part | held-back F1 "
                      "(reference) | false-accept (reference) |", "|---|---|---|---|"]
            for r in choice["resplits"]:
                lines.append(f"| {r['seed']} | {plain(r['chosen'] or 'nothing')} | {_number(r['f1'])} "
                             f"({_number(r['reference_f1'])}) | {_number(r['false_accept'])} "
                             f"({_number(r['reference_false_accept'])}) |")
            lines.append("")
    lines += ["## Every setting (tuning part; all data in report.json)", ""]
    for truth in result["truths"]:
        if result["truths"][truth]["empty"]:
            continue
        lines += [f"### `{truth}`", ""] + _header("setting (tuning)")
        for setting in result["settings"]:
            marks = []
            if setting["circular_for"].get(truth):
                marks.append("circular")
            if setting["canaries"]["flagged"]:
                marks.append("blind to " + ", ".join(setting["canaries"]["blind_to"]))
            name = setting["name"] + (f" ({'; '.join(marks)})" if marks else "")
            lines.append(_row(name, setting["readouts"][truth]["tuning"]))
        lines.append("")
    lines += ["## Per domain (all of the truth's rules)", ""]
    for truth, rows in result.get("per_domain", {}).items():
        for setting, domains in rows.items():
            lines += [f"### `{truth}`, {plain(setting)}", ""] + _header("source domain")
            lines += [_row(domain, readout) for domain, readout in domains.items()]
            lines.append("")
    lines += ["## Notes", "",
              "* F1 is not a binomial proportion: its band is the Wilson interval of TP out of TP + (FP + FN) / 2.",
              "* The floor is the figure with the truth's labels permuted (mean of 10 seeded permutations); for "
              "the false-break and false-accept rates it is the setting's claim rate on random trajectories.",
              "* A setting marked circular reads the field its truth is built from; it is never chosen on that "
              "truth. A profile reads `failure_class` (haystack text, domain guard, recovery) unless it withholds "
              "it (`no-failure-class`): only those can be chosen on the failure-class proxy. reference-0.3.1 "
              "semantic reads it, so the proxy's held-back table also shows the reference with it withheld.", ""]
    if figures:
        lines += ["## Figures", ""] + [f"![{Path(f).stem}]({Path(f).name})" for f in figures] + [""]
    return "\n".join(lines)


def _curve_settings(result: dict[str, Any], weight: float) -> list[tuple[float, dict[str, Any]]]:
    out = []
    for s in result["settings"]:
        if (s["base"] == "workbench" and s["semantic"] and s["threshold"] in CURVE_THRESHOLDS
                and abs(s["semantic_weight"] - weight) < 1e-9 and abs(s["semantic_floor"] - 0.62) < 1e-9
                and abs(s["margin"] - 0.10) < 1e-9 and abs(s["alias_floor"] - 0.60) < 1e-9
                and s["pool_policy"] is None and s["precision_scope"] is None):
            out.append((float(s["threshold"]), s))
    return sorted(out, key=lambda item: item[0])


def draw_curves(fig: Figure, result: dict[str, Any], truth: str, part: str = "tuning") -> None:
    """Precision, recall and F1 against the flat threshold, one line per semantic weight, with
    Wilson bands; the knee (best F1 of each line) is marked with a star."""
    fig.clear()
    axes = fig.subplots(1, 3, sharey=True)
    for ax, metric in zip(axes, ("precision", "recall", "f1")):
        drawn = False
        for weight in CURVE_WEIGHTS:
            points = [(t, s["readouts"][truth][part][metric]) for t, s in _curve_settings(result, weight)]
            points = [(t, f) for t, f in points if f["value"] is not None]
            if not points:
                continue
            drawn = True
            xs = [t for t, _ in points]
            ys = [f["value"] for _, f in points]
            line = ax.plot(xs, ys, marker="o", label=f"w={weight:.1f}")[0]
            lows = [f["ci"][0] if f["ci"] else f["value"] for _, f in points]
            highs = [f["ci"][1] if f["ci"] else f["value"] for _, f in points]
            ax.fill_between(xs, lows, highs, color=line.get_color(), alpha=0.15)
            if metric == "f1":
                best = max(range(len(ys)), key=lambda i: ys[i])
                ax.plot([xs[best]], [ys[best]], marker="*", markersize=14, color=line.get_color())
            floors = [f["floor"] for _, f in points if f["floor"] is not None]
            if floors:
                ax.axhline(max(floors), color="#4a4a4a", linestyle=":", linewidth=1)
        ax.set_title(f"{LABELS[metric]} ({part})")
        ax.set_xlabel("flat threshold")
        ax.set_ylim(0, 1)
        if not drawn:
            ax.text(0.5, 0.5, "not measured (n = 0)", ha="center", va="center", transform=ax.transAxes)
    axes[0].set_ylabel(f"truth: {truth}")
    axes[-1].legend(loc="lower left", fontsize=8)
    fig.suptitle(f"{truth}: Wilson 95% bands, dotted line = shuffled-labels floor, star = knee (best F1)")


def write(result: dict[str, Any], out: Path) -> list[Path]:
    """report.md, report.json and one curves figure per truth with data (PNG)."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    paths: list[Path] = []
    for truth, described in result["truths"].items():
        if described["empty"]:
            continue
        fig = Figure(figsize=(12, 4))
        draw_curves(fig, result, truth)
        path = out / f"curves_{truth}.png"
        fig.savefig(path, dpi=100)
        paths.append(path)
    (out / "report.json").write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf-8")
    (out / "report.md").write_text(markdown(result, [str(p) for p in paths]), encoding="utf-8")
    return [out / "report.md", out / "report.json", *paths]
