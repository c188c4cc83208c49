"""Confusion matrices of the human-vs-replay agreement (matplotlib ``Figure``, never pyplot).

Rows are replay's answers, columns the human's (as in ``core.agreement.results``); one panel
per item kind, because verdict and evidence items have different vocabularies. Every cell
carries its count as text, and the diagonal is outlined, so nothing depends on colour.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

WORDS = {"near_miss": "near-miss", "no_effect": "no effect", "cant_tell": "can't tell"}
TITLES = {"verdict": "Verdict items", "evidence": "Evidence items"}


def _word(label: str) -> str:
    return WORDS.get(label, label)


def draw_confusion(figure: Figure, kinds: Sequence[Any], *, dark: bool = False) -> None:
    """Draw one matrix per ``KindAgreement`` (``kind``, ``confusion``, ``kappa``, ``agreement``)."""
    figure.clear()
    face = "#1e1f22" if dark else "white"
    ink = "#e8e8e8" if dark else "#202124"
    figure.set_facecolor(face)
    shown = [k for k in kinds if k.confusion.labels]
    if not shown:
        ax = figure.add_subplot(1, 1, 1)
        ax.set_facecolor(face)
        ax.axis("off")
        ax.text(0.5, 0.5, "No committed judgements yet", ha="center", va="center", color=ink, fontsize=11)
        return
    for position, kind in enumerate(shown, start=1):
        ax = figure.add_subplot(1, len(shown), position)
        ax.set_facecolor(face)
        labels = [_word(x) for x in kind.confusion.labels]
        counts = [list(row) for row in kind.confusion.counts]
        peak = max([max(row) for row in counts] + [1])
        ax.imshow(counts, cmap="Blues", vmin=0, vmax=peak, aspect="equal")
        for i, row in enumerate(counts):
            for j, value in enumerate(row):
                strong = value > peak * 0.55
                ax.text(j, i, str(value), ha="center", va="center", fontsize=10,
                        color="white" if strong else "#202124", fontweight="bold" if i == j else "normal")
            ax.add_patch(_diagonal(i))
        ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right", color=ink, fontsize=8)
        ax.set_yticks(range(len(labels)), labels, color=ink, fontsize=8)
        ax.set_xlabel("human (blind)", color=ink, fontsize=9)
        ax.set_ylabel("replay", color=ink, fontsize=9)
        kappa = kind.kappa.value
        rate = kind.agreement
        subtitle = (f"{rate.k}/{rate.n} agree" + ("" if kappa is None else f", κ = {kappa:.2f}"))
        ax.set_title(f"{TITLES.get(kind.kind, kind.kind)}\n{subtitle}", color=ink, fontsize=10)
        for spine in ax.spines.values():
            spine.set_color(ink)
        ax.tick_params(colors=ink)
    figure.tight_layout()


def _diagonal(i: int) -> Any:
    from matplotlib.patches import Rectangle

    return Rectangle((i - 0.46, i - 0.46), 0.92, 0.92, fill=False, edgecolor="#e0a000", linewidth=1.8)
