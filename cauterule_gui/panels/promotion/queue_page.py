"""Promotion's queue: load the snapshot (lexical or semantic), filter it, move through it, show one rule's gates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QItemSelectionModel, Qt
from PySide6.QtGui import QFont, QPalette, QTextCharFormat, QTextCursor

from core.promotion import QueueItem

from cauterule_gui import theme
from cauterule_gui.blind_guard import hidden_tooltip
from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.models import promotion_queue_model as qm
from cauterule_gui.models.promotion_detail import detail_sections, hidden_detail_sections
from cauterule_gui.models.promotion_queue_model import QueueSnapshot
from cauterule_gui.panels.base import _handled_by_caller
from cauterule_gui.panels.promotion.similarity import semantic_similarity
from cauterule_gui.plain_text import plain_tooltip


class QueuePage:
    """The queue and detail pane of ``PromotionPanel`` (a mixin: the widgets live on the panel)."""

    # -- queue -----------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        return any(h is not None and h.running for h in (self._queue_job, self._action_job))

    def current_item(self) -> QueueItem | None:
        return self.model.item(self.view.currentIndex().row())

    def select_rule(self, rule_id: int) -> bool:
        row = self.model.row_for_rule(rule_id)
        if row < 0:
            self._want_rule = rule_id
            return False
        flags = QItemSelectionModel.SelectionFlag.ClearAndSelect | QItemSelectionModel.SelectionFlag.Rows
        self.view.selectionModel().setCurrentIndex(self.model.index(row, 0), flags)
        self.view.scrollTo(self.model.index(row, 0))
        return True

    def refresh(self) -> JobHandle | None:
        services = self._services()
        if services is None:
            self.model.set_snapshot(None)
            self._show_current()
            return None
        reviewer = self.identity.name
        current = self.current_item()
        if current is not None and self._want_rule is None:
            self._want_rule = current.rule_id
        # Both through the executor's reads (never queued behind a write); the semantic queue
        # scores every pair after reading, so it runs on the CPU pool and leaves the read threads free.
        semantic = self.semantic_box.isChecked()
        factory = self.embedder_factory

        def job(now_open: Any, _cancel: Any) -> QueueSnapshot:
            if semantic:
                return qm.load_snapshot(now_open.store, reviewer, semantic_similarity(factory))
            return qm.load_snapshot(now_open.store, reviewer)

        handle = self.db.query_cancellable(job, self._on_snapshot, name="promotion queue",
                                           key=f"promotion-queue-{id(self)}", heavy=semantic,
                                           on_error=_handled_by_caller)
        if handle is None:
            return None
        what = "semantic" if semantic else "lexical"
        self.similarity_label.setText(f"computing the queue ({what} similarity)…")
        handle.error.connect(lambda failure: self._show_failure(failure, "The promotion queue could not be built"))
        handle.finished.connect(self._update_buttons)
        self._queue_job = handle
        return handle

    def _on_snapshot(self, snapshot: QueueSnapshot) -> None:
        want = self._want_rule
        self._want_rule = None
        self.model.set_snapshot(snapshot)
        queue = snapshot.queue
        self._show_summary()
        method = "semantic (embedding cosine)" if queue.similarity_method == "semantic" else "lexical (token F1)"
        self.similarity_label.setText(f"similarity: {method}")
        self.similarity_label.setToolTip(plain_tooltip(queue.similarity_note))
        if self.semantic_box.isChecked() and queue.similarity_method != "semantic":
            self.semantic_box.blockSignals(True)
            self.semantic_box.setChecked(False)
            self.semantic_box.blockSignals(False)
            self.set_message(f"Semantic similarity is not available; showing lexical. {queue.similarity_note or ''}",
                             "warn")
        if not (want is not None and self.select_rule(want)) and self.model.rowCount():
            self.select_rule(self.model.item(0).rule_id)  # type: ignore[union-attr]
        self._show_current()
        self.queue_refreshed.emit()

    def _show_summary(self) -> None:
        """How many rules are in each group; a hidden rule counts as hidden, not by its verdict."""
        snapshot = self.model.snapshot
        if snapshot is None:
            return
        groups: dict[str, int] = {}
        for item in snapshot.queue.items:
            label = qm.SUMMARY_GROUPS.get(item.priority, "?")
            if item.run_id is not None and item.decision is None and item.gate("agreement").state != "pass":
                label = "human approval required"
            if self.model.hides(item):
                label = "hidden (your blind session)"
            groups[label] = groups.get(label, 0) + 1
        order = ["ready", "human approval required", *qm.SUMMARY_GROUPS.values(), "hidden (your blind session)"]
        text = " · ".join(f"{groups[g]} {g}" for g in dict.fromkeys(order) if g in groups) or "no rules"
        self.summary.setText(f"Promotion queue: {text}  (gates for reviewer {snapshot.reviewer or '— any'})")

    def blind_changed(self) -> None:
        """The guard's hidden rules changed (a session made or finished, a rule shown anyway)."""
        guard = self.blind
        if guard is None:
            return
        keep = self.current_item()
        self.model.set_blind(guard.masked(), lambda o: hidden_tooltip(guard.session_of(o)))
        if keep is not None and self.model.row_for_rule(keep.rule_id) >= 0:
            self.select_rule(keep.rule_id)
        self._show_summary()
        self._show_current()

    def hidden_reason(self, item: QueueItem | None) -> str | None:
        """Why this rule cannot be decided here now (its replay answer is hidden), or None."""
        if item is None or not self.model.hides(item):
            return None
        return (f"{qm.rule_label(item)} is in your unfinished blind agreement session: its replay answer is "
                "hidden, and a decision here would rest on it. Finish the session, or choose “Show evidence "
                "anyway” (recorded: your later judgements of it are reported apart).")

    # -- detail pane -----------------------------------------------------------------
    def _show_current(self) -> None:
        item = self.current_item()
        self.detail.clear()
        if item is None:
            self.detail.setPlainText("No rule selected. Replay rules to fill the promotion queue.")
        else:
            self._render(item)
        self._update_buttons()

    def _render(self, item: QueueItem) -> None:
        palette = self.detail.palette()
        plain = QTextCharFormat()
        title = QTextCharFormat()
        title.setFontWeight(QFont.Weight.Bold)
        title.setFontPointSize(QFont().pointSizeF() * 1.2)
        heading = QTextCharFormat()
        heading.setFontWeight(QFont.Weight.Bold)
        heading.setForeground(palette.color(QPalette.ColorRole.Text))
        alarm = QTextCharFormat(heading)
        bad = theme.swatch("fail", palette)
        if bad is not None:
            alarm.setForeground(bad.foreground)
            alarm.setBackground(bad.background)
        cursor = QTextCursor(self.detail.document())
        sections = (hidden_detail_sections(item, self.model.snapshot, self.model.blind_tooltip(item))
                    if self.model.hides(item) else detail_sections(item, self.model.snapshot))
        for number, (head, lines) in enumerate(sections):
            if number:
                cursor.insertBlock()
                cursor.insertBlock()
            fmt = title if number == 0 else alarm if head.startswith("⚠") else heading
            cursor.insertText(head, fmt)  # insertText never interprets markup
            for line in lines:
                cursor.insertBlock()
                cursor.insertText(line, plain)
        self.detail.moveCursor(QTextCursor.MoveOperation.Start)

    def set_message(self, text: str, kind: str = "info") -> None:
        self.message.setText(text)
        self.message.setVisible(bool(text))
        palette = self.palette()
        colours = theme.swatch({"error": "fail", "warn": "inconclusive", "ok": "pass"}.get(kind, "missed"), palette)
        if colours is not None:
            palette.setColor(QPalette.ColorRole.Window, colours.background)
            palette.setColor(QPalette.ColorRole.WindowText, colours.foreground)
        self.message.setPalette(palette)
        if text:
            self.status_message.emit(text)

    def _update_buttons(self) -> None:
        item = self.current_item()
        idle = not (self._action_job is not None and self._action_job.running)
        hidden = self.model.hides(item)
        self.reveal_button.setVisible(hidden)
        if hidden:  # replay's answer is hidden: nothing here may be decided on it
            item = None
        active = item is not None and item.promotion_status == "active"
        unreviewed = bool(item is not None and item.gate("broken_reviewed").data.get("unreviewed"))
        reapprove = active and item is not None and (qm.is_stale(item) or bool(item.notes)
                                                      or item.decision != "approve")
        enabled = {
            "approve": item is not None and not active,
            "waive": item is not None and not active and unreviewed,
            "reject": item is not None and not active,
            "defer": item is not None and not active,
            "reapprove": reapprove,
            "retire": active,
            "supersede": active and self.model.snapshot is not None and len(self.model.snapshot.standing) > 1,
        }
        for key, button in self.buttons.items():
            button.setEnabled(idle and enabled[key])
        self.review_button.setEnabled(self.current_item() is not None)

    def reveal_current(self) -> None:
        """"Show evidence anyway" for the selected rule: recorded by the guard, lifted in every tab."""
        item = self.current_item()
        if item is not None and self.blind is not None and self.model.hides(item):
            self.blind.reveal(item.origin)

    def _request_review(self) -> None:
        item = self.current_item()
        if item is not None:
            self.review_requested.emit(item.rule_id)

    # -- keys ------------------------------------------------------------------------
    def _apply_filter(self, text: str) -> None:
        keep = self.current_item()
        self.model.set_filter(text)
        if keep is not None and self.model.row_for_rule(keep.rule_id) >= 0:
            self.select_rule(keep.rule_id)
        elif self.model.rowCount():
            self.view.selectRow(0)
        self._update_buttons()

    def _queue_key(self, key: int) -> Callable[[], object] | None:
        actions: dict[int, Callable[[], object]] = {
            Qt.Key.Key_J: lambda: self._move(1), Qt.Key.Key_K: lambda: self._move(-1),
            Qt.Key.Key_Slash: self.filter_edit.setFocus,
        }
        for letter, name in ((Qt.Key.Key_A, "approve"), (Qt.Key.Key_R, "reject"), (Qt.Key.Key_D, "defer")):
            button = self.buttons[name]
            actions[letter] = lambda b=button: b.click() if b.isEnabled() else self.set_message(
                self.hidden_reason(self.current_item()) or f"{b.text().rstrip('…')} is not available for this row.",
                "info")
        return actions.get(key)

    def _move(self, step: int) -> None:
        rows = self.model.rowCount()
        if rows:
            row = self.view.currentIndex().row()
            self.view.selectRow(0 if row < 0 else min(max(row + step, 0), rows - 1))
