"""The conflict dialog's heading says what the other reviewer did to the rule."""

from __future__ import annotations

from typing import Any

import pytest

from core.domain.errors import ConcurrentChangeError

from cauterule_gui.review_conflicts import ConflictDialog


def _error(kind: str, what: str | None) -> ConcurrentChangeError:
    return ConcurrentChangeError("changed", kind=kind, key=7, expected=1, found=2, by="bo", what=what,
                                 at="2026-12-02T04:00:00Z")


@pytest.mark.parametrize(("kind", "what", "heading"), [
    ("rule", "retired 12 (obsolete)", "Another reviewer retired rule 7 after you opened it."),
    ("rule", "superseded 12 by 13", "Another reviewer superseded rule 7 after you opened it."),
    ("rule", "approve (looks right)", "Another reviewer changed rule 7 after you opened it."),
    ("rule", None, "Another reviewer changed rule 7 after you opened it."),
    ("adjudication", 'ruled "a" -> "b"', "Another reviewer changed the ruling on trajectory #7 after you opened it."),
])
def test_the_heading_names_a_retirement_or_supersession(qtbot: Any, kind: str, what: str | None, heading: str) -> None:
    dialog = ConflictDialog(_error(kind, what), "approve")
    qtbot.addWidget(dialog)
    assert dialog.heading.text() == f"{heading} Nothing was saved."
