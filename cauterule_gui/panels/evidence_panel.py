"""The evidence board for one rule: its text, verdict and numbers, then its trajectories in
tabs Prevented / Broken / Near-miss / Missed (with counts).

Selecting a row opens the trajectory in the review viewer. A row the reviewer selects
(mouse, arrows, ``]`` / ``[``) is a deliberate open, which is what counts towards the
approval gate for broken rows; the automatic first-row preview when a rule is shown is not,
and broken rows are never auto-opened.

The board (``EvidenceBundle``) brings each bucket's size and first page; switching buckets
shows that page at once, and deeper rows are read by the model through the executor as the
table scrolls (or as ``]`` walks past the rows read). Nothing here reads the store.

The header above the buckets (rule text, verdict, status, key buttons, banner) is
``evidence_header.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtWidgets import QAbstractItemView, QTabBar, QTableView, QVBoxLayout, QWidget

from core.store.evidence_pages import EvidenceBundle
from core.store.replay_repo import StoredOutcome, StoredResult
from core.store.workspace_query import BUCKETS, WorkspaceRule

from cauterule_gui.column_fit import ColumnFit
from cauterule_gui.glossary import FLOORS, longest
from cauterule_gui.models import evidence_table_model as ev
from cauterule_gui.models.evidence_table_model import OUTCOME_ROLE, EvidenceTableModel
from cauterule_gui.models.formatting import BUCKET_SYMBOLS, BUCKET_TITLES
from cauterule_gui.panels.evidence_header import EvidenceHeader
from cauterule_gui.plain_text import plain_label

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

AUTO_OPEN_ORDER = ("prevented", "near_miss", "missed")


class EvidencePanel(EvidenceHeader, QWidget):
    evidence_opened = Signal(object, bool)  # StoredOutcome | None, deliberate
    bucket_changed = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rule: WorkspaceRule | None = None
        self.result: StoredResult | None = None
        self._board: EvidenceBundle | None = None
        self._unopened = 0  # broken rows this reviewer has neither opened nor waived
        self._viewed: set[int] = set()
        self._waived: dict[int, str] = {}
        self._marks: dict[int | None, str] = {}
        self._programmatic = False

        self._build_header()

        self.tabs = QTabBar(self)
        self.tabs.setObjectName("evidenceTabs")
        self.tabs.setAccessibleName("Evidence buckets")
        self.tabs.setExpanding(False)
        self.tabs.setDrawBase(False)
        for bucket in BUCKETS:
            self.tabs.addTab(BUCKET_TITLES[bucket])
        self.tabs.currentChanged.connect(self._on_tab_changed)

        self.model = EvidenceTableModel(self)
        self.model.page_failed.connect(lambda why: self.show_message(f"Could not read more rows of this bucket: {why}"))
        self.view = QTableView(self)
        self.view.setObjectName("evidenceTable")
        self.view.setAccessibleName("Evidence trajectories")
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.setAlternatingRowColors(True)
        self.view.setWordWrap(False)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.view.fontMetrics().height() + 8)
        # Every column on screen from 1280 px up; ids and corpora elided in the middle (two ids
        # that share a prefix still read differently), the full text in the tooltip and viewer.
        self.column_fit = ColumnFit(
            self.view, {ev.COL_DOMAIN: "docker", ev.COL_SCORE: "0.700", ev.COL_OPENED: "✓ opened",
                        ev.COL_FLOOR: longest(FLOORS)},  # a floor's word is never elided
            {ev.COL_ID: (5.0, 18), ev.COL_CORPUS: (1.0, 6), ev.COL_VIEW: (0.3, 8), ev.COL_MARK: (0.3, 5)})
        self.column_fit.elide_left(ev.COL_CORPUS)  # …/golden, not cor…den
        self.empty_label = plain_label("", self)
        self.empty_label.setObjectName("evidenceEmpty")
        self.empty_label.setEnabled(False)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.title)
        layout.addWidget(self.trigger_label)
        layout.addWidget(self.directive_label)
        layout.addWidget(self.verdict_label)
        layout.addWidget(self.status_label)
        layout.addLayout(self.verdict_bar)
        layout.addLayout(self.decision_bar)
        layout.addWidget(self.banner)
        layout.addWidget(self.reveal_button, 0, Qt.AlignmentFlag.AlignLeft)
        layout.addWidget(self.tabs)
        layout.addWidget(self.view, 1)
        layout.addWidget(self.empty_label)
        layout.addLayout(self.row_bar)
        self.view.selectionModel().currentRowChanged.connect(self._on_row_changed)

    # -- showing a rule ----------------------------------------------------------------
    def set_executor(self, db: DatabaseExecutor | None) -> None:
        """Deeper pages of a bucket are read through ``db`` (off the GUI thread)."""
        self.model.set_executor(db)

    def count(self, bucket: str) -> int:
        """Rows in a bucket of the shown result (read or not)."""
        return self._board.total(bucket) if self._board is not None else 0

    def show_rule(self, rule: WorkspaceRule | None, board: EvidenceBundle | None, *, keep_bucket: bool = False) -> None:
        result = board.result if board is not None else None
        same_result = (self.result is not None and result is not None and self.result.id == result.id)
        shown = self.current_outcome() if same_result else None
        previous_pk = shown.trajectory_pk if shown is not None else None
        self.rule, self.result, self._board = rule, result, board
        if board is None:
            self._viewed, self._waived, self._marks, self._unopened = set(), {}, {}, 0
        else:
            self._viewed, self._waived, self._marks = set(board.viewed), dict(board.waived), dict(board.marks)
            self._unopened = board.unopened_broken
        self._show_header()
        for i, bucket in enumerate(BUCKETS):
            count = self.count(bucket)
            symbol = BUCKET_SYMBOLS[bucket]
            shown = "hidden" if self.answers_hidden else f"{count:,}"  # not "(0)": the rule's buckets are unread
            self.tabs.setTabText(i, f"{symbol} {BUCKET_TITLES[bucket]} ({shown})")
            self.tabs.setTabToolTip(i, f"{count:,} {BUCKET_TITLES[bucket].lower()} trajector{'y' if count == 1 else 'ies'}")
        if same_result or keep_bucket:
            self._load_bucket(self.bucket)
            if previous_pk is not None:
                self._seek(previous_pk, lambda row: self._select(row, deliberate=False))
            return
        bucket = next((b for b in AUTO_OPEN_ORDER if self.count(b)), "broken" if self.count("broken") else "prevented")
        self.set_bucket(bucket, auto_open=bucket != "broken")

    def update_flags(self, viewed: set[int], waived: Mapping[int, str], marks: Mapping[int | None, str],
                     unopened: int | None = None) -> None:
        """The reviewer's flags changed; ``unopened`` (broken rows left to open) when it was read."""
        self._viewed, self._waived, self._marks = set(viewed), dict(waived), dict(marks)
        if unopened is not None:
            self._unopened = unopened
        self.model.update_flags(self._viewed, self._waived, self._marks)
        self._show_header()

    # -- buckets and rows --------------------------------------------------------------
    @property
    def bucket(self) -> str:
        return BUCKETS[max(0, self.tabs.currentIndex())]

    def set_bucket(self, bucket: str, *, auto_open: bool = False, select_first: bool = False) -> None:
        index = BUCKETS.index(bucket)
        self.tabs.blockSignals(True)
        self.tabs.setCurrentIndex(index)
        self.tabs.blockSignals(False)
        self._load_bucket(bucket)
        if self.model.rowCount() and (auto_open or select_first):
            self._select(0, deliberate=select_first)
        elif not self.model.rowCount():
            self.evidence_opened.emit(None, False)
        self.bucket_changed.emit(bucket)

    def _load_bucket(self, bucket: str) -> None:
        board = self._board
        self._programmatic = True
        try:
            self.model.set_rows(bucket, board.result.id if board is not None and board.result is not None else None,
                                board.first_rows.get(bucket, []) if board is not None else [], self.count(bucket),
                                self._viewed, self._waived, self._marks)
        finally:
            self._programmatic = False
        empty = not self.count(bucket)
        self.empty_label.setText(f"No {BUCKET_TITLES[bucket].lower()} trajectories for this rule." if empty else "")
        self.empty_label.setVisible(empty)

    def _seek(self, pk: int, found: Callable[[int], None], missing: Callable[[], None] | None = None) -> None:
        """Call ``found(row)`` once the trajectory's row is read: now, or after the pages before
        it arrive (read through the executor); ``missing()`` when the bucket has no such row."""
        row = self.model.row_of(pk)
        if row is not None:
            found(row)
        elif not self.model.fetch_more_then(lambda: self._seek(pk, found, missing)) and missing is not None:
            missing()

    def _on_tab_changed(self, index: int) -> None:
        if 0 <= index < len(BUCKETS):
            bucket = BUCKETS[index]
            self._load_bucket(bucket)
            if self.model.rowCount() and bucket != "broken":
                self._select(0, deliberate=False)
            self.bucket_changed.emit(bucket)

    def _select(self, row: int, *, deliberate: bool) -> None:
        self._programmatic = not deliberate
        try:
            index = self.model.index(row, 0)
            self.view.selectionModel().setCurrentIndex(
                index, QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
            )
            self.view.scrollTo(index)
        finally:
            self._programmatic = False

    def move_row(self, step: int) -> None:
        """Deliberately open the next / previous row of the current bucket."""
        if not self.model.rowCount():
            return
        row = self.view.currentIndex().row()
        wanted = 0 if row < 0 else max(row + step, 0)
        if wanted >= self.model.rowCount() and self.model.fetch_more_then(lambda: self._move_to(row, wanted)):
            return  # past the rows read: move when the next page is in
        self._move_to(row, wanted)

    def _move_to(self, row: int, wanted: int) -> None:
        if self.view.currentIndex().row() != row:
            return  # the reviewer moved on while the page was read
        target = min(wanted, self.model.rowCount() - 1)
        if target != row and target >= 0:
            self._select(target, deliberate=True)

    def restore_row(self, bucket: str, pk: int) -> bool:
        """Resume: show that row again without counting it as a new open (it was opened, and
        recorded, when the reviewer selected it before the restart). A row past the first page
        is selected when its page has been read; False for an unknown bucket."""
        if bucket not in BUCKETS:
            return False
        self.tabs.blockSignals(True)
        self.tabs.setCurrentIndex(BUCKETS.index(bucket))
        self.tabs.blockSignals(False)
        self._load_bucket(bucket)
        self.bucket_changed.emit(bucket)
        self._seek(pk, lambda row: self._select(row, deliberate=False))
        return True

    def current_outcome(self) -> StoredOutcome | None:
        index = self.view.currentIndex()
        value = index.data(OUTCOME_ROLE) if index.isValid() else None
        return value if isinstance(value, StoredOutcome) else None

    def _on_row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not current.isValid():
            return
        value = current.data(OUTCOME_ROLE)
        if isinstance(value, StoredOutcome):
            self.evidence_opened.emit(value, not self._programmatic)
