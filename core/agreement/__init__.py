"""The blind human-vs-replay agreement protocol and team agreement.

Entry points (all take a ``Store`` and return frozen DTOs; each human action is one committed
transaction, and its rules are checked inside it by the service in ``session.py``):

* sizing: ``expected_half_width(n, p)``, ``n_for_half_width(target, p)``, ``plan_size``
* sessions: ``preview_session``, ``create_session``, ``next_item``, ``commit_judgement``,
  ``reveal``, ``progress``, ``list_sessions``; ``judging_view`` (every string a blind screen shows)
* two questions per evidence item (firing, scope on failures): ``scope_agreement``,
  ``scoped_recall`` (``core.agreement.scope``)
* results: ``session_result``, ``agreement_gate_for_run``, ``unblinded_summary``
* team: ``export_reviewer``, ``import_file``, ``judgement_agreement``, ``label_agreement``,
  ``adjudicate``
"""

from __future__ import annotations

from core.agreement.blind import BlindView, rule_sentence, trajectory_text
from core.agreement.merge import MergeReport, export_reviewer, import_file
from core.agreement.results import SessionResult, agreement_gate_for_run, gate_state, session_result, unblinded_summary
from core.agreement.scope import ScopeAgreement, ScopedRecall, scope_agreement, scoped_recall
from core.agreement.session import (
    SessionPreview,
    commit_judgement,
    create_session,
    judging_view,
    list_sessions,
    next_item,
    preview_session,
    progress,
    reveal,
)
from core.agreement.sizing import SizePlan, expected_half_width, n_for_half_width, plan_size
from core.agreement.team import adjudicate, judgement_agreement, label_agreement
from core.domain.errors import RunNotUsable

__all__ = [
    "BlindView",
    "MergeReport",
    "RunNotUsable",
    "ScopeAgreement",
    "ScopedRecall",
    "SessionPreview",
    "SessionResult",
    "SizePlan",
    "adjudicate",
    "agreement_gate_for_run",
    "commit_judgement",
    "create_session",
    "expected_half_width",
    "export_reviewer",
    "gate_state",
    "import_file",
    "judgement_agreement",
    "judging_view",
    "label_agreement",
    "list_sessions",
    "n_for_half_width",
    "next_item",
    "plan_size",
    "preview_session",
    "progress",
    "reveal",
    "rule_sentence",
    "scope_agreement",
    "scoped_recall",
    "session_result",
    "trajectory_text",
    "unblinded_summary",
]
