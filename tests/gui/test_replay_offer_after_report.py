"""After an import, "Replay now?" is offered once the import report is closed, never on top
of it (issue 24 item 7)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gui_records import trajectory, write_jsonl

from cauterule_gui.main_window import MainWindow


def test_the_replay_offer_waits_for_the_import_report_to_close(qtbot: Any, window: MainWindow,
                                                                tmp_path: Path) -> None:
    fresh = tmp_path / "more"
    write_jsonl(fresh / "failures" / "new.jsonl", [trajectory("F-900-new", domain="git")])
    window.start.interactive = True
    window.importer.start([fresh])
    qtbot.waitUntil(lambda: window.importer.last_dialog is not None and window.importer.last_dialog.isVisible(),
                    timeout=30_000)
    qtbot.waitUntil(lambda: not window.importer.running, timeout=30_000)
    offer = window.start.replay_offer
    assert offer is None or not offer.isVisible()
    window.importer.last_dialog.accept()
    qtbot.waitUntil(lambda: window.start.replay_offer is not None and window.start.replay_offer.isVisible(),
                    timeout=5000)
    window.start.replay_offer.reject()
