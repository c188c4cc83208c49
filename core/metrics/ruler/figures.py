"""The report's figures, drawn on a matplotlib ``Figure`` (never pyplot, no Qt).

Each ``draw_*`` function takes a report dict (``core.report.build_report``) and a
``Figure`` to draw on, so the same code draws the dashboard's canvases and the PNG/SVG
files of ``report --md --out``. "Not measured" is drawn as text, never as a zero bar.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from matplotlib.figure import Figure

from core.metrics.registry import AGREEMENT, DIRECTIVE_F1, RULER_METRICS, SEMANTIC_F1, TOKEN_F1

ACCEPT = "#2b6cb0"  # acceptance_rate: a pass is the rule working
FALSE_ACCEPT = "#c53030"  # false_accept_rate: a pass is a safety failure
FLOOR = "#4a4a4a"
GOOD = "#2f855a"
BAD = "#c53030"
WARN = "#dd6b20"
PART_COLOURS = {TOKEN_F1.key: "#805ad5", SEMANTIC_F1.key: "#2b6cb0", DIRECTIVE_F1.key: "#d69e2e", AGREEMENT.key: "#2f855a"}
TITLES = {
    "pass_rates": "Pass rate per corpus (Wilson 95%), with floor",
    "extraction": "Extraction accuracy: sub-metrics side by side, with floors",
    "safety": "Safety: rejection corpora accepted / n",
    "human_vs_replay": "Human vs replay: confusion matrix and kappa per session",
    "ruler": "The ruler: floors, canaries, mutation drops",
}


def short(name: str, limit: int = 34) -> str:
    parts = name.split("/")
    text = "/".join(parts[-2:]) if len(parts) > 2 else name
    return text if len(text) <= limit else "…" + text[-(limit - 1):]


def _empty(ax: Any, text: str) -> None:
    ax.set_axis_off()
    ax.text(0.5, 0.5, text, ha="center", va="center", fontsize=10, color=FLOOR, wrap=True, transform=ax.transAxes)


def _floor_legend(ax: Any) -> None:
    ax.plot([], [], linestyle="none", marker="|", markersize=14, markeredgewidth=2.5, color=FLOOR,
            label="floor (shuffled pairs)")


# -- pass rates -----------------------------------------------------------------------------
def draw_pass_rates(fig: Figure, report: dict[str, Any]) -> None:
    fig.clear()
    rows = list(report.get("corpora", {}).items())
    ax = fig.add_subplot(1, 1, 1)
    if not rows:
        _empty(ax, "not measured: no rules in this run")
        return
    rows.reverse()
    for y, (name, row) in enumerate(rows):
        rate = row["rate"]
        colour = FALSE_ACCEPT if row["rate_label"] == "false_accept_rate" else ACCEPT
        label = f"{row['rate_label']}  {rate['k']}/{rate['n']}"
        fl = (row.get("rate_floor") or {}).get("value")
        if rate["value"] is None:
            ax.text(0.01, y, "not measured (n = 0)", va="center", fontsize=8, color=FLOOR)
        elif fl is None:  # withheld, as in the report: no value without its floor (docs/ruler.md)
            why = (row.get("rate_floor") or {}).get("note") or "no mismatched pair"
            ax.text(0.01, y, f"withheld: its floor cannot be measured ({why})"[:90], va="center", fontsize=7,
                    color=FLOOR)
        else:
            lo, hi = rate["value"] - rate["ci_low"], rate["ci_high"] - rate["value"]
            ax.errorbar(rate["value"], y, xerr=[[lo], [hi]], fmt="o", color=colour, ecolor=colour, elinewidth=2,
                        capsize=4, markersize=6)
        if fl is not None:
            ax.plot(fl, y, marker="|", markersize=14, markeredgewidth=2.5, color=FLOOR, linestyle="none")
        ax.text(1.03, y, label, va="center", fontsize=8, color=colour, transform=ax.get_yaxis_transform())
    ax.set_yticks(range(len(rows)), [short(n) for n, _ in rows], fontsize=8)
    ax.set_xlim(-0.02, 1.02)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.set_xlabel("pass rate (all scored rules); error bars: Wilson 95% interval", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    ax.errorbar([], [], xerr=[], fmt="o", color=ACCEPT, label="acceptance_rate (pass = rule works)")
    ax.errorbar([], [], xerr=[], fmt="o", color=FALSE_ACCEPT, label="false_accept_rate (pass = unsafe)")
    _floor_legend(ax)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, frameon=False)
    fig.subplots_adjust(left=0.28, right=0.74, top=0.9, bottom=0.1)


# -- extraction -----------------------------------------------------------------------------
def draw_extraction(fig: Figure, report: dict[str, Any]) -> None:
    fig.clear()
    ax = fig.add_subplot(1, 1, 1)
    acc = report.get("extraction_accuracy", {})
    measured = [(n, a) for n, a in acc.items() if a["n"] > 0]
    if not measured:
        missing = ", ".join(f"{short(n)} (n=0, {a.get('excluded', 0)} without ground truth)" for n, a in acc.items())
        _empty(ax, "not measured: no candidate's source carries an expected_rule\n" + (missing or "no candidates"))
        return
    parts = [m.key for m in RULER_METRICS]
    width = 0.8 / len(parts)
    measured.reverse()
    for y, (name, a) in enumerate(measured):
        floors = a.get("floors") or {}
        for i, part in enumerate(parts):
            value = a[part]["value"] if isinstance(a[part], dict) else a[part]
            pos = y - 0.4 + width * (i + 0.5)
            if value is not None:
                ax.barh(pos, value, height=width * 0.9, color=PART_COLOURS[part], label=part if y == 0 else None)
                ax.text(min(value, 0.98) + 0.01, pos, f"{value:.2f}", va="center", fontsize=6)
            fl = (floors.get(part) or {}).get("value")
            if fl is not None:
                ax.plot(fl, pos, marker="|", markersize=9, markeredgewidth=2.2, color=FLOOR, linestyle="none")
    ax.set_yticks(range(len(measured)), [f"{short(n)}\nn={a['n']}" for n, a in measured], fontsize=8)
    ax.set_xlim(0, 1.08)
    ax.set_xlabel("mean F1 / agreement rate (candidate vs source expected_rule)", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    _floor_legend(ax)
    ax.legend(fontsize=7, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=5, frameon=False)
    fig.subplots_adjust(left=0.28, right=0.97, top=0.88, bottom=0.12)


# -- safety ---------------------------------------------------------------------------------
def draw_safety(fig: Figure, report: dict[str, Any]) -> None:
    fig.clear()
    safety = report.get("safety", {})
    rows = list(safety.get("corpora", {}).items())
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    if not rows:
        rc = safety.get("rejection_corpora") or {}
        text = "\n".join(f"{short(n)}: {v['trajectories']} trajectories, {v['rules_in_run']} rules" for n, v in rc.items())
        _empty(left, "replay alone: not measured\nno rule in this run comes from a rejection corpus\n\n"
               + (text or "no rejection corpus in the store"))
        _empty(right, "oracle override: not measured\n(shown separately, never mixed in)")
        return
    names = [short(n) for n, _ in rows]
    for ax, key, title in ((left, None, "replay alone decides"), (right, "oracle", "oracle override (separately)")):
        for y, (_name, row) in enumerate(rows):
            data = row if key is None else row["oracle"]
            rate = data["false_accept_rate"]
            colour = FALSE_ACCEPT if key is None else FLOOR
            ax.barh(y, rate["value"] or 0.0, color=colour, alpha=0.8 if key is None else 0.4)
            if rate["ci_high"] is not None:
                ax.plot([rate["ci_high"]], [y], marker=">", color=colour, markersize=7)
                ax.text(min(rate["ci_high"], 0.8) + 0.03, y, f"{rate['k']}/{rate['n']} accepted, upper {rate['ci_high']:.2f}",
                        va="center", fontsize=7)
        ax.set_yticks(range(len(rows)), names if key is None else [""] * len(rows), fontsize=8)
        ax.set_xlim(0, 1.0)
        ax.set_title(title, fontsize=9)
        ax.set_xlabel("false_accept_rate (▶ Wilson 95% upper bound)", fontsize=8)
        ax.grid(axis="x", alpha=0.3)
    fig.subplots_adjust(left=0.22, right=0.98, top=0.88, bottom=0.15, wspace=0.1)


# -- human vs replay ------------------------------------------------------------------------
def draw_human(fig: Figure, report: dict[str, Any]) -> None:
    fig.clear()
    h = report.get("human_vs_replay") or {}
    left, right = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
    conf = h.get("confusion") or {}
    labels, counts = conf.get("labels") or [], conf.get("counts") or []
    if not h.get("judgements") or not labels:
        _empty(left, "confusion matrix: not measured\nno committed judgements in a blind session for this run")
    else:
        left.imshow(counts, cmap="Blues")
        for i, row in enumerate(counts):
            for j, c in enumerate(row):
                left.text(j, i, str(c), ha="center", va="center", fontsize=8, color="black")
        left.set_xticks(range(len(labels)), labels, rotation=45, ha="right", fontsize=7)
        left.set_yticks(range(len(labels)), labels, fontsize=7)
        left.set_xlabel("human", fontsize=8)
        left.set_ylabel("replay", fontsize=8)
        k = h["kappa"]["value"]
        left.set_title(f"n={h['judgements']}, kappa={'—' if k is None else f'{k:.2f}'}", fontsize=9)
    sessions = [s for s in h.get("sessions", []) if s["judgements"]]
    if not sessions:
        _empty(right, "kappa per session: not measured\nno agreement session has a committed judgement")
    else:
        for x, s in enumerate(sessions):
            k = s["kappa"]
            colour = ACCEPT if s["blind"] else WARN
            if k["value"] is not None:
                lo = k["value"] - (k["ci_low"] if k["ci_low"] is not None else k["value"])
                hi = (k["ci_high"] if k["ci_high"] is not None else k["value"]) - k["value"]
                right.errorbar(x, k["value"], yerr=[[lo], [hi]], fmt="o", color=colour, capsize=4)
            else:
                right.text(x, 0, "undefined", ha="center", fontsize=7, color=FLOOR)
        fl = ((h.get("floors") or {}).get("kappa") or {}).get("value")
        if fl is not None:
            right.axhline(fl, color=FLOOR, linestyle="--", linewidth=1.2, label=f"floor (shuffled) {fl:.2f}")
            right.legend(fontsize=7, loc="lower right")
        right.set_xticks(range(len(sessions)), [f"#{s['id']}\n{(s['created_at'] or '')[:10]}" for s in sessions],
                         fontsize=7)
        right.set_ylim(-1.05, 1.05)
        right.set_ylabel("Cohen's kappa (95% CI)", fontsize=8)
        right.set_title("kappa over time (blue: blind, orange: unblinded)", fontsize=9)
        right.grid(axis="y", alpha=0.3)
    fig.subplots_adjust(left=0.12, right=0.98, top=0.88, bottom=0.25, wspace=0.35)


# -- ruler ----------------------------------------------------------------------------------
def draw_ruler(fig: Figure, report: dict[str, Any]) -> None:
    fig.clear()
    ruler = report.get("ruler")
    if not ruler:
        _empty(fig.add_subplot(1, 1, 1), "ruler not run for this report")
        return
    metrics = ruler["metrics"]
    grid = fig.add_gridspec(1, 3, width_ratios=[1.0, 0.8, 2.6], wspace=0.08)
    a1, a2, a3 = fig.add_subplot(grid[0]), fig.add_subplot(grid[1]), fig.add_subplot(grid[2])
    ys = list(range(len(metrics)))[::-1]
    for y, m in zip(ys, metrics):
        if m["value"] is not None:
            a1.barh(y, m["value"], color=ACCEPT, alpha=0.7, height=0.6)
        fl = m["floor"]["value"]
        if fl is not None:
            a1.plot(fl, y, marker="|", markersize=14, markeredgewidth=2.5, color=FLOOR, linestyle="none")
            light = m["value"] is not None and m["value"] >= 0.9
            a1.text(0.98, y, f"floor {fl:.2f}", fontsize=7, color="white" if light else FLOOR, ha="right", va="center")
        flagged = "⚑ " if m["flagged"] else ""
        a1.text(-0.03, y, flagged + m["label"], ha="right", va="center", fontsize=8.5,
                color=BAD if m["flagged"] else "black", transform=a1.get_yaxis_transform())
    a1.set_yticks([])
    a1.set_xlim(0, 1.05)
    a1.set_title("value vs floor", fontsize=8)
    a1.tick_params(axis="x", labelsize=7)
    for y, m in zip(ys, metrics):
        c = m["canaries"]
        passed, failed = c["passed"], c["total"] - c["passed"]
        a2.barh(y, passed, color=GOOD, height=0.6)
        a2.barh(y, failed, left=passed, color=BAD, height=0.6)
        a2.text(c["total"] + 0.3, y, f"{passed}/{c['total']}", va="center", fontsize=7)
    a2.set_yticks([])
    a2.set_title("canaries passed / failed", fontsize=8)
    a2.set_xlim(0, max([m["canaries"]["total"] for m in metrics] + [1]) * 1.35)
    a2.tick_params(axis="x", labelsize=7)
    mutations: list[tuple[str, str]] = []
    for m in metrics:
        for d in m["mutations"]:
            if (d["mutation"], d["kind"]) not in mutations:
                mutations.append((d["mutation"], d["kind"]))
    mutations.sort(key=lambda t: (t[1] != "benign", t[0]))
    import numpy as np

    cell = np.full((len(metrics), len(mutations)), np.nan)
    a3.set_xlim(-0.5, len(mutations) - 0.5)
    a3.set_ylim(-0.5, len(metrics) - 0.5)
    for row, (y, m) in enumerate(zip(ys, metrics)):
        by = {(d["mutation"], d["kind"]): d for d in m["mutations"]}
        for x, key in enumerate(mutations):
            d = by.get(key)
            if d is None:
                continue
            s = d["sensitivity"]
            if s is None:
                colour, text = "#e2e8f0", "n/a"
            elif key[1] == "harmful":
                colour = GOOD if s >= ruler["thresholds"]["blind_below"] else BAD
                text = f"{s:.0%}"
            else:
                moved = abs(s) > ruler["thresholds"]["over_sensitive_above"]
                flags_it = any(f["mutation"] == key[0] for f in m["flags"])
                colour = BAD if flags_it else (WARN if moved else GOOD)
                text = f"{s:.0%}"
            a3.add_patch(_rect(x, y, colour))
            a3.text(x, y, text, ha="center", va="center", fontsize=8, color="white" if colour != "#e2e8f0" else FLOOR)
            cell[row, x] = 0 if s is None else s
    a3.set_xticks(range(len(mutations)), [f"{n.replace('_', ' ')}\n{'benign' if k == 'benign' else 'HARMFUL'}"
                                          for n, k in mutations], rotation=35, ha="right", fontsize=7.5)
    a3.set_yticks([])
    a3.set_title("mutation drops (k = {:.0%} of n rows)\nharmful: share of the available drop caught; "
                 "benign: share of passing rows flipped".format(ruler["thresholds"]["injected_rate"]), fontsize=8.5)
    fig.text(0.99, 0.01, "green: ok    red: blind (harmful) / over-sensitive (benign, in contract)    "
             "orange: moves on a change the metric does not claim to ignore    grey: not assessable",
             ha="right", va="bottom", fontsize=6.5, color=FLOOR)
    fig.subplots_adjust(left=0.17, right=0.99, top=0.9, bottom=0.27)


def _rect(x: float, y: float, colour: str) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((x - 0.47, y - 0.42), 0.94, 0.84, color=colour)


FIGURES: dict[str, tuple[Callable[[Figure, dict[str, Any]], None], tuple[float, float]]] = {
    "pass_rates": (draw_pass_rates, (8.0, 4.6)),
    "extraction": (draw_extraction, (8.0, 4.2)),
    "safety": (draw_safety, (8.0, 3.4)),
    "human_vs_replay": (draw_human, (8.0, 3.8)),
    "ruler": (draw_ruler, (12.0, 5.0)),
}


def export(fig: Figure, path: Path) -> Path:
    """Write ``fig`` to ``path`` (format from the suffix: .png or .svg) without pyplot."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    if fig.canvas is None or not hasattr(fig.canvas, "print_figure"):
        FigureCanvasAgg(fig)
    path = Path(path)
    fig.savefig(path, format=path.suffix.lstrip(".").lower(), dpi=130)
    return path


def render(name: str, report: dict[str, Any]) -> Figure:
    draw, size = FIGURES[name]
    fig = Figure(figsize=size)
    draw(fig, report)
    return fig


def write_all(report: dict[str, Any], out_dir: Path) -> list[dict[str, str]]:
    written = []
    for name in FIGURES:
        fig = render(name, report)
        export(fig, Path(out_dir) / f"{name}.png")
        export(fig, Path(out_dir) / f"{name}.svg")
        written.append({"name": name, "title": TITLES[name], "png": f"{name}.png", "svg": f"{name}.svg"})
    return written
