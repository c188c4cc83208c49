"""Every tab in one place: its title, its keys, and the store changes it refreshes on.

``register(widget, title, kinds=..., refresh=...)`` adds a tab: from then on, when the
window's database executor reports a committed write (``changes_applied(kinds, initiator)``)
whose kinds the tab shows, the tab refreshes — at once if it is in front, else the next time
it is shown (a hidden tab does no work). A change the tab made itself (its ``sources``) does
not refresh it: the tab already updated what it shows.

``Ctrl+1`` … ``Ctrl+9`` select the tabs in their order and put the focus on the widget the
tab named with ``focus=`` (where its keys work) (built after every tab is added, so a
tab added later, e.g. a new loop view, gets the next number without touching this module).
``keys_of(widget)`` lists the keys that act in one tab: the rows a tab registered (the Review
tab's actions) or, for any other tab, every ``QShortcut`` and every ``QAction`` with a key
found inside it, so a key added to a panel shows up in the `?` sheet by itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import QMainWindow, QTabWidget, QWidget

Row = tuple[str, str, str]  # area, what it does, keys
MAX_NUMBERED = 9


def _keys(sequences: Sequence[QKeySequence]) -> str:
    texts = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in sequences if not k.isEmpty()]
    return "  or  ".join(dict.fromkeys(texts))


def _words(name: str) -> str:
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", name).replace("_", " ").strip()
    return spaced[:1].upper() + spaced[1:].lower()


def rows_of_actions(area: str, actions: Sequence[QAction]) -> list[Row]:
    return [(area, a.text().replace("&", ""), _keys(a.shortcuts())) for a in actions if _keys(a.shortcuts())]


def rows_inside(area: str, widget: QWidget) -> list[Row]:
    """Keys found in a panel: its QShortcuts (grouped by what they do) and keyed QActions."""
    grouped: dict[str, list[QKeySequence]] = {}
    for shortcut in widget.findChildren(QShortcut):
        label = shortcut.whatsThis() or _words(shortcut.objectName() or "shortcut")
        grouped.setdefault(label, []).append(shortcut.key())
    rows = [(area, label, _keys(keys)) for label, keys in grouped.items() if _keys(keys)]
    return rows + rows_of_actions(area, [a for a in widget.findChildren(QAction) if not a.shortcut().isEmpty()])


@dataclass
class TabSpec:
    widget: QWidget
    kinds: frozenset[str]
    refresh: Callable[[], object] | None
    sources: tuple[object, ...]
    focus: Callable[[], QWidget | None] | None = None
    stale: bool = False


class TabRegistry:
    def __init__(self, window: QMainWindow, tabs: QTabWidget) -> None:
        self._window = window
        self._tabs = tabs
        self.tabs = tabs
        self._sources: dict[int, Callable[[], list[Row]]] = {}
        self._specs: list[TabSpec] = []
        self.actions: list[QAction] = []
        tabs.currentChanged.connect(lambda _i: self._refresh_if_stale())

    def register(self, widget: QWidget, title: str, *, kinds: Iterable[str] = (),
                 refresh: Callable[[], object] | None = None, sources: Sequence[object] = (),
                 keys: Callable[[], list[Row]] | None = None, index: int | None = None,
                 focus: Callable[[], QWidget | None] | None = None) -> QWidget:
        """Add the tab (at ``index``, else last) with what it refreshes on, its `?` rows and
        ``focus``: the widget where the tab's keys work (Ctrl+N puts the focus there)."""
        if index is None:
            self._tabs.addTab(widget, title)
        else:
            self._tabs.insertTab(index, widget, title)
        self._specs.append(TabSpec(widget, frozenset(kinds), refresh, (widget, *sources), focus))
        if keys is not None:
            self.set_keys(widget, keys)
        return widget

    def kinds_of(self, widget: QWidget) -> frozenset[str]:
        return next((spec.kinds for spec in self._specs if spec.widget is widget), frozenset())

    def changes_applied(self, kinds: frozenset[str], initiator: object = None) -> None:
        """A write committed: refresh the tabs that show one of ``kinds`` (hidden ones when shown)."""
        current = self._tabs.currentWidget()
        for spec in self._specs:
            if spec.refresh is None or not spec.kinds & kinds or any(initiator is s for s in spec.sources):
                continue
            if spec.widget is current:
                spec.refresh()
            else:
                spec.stale = True

    def _refresh_if_stale(self) -> None:
        current = self._tabs.currentWidget()
        for spec in self._specs:
            if spec.widget is current and spec.stale and spec.refresh is not None:
                spec.stale = False
                spec.refresh()

    def show_tab(self, widget: QWidget) -> None:
        """Bring a tab to front and put the focus where its keys work (never on a check box or
        combo box that merely comes first in the tab order, where Space would start work)."""
        self._tabs.setCurrentWidget(widget)
        spec = next((s for s in self._specs if s.widget is widget), None)
        target = spec.focus() if spec is not None and spec.focus is not None else None
        if target is not None and target.isEnabled() and target.isVisibleTo(self._window):
            target.setFocus(Qt.FocusReason.ShortcutFocusReason)

    def title(self, widget: QWidget) -> str:
        return self._tabs.tabText(self._tabs.indexOf(widget)).replace("&", "")

    def set_keys(self, widget: QWidget, source: Callable[[], list[Row]]) -> None:
        """The rows the `?` sheet shows for this tab (instead of the keys found inside it)."""
        self._sources[id(widget)] = source

    def keys_of(self, widget: QWidget) -> list[Row]:
        source = self._sources.get(id(widget))
        return source() if source is not None else rows_inside(self.title(widget), widget)

    def build_actions(self) -> list[QAction]:
        """One action per tab, Ctrl+1 … Ctrl+9 in tab order (window-wide, also while typing)."""
        for action in self.actions:
            self._window.removeAction(action)
        self.actions = []
        for index in range(min(self._tabs.count(), MAX_NUMBERED)):
            widget = self._tabs.widget(index)
            action = QAction(f"{self._tabs.tabText(index).replace('&', '')} tab", self._window)
            action.setObjectName(f"tabAction{index + 1}")
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.triggered.connect(lambda _c=False, w=widget: self.show_tab(w))
            self._window.addAction(action)
            self.actions.append(action)
        return self.actions
