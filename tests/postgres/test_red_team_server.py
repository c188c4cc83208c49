"""Red team: the server around the tables (TEMP, CREATE, sequences, functions, COPY, large
objects, roles, triggers, policies, NOTIFY payloads).

Each case is one attempt by a reviewer login with plain SQL; the server must refuse it and
nothing may change (tables, objects in ``public``, policies, role memberships, large objects).
"""

from __future__ import annotations

import threading

import psycopg
import pytest
from red_team import TeamStore, assert_refused_and_unchanged, team_store  # noqa: F401  (fixture)

from core.team.live import KINDS, ChangeFeed

ATTEMPTS: dict[str, list[str]] = {
    "create a temp table": ["CREATE TEMP TABLE t (x integer)"],
    "create a temp view": ["CREATE TEMP VIEW v AS SELECT 1"],
    "shadow replay_run_owner under the owner trigger": [
        "CREATE TEMP TABLE replay_run_owner (run_id integer, owner text)",
        "INSERT INTO replay_run (started_at, status, profile, config_json, config_hash, corpus_hash, semantic_state) "
        "VALUES ('2026-12-01', 'running', 'x', '{{}}', 'c', 'c', 'off')"],
    "create a table in public": ["CREATE TABLE public.t (x integer)"],
    "create a view in public": ["CREATE VIEW public.v AS SELECT 1"],
    "create a schema": ["CREATE SCHEMA mine"],
    "create a function in public": ["CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS 'SELECT 1'"],
    "replace the blind-read function": [
        "CREATE OR REPLACE FUNCTION public.workbench_has_judged(item integer) RETURNS boolean "
        "LANGUAGE sql AS 'SELECT true'"],
    "take over a function": ["ALTER FUNCTION workbench_may_judge(integer) OWNER TO bo"],
    "rewind a sequence": ["SELECT setval('rule_id_seq', 1)"],
    "restart a sequence": ["ALTER SEQUENCE decision_id_seq RESTART WITH 1"],
    "copy a server file into a table": ["COPY setting FROM '/etc/hostname'"],
    "copy to a program": ["COPY (SELECT 1) TO PROGRAM 'true'"],
    "import a server file as a large object": ["SELECT lo_import('/etc/hostname')"],
    "create a large object": ["SELECT lo_create(0)"],
    "read a server file": ["SELECT pg_read_file('/etc/hostname')"],
    "become the lead role": ["SET ROLE lead"],
    "become the lead login": ["SET SESSION AUTHORIZATION lena"],
    "grant oneself lead": ["GRANT lead TO bo"],
    "give oneself createrole": ["ALTER ROLE bo CREATEROLE"],
    "turn off row-level security": ["ALTER TABLE decision DISABLE ROW LEVEL SECURITY"],
    "disable the append-only trigger": ["ALTER TABLE audit_event DISABLE TRIGGER USER"],
    "replica mode skips triggers": ["SET session_replication_role = replica", "DELETE FROM audit_event"],
    "drop a policy": ["DROP POLICY team_insert ON decision"],
}


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_the_server_refuses(team_store: TeamStore, name: str) -> None:
    assert_refused_and_unchanged(team_store, "bo", [s.format(**team_store.ids) for s in ATTEMPTS[name]])


def test_a_forged_notify_payload_reaches_no_screen(team_store: TeamStore) -> None:
    """Anyone connected may NOTIFY (PostgreSQL has no privilege for it): the feed passes on only known kinds."""
    received: list[frozenset[str]] = []
    arrived = threading.Event()

    def collect(kinds: frozenset[str]) -> None:
        received.append(kinds)
        arrived.set()

    feed = ChangeFeed(team_store.login("ana"), collect, settle_s=0.05).start()
    try:
        with psycopg.connect(team_store.login("bo"), autocommit=True) as bo:
            bo.execute("SELECT pg_notify('workbench_changes', '\x1b]0;owned\x07' || repeat('x', 7000))")
            bo.execute("SELECT pg_notify('workbench_changes', 'rule')")
        assert arrived.wait(10)
    finally:
        feed.stop()
    assert set().union(*received) <= set(KINDS.values())
