"""The Lab tab's read-outs table: one row per swept setting, for one truth and one part of its split.

Built from the lab's result dict (``core.lab.run.LabResult.to_dict``, what ``lab --json``
prints), so the tab and the CLI read the same figures. Every cell is plain text
(``RowsTableModel``). The chosen setting and the reference row come first and are marked.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.lab.report import resplit_text
from core.lab.settings import REFERENCE_SEMANTIC, REFERENCE_WITHHELD

from cauterule_gui.models.rows_table_model import RowsTableModel

REFERENCE = REFERENCE_SEMANTIC.name
PARTS = (("tuning", "tuning part (what a choice may rest on)"), ("held_back", "held-back part (the test)"),
         ("all", "all data (never used to choose)"))
MARK_CHOSEN, MARK_REFERENCE = "★ chosen", "reference"
MARK_WITHHELD = "reference (label withheld)"  # the comparator a failure-class truth can judge
WITHHELD = REFERENCE_WITHHELD.name


@dataclass(frozen=True)
class LabRow:
    number: int  # 1-based row in the report's settings (what `lab adopt --setting N` takes)
    name: str
    marks: str
    precision: dict[str, Any]
    recall: dict[str, Any]
    f1: dict[str, Any]
    false_accept: dict[str, Any]
    circular: tuple[str, ...]  # fields read that the truth is built from
    blind_to: tuple[str, ...]  # canaries the setting prevents though they must fail


def value_text(fig: dict[str, Any]) -> str:
    return "null" if fig["value"] is None else f"{fig['value']:.3f}"


def interval_text(fig: dict[str, Any]) -> str:
    """``0.796 [0.761, 0.825]``; ``null (n = 0)`` where the truth has no data (never 0)."""
    if fig["value"] is None:
        return f"null (n = {fig['n']})"
    ci = fig.get("ci")
    return f"{fig['value']:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def floor_text(fig: dict[str, Any]) -> str:
    return "—" if fig.get("floor") is None else f"{fig['floor']:.3f}"


def lab_rows(result: dict[str, Any], truth: str, part: str) -> list[LabRow]:
    """The settings' figures under ``truth`` on ``part``: the chosen one first, then the reference."""
    chosen = (result["choices"].get(truth) or {}).get("chosen")
    rows = []
    for number, setting in enumerate(result["settings"], 1):
        figures = setting["readouts"][truth][part]
        marks = [m for m, on in ((MARK_CHOSEN, setting["name"] == chosen), (MARK_REFERENCE, setting["name"] == REFERENCE),
                                 (MARK_WITHHELD, setting["name"] == WITHHELD)) if on]
        rows.append(LabRow(number, setting["name"], ", ".join(marks), figures["precision"], figures["recall"],
                           figures["f1"], figures["false_accept"], tuple(setting["circular_for"].get(truth, ())),
                           tuple(setting["canaries"]["blind_to"])))
    order = {MARK_CHOSEN: 0, MARK_REFERENCE: 1, MARK_WITHHELD: 2}
    return sorted(rows, key=lambda r: (min((order[m] for m in r.marks.split(", ") if m in order), default=3), r.number))


def choice_text(result: dict[str, Any], truth: str) -> str:
    """What the lab chose under ``truth``, why, on which split, and the held-back comparison."""
    described = result["truths"][truth]
    choice = result["choices"][truth]
    split = result["splits"][truth]
    kind = "a PROXY" if described["proxy"] else "labels"
    if described["empty"]:
        return f"{truth} ({kind}): no data, every figure on it is null (n = 0). Caveat: {described['caveat']}."
    lines = [f"{truth} ({kind}, built from {described['built_from']}): {described['rules']} rules, "
             f"{described['pairs']} judged pairs. Caveat: {described['caveat']}.",
             f"Split by {split['group_by']} (seed {split['seed']}): {split['rules']['tuning']} tuning / "
             f"{split['rules']['held_back']} held-back rules; whole groups stay on one side.",
             f"Chosen on the tuning part: {choice['chosen'] or 'nothing'}: {choice['reason']}"
             + (" (shippable)" if choice["shippable"] else " (not shippable)")]
    for label, key in (("reference-0.3.1 semantic", "reference_held_back"),
                       ("reference-0.3.1 semantic, failure_class withheld", "withheld_held_back"),
                       ("chosen", "chosen_held_back")):
        row = choice.get(key)
        if row is not None:
            lines.append(f"{label}, held-back: F1 {interval_text(row['f1'])} (floor {floor_text(row['f1'])}); "
                         f"false-accept {interval_text(row['false_accept'])}")
    if choice.get("resplits"):
        text = resplit_text(choice["resplits"])
        lines.append(text[:1].upper() + text[1:])
    return "\n".join(lines)


class LabTableModel(RowsTableModel[LabRow]):
    COLUMNS = (
        ("#", "the setting's row in the report (what `lab adopt --setting N` takes)"),
        ("Setting", "the replay choices of this sweep point"),
        ("Marks", "★ chosen: the lab's choice under this truth (on the tuning part); reference: reference-0.3.1 "
                  "semantic; reference (label withheld): the same with failure_class withheld, the comparator "
                  "the failure-class proxy can judge"),
        ("P", "precision of `prevented` against this truth"),
        ("R", "recall of `prevented` against this truth"),
        ("F1 [95%]", "F1 of `prevented` with its Wilson band (an approximation: see docs/lab.md)"),
        ("F1 floor", "the same F1 with the truth's labels shuffled: a figure near it is no evidence"),
        ("False-accept", "claims on the rejection corpora (nearmiss, adversarial) the truth does not make positive"),
        ("Circular", "reads the field this truth is built from: flagged, never chosen on it"),
        ("Canary", "prevents a must-fail matcher canary: blind, never chosen"),
    )
    CENTRED = frozenset({0, 3, 4, 6, 8, 9})

    def cell(self, item: LabRow, column: int) -> str:
        if column == 0:
            return str(item.number)
        if column == 1:
            return item.name
        if column == 2:
            return item.marks
        if column == 3:
            return value_text(item.precision)
        if column == 4:
            return value_text(item.recall)
        if column == 5:
            return interval_text(item.f1)
        if column == 6:
            return floor_text(item.f1)
        if column == 7:
            return interval_text(item.false_accept)
        if column == 8:
            return "⚠ circular" if item.circular else ""
        if column == 9:
            return "⚠ blind" if item.blind_to else ""
        return ""

    def tooltip(self, item: LabRow, column: int) -> Any:
        from cauterule_gui.plain_text import plain_tooltip

        if column == 8 and item.circular:
            return plain_tooltip("reads " + ", ".join(item.circular))
        if column == 9 and item.blind_to:
            return plain_tooltip("prevents the must-fail canaries " + ", ".join(item.blind_to))
        if column in (3, 4, 5, 7):
            fig = {3: item.precision, 4: item.recall, 5: item.f1, 7: item.false_accept}[column]
            return plain_tooltip(f"{interval_text(fig)}; {fig['k']}/{fig['n']}; shuffled-labels floor "
                                 f"{floor_text(fig)}")
        return super().tooltip(item, column)
