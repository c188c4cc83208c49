"""The human-vs-replay agreement screen, one module per page (see ``panel.AgreementPanel``)."""

from cauterule_gui.panels.agreement.common import TAB_JUDGE, TAB_NEW, TAB_RESULTS, TAB_TEAM, session_title
from cauterule_gui.panels.agreement.panel import AgreementPanel

__all__ = ["TAB_JUDGE", "TAB_NEW", "TAB_RESULTS", "TAB_TEAM", "AgreementPanel", "session_title"]
