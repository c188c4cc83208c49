"""Light / dark colours that follow the system palette.

The scheme comes from ``QStyleHints.colorScheme()`` (Qt 6.5+) when the platform reports one,
else from the window palette's lightness. Every colour here is paired with words or symbols
in the UI (✓ pass, ✗ fail, ? inconclusive, ⚠ broken …), so nothing relies on colour alone;
the pairs below keep at least 4.5:1 contrast against the text colour of their scheme.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QGuiApplication, QPalette


def is_dark(palette: QPalette | None = None) -> bool:
    app = QGuiApplication.instance()
    if isinstance(app, QGuiApplication):
        scheme = QGuiApplication.styleHints().colorScheme()
        if scheme == Qt.ColorScheme.Dark:
            return True
        if scheme == Qt.ColorScheme.Light:
            return False
    if palette is None:
        palette = QGuiApplication.palette()
    return palette.color(QPalette.ColorRole.Window).lightness() < 128


@dataclass(frozen=True)
class Swatch:
    background: QColor
    foreground: QColor


_LIGHT = {
    "pass": Swatch(QColor("#dff2e3"), QColor("#0b5a23")),
    "fail": Swatch(QColor("#fbe0de"), QColor("#8c1010")),
    "inconclusive": Swatch(QColor("#fff1cc"), QColor("#6b4500")),
    "prevented": Swatch(QColor("#dff2e3"), QColor("#0b5a23")),
    "broken": Swatch(QColor("#fbe0de"), QColor("#8c1010")),
    "near_miss": Swatch(QColor("#fff1cc"), QColor("#6b4500")),
    "missed": Swatch(QColor("#e8eaf0"), QColor("#2f3442")),
    "approve": Swatch(QColor("#dff2e3"), QColor("#0b5a23")),
    "reject": Swatch(QColor("#fbe0de"), QColor("#8c1010")),
    "defer": Swatch(QColor("#e6e9f8"), QColor("#27347a")),
    "highlight": Swatch(QColor("#ffe066"), QColor("#000000")),
}
_DARK = {
    "pass": Swatch(QColor("#173d24"), QColor("#b7f0c6")),
    "fail": Swatch(QColor("#4d1a1a"), QColor("#ffc9c4")),
    "inconclusive": Swatch(QColor("#463710"), QColor("#ffe3a3")),
    "prevented": Swatch(QColor("#173d24"), QColor("#b7f0c6")),
    "broken": Swatch(QColor("#4d1a1a"), QColor("#ffc9c4")),
    "near_miss": Swatch(QColor("#463710"), QColor("#ffe3a3")),
    "missed": Swatch(QColor("#2c3140"), QColor("#dde2f0")),
    "approve": Swatch(QColor("#173d24"), QColor("#b7f0c6")),
    "reject": Swatch(QColor("#4d1a1a"), QColor("#ffc9c4")),
    "defer": Swatch(QColor("#262e57"), QColor("#d3dafc")),
    "highlight": Swatch(QColor("#806400"), QColor("#ffffff")),
}


def swatch(name: str, palette: QPalette | None = None) -> Swatch | None:
    return (_DARK if is_dark(palette) else _LIGHT).get(name)
