"""Corpora for the navigator: a small list (one row per corpus), loaded whole.

Row 0 is the synthetic "All corpora" entry; its corpus name role is ``None``. Built with an
executor (``db=``), it reads nothing while the window is built: the list is read off the GUI
thread from the first event-loop turn, and the counts show "…" until it is in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt, QTimer

from core.store.corpus_repo import CorpusRepository
from core.store.dto import CorpusInfo

from cauterule_gui.plain_text import plain_tooltip

if TYPE_CHECKING:
    from cauterule_gui.db.executor import DatabaseExecutor

Index = QModelIndex | QPersistentModelIndex

HEADERS = ("Corpus", "Role", "Traj.", "Rules")
COL_NAME, COL_ROLE, COL_TRAJECTORIES, COL_RULES = range(len(HEADERS))
ALL_CORPORA = "All corpora"

# Role carrying the corpus name (str), or None for "All corpora".
CORPUS_NAME_ROLE = Qt.ItemDataRole.UserRole + 1


class CorpusTableModel(QAbstractTableModel):
    def __init__(self, repository: CorpusRepository | None = None, parent: Any = None,
                 db: DatabaseExecutor | None = None) -> None:
        super().__init__(parent)
        self._repo = repository
        self._corpora: list[CorpusInfo] = []
        self._db: DatabaseExecutor | None = db
        self.loading = db is not None and repository is not None  # the list is on its way
        self.first_load = False
        if db is None:
            self._load()
        else:
            QTimer.singleShot(0, self, self.refresh)

    def set_executor(self, db: DatabaseExecutor | None) -> None:
        """Refreshes read the corpora off the GUI thread through ``db`` from now on."""
        self._db = db

    def set_repository(self, repository: CorpusRepository | None) -> None:
        self._repo = repository
        self.refresh()

    def refresh(self) -> None:
        repo = self._repo
        if self._db is not None and repo is not None:
            if self._db.query(lambda _s: repo.list_corpora(), self._show, name="corpora",
                              key=f"corpora:{id(self)}") is None:
                self._show([])  # no store open any more
            return
        self._show(repo.list_corpora() if repo is not None else [])

    def _show(self, corpora: list[CorpusInfo]) -> None:
        # The first list arriving shows what the store held at start: nothing changed (``first_load``).
        self.first_load, self.loading = self.loading, False
        self.beginResetModel()
        self._corpora = list(corpora)
        self.endResetModel()
        self.first_load = False

    def _load(self) -> None:
        self._corpora = self._repo.list_corpora() if self._repo is not None else []

    @property
    def corpora(self) -> list[CorpusInfo]:
        return list(self._corpora)

    def corpus_name(self, row: int) -> str | None:
        return self._corpora[row - 1].name if 1 <= row <= len(self._corpora) else None

    def row_of(self, name: str | None) -> int:
        if name is None:
            return 0
        for row, info in enumerate(self._corpora, start=1):
            if info.name == name:
                return row
        return 0

    # -- Qt model interface ------------------------------------------------------------
    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._corpora) + 1

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if orientation != Qt.Orientation.Horizontal or not 0 <= section < len(HEADERS):
            return None
        if role == Qt.ItemDataRole.DisplayRole:
            return HEADERS[section]
        if role == Qt.ItemDataRole.ToolTipRole:
            return ("corpus (folder relative to the import root)", "corpus role", "trajectories", "rules")[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() <= len(self._corpora):
            return None
        row, column = index.row(), index.column()
        if row == 0:
            return self._all_data(column, role)
        info = self._corpora[row - 1]
        if role == Qt.ItemDataRole.DisplayRole:
            return (info.name, info.role, info.trajectories, info.rules)[column]
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(
                f"{info.name}\nrole: {info.role} (from {info.role_source})\n"
                f"{info.trajectories} trajectories, {info.rules} rules"
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_TRAJECTORIES, COL_RULES):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == CORPUS_NAME_ROLE:
            return info.name
        return None

    def _all_data(self, column: int, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and self.loading and column in (COL_TRAJECTORIES, COL_RULES):
            return "…"  # not read yet: not zero
        if role == Qt.ItemDataRole.DisplayRole:
            trajectories = sum(c.trajectories for c in self._corpora)
            rules = sum(c.rules for c in self._corpora)
            return (ALL_CORPORA, "", trajectories, rules)[column]
        if role == Qt.ItemDataRole.TextAlignmentRole and column in (COL_TRAJECTORIES, COL_RULES):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"Every corpus in this store ({len(self._corpora)})"
        return None

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren
