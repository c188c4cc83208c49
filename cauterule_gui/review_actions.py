"""The Review tab's decisions as requests to the one core decision path (``core.decisions``).

Nothing is decided here: ``request`` only says which rule, run and reviewer a key press is
about; ``core.decisions.decide`` checks every rule inside its write transaction and refuses
with an exception whose message is shown as it is.
"""

from __future__ import annotations

from core.decisions import DecisionOutcome, DecisionRequest, decide, undo_last
from core.store.engine import Store
from core.store.review_repo import Decision
from core.store.workspace_query import WorkspaceRule

__all__ = ["first_upper", "request", "run", "undo"]


def request(row: WorkspaceRule, action: str, reviewer: str, reason: str | None = None, *,
            override_verdict: bool = False, acknowledge_gate: bool = False) -> DecisionRequest:
    return DecisionRequest(action, reviewer, rule_id=row.rule_id, run_id=row.run_id, reason=reason,
                           override_verdict=override_verdict, acknowledge_gate=acknowledge_gate, via="review")


def run(store: Store, req: DecisionRequest) -> DecisionOutcome:
    return decide(store, req)


def undo(store: Store, reviewer: str) -> Decision | None:
    return undo_last(store, reviewer)


def first_upper(text: str) -> str:
    """Capitalise the first letter only: ids in the rest of the text keep their case."""
    return text[:1].upper() + text[1:]
