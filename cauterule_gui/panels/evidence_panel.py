"""The evidence board for one rule: its text, verdict and numbers, then its trajectories in
tabs Prevented / Broken / Near-miss / Missed (with counts).

Selecting a row opens the trajectory in the review viewer. A row the reviewer selects
(mouse, arrows, ``]`` / ``[``) is a deliberate open, which is what counts towards the
approval gate for broken rows; the automatic first-row preview when a rule is shown is not,
and broken rows are never auto-opened.

The board (``EvidenceBundle``) brings each bucket's size and first page; switching buckets
shows that page at once, and deeper rows are read by the model through the executor as the
table scrolls (or as ``]`` walks past the rows read). Nothing here reads the store.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QItemSelectionModel, QModelIndex, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QTabBar,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.store.evidence_pages import EvidenceBundle
from core.store.replay_repo import StoredOutcome, StoredResult
from core.store.workspace_query import BUCKETS, WorkspaceRule

from cauterule_gui import theme
from cauterule_gui.column_fit import ColumnFit
from cauterule_gui.glossary import FLOORS, longest, word
from cauterule_gui.models import evidence_table_model as ev
from cauterule_gui.models.evidence_table_model import OUTCOME_ROLE, EvidenceTableModel
from cauterule_gui.models.formatting import (
    BUCKET_SYMBOLS,
    BUCKET_TITLES,
    MARK_TEXT,
    STATUS_TEXT,
    VERDICT_TEXT,
    pool_text,
    rate,
)
from cauterule_gui.plain_text import plain_label

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

AUTO_OPEN_ORDER = ("prevented", "near_miss", "missed")
NO_RULE_TEXT = "No rule selected: select one in the rules table (J / K) to see its evidence and decide"
REPLAYING_TEXT = ("Replay running: rules appear in the table as each one finishes; select one (J / K) "
                  "to see its evidence and decide")


def key_button(action: QAction, parent: QWidget, label: str | None = None) -> QToolButton:
    """A button showing a label and the action's key, kept in sync when the key changes
    (so the key printed on a button is always the key that acts)."""
    button = QToolButton(parent)
    button.setDefaultAction(action)
    button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)

    def sync() -> None:
        key = action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)
        text = label or action.text().replace("&", "").replace("…", "").strip()
        button.setText(f"{text} ({key})" if key else text)
        button.setAccessibleName(action.text().replace("&", ""))
        button.setToolTip(action.statusTip() or action.text().replace("&", ""))

    action.changed.connect(sync)
    sync()
    return button


def _bold(label: QLabel) -> QLabel:
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    return label


class EvidencePanel(QWidget):
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

        self.no_rule_text = NO_RULE_TEXT
        self.title = _bold(plain_label(NO_RULE_TEXT, self))
        self.title.setWordWrap(True)
        self.title.setObjectName("ruleTitle")
        self.title.setWordWrap(True)
        self.trigger_label = plain_label("", self)
        self.trigger_label.setObjectName("ruleTrigger")
        self.trigger_label.setWordWrap(True)
        self.trigger_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.directive_label = plain_label("", self)
        self.directive_label.setObjectName("ruleDirective")
        self.directive_label.setWordWrap(True)
        self.directive_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.verdict_label = plain_label("", self)
        self.verdict_label.setObjectName("ruleVerdict")
        self.verdict_label.setWordWrap(True)
        self.verdict_label.setAutoFillBackground(True)
        self.verdict_label.setMargin(4)
        self.status_label = plain_label("", self)
        self.status_label.setObjectName("ruleStatus")
        self.status_label.setWordWrap(True)
        self.banner = plain_label("", self)
        self.banner.setObjectName("reviewBanner")
        self.banner.setWordWrap(True)
        self.banner.setFrameShape(QFrame.Shape.StyledPanel)
        self.banner.setMargin(4)
        self.banner.hide()
        self.answers_hidden = False  # replay's answers withheld (blind session): the header says so
        self._verdict_marks: list[QWidget] = []  # the verdict-mark bar (hidden with the answers)
        self.reveal_button = QPushButton("Show evidence anyway", self)
        self.reveal_button.setObjectName("revealEvidence")
        self.reveal_button.setToolTip("Show this rule's buckets before you finish your blind session")
        self.reveal_button.hide()
        self._reveal: Callable[[], None] | None = None
        self.reveal_button.clicked.connect(lambda: self._reveal() if self._reveal is not None else None)

        self.decision_bar = QHBoxLayout()
        self.decision_bar.setContentsMargins(0, 0, 0, 0)
        self.verdict_bar = QHBoxLayout()
        self.verdict_bar.setContentsMargins(0, 0, 0, 0)
        self.row_bar = QHBoxLayout()
        self.row_bar.setContentsMargins(0, 0, 0, 0)

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

    # -- buttons -----------------------------------------------------------------------
    def add_decision_actions(self, actions: Sequence[tuple[QAction, str]]) -> None:
        for action, label in actions:
            self.decision_bar.addWidget(key_button(action, self, label))
        self.decision_bar.addStretch(1)

    def add_verdict_mark_actions(self, actions: Sequence[tuple[QAction, str]]) -> None:
        self._verdict_marks = [plain_label("Verdict — replay is:", self)]
        self._verdict_marks += [key_button(action, self, label) for action, label in actions]
        for widget in self._verdict_marks:
            self.verdict_bar.addWidget(widget)
        self.verdict_bar.addStretch(1)

    def add_row_actions(self, actions: Sequence[tuple[QAction, str]]) -> None:
        self.row_bar.addWidget(plain_label("Selected row — replay is:", self))
        for action, label in actions:
            self.row_bar.addWidget(key_button(action, self, label))
        self.row_bar.addStretch(1)

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

    def set_replaying(self, running: bool) -> None:
        """What the empty board says: the run is on its way, or which key selects a rule."""
        self.no_rule_text = (REPLAYING_TEXT if running else NO_RULE_TEXT)
        if self.rule is None:
            self._show_header()

    def update_flags(self, viewed: set[int], waived: Mapping[int, str], marks: Mapping[int | None, str],
                     unopened: int | None = None) -> None:
        """The reviewer's flags changed; ``unopened`` (broken rows left to open) when it was read."""
        self._viewed, self._waived, self._marks = set(viewed), dict(waived), dict(marks)
        if unopened is not None:
            self._unopened = unopened
        self.model.update_flags(self._viewed, self._waived, self._marks)
        self._show_header()

    def _show_header(self) -> None:
        rule, result = self.rule, self.result
        for widget in self._verdict_marks:  # no "replay is right / wrong" about a verdict not shown
            widget.setVisible(not self.answers_hidden)
        if rule is None:
            self.title.setText(self.no_rule_text)
            for label in (self.trigger_label, self.directive_label, self.verdict_label, self.status_label):
                label.setText("")
            self.verdict_label.setPalette(self.palette())
            return
        version = f"v{rule.version}" + (f" of {rule.latest_version}" if rule.latest_version != rule.version else "")
        self.title.setText(f"{rule.origin}  ·  {rule.kind}  ·  {version}  ·  run #{rule.run_id} ({rule.profile})")
        self.trigger_label.setText(f"When: {rule.trigger}")
        self.directive_label.setText(f"Do: {rule.directive}")
        if self.answers_hidden:  # a rule of the reviewer's unfinished blind session: no verdict, no rates
            self.verdict_label.setText("Verdict: hidden while this rule is in your blind session (so are its "
                                       "precision, recall and buckets)")
            self.verdict_label.setPalette(self.palette())
            self.status_label.setText(f"Status: {STATUS_TEXT.get(rule.status, rule.status)}")
            return
        pools = ""
        if result is not None:
            pools = f"   ·   precision {pool_text(result.precision_pool)}"
        self.verdict_label.setText(
            f"Verdict: {VERDICT_TEXT.get(rule.verdict, rule.verdict)} ({word(rule.reason)})   ·   "
            f"precision {rate(rule.precision, rule.precision_ci)}   ·   recall {rate(rule.recall, rule.recall_ci)}"
            f"   ·   threshold {rule.threshold:.2f}{pools}"
        )
        swatch = theme.swatch(rule.verdict, self.palette())
        palette = self.palette()
        if swatch is not None:
            palette.setColor(self.verdict_label.backgroundRole(), swatch.background)
            palette.setColor(self.verdict_label.foregroundRole(), swatch.foreground)
        self.verdict_label.setPalette(palette)
        status = STATUS_TEXT.get(rule.status, rule.status)
        if rule.reviewer:
            status += f" by {rule.reviewer}"
        if rule.decision_reason:
            status += f": {rule.decision_reason}"
        mark = MARK_TEXT.get(self._marks.get(None, ""), "not marked")
        gate = (f"   ·   ⚠ {self._unopened:,} broken not yet opened or waived" if self._unopened
                else ("   ·   ✓ every broken trajectory opened or waived" if self.count("broken") else ""))
        self.status_label.setText(f"Status: {status}   ·   your verdict mark: {mark}{gate}")

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

    # -- messages ----------------------------------------------------------------------
    def offer_reveal(self, reveal: Callable[[], None]) -> None:
        """The board is hidden (a blind session): a button shows it anyway."""
        self._reveal = reveal
        self.reveal_button.show()

    def hide_reveal(self) -> None:
        self._reveal = None
        self.reveal_button.hide()

    def show_message(self, text: str, *, warning: bool = True) -> None:
        self.banner.setText(("⚠ " if warning else "") + text)
        swatch = theme.swatch("broken" if warning else "missed", self.palette())
        palette = self.palette()
        if swatch is not None:
            palette.setColor(self.banner.backgroundRole(), swatch.background)
            palette.setColor(self.banner.foregroundRole(), swatch.foreground)
            self.banner.setAutoFillBackground(True)
        self.banner.setPalette(palette)
        self.banner.show()

    def clear_message(self) -> None:
        self.banner.hide()
        self.banner.setText("")
