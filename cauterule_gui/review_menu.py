"""The review workspace's actions: menus, buttons and keys all come from these QActions.

Single-key shortcuts (A, R, D, J, K, 1–4, ], [, Y, N, U, W, E, H, /) act only while the
Review tab is showing and no text field has focus, so typing a reason or a filter never
decides anything (Esc leaves a text field). They can be switched off (WCAG 2.1 SC 2.1.4);
the buttons and menus keep working.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QSettings
from PySide6.QtGui import QAction, QActionGroup, QKeySequence
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QMenu,
    QMenuBar,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

KEY_SINGLE_KEYS = "review/single_key_shortcuts"
RULE_GROUPS = ("Decide", "Evidence", "Mark", "Rule")  # their actions need a selected rule


def text_input_focused() -> bool:
    widget = QApplication.focusWidget()
    if isinstance(widget, QLineEdit | QPlainTextEdit | QTextEdit):
        return not widget.isReadOnly()
    if isinstance(widget, QAbstractSpinBox):
        return True
    if isinstance(widget, QComboBox):
        return widget.isEditable()
    return False


class ReviewActions(QObject):
    def __init__(self, parent: QWidget, settings: QSettings, active: Callable[[], bool]) -> None:
        super().__init__(parent)
        self._parent = parent
        self._settings = settings
        self._active = active
        self._single: list[tuple[QAction, QKeySequence]] = []
        self.groups: dict[str, list[QAction]] = {}
        self._rule_free: list[QAction] = []  # in a rule group but acting without a rule (Undo)

    def add(self, group: str, text: str, slot: Callable[[], object], key: str | QKeySequence | None = None,
            *, single_key: bool = False, guarded: bool = True, tip: str = "") -> QAction:
        action = QAction(text, self._parent)
        if key is not None:
            sequence = key if isinstance(key, QKeySequence) else QKeySequence(key)
            action.setShortcut(sequence)
            if single_key:
                self._single.append((action, sequence))
        action.setStatusTip(tip or text.replace("&", ""))

        def fire(_checked: bool = False) -> None:
            if guarded and (text_input_focused() or not self._active()):
                return
            slot()

        action.triggered.connect(fire)
        self._parent.addAction(action)  # window-wide shortcut, also when the menu bar is hidden
        self.groups.setdefault(group, []).append(action)
        return action

    def menu(self, bar: QMenuBar, title: str, groups: list[str | None]) -> QMenu:
        menu = bar.addMenu(title)
        for group in groups:
            if group is None:
                menu.addSeparator()
                continue
            for action in self.groups.get(group, []):
                menu.addAction(action)
        return menu

    def set_rule_selected(self, selected: bool) -> None:
        """Actions that act on the current rule are enabled only while there is one (during the
        first replay the table is empty: Approve / Reject must not look as if they could act)."""
        for group in RULE_GROUPS:
            for action in self.groups.get(group, []):
                if action not in self._rule_free:
                    action.setEnabled(selected)

    # -- single-key mode ---------------------------------------------------------------
    @property
    def single_keys_on(self) -> bool:
        value = self._settings.value(KEY_SINGLE_KEYS, True)
        return value.lower() in ("true", "1") if isinstance(value, str) else bool(value)

    def set_single_keys(self, on: bool) -> None:
        self._settings.setValue(KEY_SINGLE_KEYS, on)
        for action, sequence in self._single:
            action.setShortcut(sequence if on else QKeySequence())

    def radio_group(self, actions: list[QAction]) -> QActionGroup:
        group = QActionGroup(self._parent)
        for action in actions:
            action.setCheckable(True)
            group.addAction(action)
        return group


def install(actions: ReviewActions, window: object) -> None:  # noqa: PLR0915 - one table of keys
    """Define every review key in one place (the `?` sheet is built from these)."""
    w: object = window
    review = w.review  # type: ignore[attr-defined]
    evidence = w.workspace.evidence  # type: ignore[attr-defined]
    rules = w.workspace.rules  # type: ignore[attr-defined]
    replay = w.replay  # type: ignore[attr-defined]
    add = actions.add

    bulk = w.bulk  # type: ignore[attr-defined]  # several rows selected: each rule decided (bulk_decisions.py)
    add("Decide", "&Approve", lambda: bulk.act("approve", review.approve), "A", single_key=True,
        tip="Approve the rule (or every selected rule) and move on (refused while broken rows are unopened)")
    add("Decide", "&Reject…", lambda: bulk.act("reject", review.reject), "R", single_key=True,
        tip="Reject with a reason (the rule, or every selected rule) and move on")
    add("Decide", "&Defer", lambda: bulk.act("defer", review.defer), "D", single_key=True,
        tip="Defer the rule (or every selected rule) and move on")
    undo = add("Decide", "&Undo last decision", review.undo, QKeySequence.StandardKey.Undo,
               tip="Undo your newest decision (recorded as a new audit event)")
    actions._rule_free.append(undo)  # undo needs no selected rule: it takes the reviewer back to it
    add("Navigate", "&Next rule", lambda: rules.move(1), "J", single_key=True)
    add("Navigate", "&Previous rule", lambda: rules.move(-1), "K", single_key=True)
    add("Navigate", "Select the rule's &duplicates", bulk.select_group, "G", single_key=True,
        tip="Select every rule with the same trigger and directive (then A / R / D decide on each)")
    add("Navigate", "&Filter rules", rules.focus_filter, "/", single_key=True)
    add("Navigate", "Back to the rules table", lambda: rules.view.setFocus(), "Esc", guarded=False)
    for number, (bucket, title) in enumerate((("prevented", "Prevented"), ("broken", "Broken"),
                                              ("near_miss", "Near-miss"), ("missed", "Missed")), start=1):
        add("Evidence", f"Show {title}", lambda b=bucket: evidence.set_bucket(b, select_first=True), str(number),
            single_key=True)
    add("Evidence", "Open next evidence row", lambda: evidence.move_row(1), "]", single_key=True)
    add("Evidence", "Open previous evidence row", lambda: evidence.move_row(-1), "[", single_key=True)
    add("Evidence", "&Waive broken row…", review.waive, "W", single_key=True,
        tip="Waive the selected broken trajectory with a written reason")
    add("Mark", "Row: replay is &right", lambda: review.mark_row("right"), "Y", single_key=True)
    add("Mark", "Row: replay is &wrong", lambda: review.mark_row("wrong"), "N", single_key=True)
    add("Mark", "Row: can't tell", lambda: review.mark_row("cant_tell"), "U", single_key=True)
    add("Mark", "Verdict: replay is right", lambda: review.mark_verdict("right"), "Shift+Y", single_key=True)
    add("Mark", "Verdict: replay is wrong", lambda: review.mark_verdict("wrong"), "Shift+N", single_key=True)
    add("Mark", "Verdict: can't tell", lambda: review.mark_verdict("cant_tell"), "Shift+U", single_key=True)
    add("Rule", "&What if… (edit and replay)", lambda: w.whatif.open(review.rule), "E",  # type: ignore[attr-defined]
        single_key=True)
    add("Rule", "Audit &log…", review.show_audit, "H", single_key=True)
    add("Replay", "Replay &selected rules", w.replay_selection, "Ctrl+R")  # type: ignore[attr-defined]
    actions.set_rule_selected(rules.current_rule() is not None)
    rules.rule_selected.connect(lambda rule: actions.set_rule_selected(rule is not None))
    add("Replay", "Replay a &corpus…", w.replay_corpus, "Ctrl+Shift+R", guarded=False)  # type: ignore[attr-defined]
    add("Replay", "Replay &everything", w.replay_everything, "Ctrl+Alt+R", guarded=False)  # type: ignore[attr-defined]
    add("Replay", "&Cancel replay", replay.cancel, "Ctrl+.", guarded=False)
