"""The promotion screen, one module per part (see ``panel.PromotionPanel``)."""

from cauterule_gui.panels.promotion.dialogs import (
           ApprovalInput,
           ApproveDialog,
           PromotionPrompts,
           SupersedeDialog,
           WaiverDialog,
)
from cauterule_gui.panels.promotion.panel import PromotionPanel
from cauterule_gui.panels.promotion.similarity import load_embedder

__all__ = ["ApprovalInput", "ApproveDialog", "PromotionPanel", "PromotionPrompts", "SupersedeDialog", "WaiverDialog",
           "load_embedder"]
