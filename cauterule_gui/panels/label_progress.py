"""The labelling progress figure: "37 / 95 labelled in this corpus".

Counted by the store (the same queue query the list uses, status "labelled" = has your
label) by a read through the window's database executor, after the list loads, a trajectory opens or a label is saved. The
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

from cauterule_gui.db.executor import DatabaseExecutor
from cauterule_gui.services import StoreServices


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
    """``db`` returns the executor the panel uses now (the window hands the panel its own after
    the panel is built)."""

    def __init__(self, db: Callable[[], DatabaseExecutor], reviewer: Callable[[], str],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("labelProgress")
        self.setTextFormat(Qt.TextFormat.PlainText)
        self._db, self._reviewer = db, reviewer
        self.progress: Progress | None = None

    def update_for(self, corpus: str | None) -> Any:
        """Count in the background; returns the read's job (None when no store is open)."""
        reviewer = self._reviewer()

        def count(services: StoreServices) -> Progress:
            return count_progress(services.store, reviewer, corpus)

        handle = self._db().query(count, self._show, name="label progress", key=f"label-progress:{id(self)}",
                                  on_error=self._failed)
        if handle is None:
            self.setText("")
        return handle

    def _failed(self, error: BaseException) -> None:
        self.progress = None
        self.setText(f"progress not counted: {error}")

    def _show(self, progress: Progress) -> None:
        self.progress = progress
        self.setText(progress.text)
