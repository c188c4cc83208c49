"""One dashboard figure: a matplotlib ``Figure`` rendered to an image OFF the GUI thread
(``render``: its own Figure on an Agg canvas, never pyplot), shown as a pixmap, with a title and
PNG/SVG export from a button or the image's context menu.

Drawing the five figures on the GUI thread froze the window 0.45-1.2 s (issue 24 item 9); now
the dashboard's job computes the numbers and renders each figure to RGBA pixels, and the GUI
thread only wraps those pixels in a ``QImage``. The draw functions are the report's own
(``core.metrics.ruler.figures``), so the dashboard and ``report --md --out`` show the same
figures; export writes the very Figure that was rendered.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction, QImage, QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLabel,
    QMenu,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.metrics.ruler import figures

from cauterule_gui.plain_text import plain_label

DrawFn = Callable[[Figure, dict[str, Any]], None]


@dataclass(frozen=True)
class RenderedFigure:
    """A figure drawn and rasterised by ``render`` (on whatever thread called it)."""

    figure: Figure
    width: int
    height: int
    rgba: bytes
    thread: str  # the thread that drew it (tests assert it is not the GUI thread)


def render(draw: DrawFn, size: tuple[float, float], report: dict[str, Any]) -> RenderedFigure:
    """Draw one figure on its own Agg canvas and rasterise it: pure work, no widget, no pyplot."""
    figure = Figure(figsize=size, dpi=100, layout=None)
    canvas = FigureCanvasAgg(figure)
    draw(figure, report)
    canvas.draw()
    width, height = canvas.get_width_height()
    return RenderedFigure(figure, width, height, bytes(canvas.buffer_rgba()), threading.current_thread().name)


class FigureCard(QFrame):
    """A titled canvas with an export menu. ``draw(report)`` redraws it."""

    exported = Signal(str)  # path written

    def __init__(self, name: str, title: str, draw: DrawFn, size: tuple[float, float],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self._draw = draw
        self.size_inches = size
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.figure = Figure(figsize=size, dpi=100, layout=None)  # replaced by each rendered figure
        self.rendered: RenderedFigure | None = None
        self.image = QLabel(self)
        self.image.setObjectName(f"figure_{name}")
        self.image.setTextFormat(Qt.TextFormat.PlainText)
        self.image.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.image.setMinimumHeight(int(size[1] * 80))
        self.image.setText("Drawing…")
        self.image.setContextMenuPolicy(Qt.ContextMenuPolicy.CustomContextMenu)
        self.image.customContextMenuRequested.connect(self._context_menu)
        self.canvas = self.image  # where the figure shows (kept name: the layout and menus use it)

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

    def render(self, report: dict[str, Any]) -> RenderedFigure:
        """Draw this card's figure for ``report`` (call it off the GUI thread)."""
        return render(self._draw, self.size_inches, report)

    def show_rendered(self, rendered: RenderedFigure) -> None:
        """GUI thread: only wrap the pixels (the image copies them; the bytes may go)."""
        self.rendered, self.figure = rendered, rendered.figure
        image = QImage(rendered.rgba, rendered.width, rendered.height, QImage.Format.Format_RGBA8888).copy()
        self.image.setPixmap(QPixmap.fromImage(image))

    def draw(self, report: dict[str, Any]) -> None:
        """Render here and show (for callers without a job, e.g. a one-off export)."""
        self.show_rendered(self.render(report))

    def export(self, path: Path) -> Path:
        """Write the figure (PNG or SVG by suffix); the file matches what is on screen."""
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
