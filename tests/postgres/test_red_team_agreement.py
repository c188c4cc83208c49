"""Red team: blind sessions, items, judgements, assignments and everyone's own rows.

Each case is one attempt by a real login with plain SQL; the server must refuse it and the
store must be unchanged. The blind-read cases also check what the login got to see.
"""

from __future__ import annotations

import pytest
from red_team import TeamStore, assert_refused_and_unchanged, attempt, team_store  # noqa: F401  (fixture)

_SHADOW_JUDGEMENT = "CREATE TEMP TABLE agreement_judgement (item_id integer, reviewer text)"
_SHADOW_SESSION = "CREATE TEMP TABLE agreement_session (id integer, assigned_per_item integer)"
_JUDGE = ("INSERT INTO public.agreement_judgement (item_id, reviewer, answer, origin, committed_at) "
          "VALUES ({item}, {who}, 'fires', 'local', '2026-12-01T00:00:00Z')")

ATTEMPTS: dict[str, tuple[str, list[str]]] = {
    # Shadowing the tables the SECURITY DEFINER checks read (issue hole 1).
    "shadow agreement_judgement to read blind judgements": ("bo", [
        _SHADOW_JUDGEMENT, "INSERT INTO agreement_judgement VALUES ({ana_item}, 'bo')",
        "SELECT reviewer FROM public.agreement_judgement WHERE item_id = {ana_item}"]),
    "shadow agreement_session to judge an item assigned to someone else": ("bo", [
        _SHADOW_SESSION, "INSERT INTO agreement_session SELECT id, NULL FROM public.agreement_session",
        _JUDGE.format(item="{ana_item}", who="'bo'")]),
    "search_path pg_temp first, then shadow": ("bo", [
        "SET search_path = pg_temp, public", _SHADOW_JUDGEMENT,
        "INSERT INTO agreement_judgement VALUES ({ana_item}, 'bo')",
        "SELECT reviewer FROM public.agreement_judgement WHERE item_id = {ana_item}"]),
    # Gate inputs: the session, its items and their replay answers.
    "unassign a session": ("bo", ["UPDATE agreement_session SET assigned_per_item = NULL"]),
    "move a session's gate": ("bo", ["UPDATE agreement_session SET gate = 0.01, size = 1"]),
    "delete a session": ("bo", ["DELETE FROM agreement_session"]),
    "rewrite an item's replay answer": ("bo", ["UPDATE agreement_item SET replay_answer = 'fires'"]),
    "add an item to a session": ("bo", [
        "INSERT INTO agreement_item (session_id, ordinal, kind, rule_origin, rule_version, trigger, directive, "
        "trajectory_key_json, stratum, replay_answer) SELECT session_id, 99, kind, rule_origin, rule_version, "
        "trigger, directive, trajectory_key_json, stratum, replay_answer FROM agreement_item LIMIT 1"]),
    "delete an unjudged item": ("bo", [
        "DELETE FROM agreement_item WHERE id NOT IN (SELECT item_id FROM agreement_judgement)"]),
    # Judgements: own, assigned, append-only.
    "judge an item assigned to another reviewer": ("bo", [_JUDGE.format(item="{ana_item}", who="'bo'")]),
    "judge in another reviewer's name": ("bo", [_JUDGE.format(item="{bo_item}", who="'ana'")]),
    "change one's committed judgement": ("bo", ["UPDATE agreement_judgement SET answer = 'cant_tell'"]),
    "lead judges in a reviewer's name": ("lena", [_JUDGE.format(item="{bo_item}", who="'ana'")]),
    "assign oneself every item": ("bo", [
        "INSERT INTO agreement_assignment (session_id, ordinal, reviewer, assigned_by, assigned_at) "
        "SELECT session_id, ordinal, 'bo', 'lena', '2026-12-01T00:00:00Z' FROM agreement_item"]),
    # Other people's rows, and leads writing in reviewers' names (issue hole 6).
    "rewrite another reviewer's label": ("bo", ["UPDATE label SET directive = 'x' WHERE id = {ana_label}"]),
    "lead writes a label in a reviewer's name": ("lena", [
        "INSERT INTO label (trajectory_pk, corpus, file, line, trajectory_id, record_hash, reviewer, trigger, "
        "directive, variants_json, note, content_hash, origin, created_at, updated_at) SELECT trajectory_pk, "
        "corpus, file, line, trajectory_id, record_hash, 'bo', trigger, 'lead words', variants_json, note, "
        "content_hash, origin, created_at, updated_at FROM label WHERE id = {ana_label}"]),
    "lead rewrites a reviewer's label": ("lena", ["UPDATE label SET directive = 'x' WHERE id = {ana_label}"]),
    "delete label history": ("ana", ["DELETE FROM label_history"]),
    "lead marks in a reviewer's name": ("lena", [
        "INSERT INTO agreement_mark (reviewer, result_id, trajectory_pk, replay_answer, mark, blinded, created_at) "
        "SELECT 'bo', result_id, trajectory_pk, replay_answer, mark, blinded, created_at FROM agreement_mark"]),
    "delete another reviewer's waiver": ("bo", ["DELETE FROM waiver"]),
    "lead waives in a reviewer's name": ("lena", [
        "INSERT INTO waiver (reviewer, result_id, trajectory_pk, reason, created_at) "
        "SELECT 'bo', result_id, trajectory_pk, 'lead says', created_at FROM waiver"]),
    "record an evidence view for someone else": ("bo", [
        "INSERT INTO evidence_view (reviewer, result_id, trajectory_pk, viewed_at) "
        "SELECT 'ana', result_id, trajectory_pk, viewed_at FROM evidence_view"]),
    "lead adjudicates in another lead's name": ("lena", [
        "INSERT INTO adjudication (trajectory_pk, corpus, file, line, trajectory_id, record_hash, lead, "
        "chosen_reviewer, trigger, directive, variants_json, note, reason, content_hash, origin, created_at) "
        "SELECT trajectory_pk, corpus, file, line, trajectory_id, record_hash, 'someone', chosen_reviewer, trigger, "
        "directive, variants_json, note, 'x', content_hash, origin, created_at FROM adjudication"]),
}


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_the_server_refuses(team_store: TeamStore, name: str) -> None:
    login, statements = ATTEMPTS[name]
    assert_refused_and_unchanged(team_store, login, [s.format(**team_store.ids) for s in statements])


def test_a_reviewer_reads_no_uncommitted_blind_judgement_of_another(team_store: TeamStore) -> None:
    seen = attempt(team_store.login("bo"), [
        "SELECT reviewer FROM agreement_judgement WHERE item_id = {ana_item}".format(**team_store.ids)])
    assert seen.rows == [[]]


def test_a_reviewer_reads_only_their_own_assignments(team_store: TeamStore) -> None:
    seen = attempt(team_store.login("bo"), ["SELECT DISTINCT reviewer FROM agreement_assignment"])
    assert seen.rows == [[("bo",)]]
