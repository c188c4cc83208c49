"""QSettings in INI format under the organisation / application names set in ``app.py``.

INI (never pickles) so a damaged file cannot stop start-up; tests redirect it with
``QSettings.setPath(QSettings.IniFormat, QSettings.UserScope, tmp_path)``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QByteArray, QCoreApplication, QSettings

ORGANIZATION = "CauterRule"
APPLICATION = "Workbench"

KEY_GEOMETRY = "main_window/geometry"
KEY_STATE = "main_window/state"
KEY_SPLITTER = "main_window/splitter"
KEY_TABLE_HEADER = "trajectory_table/header"
KEY_LITERAL_NEWLINES = "trajectory_viewer/literal_newlines"


def configure_application_names() -> None:
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)


def make_settings() -> QSettings:
    return QSettings(QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)


def read_bytes(settings: QSettings, key: str) -> QByteArray | None:
    value: Any = settings.value(key)
    return value if isinstance(value, QByteArray) and not value.isEmpty() else None


def read_bool(settings: QSettings, key: str, default: bool = False) -> bool:
    value: Any = settings.value(key, default)
    if isinstance(value, str):
        return value.lower() in ("true", "1", "yes")
    return bool(value)

KEY_REVIEW_SPLITTER = "review/splitter"
KEY_EVIDENCE_SPLITTER = "review/evidence_splitter"
KEY_RULE_HEADER = "review/rule_header"
KEY_RULE_FILTER = "review/filter"
KEY_TAB = "main_window/tab"
KEY_WELCOME = "welcome/show_at_start"
KEY_THEME = "appearance/theme"  # system | light | dark


def read_dict(settings: QSettings, group: str) -> dict[str, str]:
    settings.beginGroup(group)
    try:
        return {key: str(settings.value(key) or "") for key in settings.childKeys()}
    finally:
        settings.endGroup()


def write_dict(settings: QSettings, group: str, values: dict[str, str]) -> None:
    settings.beginGroup(group)
    try:
        settings.remove("")
        for key, value in values.items():
            settings.setValue(key, value)
    finally:
        settings.endGroup()
