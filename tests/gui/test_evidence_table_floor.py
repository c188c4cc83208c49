"""The evidence table's Floor cell: a short word, and the whole sentence in its tooltip."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt

from core.replay.twins import TWIN_FLOOR
from core.store.replay_repo import StoredOutcome

from cauterule_gui.glossary import explain
from cauterule_gui.models.evidence_table_model import COL_FLOOR, EvidenceTableModel


def _row(floor: str | None) -> StoredOutcome:
    return StoredOutcome(trajectory_pk=1, trajectory_id="T-1", corpus="golden", domain="devops", success=False,
                         bucket="prevented", score=0.22, token_f1=0.1, bigram=0.0, cosine=0.4, view="haystack",
                         floor=floor, threshold=0.6, margin=-0.38)


def test_a_twin_claim_reads_twin_source_and_its_tooltip_says_why(qtbot: Any) -> None:
    model = EvidenceTableModel()
    model.set_rows("prevented", 1, [_row(TWIN_FLOOR)], 1, set(), {}, {})
    cell = model.index(0, COL_FLOOR)
    assert cell.data() == "twin source"
    assert cell.data(Qt.ItemDataRole.ToolTipRole) == explain(TWIN_FLOOR)
    assert "written from this failure" in cell.data(Qt.ItemDataRole.ToolTipRole)


def test_a_row_without_a_floor_has_no_floor_tooltip(qtbot: Any) -> None:
    model = EvidenceTableModel()
    model.set_rows("prevented", 1, [_row(None)], 1, set(), {}, {})
    assert model.index(0, COL_FLOOR).data(Qt.ItemDataRole.ToolTipRole) is None


def test_the_evidence_breakdown_of_a_twin_claim_says_what_carried_it() -> None:
    from cauterule_gui.review_reads import breakdown_text

    assert explain(TWIN_FLOOR) in breakdown_text(_row(TWIN_FLOOR))
    assert explain(TWIN_FLOOR) not in breakdown_text(_row("semantic"))
