"""One decision path for every surface (Review tab, Promotion tab, CLI): ``decide``.

``waive`` records a reviewer's waiver of broken evidence (a reason required).
``undo_last`` takes back a reviewer's newest decision (and retires the standing rule that
decision created). No Qt here; the screens only ask the reviewer what a refusal needs.
"""

from __future__ import annotations

from core.decisions.service import (
    ACTIONS,
    AcknowledgementRequired,
    ApprovalRefused,
    BrokenNotOpened,
    DecisionOutcome,
    DecisionRequest,
    OverrideRequired,
    PromotionError,
    ReasonRequired,
    SplitOffered,
    decide,
)
from core.decisions.split import SplitProposal, propose_split
from core.decisions.undo import undo_last
from core.decisions.waivers import waive
from core.decisions.whatif import WhatIfEdit, WhatIfRefused, save_whatif_edit
from core.decisions.whatif_draft import DraftReplay, DraftSummary, ReadOnlyVectorCache, replay_draft

__all__ = [
    "ACTIONS", "AcknowledgementRequired", "ApprovalRefused", "BrokenNotOpened", "DecisionOutcome", "DecisionRequest",
    "DraftReplay", "DraftSummary", "ReadOnlyVectorCache", "replay_draft",
    "OverrideRequired", "PromotionError", "ReasonRequired", "SplitOffered", "SplitProposal", "WhatIfEdit",
    "WhatIfRefused", "decide", "propose_split", "save_whatif_edit", "undo_last", "waive",
]
