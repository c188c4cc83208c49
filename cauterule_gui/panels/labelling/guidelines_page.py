"""Labelling's guidelines pane (the team's trusted Markdown) and the export of labels."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QFileDialog,
    QPushButton,
    QTextBrowser,
)

from cauterule_gui.jobs.runner import JobHandle
from cauterule_gui.panels.base import bold
from cauterule_gui.panels.labelling.common import (
    NO_GUIDELINES,
    guidelines_path,
)
from cauterule_gui.plain_text import plain_label


class GuidelinesPage:
    """The guidelines pane and label export of ``LabellingPanel`` (a mixin: the widgets live on the panel)."""

    def _build_guidelines(self) -> None:
        self.guidelines = QTextBrowser(self)
        self.guidelines.setObjectName("labelGuidelines")
        self.guidelines.setAccessibleName("Labelling guidelines")
        self.guidelines.setOpenLinks(False)
        # The team's own Markdown is rendered with setMarkdown; nothing typed or pasted here
        # is ever interpreted as rich text.
        self.guidelines.setAcceptRichText(False)
        self.guidelines_title = bold(plain_label("Guidelines", self))
        self.guidelines_reload = QPushButton("Reload", self)
        self.guidelines_reload.setToolTip("Read resources/labelling-guidelines.md again (the team edits it)")
        self.guidelines_reload.clicked.connect(self.load_guidelines)

    # -- export --------------------------------------------------------------------------
    def export_corpus(self) -> str | None:
        corpus = self.corpus_combo.currentData()
        if corpus:
            return str(corpus)
        if self._context is not None:
            return self._context.detail.corpus
        return None

    def export_labels_dialog(self) -> JobHandle | None:
        corpus = self.export_corpus()
        if corpus is None:
            self.status_message.emit("Choose a corpus (or a trajectory) to export its labels")
            return None
        folder = QFileDialog.getExistingDirectory(self, f"Export the labels of {corpus} to")
        return self.export_labels_to(Path(folder), corpus) if folder else None

    def export_labels_to(self, out_dir: Path, corpus: str | None = None) -> JobHandle | None:
        """Write ``corpus``'s JSONL with updated expected_rule values (``core.labels.export``)."""
        from core.labels.export import export_labels

        self.save_now()
        corpus = corpus or self.export_corpus()
        if corpus is None:
            return None
        reviewer = self.reviewer or None
        # On the database thread, queued after the draft's save: the export must read the label
        # just saved (a read-pool job could start before the save commits). It writes no rows.
        handle = self._op(lambda store: export_labels(store, corpus, out_dir, reviewer), "export labels", set())
        if handle is not None:
            handle.result.connect(self._on_exported)
            handle.error.connect(self._failed("Could not export the labels"))
        return handle

    def _on_exported(self, summary: Any) -> None:
        message = (f"Exported {summary.corpus}: {summary.records} records, {summary.replaced} expected_rule "
                   f"value(s) replaced, {len(summary.files)} file(s)")
        if summary.warnings:
            message += f"; {len(summary.warnings)} warning(s): " + "; ".join(summary.warnings[:3])
        self.count_label.setText(message)
        self.status_message.emit(message)
        self.labels_exported.emit(summary)

    # -- guidelines ----------------------------------------------------------------------
    def load_guidelines(self, path: Path | None = None) -> None:
        """Render the team's own Markdown (trusted); a placeholder when the file is missing."""
        target = path or guidelines_path()
        try:
            text = target.read_text(encoding="utf-8")
        except OSError:
            self.guidelines.setPlainText(NO_GUIDELINES.format(path=target))
            return
        if text.strip():
            self.guidelines.setMarkdown(text)
        else:
            self.guidelines.setPlainText(NO_GUIDELINES.format(path=target).replace("does not exist (yet)", "is empty"))
