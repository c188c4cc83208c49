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

THEMES = ("system", "light", "dark")
_choice = "system"  # View ▸ Theme; "system" follows the desktop


def choice() -> str:
    return _choice


def is_dark(palette: QPalette | None = None) -> bool:
    if _choice != "system":
        return _choice == "dark"
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


_system_palette: QPalette | None = None
_system_style: str | None = None


def _dark_palette() -> QPalette:
    palette = QPalette()
    colours = {
        QPalette.ColorRole.Window: "#2b2d31", QPalette.ColorRole.WindowText: "#e8e8ea",
        QPalette.ColorRole.Base: "#1f2023", QPalette.ColorRole.AlternateBase: "#2a2b2f",
        QPalette.ColorRole.ToolTipBase: "#2b2d31", QPalette.ColorRole.ToolTipText: "#e8e8ea",
        QPalette.ColorRole.PlaceholderText: "#9a9ca3", QPalette.ColorRole.Text: "#e8e8ea",
        QPalette.ColorRole.Button: "#35373c", QPalette.ColorRole.ButtonText: "#e8e8ea",
        QPalette.ColorRole.BrightText: "#ff8a80", QPalette.ColorRole.Link: "#8ab4f8",
        QPalette.ColorRole.Highlight: "#3d6fb4", QPalette.ColorRole.HighlightedText: "#ffffff",
        QPalette.ColorRole.Mid: "#45474d", QPalette.ColorRole.Dark: "#18191b", QPalette.ColorRole.Light: "#4a4c52",
    }
    for role, colour in colours.items():
        palette.setColor(role, QColor(colour))
    for role in (QPalette.ColorRole.WindowText, QPalette.ColorRole.Text, QPalette.ColorRole.ButtonText):
        palette.setColor(QPalette.ColorGroup.Disabled, role, QColor("#7c7e85"))
    return palette


def apply_choice(name: str) -> None:
    """Light / Dark / System for the whole application. Widgets get a PaletteChange event
    and re-colour themselves (the window re-renders its tables and documents)."""
    from PySide6.QtWidgets import QApplication, QStyleFactory

    global _choice, _system_palette, _system_style
    if name not in THEMES:
        raise ValueError(f"unknown theme {name!r}: expected one of {', '.join(THEMES)}")
    app = QApplication.instance()
    if not isinstance(app, QApplication):
        _choice = name
        return
    if _system_palette is None:
        _system_palette, _system_style = QPalette(app.palette()), app.style().name()
    _choice = name
    if name == "system":
        if _system_style:
            app.setStyle(QStyleFactory.create(_system_style))
        app.setPalette(_system_palette)
        return
    app.setStyle(QStyleFactory.create("Fusion"))  # the one style that honours a whole palette
    app.setPalette(_dark_palette() if name == "dark" else app.style().standardPalette())
