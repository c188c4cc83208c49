"""Resume where you stopped: the tab, the rule, the evidence row and the labelling position.

Saved in QSettings per store (a reviewer switching between two stores resumes each one
where they left it) when the window closes or the store changes, and applied once the
store's rows are there. Only ids are stored, never text from the store; an id that no
longer exists (the store was rebuilt) is simply not restored.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QSettings

if TYPE_CHECKING:
    from cauterule_gui.column_fit import ColumnFit
    from cauterule_gui.main_window import MainWindow

GROUP = "session"


@dataclass(frozen=True)
class SessionState:
    tab: str = ""  # the tab's title without '&' (Review, Label, …)
    rule_id: int | None = None
    bucket: str = ""
    evidence_pk: int | None = None
    label_pk: int | None = None

    @property
    def empty(self) -> bool:
        return not self.tab and self.rule_id is None and self.label_pk is None


def _group(store: Path) -> str:
    digest = hashlib.sha256(str(store.expanduser().resolve()).encode("utf-8")).hexdigest()[:16]
    return f"{GROUP}/{digest}"


def _int(value: Any) -> int | None:
    try:
        return int(value) if value not in (None, "") else None
    except (TypeError, ValueError):
        return None


def load(settings: QSettings, store: Path) -> SessionState:
    settings.beginGroup(_group(store))
    try:
        return SessionState(tab=str(settings.value("tab") or ""), rule_id=_int(settings.value("rule")),
                            bucket=str(settings.value("bucket") or ""), evidence_pk=_int(settings.value("evidence")),
                            label_pk=_int(settings.value("label")))
    finally:
        settings.endGroup()


def save(settings: QSettings, store: Path, state: SessionState) -> None:
    settings.beginGroup(_group(store))
    try:
        settings.remove("")
        values = {"tab": state.tab, "rule": state.rule_id, "bucket": state.bucket, "evidence": state.evidence_pk,
                  "label": state.label_pk}
        for key, value in values.items():
            if value not in (None, ""):
                settings.setValue(key, value)
    finally:
        settings.endGroup()


def tab_title(window: MainWindow, index: int | None = None) -> str:
    tabs = window.tabs
    return tabs.tabText(tabs.currentIndex() if index is None else index).replace("&", "")


def capture(window: MainWindow) -> SessionState:
    outcome = window.workspace.evidence.current_outcome()
    return SessionState(
        tab=tab_title(window),
        rule_id=window.workspace.rules.current_rule_id(),
        bucket=window.workspace.evidence.bucket if outcome is not None else "",
        evidence_pk=outcome.trajectory_pk if outcome is not None else None,
        label_pk=window.workflows.labelling.current_pk(),
    )


def remember(window: MainWindow, settings: QSettings) -> None:
    if window.services is not None:
        save(settings, window.services.path, capture(window))


def restore(window: MainWindow, settings: QSettings) -> bool:
    """Apply the saved state of the open store. Returns False when there is none."""
    if window.services is None:
        return False
    state = load(settings, window.services.path)
    if state.empty:
        return False
    if state.rule_id is not None and state.evidence_pk:
        # The evidence board is read off the GUI thread once the rule is selected: the row is
        # picked when it has arrived.
        window.review.restore_row(state.rule_id, state.bucket, state.evidence_pk)
    if state.rule_id is not None:
        window.workspace.rules.select_rule(state.rule_id)
    if state.label_pk is not None:
        window.workflows.labelling.select_trajectory(state.label_pk)
    for index in range(window.tabs.count()):
        if tab_title(window, index) == state.tab:
            window.tabs.setCurrentIndex(index)
            break
    return True


# -- splitters --------------------------------------------------------------------------
SPLITTER_GROUP = "splitters"


def save_splitters(window: MainWindow, settings: QSettings) -> None:
    """Every named splitter of every tab (the Review ones also have their own keys)."""
    from PySide6.QtWidgets import QSplitter

    settings.beginGroup(SPLITTER_GROUP)
    try:
        for splitter in window.findChildren(QSplitter):
            if splitter.objectName():
                settings.setValue(splitter.objectName(), splitter.saveState())
    finally:
        settings.endGroup()


def restore_splitters(window: MainWindow, settings: QSettings) -> None:
    from PySide6.QtCore import QByteArray
    from PySide6.QtWidgets import QSplitter

    settings.beginGroup(SPLITTER_GROUP)
    try:
        for splitter in window.findChildren(QSplitter):
            value = settings.value(splitter.objectName()) if splitter.objectName() else None
            if isinstance(value, QByteArray) and not value.isEmpty():
                splitter.restoreState(value)
    finally:
        settings.endGroup()


# -- column widths the reviewer set -------------------------------------------------------
HEADER_GROUP = "headers"


def _each_fit(window: MainWindow, settings: QSettings, group: str) -> Iterator[tuple[ColumnFit, str]]:
    """Every named table whose columns fit themselves, with its name, inside ``group``."""
    from cauterule_gui.column_fit import ColumnFit

    settings.beginGroup(group)
    try:
        for fit in window.findChildren(ColumnFit):
            if fit.view.objectName():
                yield fit, fit.view.objectName()
    finally:
        settings.endGroup()


def save_headers(window: MainWindow, settings: QSettings) -> None:
    """Tables whose columns fit themselves (``ColumnFit``) keep the widths a reviewer dragged."""
    for fit, name in _each_fit(window, settings, HEADER_GROUP):
        if name == "ruleTable":  # the rules table has its own key (review/rule_header)
            continue
        if fit.user_resized:
            settings.setValue(name, fit.view.horizontalHeader().saveState())
        else:
            settings.remove(name)
    save_column_choices(window, settings)


def restore_headers(window: MainWindow, settings: QSettings) -> None:
    from PySide6.QtCore import QByteArray

    for fit, name in _each_fit(window, settings, HEADER_GROUP):
        value = settings.value(name)
        if isinstance(value, QByteArray) and not value.isEmpty():
            fit.view.horizontalHeader().restoreState(value)
            fit.keep_user_widths()
    restore_column_choices(window, settings)


# -- columns the reviewer showed or hid (the header's context menu) -----------------------
COLUMN_GROUP = "columns"


def save_column_choices(window: MainWindow, settings: QSettings) -> None:
    """Each table's shown / hidden columns as the reviewer chose them, as JSON by column title."""
    for fit, name in _each_fit(window, settings, COLUMN_GROUP):
        if fit.choices():
            settings.setValue(name, json.dumps(fit.choices(), sort_keys=True))
        else:
            settings.remove(name)


def restore_column_choices(window: MainWindow, settings: QSettings) -> None:
    for fit, name in _each_fit(window, settings, COLUMN_GROUP):
        value = settings.value(name)
        try:
            choices = json.loads(value) if isinstance(value, str) else None
        except ValueError:
            choices = None
        if isinstance(choices, dict):
            fit.restore_choices({str(k): bool(v) for k, v in choices.items()})
