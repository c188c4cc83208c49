"""The main window's actions and menu bar (File, Edit, Review, Evidence, Replay, View, Help)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtGui import QAction, QKeySequence

from cauterule_gui import review_menu
from cauterule_gui.panels.shortcuts_dialog import ShortcutsDialog

if TYPE_CHECKING:
    from cauterule_gui.main_window import MainWindow

# Replay ▸ Embedding runtime: what runs the embedding model in the replay children
# (docs/replay.md "Embedders" has the measurements behind each line).
EMBEDDER_CHOICES = (
    ("torch", "&PyTorch (exact parity with cauterule 0.3.1)",
     "The default: the reference's own runtime; the reference-0.3.1 comparisons are exact only with it"),
    ("onnx", "&ONNX Runtime (about 5× faster per CPU second)",
     "The same weights exported to ONNX: vectors within 1e-6 of PyTorch's; no decision moved on the shared "
     "corpus; the first run re-embeds the store's texts once and the first use builds the export"),
    ("onnx-int8", "ONNX Runtime, &int8 (fastest; moves pairs at the floors)",
     "Weights quantised to int8: cosines move by up to 0.1 (0.01 on average), so pairs near the 0.62 semantic floor "
     "can change bucket; for speed only"),
)


def build_actions(window: MainWindow) -> None:
    """Create the window's actions (as its attributes) and its menus."""
    std = QKeySequence.StandardKey
    window.new_store_action = window._action("&New store…", window.new_store, std.New, "Create an empty store")
    window.open_store_action = window._action("&Open store…", window.open_store, std.Open, "Open another store")
    window.import_action = window._action("&Import corpus folder…", window.import_folder, "Ctrl+I",
                                      "Import CauterRule trajectories and rules from a folder")
    window.demo_store_action = window._action("Open &demo store", window.start.open_demo_store,
                                          tip="The bundled demo corpus in its own store (never mixed into yours)")
    window.quit_action = window._action("&Quit", window.close, std.Quit)
    window.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
    window.find_action = window._action("&Filter trajectories", window.table_panel.focus_filter, std.Find)
    window.refresh_action = window._action("&Refresh", window.refresh, std.Refresh)
    window.newlines_action = QAction("Show \\n as &line breaks", window)
    window.newlines_action.setCheckable(True)
    window.newlines_action.setShortcut(QKeySequence("Ctrl+L"))
    window.newlines_action.toggled.connect(window.viewer.set_literal_newlines)
    window.newlines_action.toggled.connect(window.workspace.viewer.set_literal_newlines)
    window.viewer.literal_newlines_changed.connect(window.newlines_action.setChecked)
    window.history_action = window.history.toggleViewAction()
    window.history_action.setShortcut(QKeySequence("Ctrl+Shift+H"))
    window.reviewer_action = window._action("Reviewer &name…", lambda: window.identity.ask(window))
    window.help_action = window._action("&Keyboard shortcuts", window.show_shortcuts)
    window.help_action.setShortcuts([QKeySequence("?"), QKeySequence("F1")])
    window.addAction(window.help_action)

    window.review_actions = review_menu.ReviewActions(window, window._settings, window._review_active)
    review_menu.install(window.review_actions, window)
    window.single_key_action = QAction("Single-&key shortcuts", window)
    window.single_key_action.setCheckable(True)
    window.single_key_action.setChecked(window.review_actions.single_keys_on)
    window.single_key_action.toggled.connect(window.review_actions.set_single_keys)
    window.review_actions.set_single_keys(window.review_actions.single_keys_on)
    profile_names = ("adopted", "lab-2026-12", "workbench", "reference-0.3.1")
    profiles = [window._action("&Adopted profile (the store's; see the Lab tab)",
                               lambda: window.replay.set_profile_name("adopted")),
                window._action("&Lab 2026-12 profile (the shipped default)",
                               lambda: window.replay.set_profile_name("lab-2026-12")),
                window._action("&Workbench profile", lambda: window.replay.set_profile_name("workbench")),
                window._action("&Reference 0.3.1 profile", lambda: window.replay.set_profile_name("reference-0.3.1"))]
    window._profile_group = window.review_actions.radio_group(profiles)
    profiles[profile_names.index(window.replay.profile_name)].setChecked(True)
    window.semantic_action = QAction("Se&mantic matching (lab-2026-12 and workbench profiles)", window)
    window.semantic_action.setCheckable(True)
    window.semantic_action.setChecked(window.replay.semantic)
    window.semantic_action.toggled.connect(window.replay.set_semantic)

    bar = window.menuBar()
    file_menu = bar.addMenu("&File")
    file_menu.addAction(window.new_store_action)
    file_menu.addAction(window.open_store_action)
    from cauterule_gui.team_store_dialog import open_team_store  # issue 14: a postgresql:// store

    file_menu.addAction("Open &team store…", lambda: open_team_store(window))
    file_menu.addAction(window.demo_store_action)
    window.recent_menu = file_menu.addMenu("Open &Recent")
    window.recent_menu.aboutToShow.connect(window._fill_recent_menu)
    for action in (None, window.import_action, *window.workflows.file_actions, None, window.quit_action):
        file_menu.addSeparator() if action is None else file_menu.addAction(action)
    edit_menu = bar.addMenu("&Edit")
    edit_menu.addAction(window.find_action)
    review = window.review_actions.menu(bar, "Re&view", ["Decide", None, "Navigate", None, "Rule"])
    review.addSeparator()
    review.addAction(window.reviewer_action)
    review.addAction(window.single_key_action)
    window.review_actions.menu(bar, "E&vidence", ["Evidence", None, "Mark"])
    replay_menu = window.review_actions.menu(bar, "Re&play", ["Replay"])
    replay_menu.addSeparator()
    for action in profiles:
        replay_menu.addAction(action)
    replay_menu.addAction(window.semantic_action)
    runtime_menu = replay_menu.addMenu("Embedding &runtime")
    window.embedder_actions = {kind: window._action(text, lambda k=kind: window.replay.set_embedder(k), tip=tip)
                               for kind, text, tip in EMBEDDER_CHOICES}
    window._embedder_group = window.review_actions.radio_group(list(window.embedder_actions.values()))
    window.embedder_actions[window.replay.embedder].setChecked(True)
    for action in window.embedder_actions.values():
        runtime_menu.addAction(action)
    view_menu = bar.addMenu("V&iew")
    view_menu.addAction(window.refresh_action)
    view_menu.addAction(window.newlines_action)
    view_menu.addAction(window.history_action)
    window.theme_actions = [window._action(text, lambda n=name: window.set_theme(n)) for name, text in
                          (("system", "&System"), ("light", "&Light"), ("dark", "&Dark"))]
    window._theme_group = window.review_actions.radio_group(window.theme_actions)
    theme_menu = view_menu.addMenu("&Theme")
    for action in window.theme_actions:
        theme_menu.addAction(action)
    view_menu.addSeparator()
    for action in window.tab_registry.build_actions():
        view_menu.addAction(action)
    bar.addMenu("&Help").addAction(window.help_action)
    ev = window.review_actions.groups
    evidence = window.workspace.evidence
    evidence.add_verdict_mark_actions(list(zip(ev["Mark"][3:], ("Right", "Wrong", "Can't tell"))))
    evidence.add_decision_actions(list(zip(ev["Decide"] + ev["Rule"], ("Approve", "Reject…", "Defer", "Undo",
                                                                        "What if…", "Audit log"))))
    evidence.add_row_actions(list(zip(ev["Mark"][:3] + [ev["Evidence"][6]],
                                      ("Right", "Wrong", "Can't tell", "Waive broken…"))))


def show_shortcuts(window: MainWindow) -> ShortcutsDialog:
    """Open the keys dialog: the keys of the tab in front first, then the window's keys."""
    current = window.tabs.currentWidget()
    groups = [("Window", [window.help_action, window.history_action, window.find_action, window.refresh_action,
                          window.newlines_action, window.new_store_action, window.open_store_action,
                          window.import_action, window.quit_action, *window.tab_registry.actions])]
    dialog = ShortcutsDialog(groups, window, rows=window.tab_registry.keys_of(current),
                             heading=window.tab_registry.title(current))
    dialog.finished.connect(lambda _r: dialog.deleteLater())
    dialog.open()
    return dialog
