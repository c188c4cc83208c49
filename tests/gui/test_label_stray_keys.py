"""A stray key never becomes ground truth (issue 24 item 2): after Ctrl+Enter the focus is on
the queue, where `?` opens the keys sheet instead of typing; a label of one character or
punctuation only is not saved (nor counted) until the reviewer confirms it with Ctrl+S."""

from __future__ import annotations

from typing import Any

from conftest import REVIEWER, preset_reviewer, wait_idle
from PySide6.QtCore import Qt

from core.domain.labels import LabelText, accidental_label
from core.store.label_repo import LabelRepository

from cauterule_gui.main_window import MainWindow
from cauterule_gui.panels.labelling import LabellingPanel


def _label_tab(qtbot: Any, window: MainWindow) -> LabellingPanel:
    preset_reviewer()
    window.activateWindow()
    qtbot.waitUntil(lambda: window.isActiveWindow(), timeout=5000)
    labelling = window.workflows.labelling
    qtbot.keyClick(window, Qt.Key.Key_4, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: labelling.model.rowCount() > 2 and labelling._context is not None, timeout=10_000)
    return labelling


def test_question_mark_after_ctrl_enter_opens_help_and_types_nothing(qtbot: Any, window: MainWindow) -> None:
    labelling = _label_tab(qtbot, window)
    qtbot.keyClick(labelling.view, Qt.Key.Key_Return)  # from the queue to the When field
    qtbot.waitUntil(lambda: labelling.trigger.hasFocus(), timeout=5000)
    qtbot.keyClicks(labelling.trigger, "git push is rejected")
    qtbot.keyClick(labelling.trigger, Qt.Key.Key_Tab)
    qtbot.keyClicks(labelling.directive, "pull with rebase then push")
    first = labelling.current_pk()
    qtbot.keyClick(labelling.directive, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: labelling._context is not None and labelling.current_pk() != first, timeout=10_000)
    second = labelling.current_pk()
    assert labelling.view.hasFocus()
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Question)
    qtbot.waitUntil(lambda: getattr(window, "shortcuts_dialog", None) is not None
                    and window.shortcuts_dialog.isVisible(), timeout=5000)
    window.shortcuts_dialog.close()
    assert labelling.trigger.text() == "" and labelling.directive.text() == ""
    wait_idle(window)
    repo = LabelRepository(window.services.store)
    assert second is not None and repo.get(second, REVIEWER) is None
    assert first is not None and repo.get(first, REVIEWER) is not None


def test_a_one_character_label_is_saved_only_after_ctrl_s(qtbot: Any, window: MainWindow) -> None:
    labelling = _label_tab(qtbot, window)
    pk = labelling.current_pk()
    assert pk is not None
    labelling.directive.setFocus()
    qtbot.keyClicks(labelling.directive, "?")
    labelling.save_now()  # what the autosave timer calls
    qtbot.waitUntil(lambda: "Not saved" in labelling.save_state.text(), timeout=5000)
    wait_idle(window)
    repo = LabelRepository(window.services.store)
    assert repo.get(pk, REVIEWER) is None
    qtbot.keyClick(labelling.directive, Qt.Key.Key_S, Qt.KeyboardModifier.ControlModifier)
    wait_idle(window)
    saved = repo.get(pk, REVIEWER)
    assert saved is not None and saved.text.directive == "?"


def test_ctrl_enter_does_not_move_past_an_unconfirmed_stray_label(qtbot: Any, window: MainWindow) -> None:
    labelling = _label_tab(qtbot, window)
    pk = labelling.current_pk()
    labelling.trigger.setFocus()
    qtbot.keyClicks(labelling.trigger, "j")
    qtbot.keyClick(labelling.trigger, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    assert labelling.current_pk() == pk and labelling.trigger.text() == "j"
    assert "Ctrl+S" in labelling.save_state.text()


def test_words_and_the_empty_label_are_not_accidental() -> None:
    assert accidental_label(LabelText("?", "")) is not None
    assert accidental_label(LabelText(",", ".")) is not None
    assert accidental_label(LabelText("a", "")) is not None
    assert accidental_label(LabelText("", "")) is None  # "no rule expected" is deliberate
    assert accidental_label(LabelText("git push fails", "")) is None
    assert accidental_label(LabelText("", "do it")) is None
