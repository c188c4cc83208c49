"""Workspace table models: Qt's model contract, SQL filtering / sorting, honest numbers."""

from __future__ import annotations

from typing import Any

from conftest import REVIEWER

from core.decisions import DecisionRequest, decide
from core.store.workspace_query import WorkspaceFilter, WorkspaceScope

from cauterule_gui.db import DatabaseExecutor
from cauterule_gui.jobs import JobRunner
from cauterule_gui.models.audit_table_model import AuditTableModel
from cauterule_gui.models.evidence_table_model import EvidenceTableModel
from cauterule_gui.models.rule_table_model import COL_PRECISION, COL_RECALL, COL_VERDICT, RuleTableModel
from cauterule_gui.models.run_history_model import RunHistoryModel
from cauterule_gui.services import StoreServices


def test_rule_model_passes_modeltester(qtmodeltester: Any, replayed: StoreServices) -> None:
    model = RuleTableModel(replayed.results, page_size=7)  # small pages exercise fetchMore
    # 31 rules; two pairs of duplicates are one row each (rows count groups)
    assert (model.total, model.rule_total, model.rowCount()) == (29, 31, 7)
    qtmodeltester.check(model)


def test_evidence_model_passes_modeltester(qtmodeltester: Any, qtbot: Any, replayed: StoreServices,
                                           runner: JobRunner) -> None:
    result = next(r for r in replayed.replays.results(1) if r.prevented_n >= 3)
    rows = replayed.replays.outcomes(result.id, "prevented")
    model = EvidenceTableModel(page_size=1)  # one-row pages: every later row arrives by fetchMore
    db = DatabaseExecutor(runner, lambda: replayed)  # kept: a deleted executor delivers nothing
    model.set_executor(db)
    model.set_rows("prevented", result.id, rows[:1], len(rows), {rows[0].trajectory_pk}, {},
                   {rows[0].trajectory_pk: "right"})
    qtmodeltester.check(model)
    while model.canFetchMore() or model.busy:
        model.fetchMore()
        qtbot.waitUntil(lambda: not model.busy, timeout=5000)
    assert [model.outcome(r).trajectory_pk for r in range(model.rowCount())] == [o.trajectory_pk for o in rows]
    assert model.index(0, 6).data() == "✓ opened" and model.index(0, 7).data() == "replay right"


def test_run_history_and_audit_models_pass_modeltester(qtmodeltester: Any, replayed: StoreServices) -> None:
    history = RunHistoryModel()
    history.set_runs(replayed.replays.runs())
    qtmodeltester.check(history)
    assert history.index(0, 3).data() == "complete"
    assert history.index(0, 2).data() == "—"  # a file's run names no login
    rule = replayed.results.list_rules(WorkspaceScope(), WorkspaceFilter(), limit=1)[0]
    decide(replayed.store, DecisionRequest("defer", REVIEWER, rule.rule_id, rule.run_id, reason="later"))
    audit = AuditTableModel(replayed.reviews.rule_audit(rule.rule_id))
    qtmodeltester.check(audit)
    assert audit.index(0, 1).data() == REVIEWER and audit.index(0, 3).data() == "later"


def test_filters_and_sorting_happen_in_sql(replayed: StoreServices) -> None:
    repo = replayed.results
    model = RuleTableModel(repo)
    model.set_filter(WorkspaceFilter(verdict="pass", domain="git"))
    assert model.rule_total == repo.count_rules(WorkspaceScope(), WorkspaceFilter(verdict="pass", domain="git")) >= 1
    assert {model.rule(r).verdict for r in range(model.rowCount())} == {"pass"}
    model.set_filter(WorkspaceFilter(text="terraform"))
    assert model.total >= 2 and all("terraform" in (model.rule(r).trigger + model.rule(r).origin).lower()
                                    for r in range(model.rowCount()))
    model.set_filter(WorkspaceFilter())
    model.sort(6, order=__import__("PySide6.QtCore").QtCore.Qt.SortOrder.DescendingOrder)  # Broken, most first
    counts = [model.rule(r).broken_n for r in range(model.rowCount())]
    assert counts == sorted(counts, reverse=True) and counts[0] >= 1


def test_review_status_filter_follows_decisions_and_undo(replayed: StoreServices) -> None:
    repo = replayed.results
    rule = repo.list_rules(WorkspaceScope(), WorkspaceFilter(), limit=1)[0]
    decide(replayed.store, DecisionRequest("reject", REVIEWER, rule.rule_id, rule.run_id, reason="too broad"))
    rejected = repo.list_rules(WorkspaceScope(), WorkspaceFilter(status="reject"))
    assert [(r.rule_id, r.reviewer, r.decision_reason) for r in rejected] == [(rule.rule_id, REVIEWER, "too broad")]
    replayed.reviews.undo_last(REVIEWER)
    assert repo.count_rules(WorkspaceScope(), WorkspaceFilter(status="reject")) == 0
    assert repo.count_rules(WorkspaceScope(), WorkspaceFilter(status="unreviewed")) == 31


def test_unmeasured_rates_show_a_dash_never_zero(replayed: StoreServices) -> None:
    model = RuleTableModel(replayed.results)
    model.fetch_all()
    unmeasured = [r for r in range(model.rowCount()) if model.rule(r).precision is None]
    assert unmeasured, "the demo corpus has no_signal rules"
    for row in unmeasured:
        assert model.index(row, COL_PRECISION).data() == "—"
    measured = next(r for r in range(model.rowCount()) if model.rule(r).precision_ci is not None)
    text = model.index(measured, COL_PRECISION).data()
    assert "[" in text and "–" in text  # value with its Wilson interval
    assert model.index(measured, COL_VERDICT).data().split()[0] in ("✓", "✗", "?")  # not colour alone
    assert model.index(0, COL_RECALL).data() != ""
