""""New candidate from this failure": an editor prefilled from the trajectory, with a live
what-if preview (debounced, replayed on the CPU pool, never on the GUI thread), an optional
LLM Suggest button, and Save (a ``user`` rule whose author is the reviewer and whose
provenance is the trajectory; the caller then replays it so it reaches the Review tab).

Through the window's database executor: the pool is read with ``query``, the preview is
computed with ``compute`` (no store), and Save is an ``op`` announcing ``rules``."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings, QTimer, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QListWidget,
    QPlainTextEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from core.loop.candidates import CandidateError, Preview, create_candidate, load_pool, prefill, preview
from core.loop.suggest import SuggestError, Suggestion, suggest
from core.replay.types import ReplayTrajectory
from core.store.dto import TrajectoryDetail

from cauterule_gui.jobs.runner import JobContext, JobFailure, JobPool
from cauterule_gui.loop.llm_settings import LlmSettingsDialog, load_config
from cauterule_gui.plain_text import plain_label

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

PREVIEW_DEBOUNCE_MS = 400


def preview_text(p: Preview) -> str:
    precision = "—" if p.precision is None else f"{p.precision:.2f}"
    recall = "—" if p.recall is None else f"{p.recall:.2f}"
    return (f"Live replay (lexical, not saved): {p.verdict} ({p.reason}) · prevented {len(p.prevented)} · "
            f"broken {len(p.broken)} · near miss {len(p.near_miss)} · missed {p.missed} · "
            f"precision {precision} · recall {recall}")


class CandidateEditor(QDialog):
    saved = Signal(int)  # rule id
    preview_shown = Signal(object)  # Preview

    def __init__(self, db: DatabaseExecutor, detail: TrajectoryDetail, settings: QSettings,
                 author: Callable[[QWidget], str | None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("candidateEditor")
        self.setWindowTitle(f"New candidate from {detail.trajectory_id}")
        self._db, self._detail = db, detail
        self._settings, self._author = settings, author
        self._pool: list[ReplayTrajectory] | None = None
        self._source: ReplayTrajectory | None = None
        self.last_preview: Preview | None = None
        self.saved_rule_id: int | None = None
        filled = prefill(detail)

        where = "its expected_rule" if filled.source == "expected_rule" else "its failure class and first error line"
        heading = plain_label(f"{detail.corpus} / {detail.trajectory_id} — prefilled from {where}.", self)
        heading.setWordWrap(True)
        self.trigger_edit = QPlainTextEdit(filled.trigger, self)
        self.trigger_edit.setObjectName("candidateTrigger")
        self.trigger_edit.setAccessibleName("Trigger")
        self.directive_edit = QPlainTextEdit(filled.directive, self)
        self.directive_edit.setObjectName("candidateDirective")
        self.directive_edit.setAccessibleName("Directive")
        self.because_edit = QPlainTextEdit(filled.because or "", self)
        self.because_edit.setObjectName("candidateBecause")
        for edit in (self.trigger_edit, self.directive_edit, self.because_edit):
            edit.setTabChangesFocus(True)
            edit.setMaximumHeight(edit.fontMetrics().height() * 4)
            edit.textChanged.connect(self._schedule_preview)
        form = QFormLayout()
        form.addRow("When (trigger):", self.trigger_edit)
        form.addRow("Do (directive):", self.directive_edit)
        form.addRow("Because (optional):", self.because_edit)

        self.preview_label = plain_label("Loading the pool…", self)
        self.preview_label.setObjectName("candidatePreview")
        self.preview_label.setWordWrap(True)
        self.buckets = QListWidget(self)
        self.buckets.setObjectName("candidateBuckets")
        self.buckets.setAccessibleName("Trajectories the draft would prevent or break")
        self.suggest_button = QPushButton("Suggest (LLM)", self)
        self.suggest_button.setObjectName("candidateSuggest")
        self.suggest_button.clicked.connect(self.request_suggestion)
        self.configure_button = QPushButton("LLM endpoint…", self)
        self.configure_button.clicked.connect(self._configure)
        self.suggest_label = plain_label("", self)
        self.suggest_label.setObjectName("candidateSuggestState")
        self.suggest_label.setWordWrap(True)
        row = QHBoxLayout()
        row.addWidget(self.suggest_button)
        row.addWidget(self.configure_button)
        row.addWidget(self.suggest_label, 1)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel,
                                        self)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setText("Save candidate")
        self.buttons.accepted.connect(self.save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        layout.addLayout(form)
        layout.addLayout(row)
        layout.addWidget(self.preview_label)
        layout.addWidget(self.buckets, 1)
        layout.addWidget(self.buttons)
        self.resize(820, 600)

        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(PREVIEW_DEBOUNCE_MS)
        self._debounce.timeout.connect(self.run_preview)
        self._update_suggest_state()
        self._load_pool()

    # -- preview --------------------------------------------------------------------------
    def _load_pool(self) -> None:
        pk = self._detail.id
        self._db.query(lambda s: load_pool(s.store), lambda pool: self._on_pool(pool, pk), name="candidate pool",
                       key=f"candidate-pool:{id(self)}",
                       on_error=lambda e: self.preview_label.setText(f"Could not load the pool: {e}"))

    def _on_pool(self, pool: list[ReplayTrajectory], pk: int) -> None:
        self._pool = pool
        self._source = next((t for t in pool if t.key == pk), None)
        self.run_preview()

    def _schedule_preview(self) -> None:
        self._debounce.start()

    def run_preview(self) -> Any:
        self._debounce.stop()
        trigger, directive = self.trigger_edit.toPlainText().strip(), self.directive_edit.toPlainText().strip()
        if self._pool is None:
            return None
        if not trigger:
            self.preview_label.setText("Write a trigger to see where it would match.")
            self.buckets.clear()
            return None
        pool, source = self._pool, self._source
        self.preview_label.setText("Replaying the draft…")
        return self._db.compute(lambda: preview(pool, source, trigger, directive or trigger), self._show_preview,
                                name="candidate preview", key=f"candidate-preview:{id(self)}",
                                on_error=lambda e: self.preview_label.setText(f"Preview failed: {e}"))

    def _show_preview(self, p: Preview) -> None:
        self.last_preview = p
        self.preview_label.setText(preview_text(p))
        self.buckets.clear()
        self.buckets.addItems([f"✓ prevented  {t}" for t in p.prevented] + [f"✗ broken  {t}" for t in p.broken]
                              + [f"≈ near miss  {t}" for t in p.near_miss])
        self.preview_shown.emit(p)

    # -- suggest --------------------------------------------------------------------------
    def _update_suggest_state(self) -> None:
        configured = load_config(self._settings).configured
        self.suggest_button.setEnabled(configured)
        self.suggest_button.setToolTip("" if configured else "Configure an OpenAI-compatible endpoint first")
        if not configured:
            self.suggest_label.setText("Suggest is off: no LLM endpoint configured.")

    def _configure(self) -> None:
        dialog = LlmSettingsDialog(self._settings, self)
        dialog.finished.connect(lambda _r: self._update_suggest_state())
        dialog.open()

    def request_suggestion(self) -> Any:
        config, record = load_config(self._settings), self._detail.record
        if not config.configured:
            return None

        def job(_ctx: JobContext) -> Suggestion:
            return suggest(config, record)

        self.suggest_button.setEnabled(False)
        self.suggest_label.setText(f"Asking {config.chat_url} …")
        # Not a store read: the endpoint's answer does not depend on the store.
        handle = self._db.runner.submit(job, name="LLM suggest", pool=JobPool.CPU, key=f"candidate-suggest:{id(self)}")
        handle.result.connect(self._apply_suggestion)
        handle.error.connect(self._suggest_failed)
        handle.finished.connect(lambda: self.suggest_button.setEnabled(load_config(self._settings).configured))
        return handle

    def _apply_suggestion(self, s: Suggestion) -> None:
        self.trigger_edit.setPlainText(s.trigger)
        self.directive_edit.setPlainText(s.directive)
        self.because_edit.setPlainText(s.because or "")
        self.suggest_label.setText(f"Suggested (confidence {s.confidence:.2f}): {s.reasoning or 'no reasoning given'}")

    def _suggest_failed(self, failure: JobFailure) -> None:
        text = failure.message if isinstance(failure.exception, SuggestError) else str(failure)
        self.suggest_label.setText(f"Suggest failed: {text}")

    # -- save -----------------------------------------------------------------------------
    def save(self) -> None:
        author = self._author(self)
        if not author:
            self.preview_label.setText("Saving needs your reviewer name.")
            return
        pk, trigger, directive = self._detail.id, self.trigger_edit.toPlainText(), self.directive_edit.toPlainText()
        because = self.because_edit.toPlainText()
        self.save_button.setEnabled(False)
        self.preview_label.setText("Saving the candidate…")
        handle = self._db.op(lambda s: create_candidate(s.store, pk, trigger, directive, author, because=because),
                             self._saved, kinds={"rules"}, initiator=self, name="save candidate",
                             on_error=self._not_saved)
        if handle is None:
            self.save_button.setEnabled(True)
            self.preview_label.setText("Not saved: no store is open.")

    def _saved(self, created: Any) -> None:
        self.saved_rule_id = created.rule_id
        self.saved.emit(created.rule_id)
        self.accept()

    def _not_saved(self, error: BaseException) -> None:
        self.save_button.setEnabled(True)
        if isinstance(error, CandidateError):
            self.preview_label.setText(f"Not saved: {error}")
        else:
            self.preview_label.setText(f"Not saved: {type(error).__name__}: {error}")
