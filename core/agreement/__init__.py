"""The blind human-vs-replay agreement protocol and team agreement.

Entry points (all take a ``Store`` and return frozen DTOs; each human action is one committed
transaction):

* sizing: ``expected_half_width(n, p)``, ``n_for_half_width(target, p)``, ``plan_size``
* sessions: ``preview_session``, ``create_session``, ``next_item``, ``commit_judgement``,
  ``reveal``, ``progress``, ``list_sessions``; ``judging_view`` (every string a blind screen shows)
* two questions per evidence item (firing, scope on failures): ``scope_agreement``,
  ``scoped_recall`` (``core.agreement.scope``)
* results: ``session_result``, ``agreement_gate_for_run``, ``unblinded_summary``
* team: ``export_reviewer``, ``import_file``, ``judgement_agreement``, ``label_agreement``,
  ``adjudicate``

Submodules are imported on first use (the store layer imports ``core.agreement.model``).
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    "expected_half_width": "sizing", "n_for_half_width": "sizing", "plan_size": "sizing", "SizePlan": "sizing",
    "preview_session": "session", "create_session": "session", "next_item": "session",
    "commit_judgement": "session", "reveal": "session", "progress": "session", "list_sessions": "session",
    "SessionPreview": "session", "RunNotUsable": "session", "judging_view": "session",
    "BlindView": "blind", "rule_sentence": "blind", "trajectory_text": "blind",
    "scope_agreement": "scope", "scoped_recall": "scope", "ScopeAgreement": "scope", "ScopedRecall": "scope",
    "session_result": "results", "agreement_gate_for_run": "results", "unblinded_summary": "results",
    "SessionResult": "results", "gate_state": "results",
    "export_reviewer": "merge", "import_file": "merge", "judgement_agreement": "team", "label_agreement": "team",
    "adjudicate": "team", "MergeReport": "merge",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"core.agreement.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'core.agreement' has no attribute {name!r}")
