"""The labelling progress figure: "37 / 95 labelled in this corpus".

Counted by the store (the same queue query the list uses, status "labelled" = has your
label) in a DB job, after the list loads, a trajectory opens or a label is saved. The
corpus is the one the list is filtered to, else the corpus of the trajectory being
labelled, else all corpora.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QWidget

from core.domain.labels import LabelFilter

from cauterule_gui.jobs.runner import JobPool, JobRunner


@dataclass(frozen=True)
class Progress:
    corpus: str | None
    labelled: int
    total: int

    @property
    def text(self) -> str:
        where = f"in this corpus ({self.corpus})" if self.corpus else "in all corpora"
        return f"{self.labelled} / {self.total} labelled {where}"


def count_progress(store: Any, reviewer: str, corpus: str | None) -> Progress:
    from core.store.label_repo import LabelRepository

    repo = LabelRepository(store)
    return Progress(corpus, repo.count_queue(reviewer, LabelFilter(corpus=corpus, status="labelled")),
                    repo.count_queue(reviewer, LabelFilter(corpus=corpus)))


class LabelProgress(QLabel):
    def __init__(self, runner: JobRunner, store: Callable[[], Any], reviewer: Callable[[], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("labelProgress")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._runner, self._store, self._reviewer = runner, store, reviewer
        self.progress: Progress | None = None

    def update_for(self, corpus: str | None) -> None:
        store, reviewer = self._store(), self._reviewer()
        if store is None:
            self.setText("")
            return
        handle = self._runner.submit(lambda _ctx: count_progress(store, reviewer, corpus), name="label progress",
                                     pool=JobPool.READ, key=f"label-progress:{id(self)}")
        handle.result.connect(self._show)

    def _show(self, progress: Progress) -> None:
        self.progress = progress
        self.setText(progress.text)
