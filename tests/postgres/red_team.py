"""The red-team suites' shared ground: a filled team store, its logins, a snapshot, an attempt.

Every attack runs as a real login over plain SQL (psycopg, the way ``psql`` would), in one
transaction, and is judged by the server's answer and by a snapshot taken by the owner before
and after: the row count and a content hash of every table, the objects in the ``public``
schema, the role memberships and the large objects. ``refused`` means the server raised an error
on some statement, or every data-changing statement touched no row (row-level security filters
rows it does not let the login see: that is a refusal too, and the snapshot proves it).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
from every_kind import fill_every_table
from sqlalchemy import text

from core.store.engine import open_store
from core.team.roles import add_reviewer

# Logins: two reviewers and a lead (fill_every_table writes ana's and bo's work, in their names).
REVIEWERS, LEADS = ("ana", "bo"), ("lena",)


def as_login(url: str, login: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"{login}@", parts.path, parts.query, ""))


@dataclass(frozen=True)
class TeamStore:
    url: str  # the owner's URL
    ids: dict[str, int]  # handy ids of the rows the attacks aim at

    def login(self, name: str) -> str:
        return as_login(self.url, name)


def _ids(url: str) -> dict[str, int]:
    queries = {
        "approved_rule": "SELECT rule_id FROM promotion LIMIT 1",
        "approved_version": "SELECT rule_version_id FROM promotion LIMIT 1",
        "approval": "SELECT id FROM decision WHERE action = 'approve' LIMIT 1",
        "run": "SELECT run_id FROM replay_result LIMIT 1",
        "result": "SELECT result_id FROM replay_outcome_block LIMIT 1",
        "session": "SELECT id FROM agreement_session LIMIT 1",
        "ana_item": "SELECT i.id FROM agreement_item i JOIN agreement_judgement j ON j.item_id = i.id LIMIT 1",
        "bo_item": "SELECT i.id FROM agreement_item i JOIN agreement_assignment a ON a.session_id = i.session_id "
                   "AND a.ordinal = i.ordinal WHERE a.reviewer = 'bo' LIMIT 1",
        "ana_label": "SELECT id FROM label WHERE reviewer = 'ana' LIMIT 1",
        "trajectory": "SELECT id FROM trajectory ORDER BY id LIMIT 1",
        "corpus": "SELECT id FROM corpus LIMIT 1",
    }
    with psycopg.connect(url) as connection:
        return {name: int(connection.execute(query).fetchone()[0]) for name, query in queries.items()}  # type: ignore[index]


@pytest.fixture()
def team_store(pg_server: Any) -> Iterator[TeamStore]:
    """A store with rows in every table (ana's and bo's work, an approved rule) and the logins."""
    url = pg_server.new_database()
    owner = open_store(url)
    fill_every_table(owner)
    with owner.session() as session:  # bo's own judgement, so both reviewers have blind work
        session.execute(text("INSERT INTO agreement_judgement (item_id, reviewer, answer, origin, committed_at) "
                             "SELECT i.id, 'bo', 'fires', 'local', '2026-12-01T00:00:00Z' FROM agreement_item i "
                             "JOIN agreement_assignment a ON a.session_id = i.session_id AND a.ordinal = i.ordinal "
                             "WHERE a.reviewer = 'bo' LIMIT 1"))
    owner.close()
    for name in REVIEWERS:
        add_reviewer(url, name)
    for name in LEADS:
        add_reviewer(url, name, lead=True)
    yield TeamStore(url, _ids(url))
    pg_server.drop(url)


def snapshot(url: str) -> dict[str, object]:
    """Everything an attack could change, read by the owner: per table (count, hash), objects, roles."""
    with psycopg.connect(url) as connection:
        tables = [r[0] for r in connection.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename")]
        out: dict[str, object] = {}
        for table in tables:
            out[table] = connection.execute(
                f'SELECT count(*), md5(coalesce(string_agg(t::text, chr(10) ORDER BY t::text), \'\')) FROM "{table}" t'
            ).fetchone()
        out["objects"] = connection.execute(
            "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' UNION ALL SELECT p.proname || '(' || pg_get_function_identity_arguments(p.oid) "
            "|| ')' || p.prosrc, 'f' FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
            "WHERE n.nspname = 'public' ORDER BY 1").fetchall()
        out["policies"] = connection.execute(
            "SELECT tablename, policyname, qual, with_check FROM pg_policies ORDER BY 1, 2").fetchall()
        out["memberships"] = connection.execute(
            "SELECT roleid::regrole::text, member::regrole::text FROM pg_auth_members ORDER BY 1, 2").fetchall()
        out["large_objects"] = connection.execute("SELECT count(*) FROM pg_largeobject_metadata").fetchone()
    return out


@dataclass(frozen=True)
class Outcome:
    refused: bool
    error: str
    rows: list[list[Any]]  # what each statement returned (selects), in order


def attempt(url: str, statements: Sequence[str]) -> Outcome:
    """Run ``statements`` in one transaction as the URL's login; commit if nothing was refused."""
    rows: list[list[Any]] = []
    touched = 0
    data_changes = 0
    with psycopg.connect(url) as connection:
        try:
            with connection.cursor() as cursor:
                for statement in statements:
                    cursor.execute(statement)  # type: ignore[arg-type]
                    verb = statement.lstrip().split(None, 1)[0].upper()
                    if verb in ("INSERT", "UPDATE", "DELETE", "WITH"):
                        data_changes += 1
                        touched += max(cursor.rowcount, 0)
                    rows.append(cursor.fetchall() if cursor.description is not None else [])
            connection.commit()
        except psycopg.Error as error:
            connection.rollback()
            return Outcome(True, str(error).splitlines()[0], rows)
    return Outcome(data_changes > 0 and touched == 0, "", rows)


def assert_refused_and_unchanged(store: TeamStore, login: str, statements: Sequence[str]) -> Outcome:
    before = snapshot(store.url)
    outcome = attempt(store.login(login), statements)
    after = snapshot(store.url)
    changed = sorted(k for k in before if before[k] != after.get(k)) + sorted(set(after) - set(before))
    assert outcome.refused, f"the server let {login} run {list(statements)}"
    assert changed == [], f"{login}'s refused attempt still changed {changed}"
    return outcome
