"""Per-label history: who changed the label, when, and what it said before and after."""

from __future__ import annotations

from core.domain.labels import LabelHistoryEntry, LabelText

from cauterule_gui.models.rows_table_model import RowsTableModel, one_line, when_text

COLUMNS: tuple[tuple[str, str], ...] = (
    ("When", "UTC time of the change"),
    ("Who", "the reviewer (or the importer) who wrote it"),
    ("Action", "save, reconfirm (same words on a changed record) or import"),
    ("Before", "the label before the change"),
    ("After", "the label after the change"),
)
COL_WHEN, COL_WHO, COL_ACTION, COL_BEFORE, COL_AFTER = range(len(COLUMNS))


def label_sentence(text: LabelText | None) -> str:
    if text is None:
        return "— (new)"
    sentence = text.sentence() or "(no rule expected)"
    extras = []
    if text.variants:
        extras.append(f"{len(text.variants)} variant(s)")
    if text.note:
        extras.append("note")
    return sentence + (f"  [+{', '.join(extras)}]" if extras else "")


def label_details(text: LabelText | None) -> str:
    if text is None:
        return "no label before this change"
    norm = text.normalised()
    lines = [f"when: {norm.trigger or '—'}", f"do: {norm.directive or '—'}"]
    lines.extend(f"variant: {v}" for v in norm.variants)
    if norm.note:
        lines.append(f"note: {norm.note}")
    return "\n".join(lines)


class LabelHistoryModel(RowsTableModel[LabelHistoryEntry]):
    """Newest change first."""

    COLUMNS = COLUMNS

    def set_history(self, entries: tuple[LabelHistoryEntry, ...] | list[LabelHistoryEntry]) -> None:
        self.set_rows(sorted(entries, key=lambda e: e.id, reverse=True))

    def cell(self, item: LabelHistoryEntry, column: int) -> str:
        if column == COL_WHEN:
            return when_text(item.at)
        if column == COL_WHO:
            return item.actor
        if column == COL_ACTION:
            return item.action
        if column == COL_BEFORE:
            return one_line(label_sentence(item.before))
        if column == COL_AFTER:
            return one_line(label_sentence(item.after))
        return ""

    def tooltip(self, item: LabelHistoryEntry, column: int) -> str | None:
        from cauterule_gui.plain_text import plain_tooltip

        if column == COL_BEFORE:
            return plain_tooltip(label_details(item.before))
        if column == COL_AFTER:
            return plain_tooltip(label_details(item.after) + (f"\nreason: {item.reason}" if item.reason else ""))
        return super().tooltip(item, column)
