"""The label and agreement services own their rules: each write is one transaction, a refusal
writes nothing, and the screens and the CLI reach the write SQL only through the services."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from test_labels_support import Builder, labels_store, small_run  # noqa: F401  (fixture)

from core.agreement.session import commit_judgement, create_session, next_item
from core.agreement.team import adjudicate
from core.domain.errors import NotAssigned, ReasonRequired, RunNotUsable, UnknownTrajectory
from core.domain.labels import LabelText
from core.labels.service import save_label
from core.store.engine import Store
from core.store.label_repo import LabelRepository

ROOT = Path(__file__).resolve().parents[2]
WRITE_SQL = ("core.store.label_writes", "core.store.agreement_judging")


@contextmanager
def transactions(store: Store) -> Iterator[list[bool]]:
    """Every transaction begun on the store meanwhile: True for a write, False for a read."""
    begins: list[bool] = []

    def on_begin(connection: Any) -> None:
        begins.append(not connection.get_execution_options().get("workbench_read_only", False))

    event.listen(store.engine, "begin", on_begin)
    try:
        yield begins
    finally:
        event.remove(store.engine, "begin", on_begin)


def _rows(store: Store) -> dict[str, int]:
    with store.read_session() as session:
        return {table: int(session.execute(text(f"SELECT count(*) FROM {table}")).scalar_one())
                for table in ("label", "label_history", "adjudication", "agreement_session", "agreement_item",
                              "agreement_judgement", "audit_event")}


def _refused_without_writing(store: Store, action: Callable[[], object], error: type[Exception], match: str) -> None:
    before = _rows(store)
    with pytest.raises(error, match=match):
        action()
    assert _rows(store) == before


def test_a_label_save_is_one_write_transaction(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    with transactions(labels_store) as begins:
        save_label(labels_store, pk, "ana", LabelText("git push is rejected", "pull first"))
    assert begins == [True]


def test_label_refusals_write_nothing(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    _refused_without_writing(labels_store, lambda: save_label(labels_store, pk, "  ", LabelText("a", "b")),
                             ValueError, "needs a reviewer")
    _refused_without_writing(labels_store, lambda: save_label(labels_store, 999, "ana", LabelText("a", "b")),
                             UnknownTrajectory, "no trajectory #999")


def test_a_ruling_refusal_inside_the_transaction_writes_nothing(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    save_label(labels_store, pk, "ana", LabelText("push rejected", "pull first"))
    _refused_without_writing(labels_store, lambda: adjudicate(labels_store, "lead", pk, "bo", "bo's is clearer"),
                             LookupError, "bo has no label for trajectory")
    _refused_without_writing(labels_store, lambda: adjudicate(labels_store, "lead", pk, "ana", "   "),
                             ReasonRequired, "needs a reason")


def test_a_ruling_takes_the_chosen_label_as_it_is_when_written(labels_store: Store) -> None:
    (pk,) = Builder(labels_store).trajectories("T1")
    save_label(labels_store, pk, "ana", LabelText("push rejected", "pull first"))
    save_label(labels_store, pk, "ana", LabelText("push rejected as behind", "pull --rebase"))
    with transactions(labels_store) as begins:
        ruling = adjudicate(labels_store, "lead", pk, "ana", "clearest")
    assert begins == [True]
    assert (ruling.chosen_reviewer, ruling.text) == ("ana", LabelText("push rejected as behind", "pull --rebase"))
    assert LabelRepository(labels_store).ground_truth(pk).source == "adjudicated"


def test_a_judgement_is_one_write_transaction(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lead", size=5, seed=1)
    item = next_item(labels_store, session.id, "ana")
    assert item is not None
    with transactions(labels_store) as begins:
        commit_judgement(labels_store, item.item_id, "ana", item.choices[0])
    assert begins == [True]


def test_judgement_refusals_write_nothing(labels_store: Store) -> None:
    session = create_session(labels_store, small_run(labels_store), "lead", size=5, seed=1)
    item = next_item(labels_store, session.id, "ana")
    assert item is not None
    _refused_without_writing(labels_store, lambda: commit_judgement(labels_store, item.item_id, "ana", "maybe"),
                             ValueError, "'maybe' is not an answer")
    _refused_without_writing(
        labels_store, lambda: commit_judgement(labels_store, item.item_id, "ana", item.choices[0],
                                               rubric={"looks_nice": True}),
        ValueError, "unknown rubric questions")
    _refused_without_writing(labels_store, lambda: commit_judgement(labels_store, 10_000, "ana", "pass"),
                             LookupError, "no agreement item #10000")


def test_an_assigned_session_refuses_another_reviewers_item_but_not_an_imported_judgement(
        labels_store: Store) -> None:
    from core.agreement.assignments import assign

    session = create_session(labels_store, small_run(labels_store), "lead", size=4, seed=1)
    assign(labels_store, str(session.id), ["ana", "bo"], per_item=1, assigned_by="lead")
    theirs = next_item(labels_store, session.id, "bo")
    assert theirs is not None
    _refused_without_writing(labels_store, lambda: commit_judgement(labels_store, theirs.item_id, "ana",
                                                                    theirs.choices[0]),
                             NotAssigned, "not assigned to ana")
    # A judgement merged from ana's own store was made there: the assignment here does not refuse it.
    commit_judgement(labels_store, theirs.item_id, "ana", theirs.choices[0], origin="import:ana.json",
                     committed_at="2026-01-01T00:00:00Z")


def test_a_session_on_a_run_that_is_not_complete_writes_nothing(labels_store: Store) -> None:
    run = small_run(labels_store, status="cancelled")
    _refused_without_writing(labels_store, lambda: create_session(labels_store, run, "lead", size=5, seed=1),
                             RunNotUsable, "not complete")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def test_screens_and_cli_write_labels_and_agreement_only_through_the_services() -> None:
    callers = [*sorted((ROOT / "cauterule_gui").rglob("*.py")), *sorted((ROOT / "core" / "cli").rglob("*.py"))]
    assert len(callers) > 50
    offenders = [str(p.relative_to(ROOT)) for p in callers if _imports(p) & set(WRITE_SQL)]
    assert offenders == []
