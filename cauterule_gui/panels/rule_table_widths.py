"""The rules table's column sizing samples and its filter combo boxes (kept out of the panel)."""

from __future__ import annotations

from PySide6.QtWidgets import QComboBox, QWidget

from cauterule_gui.glossary import VERDICT_REASONS, longest
from cauterule_gui.models import rule_table_model as cols

# Sample values that size the short columns; the text columns share the rest (weight, floor in chars).
FIXED_SAMPLES = {cols.COL_DOMAIN: "python", cols.COL_VERDICT: "? inconclusive", cols.COL_PREVENTED: "123",
                  cols.COL_BROKEN: "⚠ 12", cols.COL_NEAR: "12", cols.COL_MISSED: "123",
                  cols.COL_PRECISION: "1.00 [0.86–1.00]", cols.COL_RECALL: "1.00 [0.86–1.00]",
                  cols.COL_STATUS: "· unreviewed", cols.COL_MARK: "—", cols.COL_RUN: "#12",
                  cols.COL_REASON: longest(VERDICT_REASONS)}  # a reason word is never elided
FLEXIBLE = {cols.COL_TRIGGER: (5.0, 24), cols.COL_DIRECTIVE: (2.0, 8), cols.COL_ORIGIN: (1.5, 9),
             cols.COL_REVIEWER: (0.3, 5)}


def filter_combo(name: str, all_text: str, parent: QWidget) -> QComboBox:
    combo = QComboBox(parent)
    combo.setObjectName(name)
    combo.setAccessibleName(all_text)
    combo.addItem(all_text, None)
    combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
    return combo
