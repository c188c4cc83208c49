"""Who may write what, per table of a team store: one declaration, turned into grants and policies.

Deny by default. Every table in the schema has a :class:`TablePolicy` in :data:`POLICIES`
(``tests/postgres/test_table_policy.py`` fails for a table without one). For each of insert,
update and delete it says who may: :data:`NOBODY`, :data:`REVIEWER` (every team login; leads
are reviewers too) or :data:`LEAD`. A table's ``own`` column must equal ``session_user`` on
every row a login inserts, and a login updates or deletes only rows whose ``own`` column is
its name, leads included: nobody writes in someone else's name. Where a lead merges a team
file (``origin`` other than ``local``), the lead may insert rows in the exported reviewer's
name; the row's ``origin`` records that it came from a file, and the history row the lead's
login. ``insert_check`` / ``row_check`` add server-side conditions (SQL over the row's columns).

Reads stay open to the team except two: another reviewer's blind judgement (until you have
committed yours) and other reviewers' assignments (``core.team.roles``). Who writes a table
no team login writes (``alembic_version``): only the database owner, who is not subject to
row-level security (PostgreSQL's rule; see docs/team.md, "Threat model").
"""

from __future__ import annotations

from dataclasses import dataclass

NOBODY, REVIEWER, LEAD = "nobody", "reviewer", "lead"
LEAD_CHECK = "pg_has_role(session_user, 'lead', 'MEMBER')"
# A run's rows are written only while it runs, and only by the login that started it
# (``replay_run.started_by`` is set by the server: revision 0016_run_login).
_RUN_OPEN = ("EXISTS (SELECT 1 FROM public.replay_run r WHERE r.id = {run} AND r.status = 'running' "
             "AND r.started_by = session_user)")
_RESULT_OPEN = ("EXISTS (SELECT 1 FROM public.replay_result rr JOIN public.replay_run r ON r.id = rr.run_id "
                "WHERE rr.id = result_id AND r.status = 'running' AND r.started_by = session_user)")


@dataclass(frozen=True)
class TablePolicy:
    insert: str = NOBODY
    update: str = NOBODY
    delete: str = NOBODY
    own: str | None = None  # the column that names the login that wrote the row
    imported_by_lead: bool = False  # a lead may insert others' rows whose origin is not 'local'
    insert_check: str | None = None  # more SQL the inserted row must satisfy
    row_check: str | None = None  # more SQL a row must satisfy to be updated or deleted
    update_columns: tuple[str, ...] | None = None  # None: every column

    def writers(self) -> dict[str, str]:
        return {"INSERT": self.insert, "UPDATE": self.update, "DELETE": self.delete}


_OWN = dict(insert=REVIEWER, update=REVIEWER, delete=REVIEWER)
_APPEND = dict(insert=REVIEWER)

POLICIES: dict[str, TablePolicy] = {
    # Corpora, files and trajectories: every reviewer imports; a re-import rewrites a file's
    # trajectories and drops the ones it no longer holds (people's work on them blocks that:
    # RESTRICT keys, revision 0011_team_guard). Corpora and files are never deleted.
    "corpus": TablePolicy(insert=REVIEWER, update=REVIEWER),
    "source_file": TablePolicy(insert=REVIEWER, update=REVIEWER),
    "trajectory": TablePolicy(insert=REVIEWER, update=REVIEWER, delete=REVIEWER),
    "import_report": TablePolicy(insert=REVIEWER, update=REVIEWER, row_check="finished_at IS NULL"),
    "import_issue": TablePolicy(insert=REVIEWER),
    # Rules: imported and edited (a new version) by reviewers; a version is never changed and
    # nothing is deleted. A standing rule's row changes only through a lead (core.team.roles'
    # rule guard trigger); its row_version moves by one per write.
    "rule": TablePolicy(insert=REVIEWER, update=REVIEWER),
    "rule_version": TablePolicy(insert=REVIEWER),
    # Replay: a run is written while it is running, then it is fixed; each login writes only
    # the runs it started (the server names the login in started_by).
    "replay_run": TablePolicy(insert=REVIEWER, update=REVIEWER, own="started_by", row_check="status = 'running'"),
    "replay_run_owner": TablePolicy(insert=REVIEWER, insert_check=_RUN_OPEN.format(run="run_id")),
    "replay_result": TablePolicy(insert=REVIEWER, update=REVIEWER, insert_check=_RUN_OPEN.format(run="run_id"),
                                 row_check=_RUN_OPEN.format(run="run_id")),
    "replay_outcome_block": TablePolicy(insert=REVIEWER, insert_check=_RESULT_OPEN),
    "replay_pool": TablePolicy(insert=REVIEWER, insert_check=_RESULT_OPEN),
    # Caches: added to, never rewritten; the side cache evicts its own old entries.
    "embedding": TablePolicy(insert=REVIEWER),
    "replay_side_cache": TablePolicy(insert=REVIEWER, delete=REVIEWER),
    "setting": TablePolicy(insert=REVIEWER, update=REVIEWER),
    # People's work, each in their own name.
    "decision": TablePolicy(
        insert=REVIEWER, own="reviewer",
        insert_check=(f"(action <> 'approve' OR {LEAD_CHECK}) AND (undoes_id IS NULL OR {LEAD_CHECK} OR EXISTS "
                      "(SELECT 1 FROM public.decision d WHERE d.id = undoes_id AND d.reviewer = session_user))")),
    "audit_event": TablePolicy(**_APPEND, own="actor"),  # type: ignore[arg-type]
    "label": TablePolicy(**_OWN, own="reviewer", imported_by_lead=True),  # type: ignore[arg-type]
    "label_history": TablePolicy(**_APPEND, own="actor"),  # type: ignore[arg-type]
    "agreement_mark": TablePolicy(**_OWN, own="reviewer"),  # type: ignore[arg-type]
    "evidence_view": TablePolicy(**_OWN, own="reviewer"),  # type: ignore[arg-type]
    "waiver": TablePolicy(**_OWN, own="reviewer"),  # type: ignore[arg-type]
    "agreement_judgement": TablePolicy(**_APPEND, own="reviewer", imported_by_lead=True,  # type: ignore[arg-type]
                                       insert_check="public.workbench_may_judge(item_id)"),
    # Blind sessions: created by a reviewer in their name with their items; only a lead assigns.
    "agreement_session": TablePolicy(insert=REVIEWER, update=LEAD, own="created_by", imported_by_lead=True,
                                     update_columns=("assigned_per_item",)),
    "agreement_item": TablePolicy(
        insert=REVIEWER,
        insert_check=(f"EXISTS (SELECT 1 FROM public.agreement_session s WHERE s.id = session_id AND "
                      f"(s.created_by = session_user OR ({LEAD_CHECK} AND s.origin <> 'local')))")),
    "agreement_assignment": TablePolicy(insert=LEAD, delete=LEAD, own="assigned_by"),
    # A lead's: rulings, promotions, standing ids.
    "adjudication": TablePolicy(insert=LEAD, own="lead", imported_by_lead=True),
    "promotion": TablePolicy(insert=LEAD, update=LEAD),
    "id_counter": TablePolicy(insert=LEAD, update=LEAD),
    # Replay profiles (issue 26): a lead adopts; a version and an adoption are never changed.
    "replay_profile": TablePolicy(insert=LEAD, own="created_by"),
    "profile_adoption": TablePolicy(insert=LEAD, own="adopted_by"),
    # The schema's revision: the database owner's alone.
    "alembic_version": TablePolicy(),
}


def _who(writer: str) -> str:
    return "true" if writer == REVIEWER else LEAD_CHECK


def _own_check(policy: TablePolicy, inserting: bool) -> str:
    if policy.own is None:
        return "true"
    mine = f"{policy.own} = session_user"
    if inserting and policy.imported_by_lead:
        return f"({mine} OR ({LEAD_CHECK} AND origin <> 'local'))"
    return mine


def policy_statements(table: str, policy: TablePolicy) -> list[str]:
    """Grants and row-level security policies for one table's writes (reads: core.team.roles)."""
    out = [f"REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON {table} FROM reviewer, lead",
           f"ALTER TABLE {table} ENABLE ROW LEVEL SECURITY"]
    for command, writer in policy.writers().items():
        name = f"team_{command.lower()}"
        out.append(f"DROP POLICY IF EXISTS {name} ON {table}")
        if writer == NOBODY:
            continue
        role = "lead" if writer == LEAD else "reviewer"
        columns = f" ({', '.join(policy.update_columns)})" if command == "UPDATE" and policy.update_columns else ""
        out.append(f"GRANT {command}{columns} ON {table} TO {role}")
        new_row = " AND ".join(c for c in (_who(writer), _own_check(policy, command == "INSERT"),
                                             policy.insert_check if command == "INSERT" else None) if c)
        old_row = " AND ".join(c for c in (_who(writer), _own_check(policy, False), policy.row_check) if c)
        if command == "INSERT":
            out.append(f"CREATE POLICY {name} ON {table} FOR INSERT WITH CHECK ({new_row})")
        elif command == "UPDATE":
            out.append(f"CREATE POLICY {name} ON {table} FOR UPDATE USING ({old_row}) "
                       f"WITH CHECK ({_who(writer)} AND {_own_check(policy, False)})")
        else:
            out.append(f"CREATE POLICY {name} ON {table} FOR DELETE USING ({old_row})")
    return out
