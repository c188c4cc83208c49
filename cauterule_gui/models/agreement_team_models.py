"""Team tables: merge conflicts (nothing was overwritten), label and judgement disagreements."""

from __future__ import annotations

import json
from typing import Any

from core.agreement.merge import MergeConflict
from core.agreement.team import JudgementDisagreement, LabelDisagreement

from cauterule_gui.models.formatting import BUCKET_WORDS
from cauterule_gui.models.rows_table_model import RowsTableModel, one_line


def _value(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, dict):
        if "trigger" in value or "directive" in value:
            trigger, directive = value.get("trigger", ""), value.get("directive", "")
            text = f"when {trigger}, {directive}" if trigger or directive else "(no rule expected)"
            return text + (f" (lead {value['lead']})" if value.get("lead") else "")
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


class MergeConflictModel(RowsTableModel[MergeConflict]):
    COLUMNS = (
        ("Kind", "label, judgement, adjudication or session"),
        ("Where", "the trajectory, or the session item"),
        ("Reviewer", "whose work conflicts"),
        ("Kept (this store)", "what stays here: nothing was overwritten"),
        ("Not imported (file)", "what the file says instead"),
    )

    def cell(self, item: MergeConflict, column: int) -> str:
        values = (item.kind, item.where, item.reviewer, _value(item.local), _value(item.incoming))
        return one_line(values[column])

    def tooltip(self, item: MergeConflict, column: int) -> str | None:
        from cauterule_gui.plain_text import plain_tooltip

        return plain_tooltip((item.kind, item.where, item.reviewer, _value(item.local), _value(item.incoming))[column])


class LabelDisagreementModel(RowsTableModel[LabelDisagreement]):
    COLUMNS = (
        ("Trajectory", "labelled differently by two or more reviewers"),
        ("Corpus", ""),
        ("Labels", "each reviewer's label"),
        ("Wording only", "✓ when the extraction comparator says every pair agrees (a wording difference)"),
        ("Ruling in force", "the lead's adjudicated label: the ground truth"),
    )
    CENTRED = frozenset({3})

    def cell(self, item: LabelDisagreement, column: int) -> str:
        if column == 0:
            return item.trajectory_id
        if column == 1:
            return item.corpus
        if column == 2:
            return one_line(" | ".join(f"{r}: {s or '(no rule expected)'}" for r, s in item.labels.items()))
        if column == 3:
            return "✓ wording" if item.comparator_agrees else "✗ differs"
        if column == 4:
            return "—" if item.adjudicated is None else (one_line(item.adjudicated) or "(no rule expected)")
        return ""

    def tooltip(self, item: LabelDisagreement, column: int) -> str | None:
        from cauterule_gui.plain_text import plain_tooltip

        if column == 2:
            return plain_tooltip("\n".join(f"{r}: {s or '(no rule expected)'}" for r, s in item.labels.items()))
        return super().tooltip(item, column)


def answer_text(answer: str) -> str:
    return {"cant_tell": "can't tell"}.get(answer, BUCKET_WORDS.get(answer, answer))


class JudgementDisagreementModel(RowsTableModel[JudgementDisagreement]):
    COLUMNS = (
        ("Item", "session and item number"),
        ("Kind", "verdict or evidence item"),
        ("Rule", "the rule's trigger"),
        ("Trajectory", "evidence items only"),
        ("Answers", "each reviewer's committed answer"),
        ("Replay", "replay's answer"),
    )

    def cell(self, item: JudgementDisagreement, column: int) -> str:
        values = (f"{item.session_uid[:8]} #{item.ordinal}", item.kind, one_line(item.trigger, 80),
                  item.trajectory_id or "—",
                  ", ".join(f"{r}: {answer_text(a)}" for r, a in item.answers.items()), answer_text(item.replay_answer))
        return values[column]
