"""Corpus tab: the pre-extraction gate per corpus (silence rates with Wilson intervals beside
what expected_outcome says), the records where gate and label disagree, and a filter that
narrows the trajectory table to silenced / extracted / disagreeing / tainted records."""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.loop.gate import CorpusGateSummary
from core.loop.views import TrajectoryLoopInfo

from cauterule_gui.plain_text import plain_label

FILTERS: tuple[tuple[str, str], ...] = (
    ("all", "All trajectories"),
    ("strict_silenced", "Silenced by the strict gate"),
    ("strict_extracted", "Extracted by the strict gate"),
    ("relaxed_silenced", "Silenced by the relaxed gate"),
    ("disagree", "Gate disagrees with expected_outcome"),
    ("tainted", "Tainted source"),
)
PK_ROLE = Qt.ItemDataRole.UserRole + 1


@dataclass(frozen=True)
class LoopData:
    info: dict[int, TrajectoryLoopInfo]
    summaries: list[CorpusGateSummary]


def select_pks(data: LoopData, key: str) -> tuple[int, ...] | None:
    """The trajectories a filter keeps (None: no restriction)."""
    if key == "all":
        return None
    if key == "disagree":
        return tuple(sorted({r.pk for s in data.summaries if s.mode == "strict" for r in s.disagreements}))
    test = {
        "strict_silenced": lambda i: i.strict.silenced, "strict_extracted": lambda i: not i.strict.silenced,
        "relaxed_silenced": lambda i: i.relaxed.silenced, "tainted": lambda i: i.taint.tainted,
    }[key]
    return tuple(sorted(pk for pk, i in data.info.items() if test(i)))


def _rate(summary: CorpusGateSummary | None) -> str:
    """Compact for a narrow panel: ``12/12 · 1.00 [0.76–1.00]``; the tooltip has the full label."""
    if summary is None:
        return "—"
    rate = summary.silenced
    if rate.value is None or rate.ci is None:
        return f"{rate.k}/{rate.n} · n/a"
    return f"{rate.k}/{rate.n} · {rate.value:.2f} [{rate.ci[0]:.2f}–{rate.ci[1]:.2f}]"


class GatePanel(QWidget):
    filter_changed = Signal(object)  # tuple of pks or None
    trajectory_requested = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("gatePanel")
        self.data: LoopData | None = None
        heading = plain_label("Pre-extraction gate (0.3.1)", self)
        font = heading.font()
        font.setBold(True)
        heading.setFont(font)
        self.filter_box = QComboBox(self)
        self.filter_box.setObjectName("gateFilter")
        self.filter_box.setAccessibleName("Gate filter")
        for key, label in FILTERS:
            self.filter_box.addItem(label, key)
        self.filter_box.currentIndexChanged.connect(self._emit_filter)
        self.status = plain_label("Computing…", self)
        self.status.setWordWrap(True)
        self.table = QTableWidget(0, 4, self)
        self.table.setObjectName("gateSummary")
        self.table.setHorizontalHeaderLabels(["Corpus", "Silenced: strict", "relaxed", "Labels say"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideLeft)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # Corpus paths are long: the name column is elided on the left (full path in the
        # tooltip) so the rates stay in view in a narrow side panel.
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(0, 150)
        header.setStretchLastSection(True)
        self.disagreements = QListWidget(self)
        self.disagreements.setObjectName("gateDisagreements")
        self.disagreements.setAccessibleName("Records where the gate and the label disagree")
        self.disagreements.itemActivated.connect(self._open)
        self.disagreements.itemClicked.connect(self._open)
        row = QHBoxLayout()
        row.addWidget(plain_label("Show:", self))
        row.addWidget(self.filter_box, 1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(heading)
        layout.addLayout(row)
        layout.addWidget(self.table, 2)
        self.disagree_label = plain_label("Gate ≠ label (strict):", self)
        layout.addWidget(self.disagree_label)
        layout.addWidget(self.disagreements, 1)
        layout.addWidget(self.status)

    @property
    def filter_key(self) -> str:
        return str(self.filter_box.currentData())

    def set_filter(self, key: str) -> None:
        self.filter_box.setCurrentIndex(next(i for i, (k, _l) in enumerate(FILTERS) if k == key))

    def show_data(self, data: LoopData) -> None:
        self.data = data
        by = {(s.corpus, s.mode): s for s in data.summaries}
        corpora = sorted({s.corpus for s in data.summaries})
        self.table.setRowCount(len(corpora))
        for row, corpus in enumerate(corpora):
            strict, relaxed = by.get((corpus, "strict")), by.get((corpus, "relaxed"))
            labels = ", ".join(f"{k.replace('should_', '')} {v}" for k, v in (strict.expected if strict else {}).items())
            for col, text in enumerate((corpus, _rate(strict), _rate(relaxed), labels)):
                item = QTableWidgetItem(text)
                full = {1: strict.silenced.label() if strict else "—", 2: relaxed.silenced.label() if relaxed else "—"}
                item.setToolTip(full.get(col, text))
                self.table.setItem(row, col, item)
        self.disagreements.clear()
        rows = [(s.corpus, r) for s in data.summaries if s.mode == "strict" for r in s.disagreements]
        for corpus, r in rows:
            gate = "silences" if r.verdict.silenced else "extracts"
            item = QListWidgetItem(f"{r.trajectory_id} ({corpus}): label {r.expected_outcome}, gate {gate} — "
                                   f"{r.verdict.why}")
            item.setData(PK_ROLE, r.pk)
            self.disagreements.addItem(item)
        self.disagree_label.setText(f"Gate ≠ label (strict): {len(rows)}")
        tainted = sum(1 for i in data.info.values() if i.taint.tainted)
        self.status.setText(f"{len(data.info):,} trajectories; {tainted} with a tainted source.")
        self._emit_filter()

    def _emit_filter(self) -> None:
        if self.data is not None:
            self.filter_changed.emit(select_pks(self.data, self.filter_key))

    def _open(self, item: QListWidgetItem) -> None:
        self.trajectory_requested.emit(int(item.data(PK_ROLE)))
