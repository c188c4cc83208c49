"""A 10 MB field without spaces opens in the viewer without freezing the GUI (defect 11)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gui_records import trajectory, write_jsonl
from PySide6.QtCore import QTimer

from core.importing import import_paths

from cauterule_gui.panels.long_text import SHORTENED_CHARS, split_pieces
from cauterule_gui.panels.trajectory_viewer import TrajectoryViewerPanel
from cauterule_gui.services import StoreServices

TEN_MB = 10 * 1024 * 1024


class Heartbeat:
    """A 5 ms timer on the GUI thread counting its ticks. A document laid out in one go on the GUI
    thread lets it tick at most once until it is done; one built in slices lets it tick between
    slices. How long the GUI thread's longest stretch takes is benchmarks/long_text.py's figure."""

    def __init__(self) -> None:
        self.ticks = 0
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        self.ticks += 1


def _detail(services: StoreServices, tmp_path: Path, task: str) -> Any:
    write_jsonl(tmp_path / "long" / "failures" / "a.jsonl", [trajectory("LONG-1", task=task)])
    import_paths(services.store, [tmp_path / "long"])
    pk = next(t.id for t in services.corpora.list_trajectories(limit=100) if t.trajectory_id == "LONG-1")
    return services.corpora.get_trajectory(pk)


def test_a_10_mb_unbroken_field_opens_shortened_then_in_full_without_blocking(
    qtbot: Any, services: StoreServices, tmp_path: Path
) -> None:
    detail = _detail(services, tmp_path, "x" * TEN_MB)
    viewer = TrajectoryViewerPanel()
    qtbot.addWidget(viewer)
    viewer.resize(900, 700)
    viewer.show()
    qtbot.waitExposed(viewer)
    beat = Heartbeat()
    beat.timer.start()

    viewer.show_trajectory(detail)
    assert not viewer.is_complete  # 10 MB is never parsed or laid out within the call
    qtbot.waitUntil(lambda: viewer.is_complete, timeout=10_000)
    assert viewer.show_all_button.isVisible()
    assert viewer.show_all_button.text() == f"Show all ({TEN_MB:,} characters)"
    assert len(viewer.plain_text()) < SHORTENED_CHARS + 5_000

    viewer.show_all_button.click()
    assert not viewer.is_complete
    ticks_before = beat.ticks
    qtbot.waitUntil(lambda: viewer.is_complete, timeout=300_000)
    beat.timer.stop()
    # The event loop turned while the full document was built (in slices, not in one go).
    assert beat.ticks - ticks_before >= 3, beat.ticks - ticks_before
    assert "x" * TEN_MB in viewer.plain_text().replace("\n", "")  # every character, in pieces


def test_pieces_keep_every_character_and_map_offsets() -> None:
    text = "ab " + "x" * 4500 + " tail"
    pieces = split_pieces(text, piece=2000)
    assert "".join(pieces.parts) == text and len(pieces.parts) == 3
    assert pieces.doc_offset(0) == 0 and pieces.doc_offset(len(text)) == len(text) + 2


def test_bidi_overrides_in_ids_are_shown_not_applied(qtbot: Any, services: StoreServices, tmp_path: Path) -> None:
    from cauterule_gui.plain_text import plain_label, plain_tooltip

    write_jsonl(tmp_path / "bidi" / "failures" / "a.jsonl", [trajectory("ID-\u202eexe.txt", task="run \u2066it\u2069")])
    import_paths(services.store, [tmp_path / "bidi"])
    pk = services.corpora.list_trajectories(limit=10)[0].id
    viewer = TrajectoryViewerPanel()
    qtbot.addWidget(viewer)
    viewer.show_trajectory(services.corpora.get_trajectory(pk))
    text = viewer.plain_text()
    assert "ID-<U+202E>exe.txt" in text and "run <U+2066>it<U+2069>" in text
    assert not any(c in text for c in "\u202e\u2066\u2069")
    label = plain_label("a\u202eb")
    qtbot.addWidget(label)
    assert label.text() == "a<U+202E>b"
    assert "\u202e" not in (plain_tooltip("x\u202ey") or "")
