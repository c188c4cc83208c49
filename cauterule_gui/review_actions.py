"""Wording helpers for the Review tab's decisions (nothing is decided here).

``request`` only says which rule, run, reviewer and rule version a key press is about;
``core.decisions.decide`` checks every rule inside its write transaction and refuses with an
exception whose message is shown as it is (``first_upper``).
"""

from __future__ import annotations

from core.decisions import DecisionRequest
from core.store.workspace_query import WorkspaceRule

__all__ = ["first_upper", "request"]


def request(row: WorkspaceRule, action: str, reviewer: str, reason: str | None = None, *,
            override_verdict: bool = False, acknowledge_gate: bool = False,
            expected_version: int | None = None) -> DecisionRequest:
    """``expected_version``: the rule's row version the reviewer saw (default: the row's, read with it),
    so another reviewer's change since is refused (``ConcurrentChangeError``), never overwritten."""
    return DecisionRequest(action, reviewer, rule_id=row.rule_id, run_id=row.run_id, reason=reason,
                           override_verdict=override_verdict, acknowledge_gate=acknowledge_gate, via="review",
                           expected_version=expected_version if expected_version is not None else row.row_version)


def first_upper(text: str) -> str:
    """Capitalise the first letter only: ids in the rest of the text keep their case."""
    return text[:1].upper() + text[1:]
