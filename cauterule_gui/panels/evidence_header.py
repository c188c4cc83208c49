"""The evidence board's header: the rule's text, verdict, numbers and status, the reviewer's
key buttons (decision, verdict mark, selected row), the banner and **Show evidence anyway**.

A mixin of ``EvidencePanel`` (the widgets live on the panel): ``_build_header`` makes them,
``_show_header`` fills them from the panel's rule and result. Nothing here reads the store.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QWidget

from core.store.replay_repo import StoredResult
from core.store.workspace_query import WorkspaceRule

from cauterule_gui import theme
from cauterule_gui.glossary import word
from cauterule_gui.models.formatting import MARK_TEXT, STATUS_TEXT, VERDICT_TEXT, pool_text, rate
from cauterule_gui.plain_text import plain_label

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


class EvidenceHeader:
    """The header widgets and their text (a mixin: the host is the ``EvidencePanel`` widget)."""

    rule: WorkspaceRule | None
    result: StoredResult | None
    _marks: dict[int | None, str]
    _unopened: int  # broken rows this reviewer has neither opened nor waived
    count: Callable[[str], int]
    palette: Callable[[], object]

    def _build_header(self) -> None:
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
        self._row_marks: list[QWidget] = []  # the selected row's mark bar (hidden with the answers)
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

    # -- buttons -----------------------------------------------------------------------
    def add_decision_actions(self, actions: Sequence[tuple[QAction, str]]) -> None:
        for action, label in actions:
            self.decision_bar.addWidget(key_button(action, self, label))
        self.decision_bar.addStretch(1)

    def add_verdict_mark_actions(self, actions: Sequence[tuple[QAction, str]]) -> None:
        self._verdict_marks = self._mark_bar(self.verdict_bar, "Verdict — replay is:", actions)

    def add_row_actions(self, actions: Sequence[tuple[QAction, str]]) -> None:
        self._row_marks = self._mark_bar(self.row_bar, "Selected row — replay is:", actions)

    def _mark_bar(self, bar: QHBoxLayout, title: str, actions: Sequence[tuple[QAction, str]]) -> list[QWidget]:
        """A title and one key button per action in ``bar``: the widgets (hidden with the answers)."""
        widgets: list[QWidget] = [plain_label(title, self)]
        widgets += [key_button(action, self, label) for action, label in actions]
        for widget in widgets:
            bar.addWidget(widget)
        bar.addStretch(1)
        return widgets

    def set_replaying(self, running: bool) -> None:
        """What the empty board says: the run is on its way, or which key selects a rule."""
        self.no_rule_text = (REPLAYING_TEXT if running else NO_RULE_TEXT)
        if self.rule is None:
            self._show_header()

    def _show_header(self) -> None:
        rule, result = self.rule, self.result
        for widget in (*self._verdict_marks, *self._row_marks):  # no "replay is right / wrong" about answers not shown
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
