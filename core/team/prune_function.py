"""``workbench_prune_run``: one step of ``store prune`` on a team store, done by the server.

Runs, results and outcome blocks are written only while a replay runs and never deleted by a
team login (``core.team.table_policy``). Pruning old runs goes through this one SECURITY
DEFINER function instead of delete grants: it lets only a lead (or a superuser) in, refuses a
running run or one that anything cites (the same citations as ``core.store.prune``, checked
here, on the server, in the step's own transaction), and does one bounded step per call:

* a run not yet ``pruning``: mark it ``pruning`` and write the audit event (returns the
  results left, at least 1);
* a ``pruning`` run: delete up to ``batch`` of its results (their outcome blocks and pools
  cascade), and the run itself once none is left (returns the results left: 0 = gone).

Returns -1 when the run is gone, running or cited (nothing changed). The client commits after
each call, so a killed prune leaves whole steps only (``core.store.prune``).
"""

from __future__ import annotations

_SAFE_PATH = "SET search_path = pg_catalog, public, pg_temp"
SIGNATURE = "workbench_prune_run(integer, integer)"

# Every reference to a run or its results that a prune must leave alone (core.store.prune).
_CITED = """
    EXISTS (SELECT 1 FROM public.decision d WHERE d.run_id = run)
    OR EXISTS (SELECT 1 FROM public.agreement_session s WHERE s.run_id = run)
    OR EXISTS (SELECT 1 FROM public.agreement_item x JOIN public.replay_result rr ON rr.id = x.result_id
               WHERE rr.run_id = run)
    OR EXISTS (SELECT 1 FROM public.waiver x JOIN public.replay_result rr ON rr.id = x.result_id WHERE rr.run_id = run)
    OR EXISTS (SELECT 1 FROM public.agreement_mark x JOIN public.replay_result rr ON rr.id = x.result_id
               WHERE rr.run_id = run)
    OR EXISTS (SELECT 1 FROM public.evidence_view x JOIN public.replay_result rr ON rr.id = x.result_id
               WHERE rr.run_id = run)
    OR EXISTS (SELECT 1 FROM (SELECT evidence_json FROM public.decision WHERE evidence_json IS NOT NULL
                              UNION ALL SELECT evidence_json FROM public.promotion) e
               WHERE e.evidence_json::jsonb ->> 'run_id' = run::text
                  OR e.evidence_json::jsonb ->> 'result_id' IN
                     (SELECT rr.id::text FROM public.replay_result rr WHERE rr.run_id = run))
"""


def prune_function() -> str:
    return f"""CREATE OR REPLACE FUNCTION public.workbench_prune_run(run integer, batch integer) RETURNS integer
       LANGUAGE plpgsql SECURITY DEFINER {_SAFE_PATH} AS $$
       DECLARE
         st text;
         left_n integer;
       BEGIN
         IF NOT (pg_has_role(session_user, 'lead', 'MEMBER')
                 OR coalesce((SELECT rolsuper FROM pg_roles WHERE rolname = session_user), false)) THEN
           RAISE EXCEPTION USING MESSAGE = 'only a lead prunes a team store', ERRCODE = 'insufficient_privilege';
         END IF;
         SELECT status INTO st FROM public.replay_run WHERE id = run FOR UPDATE;
         IF st IS NULL OR st = 'running' THEN
           RETURN -1;
         END IF;
         IF st <> 'pruning' THEN
           IF {_CITED} THEN
             RETURN -1;
           END IF;
           SELECT count(*) INTO left_n FROM public.replay_result WHERE run_id = run;
           INSERT INTO public.audit_event (at, actor, action, target_kind, target_id, reason, before_json, after_json)
           SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US') || '+00:00', session_user,
                  'prune_run', 'replay_run', r.id::text, 'store prune',
                  json_build_object('status', r.status, 'profile', r.profile, 'started_at', r.started_at,
                                    'results', left_n)::text,
                  '{{"status": "pruning"}}'
           FROM public.replay_run r WHERE r.id = run;
           UPDATE public.replay_run SET status = 'pruning' WHERE id = run;
           RETURN greatest(left_n, 1);
         END IF;
         DELETE FROM public.replay_result WHERE id IN
           (SELECT id FROM public.replay_result WHERE run_id = run ORDER BY id LIMIT greatest(batch, 1));
         SELECT count(*) INTO left_n FROM public.replay_result WHERE run_id = run;
         IF left_n = 0 THEN
           DELETE FROM public.replay_run WHERE id = run;
         END IF;
         RETURN left_n;
       END $$"""
