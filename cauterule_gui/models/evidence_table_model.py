"""One bucket of a rule's evidence: the trajectories replay put there, with why.

Small lists (one rule's bucket), so the model holds them all. Each row shows the view and
floor that matched and the score, whether this reviewer has opened or waived it (that is
what gates approval for broken rows) and their agreement mark.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.store.replay_repo import StoredOutcome

from cauterule_gui.models.formatting import MARK_TEXT, number, signed
from cauterule_gui.plain_text import plain_tooltip

Index = QModelIndex | QPersistentModelIndex

COLUMNS: tuple[tuple[str, str], ...] = (
    ("Trajectory", "trajectory_id"),
    ("Corpus", "corpus (folder)"),
    ("Domain", "domain field"),
    ("Score", "final score (threshold and margin in the tooltip)"),
    ("View", "the text view of the trajectory that matched"),
    ("Floor", "the floor that applied (alias / phrase / signature / semantic), — if none"),
    ("Opened", "whether you opened or waived this row (every broken row must be, before approval)"),
    ("Mark", "your agreement mark: is replay right about this row?"),
)
COL_ID, COL_CORPUS, COL_DOMAIN, COL_SCORE, COL_VIEW, COL_FLOOR, COL_OPENED, COL_MARK = range(len(COLUMNS))
OUTCOME_ROLE = Qt.ItemDataRole.UserRole + 1


class EvidenceTableModel(QAbstractTableModel):
    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.bucket = "prevented"
        self._rows: Sequence[StoredOutcome] = []
        self._viewed: set[int] = set()
        self._waived: dict[int, str] = {}
        self._marks: dict[int | None, str] = {}

    def set_rows(self, bucket: str, rows: Sequence[StoredOutcome], viewed: set[int],
                 waived: Mapping[int, str], marks: Mapping[int | None, str]) -> None:
        self.beginResetModel()
        self.bucket = bucket
        self._rows = rows  # a paged sequence (PagedOutcomes): rows are read as they are shown
        self._viewed, self._waived, self._marks = set(viewed), dict(waived), dict(marks)
        self.endResetModel()

    def update_flags(self, viewed: set[int], waived: Mapping[int, str], marks: Mapping[int | None, str]) -> None:
        """Opened / waived / mark changed: repaint those columns without losing the selection."""
        self._viewed, self._waived, self._marks = set(viewed), dict(waived), dict(marks)
        if self._rows:
            self.dataChanged.emit(self.index(0, COL_OPENED), self.index(len(self._rows) - 1, COL_MARK))

    def outcome(self, row: int) -> StoredOutcome | None:
        return self._rows[row] if 0 <= row < len(self._rows) else None

    def row_of(self, trajectory_pk: int) -> int | None:
        return next((i for i, o in enumerate(self._rows) if o.trajectory_pk == trajectory_pk), None)

    # -- Qt model interface ------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(COLUMNS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return COLUMNS[section][0]
        if role == Qt.ItemDataRole.ToolTipRole:
            return COLUMNS[section][1]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._rows):
            return None
        item = self._rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._display(item, column)
        if role == Qt.ItemDataRole.ToolTipRole:
            if column in (COL_ID, COL_CORPUS, COL_DOMAIN):
                return plain_tooltip(self._display(item, column))
            if column == COL_SCORE:
                return f"score {number(item.score)} · threshold {number(item.threshold)} · margin {signed(item.margin)}"
            if column == COL_OPENED and item.trajectory_pk in self._waived:
                return plain_tooltip(f"waived: {self._waived[item.trajectory_pk]}")
            return None
        if role == Qt.ItemDataRole.TextAlignmentRole and column == COL_SCORE:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == OUTCOME_ROLE:
            return item
        return None

    def _display(self, item: StoredOutcome, column: int) -> str:
        if column == COL_ID:
            return item.trajectory_id
        if column == COL_CORPUS:
            return item.corpus
        if column == COL_DOMAIN:
            return item.domain or "—"
        if column == COL_SCORE:
            return number(item.score)
        if column == COL_VIEW:
            return item.view or "—"
        if column == COL_FLOOR:
            return item.floor or "—"
        if column == COL_OPENED:
            if item.trajectory_pk in self._waived:
                return "waived"
            if item.trajectory_pk in self._viewed:
                return "✓ opened"
            return "⚠ not opened" if self.bucket == "broken" else "—"
        if column == COL_MARK:
            return MARK_TEXT.get(self._marks.get(item.trajectory_pk, ""), "—")
        return ""

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
