"""Labelling's editor: load a trajectory's label, edit it, autosave it (one transaction per save)."""

from __future__ import annotations

import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.domain.labels import LabelText, accidental_label, label_warnings
from core.metrics.extraction import parse_expected_rule

from cauterule_gui.jobs.runner import JobFailure, JobHandle
from cauterule_gui.models import label_data
from cauterule_gui.panels.labelling.common import (
    VariantListEditor,
)
from cauterule_gui.plain_text import plain_label


class EditorPage:
    """The label editor of ``LabellingPanel`` (a mixin: the widgets live on the panel)."""

    def _build_editor(self) -> None:
        self.trigger = QLineEdit(self)
        self.trigger.setObjectName("labelTrigger")
        self.trigger.setAccessibleName("Trigger (when …)")
        self.trigger.setPlaceholderText("the failure's signature, e.g. git push is rejected as non-fast-forward")
        self.directive = QLineEdit(self)
        self.directive.setObjectName("labelDirective")
        self.directive.setAccessibleName("Directive (do …)")
        self.directive.setPlaceholderText("one action the agent can take next time")
        self.variants = VariantListEditor(self)
        self.note = QPlainTextEdit(self)
        self.note.setObjectName("labelNote")
        self.note.setAccessibleName("Note")
        self.note.setPlaceholderText("why this rule (optional; kept with the label, not exported to 0.3.1)")
        self.note.setMaximumHeight(52)
        self.note.setTabChangesFocus(True)
        for edit in (self.trigger, self.directive):
            edit.textChanged.connect(lambda _t: self._on_edited())
        self.note.textChanged.connect(self._on_edited)
        self.variants.changed.connect(self._on_edited)

        self.save_state = plain_label("", self)
        self.save_state.setObjectName("labelSaveState")
        self.save_state.setAccessibleName("Save state")
        self.use_imported = QPushButton("Use imported rule", self)
        self.use_imported.setObjectName("labelUseImported")
        self.use_imported.setToolTip("Start from the expected_rule the corpus file has (split at its first comma)")
        self.use_imported.clicked.connect(self.start_from_imported)
        self.no_rule = QPushButton("No rule expected", self)
        self.no_rule.setObjectName("labelNoRule")
        self.no_rule.setToolTip("Clear trigger and directive: this trajectory should produce no rule "
                                "(exported as an empty expected_rule)")
        self.no_rule.clicked.connect(self.mark_no_rule)
        self.warnings = plain_label("", self)
        self.warnings.setObjectName("labelWarnings")
        self.warnings.setWordWrap(True)
        self.context_info = plain_label("", self)
        self.context_info.setObjectName("labelContext")
        self.context_info.setWordWrap(True)
        self.context_info.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)

        form = QFormLayout()
        form.setContentsMargins(0, 0, 0, 0)
        form.addRow(plain_label("When", self), self.trigger)
        form.addRow(plain_label("Do", self), self.directive)
        form.addRow(plain_label("Variants", self), self.variants)
        form.addRow(plain_label("Note", self), self.note)
        state_row = QHBoxLayout()
        state_row.addWidget(self.save_state, 1)
        state_row.addWidget(self.use_imported)
        state_row.addWidget(self.no_rule)
        self.editor = QWidget(self)
        self.editor.setObjectName("labelEditor")
        editor_layout = QVBoxLayout(self.editor)
        editor_layout.setContentsMargins(0, 4, 0, 0)
        editor_layout.addLayout(form)
        editor_layout.addLayout(state_row)
        editor_layout.addWidget(self.warnings)
        editor_layout.addWidget(self.context_info)

    # -- one trajectory ------------------------------------------------------------------
    def _load(self, pk: int) -> None:
        self._autosave.stop()
        self._pk, self._context, self._saved, self._want_pk, self._saved_at = pk, None, None, pk, None
        self._set_loading(True)
        reviewer = self.reviewer
        handle = self._db(lambda store: label_data.labelling_context(store, pk, reviewer), "label context",
                          key=f"labels-load:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_context)
            handle.error.connect(self._failed("Could not read the trajectory"))

    def _set_loading(self, loading: bool) -> None:
        self._loading = loading
        for edit in (self.trigger, self.directive):
            edit.setReadOnly(loading)
        self.note.setReadOnly(loading)
        self.variants.setEnabled(not loading)
        if loading:
            self.save_state.setText("Loading…")

    def _on_context(self, context: label_data.LabellingContext) -> None:
        if context.detail.id != self._pk:
            return
        self._context = context
        self._saved = None if context.mine is None else context.mine.text.normalised()
        if context.mine is not None:
            self._saved_at = f"{context.mine.updated_at.replace('T', ' ')[:16]} UTC by {context.mine.reviewer}"
        text = self._saved or LabelText("", "")
        self.viewer.show_trajectory(context.detail)
        self._populate(text)
        self.history_model.set_history(context.history)
        self._show_context()
        if not self.corpus_combo.currentData():
            self.update_progress()  # "in this corpus": the corpus of this trajectory
        self._set_loading(False)
        self._show_state()
        self.compute_feedback()

    def _populate(self, text: LabelText) -> None:
        widgets = (self.trigger, self.directive, self.note, self.variants.list)
        for widget in widgets:
            widget.blockSignals(True)
        self.trigger.setText(text.trigger)
        self.directive.setText(text.directive)
        self.note.setPlainText(text.note or "")
        self.variants.set_variants(text.variants)
        for widget in widgets:
            widget.blockSignals(False)
        self.trigger.setCursorPosition(len(text.trigger))
        self._update_warnings()

    def _show_context(self) -> None:
        context = self._context
        if context is None:
            self.context_info.setText("")
            return
        lines = []
        imported = context.detail.expected_rule
        lines.append(f"Imported expected_rule: {imported}" if imported else "Imported expected_rule: — (none)")
        truth = context.ground_truth
        if truth.source == "adjudicated":
            lines.append(f"Ground truth in force: adjudicated by {truth.reviewer}: {truth.sentence or '(no rule)'}")
        elif truth.conflicting:
            lines.append("Reviewers' labels differ and no lead has ruled yet (see Agreement ▸ Team)")
        for other in context.others:
            lines.append(f"{other.reviewer}'s label: {other.sentence or '(no rule expected)'}")
        if context.mine is not None and context.mine.stale:
            lines.append("⚠ The record changed since you saved this label: check it; saving again reconfirms it")
        self.context_info.setText("\n".join(lines))
        self.use_imported.setEnabled(bool(imported))

    def current_text(self) -> LabelText:
        return LabelText(self.trigger.text(), self.directive.text(), self.variants.variants(),
                         self.note.toPlainText() or None)

    def is_dirty(self) -> bool:
        if self._pk is None or self._context is None:
            return False
        current = self.current_text().normalised()
        if self._saved is None:
            return current != LabelText("", "").normalised() or self._explicit_empty
        return current != self._saved

    def _on_edited(self) -> None:
        if self._loading or self._context is None:
            return
        self._explicit_empty = False
        self._unconfirmed = None
        self._update_warnings()
        self._show_state()
        if self.is_dirty():
            self._autosave.start()
        self._feedback_timer.start()

    def _update_warnings(self) -> None:
        warnings = label_warnings(self.current_text())
        self.warnings.setText("\n".join(f"⚠ {w}" for w in warnings))
        self.warnings.setVisible(bool(warnings))

    def start_from_imported(self) -> None:
        if self._context is None or not self._context.detail.expected_rule:
            return
        trigger, directive = parse_expected_rule(self._context.detail.expected_rule)
        self.trigger.setText(trigger)
        self.directive.setText(directive)
        self.trigger.setFocus()

    def mark_no_rule(self) -> None:
        if self._context is None:
            return
        self.trigger.clear()
        self.directive.clear()
        self._explicit_empty = True
        self._on_edited_keep_empty()

    def _on_edited_keep_empty(self) -> None:
        self._update_warnings()
        self._show_state()
        self.save_now()

    # -- saving --------------------------------------------------------------------------
    def save_now(self, confirmed: bool = False) -> JobHandle | None:
        """Save the label being edited if it changed (a DB job); returns the job, if any.

        A label that looks like a stray key ("?", one letter, punctuation) is saved only when
        ``confirmed`` (Ctrl+S): autosave, Ctrl+Enter and moving on leave it unsaved and say why.
        """
        self._autosave.stop()
        if not self.is_dirty():
            return None
        accidental = accidental_label(self.current_text())
        if accidental is not None and not confirmed:
            self._unconfirmed = f"● Not saved: {accidental}. Ctrl+S saves it anyway."
            self._show_state()
            return None
        self._unconfirmed = None
        reviewer = self.identity.require(self)
        if not reviewer:
            self.save_state.setText("● Not saved: give your reviewer name to save labels")
            return None
        pk, text, previous = self._pk, self.current_text(), self._saved
        assert pk is not None
        self._explicit_empty = False
        handle = self._op(lambda store: label_data.save_label(store, pk, reviewer, text), "save label", {"labels"})
        if handle is None:
            return None
        self._saves[id(handle)] = handle
        handle.result.connect(self._on_saved)
        handle.error.connect(lambda failure: self._on_save_failed(pk, previous, failure))
        handle.finished.connect(lambda h=handle: (self._saves.pop(id(h), None), self._show_state()))
        # Treat it as saved for "dirty" purposes; a failure puts the text back as unsaved.
        if pk == self._pk:
            self._saved = text.normalised()
        self._show_state(saving=True)
        return handle

    def flush(self) -> None:
        """Save now (called before the window closes or the store changes)."""
        self.save_now()

    def _on_saved(self, saved: label_data.SavedLabel) -> None:
        sentence = saved.result.label.sentence
        self._failure = None
        self.model.set_my_label(saved.trajectory_pk, sentence)
        if saved.trajectory_pk == self._pk:
            self.history_model.set_history(saved.history)
            self._saved_at = time.strftime("%H:%M:%S")
            self._show_state()
        if saved.result.changed:
            self.label_saved.emit(saved.trajectory_pk)
            self.update_progress()

    def _on_save_failed(self, pk: int, previous: LabelText | None, failure: JobFailure) -> None:
        if pk == self._pk:
            self._saved = previous  # the editor's text counts as unsaved again
        self._failure = f"⚠ Not saved: {failure}"
        self.status_message.emit(f"The label was not saved: {failure}")
        self._show_state()

    def _show_state(self, saving: bool = False) -> None:
        if self._pk is None:
            self.save_state.setText("Select a trajectory to label it.")
            return
        if self._context is None:
            return
        if self._failure and self.is_dirty():
            self.save_state.setText(self._failure)
        elif self._unconfirmed and self.is_dirty():
            self.save_state.setText(self._unconfirmed)
        elif saving or self._saves:
            self.save_state.setText("… Saving")
        elif self.is_dirty():
            self.save_state.setText("● Unsaved changes (saved when you pause or move on)")
        elif self._saved is None:
            self.save_state.setText("○ No label yet")
        else:
            when = f" at {self._saved_at}" if self._saved_at else ""
            what = "" if self._saved.sentence() else " (no rule expected)"
            self.save_state.setText(f"✓ Saved{what}{when}")
