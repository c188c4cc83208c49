"""No delete cascades into people's work, on both back ends, even for the store's owner or a single user.

Revision 0011_team_guard: PostgreSQL keys ``ON DELETE RESTRICT``, SQLite ``BEFORE DELETE`` triggers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy.exc
from every_kind import fill_every_table
from sqlalchemy import text

from core.store.engine import open_store

DELETES = {
    "an approved rule": "DELETE FROM rule WHERE id IN (SELECT rule_id FROM promotion)",
    "an approved version": "DELETE FROM rule_version WHERE id IN (SELECT rule_version_id FROM promotion)",
    "a corpus": "DELETE FROM corpus",
    "a run with waivers": "DELETE FROM replay_run WHERE id IN (SELECT r.run_id FROM replay_result r JOIN waiver w "
                          "ON w.result_id = r.id)",
    "a trajectory with a mark": "DELETE FROM trajectory WHERE id IN (SELECT trajectory_pk FROM agreement_mark)",
    "the approval decision": "DELETE FROM decision WHERE action = 'approve'",
    "a session with items": "DELETE FROM agreement_session",
}
WORK = ("decision", "promotion", "waiver", "agreement_mark", "evidence_view", "agreement_item", "audit_event")


def _counts(store: object) -> dict[str, int]:
    with store.read_session() as session:  # type: ignore[attr-defined]
        return {t: int(session.execute(text(f"SELECT count(*) FROM {t}")).scalar_one()) for t in WORK}


@pytest.mark.parametrize("what", sorted(DELETES))
def test_deleting_refuses_instead_of_cascading(store_location: Path | str, what: str) -> None:
    store = open_store(store_location)
    fill_every_table(store)
    before = _counts(store)
    with pytest.raises(sqlalchemy.exc.DBAPIError, match="referenced|violates foreign key|FOREIGN KEY"):
        with store.session() as session:
            session.execute(text(DELETES[what]))
    assert _counts(store) == before
    store.close()
