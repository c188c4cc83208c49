"""Figures and decisions never rest on a partial run (issue 25 item 7): a run that failed or
was cancelled kept only the results it reached; ``report --run`` refuses it in one line and a
decision cannot cite it, while the newest complete run stays usable."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from core import cli
from core.domain.errors import RunNotUsable
from core.replay.profiles import profile_by_name
from core.replaying import run_replay
from core.report import build_report
from core.store.engine import Store, open_store

from tests.drills.stores import build_store


@pytest.fixture(scope="module")
def partial(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int, int]]:
    """(store, a complete run, a run marked failed as the owner check marks a killed one)."""
    root = tmp_path_factory.mktemp("partial")
    build_store(root / "s.sqlite", root / "corpus", "A", n=90)  # six rules: four approved, two not
    store = open_store(root / "s.sqlite")
    complete = run_replay(store, profile_by_name("workbench").with_(semantic=False), scope="test").run_id
    failed = run_replay(store, profile_by_name("workbench").with_(semantic=False), scope="test").run_id
    with store.session() as db:
        db.execute(text("UPDATE replay_run SET status = 'failed' WHERE id = :id"), {"id": failed})
    store.close()
    yield root / "s.sqlite", complete, failed


def _undecided_rule(path: Path, run_id: int) -> str:
    """A rule replayed in ``run_id`` with no standing rule (build_store approves a few)."""
    store = open_store(path)
    try:
        with store.read_session() as db:
            return str(db.execute(text(
                "SELECT max(rv.rule_id) FROM replay_result rr JOIN rule_version rv ON rv.id = rr.rule_version_id "
                "WHERE rr.run_id = :run AND NOT EXISTS (SELECT 1 FROM promotion p WHERE p.rule_id = rv.rule_id)"),
                {"run": run_id},
            ).scalar_one())
    finally:
        store.close()


def _decisions(path: Path) -> int:
    store: Store = open_store(path)
    try:
        with store.read_session() as db:
            return int(db.execute(text("SELECT count(*) FROM decision")).scalar_one())
    finally:
        store.close()


def test_a_report_on_a_failed_run_is_refused_in_one_line(
    partial: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _complete, failed = partial
    code = cli.main(["report", "--run", str(failed), "--store", str(path)])
    out, err = capsys.readouterr()
    assert (code, out) == (1, "") and len(err.splitlines()) == 1 and f"run #{failed} is failed" in err


def test_build_report_refuses_a_partial_run(partial: tuple[Path, int, int]) -> None:
    path, _complete, failed = partial
    store = open_store(path)
    try:
        with pytest.raises(RunNotUsable, match="rule results? it reached"):
            build_report(store, failed)
    finally:
        store.close()


def test_a_report_on_a_complete_run_is_still_made(partial: tuple[Path, int, int]) -> None:
    path, complete, _failed = partial
    store = open_store(path)
    try:
        assert build_report(store, complete)["run"]["status"] == "complete"
    finally:
        store.close()


def test_a_decision_cannot_cite_a_failed_run(partial: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, _complete, failed = partial
    before = _decisions(path)
    rule = _undecided_rule(path, failed)
    code = cli.main(["decide", "defer", "--rule", rule, "--run", str(failed), "--reviewer", "ana", "--store", str(path)])
    err = capsys.readouterr().err
    assert code == 1 and "cite complete runs only" in err
    assert _decisions(path) == before


def test_a_decision_may_cite_a_complete_run(partial: tuple[Path, int, int], capsys: pytest.CaptureFixture[str]) -> None:
    path, complete, _failed = partial
    code = cli.main(["decide", "defer", "--rule", _undecided_rule(path, complete), "--run", str(complete), "--reviewer", "ana",
                     "--store", str(path)])
    assert code == 0, capsys.readouterr().err
