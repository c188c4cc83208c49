"""Schema step 7 upgrades a store made before the two questions without loss: its sessions are
marked as the old single question and keep their items, judgements and results."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from core.agreement.results import session_result
from core.store.agreement_repo import AgreementRepository
from core.store.engine import open_store
from core.store.migrations import MIGRATIONS, current_version, migrate

OLD = [m for m in MIGRATIONS if m.version <= 5]


def _old_store(path: Path) -> None:
    connection = sqlite3.connect(path)
    migrate(connection, OLD)
    assert current_version(connection) == 5
    connection.execute(
        "INSERT INTO agreement_session (id, uid, seed, assumed_p, size, blind, allocation, min_per_stratum, gate, "
        "strata_json, created_by, origin, created_at) VALUES (1, 'old-uid', 7, 0.8, 3, 1, 'proportional', 2, 0.8, "
        "'{}', 'lead', 'local', '2026-01-01T00:00:00Z')")
    for ordinal, (kind, replay, human) in enumerate(
            [("evidence", "missed", "no_effect"), ("evidence", "prevented", "prevented"),
             ("verdict", "pass", "pass")], start=1):
        connection.execute(
            "INSERT INTO agreement_item (id, session_id, ordinal, kind, rule_origin, trigger, directive, stratum, "
            "replay_answer) VALUES (?, 1, ?, ?, 'r.yaml', 't', 'd', ?, ?)",
            (ordinal, ordinal, kind, f"{kind}:{replay}", replay))
        connection.execute(
            "INSERT INTO agreement_judgement (item_id, reviewer, answer, origin, committed_at) "
            "VALUES (?, 'ana', ?, 'local', '2026-01-01T00:00:00Z')", (ordinal, human))
    connection.commit()
    connection.close()


def test_an_old_store_upgrades_and_keeps_its_sessions_as_the_old_question(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    _old_store(path)
    store = open_store(path)
    try:
        repo = AgreementRepository(store)
        info = repo.session("old-uid")
        assert info.question == "single" and info.old_question
        judgements = repo.judgements(info.id)
        assert [(j.kind, j.replay_answer, j.answer, j.scope) for j in judgements] == [
            ("evidence", "missed", "no_effect", None), ("evidence", "prevented", "prevented", None),
            ("verdict", "pass", "pass", None)]
        result = session_result(store, info.id).to_dict()
        assert result["old_question"] is True and result["question_note"]
        assert (result["agreement"]["k"], result["agreement"]["n"]) == (2, 3)  # kept exactly as it was
    finally:
        store.close()

