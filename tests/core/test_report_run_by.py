"""The report names who ran the run it reads (a team store's ``replay_run.started_by``, set by
the server to the login), as escaped text; a file store's runs have nobody to name."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from core.importing import import_paths
from core.plain import markdown_text
from core.replay.profiles import WORKBENCH
from core.replaying import run_replay
from core.report import build_report, report_markdown
from core.store.engine import open_store

DEMO = Path(__file__).resolve().parents[2] / "corpora" / "demo"


def test_the_report_names_the_login_that_ran_the_run(tmp_path: Path) -> None:
    store = open_store(tmp_path / "s.sqlite")
    import_paths(store, [DEMO])
    run_id = run_replay(store, WORKBENCH.with_(semantic=False)).run_id
    assert build_report(store)["run"]["started_by"] is None
    assert "run by" not in report_markdown(build_report(store))
    login = "nora_*`[x](y)`*"  # a login is data: no markup of its own
    with store.session() as session:
        session.execute(text("UPDATE replay_run SET started_by = :who WHERE id = :id"), {"who": login, "id": run_id})
    report = build_report(store)
    assert report["run"]["started_by"] == login
    assert f"- run by: {markdown_text(login)}" in report_markdown(report).splitlines()
