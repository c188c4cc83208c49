"""One dashboard figure: a matplotlib ``Figure`` in a ``FigureCanvasQTAgg`` (never pyplot),
a title, and PNG/SVG export from a button or the canvas's context menu.

Drawing happens on the GUI thread only; the numbers come from a job (see
``cauterule_gui.panels.metrics_dashboard``). The draw functions are the report's own
(``core.metrics.ruler.figures``), so the dashboard and ``report --md --out`` show the same
figures.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_qtagg import FigureCanvasQTAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QFileDialog, QFrame, QHBoxLayout, QMenu, QToolButton, QVBoxLayout, QWidget

from core.metrics.ruler import figures

from cauterule_gui.plain_text import plain_label

DrawFn = Callable[[Figure, dict[str, Any]], None]


class FigureCard(QFrame):
    """A titled canvas with an export menu. ``draw(report)`` redraws it."""

    exported = Signal(str)  # path written

    def __init__(self, name: str, title: str, draw: DrawFn, size: tuple[float, float],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._draw = draw
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.figure = Figure(figsize=size, dpi=100, layout=None)
        self.canvas = FigureCanvasQTAgg(self.figure)
        self.canvas.setParent(self)
        self.canvas.setMinimumHeight(int(size[1] * 80))
        self.canvas.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.canvas.customContextMenuRequested.connect(self._context_menu)

        self.title = plain_label(title, self)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.export_button = QToolButton(self)
        self.export_button.setText("Export…")
        self.export_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.export_button.setMenu(self._export_menu(self.export_button))
        self.export_button.setAccessibleName(f"Export {title}")

        header = QHBoxLayout()
        header.addWidget(self.title, 1)
        header.addWidget(self.export_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(header)
        layout.addWidget(self.canvas, 1)

    def _export_menu(self, parent: QWidget) -> QMenu:
        menu = QMenu(parent)
        for fmt in ("PNG", "SVG"):
            action = QAction(f"Export {fmt}…", menu)
            action.triggered.connect(lambda _checked=False, f=fmt.lower(): self.export_dialog(f))
            menu.addAction(action)
        return menu

    def _context_menu(self, pos: Any) -> None:
        self._export_menu(self).exec(self.canvas.mapToGlobal(pos))

    def draw(self, report: dict[str, Any]) -> None:
        self._draw(self.figure, report)
        self.canvas.draw_idle()

    def export(self, path: Path) -> Path:
        """Write the figure (PNG or SVG by suffix); the file matches what is on screen."""
        self.canvas.draw()
        written = figures.export(self.figure, Path(path))
        self.exported.emit(str(written))
        return written

    def export_dialog(self, fmt: str) -> Path | None:
        path, _ = QFileDialog.getSaveFileName(self, f"Export {self.title.text()}", f"{self.name}.{fmt}",
                                              f"{fmt.upper()} image (*.{fmt})")
        if not path:
            return None
        if not path.lower().endswith(f".{fmt}"):
            path += f".{fmt}"
        return self.export(Path(path))
