"""The promotion queue as a table: one row per replayed rule, its gates as readable columns.

Rows come in the core's order (``core.promotion.promotion_queue``): passing undecided rules
first, then stale approvals, other undecided, deferred, decided. What each cell says is
``promotion_cells`` (re-exported here, where the panels and tests read it).

``load_snapshot`` is the plain function a job runs (no widgets): the queue plus the texts of
the active standing rules, so the detail pane can show a duplicate's or conflict's trigger
and directive without another query on the GUI thread. ``detail_sections`` turns one item
into headed plain-text lines for that pane.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from core.promotion import PromotionQueue, QueueItem, promotion_queue
from core.promotion.similarity import Similarity
from core.store.engine import Store
from core.store.promotion_repo import PromotionRepository
from core.store.rule_repo import RuleRepository

from cauterule_gui import theme
from cauterule_gui.models.promotion_cells import BLIND_COLUMNS as BLIND_COLUMNS
from cauterule_gui.models.promotion_cells import BLIND_WORDS as BLIND_WORDS
from cauterule_gui.models.promotion_cells import COL_AGREEMENT as COL_AGREEMENT
from cauterule_gui.models.promotion_cells import COL_BROKEN as COL_BROKEN
from cauterule_gui.models.promotion_cells import COL_CONFLICTS as COL_CONFLICTS
from cauterule_gui.models.promotion_cells import COL_DECISION as COL_DECISION
from cauterule_gui.models.promotion_cells import COL_DUPLICATES as COL_DUPLICATES
from cauterule_gui.models.promotion_cells import COL_GROUP as COL_GROUP
from cauterule_gui.models.promotion_cells import COL_RULE as COL_RULE
from cauterule_gui.models.promotion_cells import COL_STALE as COL_STALE
from cauterule_gui.models.promotion_cells import COL_TRIGGER as COL_TRIGGER
from cauterule_gui.models.promotion_cells import COL_VERDICT as COL_VERDICT
from cauterule_gui.models.promotion_cells import COLUMNS as COLUMNS
from cauterule_gui.models.promotion_cells import agreement_text as agreement_text
from cauterule_gui.models.promotion_cells import cell_state as cell_state
from cauterule_gui.models.promotion_cells import cell_text as cell_text
from cauterule_gui.models.promotion_cells import is_stale as is_stale
from cauterule_gui.models.promotion_cells import rule_label as rule_label
from cauterule_gui.models.promotion_cells import swatch_name
from cauterule_gui.models.promotion_cells import tooltip_text as tooltip_text
from cauterule_gui.models.promotion_cells import verdict_text as verdict_text
from cauterule_gui.plain_text import plain_tooltip

Index = QModelIndex | QPersistentModelIndex
ITEM_ROLE = Qt.ItemDataRole.UserRole + 1
RULE_ID_ROLE = Qt.ItemDataRole.UserRole + 2
STATE_ROLE = Qt.ItemDataRole.UserRole + 3  # the gate state behind a cell (pass / fail / warn / not_measured)

# For the summary line only; each row says what it means (``QueueItem.wording``).
SUMMARY_GROUPS = {0: "ready", 1: "stale approval", 2: "not passing", 3: "deferred", 4: "decided", 5: "not replayed"}


@dataclass(frozen=True)
class StandingText:
    """An active standing rule as the detail pane shows it next to a duplicate or conflict."""

    standing_id: str
    rule_id: int
    trigger: str
    directive: str


@dataclass(frozen=True)
class QueueSnapshot:
    queue: PromotionQueue
    reviewer: str | None
    standing: dict[str, StandingText] = field(default_factory=dict)  # active, by standing id

    @property
    def items(self) -> tuple[QueueItem, ...]:
        return self.queue.items


def load_snapshot(store: Store, reviewer: str | None, similarity: Similarity | None = None) -> QueueSnapshot:
    """The queue (gates judged for ``reviewer``) and the texts of every active standing rule."""
    queue = promotion_queue(store, reviewer=reviewer, similarity=similarity)
    rules = RuleRepository(store)
    standing: dict[str, StandingText] = {}
    for promotion in PromotionRepository(store).list(["active"]):
        version = rules.get_version(promotion.rule_version_id)
        if version is not None:
            standing[promotion.standing_id] = StandingText(promotion.standing_id, promotion.rule_id,
                                                           version.trigger, version.directive)
    for item in queue.items:  # imported standing rules can be successors too (adopted on use)
        if item.imported and item.standing_id and item.promotion_status == "active":
            standing.setdefault(item.standing_id, StandingText(item.standing_id, item.rule_id, item.trigger,
                                                               item.directive))
    return QueueSnapshot(queue, reviewer, standing)


def blind_cell(column: int, role: int, tooltip: str) -> Any:
    """A hidden cell: the rules table's words ("◌ hidden", "·"), no colour, no gate state."""
    if role == Qt.ItemDataRole.DisplayRole:
        return BLIND_WORDS.get(column, "·")
    if role == Qt.ItemDataRole.ToolTipRole:
        return plain_tooltip(tooltip)
    if role == Qt.ItemDataRole.AccessibleTextRole:
        return f"{COLUMNS[column]}: hidden while the rule is in your blind session"
    return None


class PromotionQueueModel(QAbstractTableModel):
    """The queue's rows. Rules whose replay answer is hidden (``set_blind``) come after the
    others, by rule id: the core's order (passing rules first) would tell their verdict; a
    text filter matches their rule text only, never the wording that carries the verdict."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._items: list[QueueItem] = []
        self._filter = ""
        self.snapshot: QueueSnapshot | None = None
        self.blind: frozenset[str] = frozenset()  # origins whose replay answers are hidden
        self._blind_tip: Callable[[str], str] = str

    def set_blind(self, origins: frozenset[str], tooltip: Callable[[str], str]) -> None:
        """Rules (by origin) whose replay answers are hidden (the reviewer's unfinished blind session)."""
        self._blind_tip = tooltip
        if origins != self.blind:
            self.beginResetModel()
            self.blind = origins
            self._items = self._filtered()
            self.endResetModel()

    def hides(self, item: QueueItem | None) -> bool:
        return item is not None and item.origin in self.blind

    def blind_tooltip(self, item: QueueItem) -> str:
        return self._blind_tip(item.origin)

    def set_snapshot(self, snapshot: QueueSnapshot | None) -> None:
        self.beginResetModel()
        self.snapshot = snapshot
        self._items = self._filtered()
        self.endResetModel()

    def set_filter(self, text: str) -> None:
        """Show only rows whose rule, text, standing id or state contains ``text`` (any case)."""
        self.beginResetModel()
        self._filter = " ".join(text.lower().split())
        self._items = self._filtered()
        self.endResetModel()

    def _filtered(self) -> list[QueueItem]:
        items = [] if self.snapshot is None else list(self.snapshot.items)
        shown = [i for i in items if not self.hides(i)]
        hidden = sorted((i for i in items if self.hides(i)), key=lambda i: i.rule_id)
        if self._filter:
            shown = [i for i in shown if self._filter in " ".join(
                (i.origin, i.trigger, i.directive, i.standing_id or "", i.wording, i.kind)).lower()]
            hidden = [i for i in hidden if self._filter in " ".join(
                (i.origin, i.trigger, i.directive, i.standing_id or "", i.kind, "hidden blind session")).lower()]
        return shown + hidden

    def row_summary(self, item: QueueItem) -> str:
        """Every other column of the row, one line each: the Rule and Trigger tooltips carry it,
        so a column hidden at a narrow width (or by the reviewer) is still read on hover."""
        lines = []
        for column, title in enumerate(COLUMNS):
            if column in (COL_RULE, COL_TRIGGER):
                continue
            hidden = column in BLIND_COLUMNS and self.hides(item)
            text = BLIND_WORDS.get(column, "·") if hidden else cell_text(item, column)
            if text:
                lines.append(f"{title}: {text}")
        return "\n".join(lines)

    def item(self, row: int) -> QueueItem | None:
        return self._items[row] if 0 <= row < len(self._items) else None

    def row_for_rule(self, rule_id: int) -> int:
        return next((row for row, item in enumerate(self._items) if item.rule_id == rule_id), -1)

    def items(self) -> Sequence[QueueItem]:
        return tuple(self._items)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._items)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(COLUMNS):
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._items):
            return None
        item, column = self._items[index.row()], index.column()
        if column in BLIND_COLUMNS and self.hides(item) and role not in (ITEM_ROLE, RULE_ID_ROLE):
            return blind_cell(column, role, self._blind_tip(item.origin))
        if role == Qt.ItemDataRole.DisplayRole:
            return cell_text(item, column)
        if role == Qt.ItemDataRole.ToolTipRole and column in (COL_RULE, COL_TRIGGER):
            return plain_tooltip(f"{tooltip_text(item, column)}\n\n{self.row_summary(item)}")
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(tooltip_text(item, column))
        if role in (Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole):
            colours = theme.swatch(swatch_name(item, column) or "")
            if colours is None:
                return None
            return colours.background if role == Qt.ItemDataRole.BackgroundRole else colours.foreground
        if role == ITEM_ROLE:
            return item
        if role == RULE_ID_ROLE:
            return item.rule_id
        if role == STATE_ROLE:
            return cell_state(item, column)
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
