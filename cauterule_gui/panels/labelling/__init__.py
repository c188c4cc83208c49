"""Labelling mode, one module per part of the screen (see ``panel.LabellingPanel``)."""

from cauterule_gui.panels.labelling.common import VariantListEditor, guidelines_path
from cauterule_gui.panels.labelling.panel import LabellingPanel

__all__ = ["LabellingPanel", "VariantListEditor", "guidelines_path"]
