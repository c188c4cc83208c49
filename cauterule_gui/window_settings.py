"""What the main window keeps between sessions: geometry, splitters, headers, filters, theme, tab."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cauterule_gui import session_state, theme
from cauterule_gui import settings as keys

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow


def restore_settings(window: MainWindow) -> None:
    """Put the window back as it was left (or show the first tab)."""
    geometry = keys.read_bytes(window._settings, keys.KEY_GEOMETRY)
    if geometry is None or not window.restoreGeometry(geometry):
        window.resize(1560, 900)
    state = keys.read_bytes(window._settings, keys.KEY_STATE)
    if state is not None:
        window.restoreState(state)
    session_state.restore_splitters(window, window._settings)
    session_state.restore_headers(window, window._settings)
    splitter = keys.read_bytes(window._settings, keys.KEY_SPLITTER)
    if splitter is not None:
        window.splitter.restoreState(splitter)
    window.workspace.restore_state(keys.read_bytes(window._settings, keys.KEY_REVIEW_SPLITTER),
                                 keys.read_bytes(window._settings, keys.KEY_EVIDENCE_SPLITTER))
    window.table_panel.restore_header_state(keys.read_bytes(window._settings, keys.KEY_TABLE_HEADER))
    window.workspace.rules.restore_header_state(keys.read_bytes(window._settings, keys.KEY_RULE_HEADER))
    window.viewer.set_literal_newlines(keys.read_bool(window._settings, keys.KEY_LITERAL_NEWLINES))
    window.workspace.rules.restore_filter_state(keys.read_dict(window._settings, keys.KEY_RULE_FILTER))
    chosen = str(window._settings.value(keys.KEY_THEME, "system") or "system")
    if chosen in theme.THEMES:
        window.theme_actions[theme.THEMES.index(chosen)].setChecked(True)
        if chosen != theme.choice():
            theme.apply_choice(chosen)
    if session_state.restore(window, window._settings):
        return  # the tab, rule, evidence row and label the reviewer stopped at
    if keys.read_bool(window._settings, keys.KEY_WELCOME, True):
        window.tabs.setCurrentWidget(window.welcome)
        return
    open_results_tab(window)


def open_results_tab(window: MainWindow) -> None:
    """The Review tab when the store has replay results, else the Corpus tab."""
    # The Review tab first (showing the Corpus tab would start its gate scan); the Corpus tab
    # once a read off the GUI thread says there are no results, unless the reviewer has chosen
    # a tab meanwhile.
    window.tabs.setCurrentWidget(window.workspace)
    moved: list[int] = []
    window.tabs.currentChanged.connect(marker := lambda index: moved.append(index))

    def chosen_tab(has_results: bool) -> None:
        window.tabs.currentChanged.disconnect(marker)
        if not has_results and not moved:
            window.tabs.setCurrentWidget(window.splitter)

    if window.db.query(lambda s: s.results.has_results(), chosen_tab, name="has results") is None:
        window.tabs.currentChanged.disconnect(marker)


def save_settings(window: MainWindow) -> None:
    """Remember the window's layout and the reviewer's place."""
    window._settings.setValue(keys.KEY_GEOMETRY, window.saveGeometry())
    window._settings.setValue(keys.KEY_STATE, window.saveState())
    window._settings.setValue(keys.KEY_SPLITTER, window.splitter.saveState())
    outer, lower = window.workspace.save_state()
    window._settings.setValue(keys.KEY_REVIEW_SPLITTER, outer)
    window._settings.setValue(keys.KEY_EVIDENCE_SPLITTER, lower)
    window._settings.setValue(keys.KEY_TABLE_HEADER, window.table_panel.header_state())
    window._settings.setValue(keys.KEY_RULE_HEADER, window.workspace.rules.header_state())
    window._settings.setValue(keys.KEY_LITERAL_NEWLINES, window.viewer.literal_newlines)
    keys.write_dict(window._settings, keys.KEY_RULE_FILTER, window.workspace.rules.filter_state())
    session_state.remember(window, window._settings)
    session_state.save_splitters(window, window._settings)
    session_state.save_headers(window, window._settings)
    window._settings.sync()
