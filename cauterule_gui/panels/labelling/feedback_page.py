"""Labelling's lower tabs: live feedback on the label, its history and the accuracy per corpus."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from core.labels.feedback import LabelFeedback, feedback_for_rules

from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.models.label_accuracy_model import LabelAccuracyModel
from cauterule_gui.models.label_feedback_model import LabelFeedbackModel
from cauterule_gui.models.label_history_model import LabelHistoryModel
from cauterule_gui.panels.base import _handled_by_caller, make_table
from cauterule_gui.plain_text import plain_label


class FeedbackPage:
    """The feedback / history / accuracy tabs of ``LabellingPanel`` (a mixin: the widgets live on the panel)."""

    def _build_tabs(self) -> None:
        self.feedback_model = LabelFeedbackModel(self)
        self.history_model = LabelHistoryModel(self)
        self.accuracy_model = LabelAccuracyModel(self)
        self.feedback_view = make_table(self, self.feedback_model, "labelFeedback", "Live feedback")
        self.feedback_view.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.feedback_view.horizontalHeader().setStretchLastSection(False)
        self.feedback_note = plain_label("", self)
        self.feedback_note.setObjectName("labelFeedbackNote")
        self.feedback_note.setWordWrap(True)
        self.semantic_box = QCheckBox("Semantic", self)
        self.semantic_box.setObjectName("labelSemantic")
        self.semantic_box.setToolTip("Score with the embedding model (loaded once, in the background); "
                                     "semantic F1 is “—” when it is off or unavailable, never 0")
        self.semantic_box.toggled.connect(lambda _on: (self.compute_feedback(), self.compute_accuracy()))
        feedback = QWidget(self)
        fl = QVBoxLayout(feedback)
        fl.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.feedback_note, 1)
        top.addWidget(self.semantic_box)
        fl.addLayout(top)
        fl.addWidget(self.feedback_view)

        self.history_view = make_table(self, self.history_model, "labelHistory", "History of this label")
        self.accuracy_view = make_table(self, self.accuracy_model, "labelAccuracy", "Extraction accuracy per corpus")
        self.accuracy_view.horizontalHeader().setStretchLastSection(False)
        self.accuracy_view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.accuracy_note = plain_label("", self)
        self.accuracy_note.setObjectName("labelAccuracyNote")
        self.accuracy_note.setWordWrap(True)
        self.accuracy_button = QPushButton("Recompute", self)
        self.accuracy_button.clicked.connect(lambda: self.compute_accuracy(True))
        accuracy = QWidget(self)
        al = QVBoxLayout(accuracy)
        al.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        top.addWidget(self.accuracy_note, 1)
        top.addWidget(self.accuracy_button)
        al.addLayout(top)
        al.addWidget(self.accuracy_view)

        self.tabs = QTabWidget(self)
        self.tabs.setObjectName("labelTabs")
        self.tabs.addTab(feedback, "Live feedback")
        self.tabs.addTab(self.history_view, "History")
        self.tabs.addTab(accuracy, "Accuracy per corpus")
        self.tabs.currentChanged.connect(lambda i: self.compute_accuracy() if i == 2 else None)

    # -- live feedback -------------------------------------------------------------------
    def compute_feedback(self) -> JobHandle | None:
        self._feedback_timer.stop()
        context = self._context
        if context is None:
            self.feedback_model.set_rows([])
            self.feedback_note.setText("")
            return None
        text, pk, rules = self.current_text(), context.detail.id, context.candidates
        semantic, factory = self.semantic_box.isChecked(), self.embedder_factory

        def job() -> LabelFeedback:  # pure work on the text and the rules the open trajectory read
            embed, note = None, None if semantic else "semantic matching is off (tick Semantic)"
            if semantic and rules:
                from core.embeddings import EmbeddingUnavailable

                try:
                    embed, note = factory(), None
                except EmbeddingUnavailable as error:
                    embed, note = None, f"semantic unavailable: {error}"
            return feedback_for_rules(pk, rules, text, embed, note)

        handle = self.db.compute(job, self._on_feedback, name="label feedback", key=f"labels-feedback:{id(self)}",
                                 on_error=_handled_by_caller)
        if handle is not None:
            handle.error.connect(self._failed("Could not score the label"))
        return handle

    def _on_feedback(self, feedback: LabelFeedback) -> None:
        if feedback.trajectory_pk != self._pk:
            return
        self.last_feedback = feedback
        self.feedback_model.set_rows(feedback.candidates)
        parts = [f"{len(feedback.candidates)} candidate(s) extracted from this trajectory scored against your "
                 f"label" if feedback.candidates else "Nothing scored"]
        parts.append(self._semantic_words(feedback))
        if feedback.note and not feedback.note.startswith("semantic") and feedback.note not in parts[-1]:
            parts.append(feedback.note)  # the semantic state is worded once, above
        self.feedback_note.setText("; ".join(parts))

    def _semantic_words(self, feedback: LabelFeedback) -> str:
        """Semantic F1's state in the same words as the status bar's model state: the model being
        ready in the window while this box is off reads "ready, off here", never "no model"."""
        if feedback.semantic_state == "on":
            return "semantic F1: on"
        window_state: str = self.window_model_state
        if not self.semantic_box.isChecked():
            if window_state.startswith("semantic matching ready"):
                return "semantic F1: — (the model is ready; tick Semantic to score with it)"
            return "semantic F1: — (off: tick Semantic)"
        why = feedback.note if feedback.note and feedback.note.startswith("semantic") else "not measured"
        return f"semantic F1: — ({why})"

    # -- accuracy per corpus -------------------------------------------------------------
    def compute_accuracy(self, force: bool = False) -> JobHandle | None:
        """Measure each corpus (the chosen one, or all) as a DB job; only while its tab shows."""
        if not force and self.tabs.currentIndex() != 2:
            return None
        from core.labels.accuracy import corpus_accuracy

        chosen = self.corpus_combo.currentData()
        corpora = (chosen,) if chosen else self._corpora
        reviewer, run_id = self.reviewer or None, self._latest_run
        semantic, factory = self.semantic_box.isChecked(), self.embedder_factory

        def job(store: Any) -> tuple[list[Any], str | None]:
            embed, note = None, None
            if semantic:
                from core.embeddings import EmbeddingUnavailable

                try:
                    embed = factory()
                except EmbeddingUnavailable as error:
                    note = f"semantic unavailable: {error}"
            return [corpus_accuracy(store, c, reviewer, run_id, embed) for c in corpora], note

        self.accuracy_note.setText("Measuring…")
        handle = self._db(job, "extraction accuracy", key=f"labels-accuracy:{id(self)}")
        if handle is not None:
            handle.result.connect(self._on_accuracy)
            handle.error.connect(self._failed("Could not measure extraction accuracy"))
        return handle

    def _on_accuracy(self, value: tuple[list[Any], str | None]) -> None:
        results, note = value
        self.accuracy_model.set_rows(results)
        basis = "candidate: replay's best from run #%d" % self._latest_run if self._latest_run else \
            "candidate: the first extracted rule (no complete replay run)"
        ground = f"ground truth: adjudicated, else {self.reviewer or 'the agreed'} label, else imported expected_rule"
        self.accuracy_note.setText("; ".join(x for x in (ground, basis, note) if x))

    def update_progress(self) -> None:
        """"37 / 95 labelled in this corpus": the filtered corpus, else the open trajectory's."""
        corpus = self.corpus_combo.currentData()
        if not corpus and self._context is not None:
            corpus = self._context.detail.corpus
        self.progress.update_for(corpus or None)
