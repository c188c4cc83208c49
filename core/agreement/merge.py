"""Offline merge between reviewers' stores: export one reviewer's work, import another's.

Each reviewer works in their own store. ``export_reviewer`` writes that reviewer's labels,
adjudications and judgements (plus the definitions of the sessions they judged) to one JSON
file keyed by stable identities, never store ids: a trajectory is (corpus, file, line,
trajectory_id, content hash), a session is its uid, an item is (session uid, ordinal).
``import_file`` merges such a file into another store:

* same key, same content -> nothing happens;
* another reviewer's label for the same trajectory -> both are kept (each reviewer's own);
* the same reviewer with different content in both stores -> a conflict is reported and
  nothing is overwritten (likewise for a judgement, or an adjudication in force);
* a trajectory the store does not have -> the label is kept unattached and reported;
* an entry whose key is longer than the store accepts (a 10 KB trajectory id, reviewer name,
  session uid...: ``core.agreement.merge_keys``) -> that entry is refused, reported with file,
  line, field and limit, and the entries around it are merged, on SQLite and PostgreSQL alike.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.agreement.merge_keys import RefusedEntry, Screened, screen
from core.agreement.session import commit_judgement
from core.domain.agreement import QUESTION_SINGLE, PopulationItem
from core.domain.labels import LabelText, TrajectoryKey
from core.labels.service import import_adjudication, import_label
from core.store.agreement_judging import insert_session_in
from core.store.agreement_repo import AgreementRepository
from core.store.engine import Store
from core.store.label_repo import LabelRepository
from core.store.transaction import one_transaction
from core.timeutil import utc_now

FORMAT = "cauterule-workbench/team-export"
FORMAT_VERSION = 1


class BadTeamFile(ValueError):
    pass


class NothingToExport(ValueError):
    """The reviewer has no labels, rulings, sessions or judgements in this store: no file is written."""

    def __init__(self, reviewer: str, known: list[str]) -> None:
        names = ", ".join(known) if known else "nobody yet"
        super().__init__(f"{reviewer} has no labels, rulings, sessions or judgements in this store; no file was "
                         f"written (people with work here: {names})")
        self.reviewer = reviewer
        self.known = known


def _people_with_work(labels_repo: LabelRepository, agreement: AgreementRepository) -> list[str]:
    people = set(labels_repo.reviewers()) | set(agreement.reviewers())
    people |= {a.lead for a in labels_repo.adjudications()} | {s.created_by for s in agreement.sessions()}
    return sorted(p for p in people if p)


# -- export ------------------------------------------------------------------------------------
def export_reviewer(store: Store, reviewer: str, path: Path | str) -> dict[str, int]:
    """Write ``reviewer``'s work to ``path`` (JSON); returns what was written, by kind."""
    labels_repo = LabelRepository(store)
    agreement = AgreementRepository(store)
    labels = [
        {"trajectory": lb.key.to_dict(), "reviewer": lb.reviewer, "label": lb.text.to_dict(),
         "created_at": lb.created_at, "updated_at": lb.updated_at}
        for lb in labels_repo.labels(reviewer=reviewer, include_orphans=True)
    ]
    adjudications = [
        {"trajectory": a.key.to_dict(), "lead": a.lead, "chosen_reviewer": a.chosen_reviewer,
         "label": a.text.to_dict(), "reason": a.reason, "created_at": a.created_at}
        for a in labels_repo.adjudications() if a.lead == reviewer
    ]
    judgements = agreement.judgements(reviewer=reviewer)
    session_ids = {j.session_id for j in judgements} | {
        s.id for s in agreement.sessions() if s.created_by == reviewer
    }
    sessions = []
    uid_of: dict[int, str] = {}
    for info in agreement.sessions():
        if info.id not in session_ids:
            continue
        uid_of[info.id] = info.uid
        sessions.append({
            "uid": info.uid, "name": info.name, "created_by": info.created_by, "created_at": info.created_at,
            "run": {"profile": info.run_profile, "config_hash": info.run_config_hash,
                    "corpus_hash": info.run_corpus_hash},
            "seed": info.seed, "target_half_width": info.target_half_width, "assumed_p": info.assumed_p,
            "blind": info.blind, "allocation": info.allocation, "min_per_stratum": info.min_per_stratum,
            "gate": info.gate, "strata": info.strata, "question": info.question,
            "items": [
                {"ordinal": i.ordinal, "kind": i.kind, "stratum": i.stratum, "replay_answer": i.replay_answer,
                 "scope_replay": i.scope_replay, "rule_pool": i.rule_pool,
                 "rule": {"origin": i.rule_origin, "version": i.rule_version, "trigger": i.trigger,
                          "directive": i.directive},
                 "trajectory": i.trajectory_key}
                for i in agreement.items_with_answers(info.id)
            ],
        })
    if not (labels or adjudications or sessions or judgements):
        # A mistyped name would otherwise write a valid, empty team file that merges as nothing.
        raise NothingToExport(reviewer, _people_with_work(labels_repo, agreement))
    payload: dict[str, Any] = {
        "format": FORMAT, "version": FORMAT_VERSION, "reviewer": reviewer, "exported_at": utc_now(),
        "labels": labels, "adjudications": adjudications, "sessions": sessions,
        "judgements": [
            {"session": uid_of[j.session_id], "ordinal": j.ordinal, "reviewer": j.reviewer, "answer": j.answer,
             "rubric": j.rubric, "note": j.note, "committed_at": j.committed_at, "scope": j.scope}
            for j in judgements
        ],
    }
    from core.export.atomic import write_file_atomic

    # fsynced temp file renamed into place; a failed write leaves no .tmp behind.
    write_file_atomic(Path(path), json.dumps(payload, indent=2, ensure_ascii=False))
    return {"labels": len(labels), "adjudications": len(adjudications), "sessions": len(sessions),
            "judgements": len(payload["judgements"])}


# -- import ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class MergeConflict:
    kind: str  # label | judgement | adjudication | session
    where: str  # a readable key: "failures/git.jsonl:1 DF-GIT-001", "session abc #3"
    reviewer: str
    local: Any
    incoming: Any


@dataclass(frozen=True)
class MergeReport:
    added: dict[str, int]
    unchanged: dict[str, int]
    conflicts: tuple[MergeConflict, ...]
    unmatched: tuple[str, ...]  # trajectories this store does not have (labels kept unattached)
    refused: tuple[RefusedEntry, ...] = ()  # entries not merged: a key over the store's limits


def _where(key: TrajectoryKey) -> str:
    return f"{key.corpus}/{key.file}:{key.line} {key.trajectory_id}"


def import_file(store: Store, path: Path | str, importer: str) -> MergeReport:
    """Merge another reviewer's export into this store; conflicts are reported, never overwritten.

    The whole merge is one transaction: a file that fails midway (a malformed entry, a disk
    error) leaves the store exactly as it was, never half merged.
    """
    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
        payload = json.loads(text)
    except (OSError, ValueError) as error:
        raise BadTeamFile(f"{source}: not a readable team export ({error})") from error
    if not isinstance(payload, dict) or payload.get("format") != FORMAT:
        raise BadTeamFile(f"{source}: not a Workbench team export")
    if int(payload.get("version", 0)) > FORMAT_VERSION:
        raise BadTeamFile(f"{source}: written by a newer Workbench (format version {payload.get('version')})")
    try:
        screened = screen(payload, text, str(source))  # before any database sees a key
        with one_transaction(store) as tx:
            return _merge(tx, payload, f"import:{source.name}", importer, screened)
    except (KeyError, TypeError, AttributeError, ValueError, LookupError) as error:
        # A hand-edited or truncated file (a missing field, an answer no item takes): name it and
        # what is wrong; nothing was merged.
        what = f"missing field {error}" if isinstance(error, KeyError) else str(error)
        raise BadTeamFile(f"{source}: a malformed entry ({what}); nothing was imported") from error


def _merge(store: Store, payload: dict[str, Any], origin: str, importer: str, screened: Screened) -> MergeReport:
    labels = LabelRepository(store)
    added: dict[str, int] = defaultdict(int)
    same: dict[str, int] = defaultdict(int)
    conflicts: list[MergeConflict] = []
    unmatched: list[str] = []

    def resolve(key_data: dict[str, Any]) -> tuple[TrajectoryKey, int | None]:
        key = TrajectoryKey.from_dict(key_data)
        pk, how = labels.find_trajectory(key)
        if pk is None:
            unmatched.append(f"{_where(key)} ({how})")
        return key, pk

    for entry in _kept(payload, "labels", screened):
        key, pk = resolve(entry["trajectory"])
        text = LabelText.from_dict(entry["label"])
        state, local = import_label(store, pk, key, entry["reviewer"], text, entry["created_at"], entry["updated_at"],
                                           origin, importer)
        _tally(state, "labels", added, same)
        if state == "conflict" and local is not None:
            conflicts.append(MergeConflict("label", _where(key), entry["reviewer"], local.text.to_dict(), text.to_dict()))
    for entry in _kept(payload, "adjudications", screened):
        key, pk = resolve(entry["trajectory"])
        text = LabelText.from_dict(entry["label"])
        state, current = import_adjudication(store, pk, key, entry["lead"], entry.get("chosen_reviewer"), text,
                                                    entry["reason"], entry["created_at"], origin, importer)
        _tally(state, "adjudications", added, same)
        if state == "conflict" and current is not None:
            conflicts.append(MergeConflict("adjudication", _where(key), entry["lead"],
                                           dict(current.text.to_dict(), lead=current.lead), text.to_dict()))
    session_ids = {}
    for entry in _kept(payload, "sessions", screened):
        session_id, state = _import_session(store, entry, origin)
        _tally(state, "sessions", added, same)
        if state == "conflict":
            conflicts.append(MergeConflict("session", f"session {entry['uid']}", entry["created_by"],
                                           "different items under the same uid", None))
            continue
        session_ids[entry["uid"]] = session_id
    refused = list(screened.refused)
    judgements = list(_kept(payload, "judgements", screened))
    refused_sessions = {e.get("uid") for i, e in enumerate(payload.get("sessions", [])) if not screened.keeps("sessions", i)}
    orphans = sum(1 for j in judgements if j.get("session") in refused_sessions)
    if orphans:  # said once, not silently dropped: their session is refused above
        refused.append(RefusedEntry(screened.refused[0].file, None, "judgements",
                                    f"{orphans} judgement(s) of the refused session(s) above were not imported"))
    _import_judgements(store, judgements, session_ids, origin, added, same, conflicts)
    return MergeReport(dict(added), dict(same), tuple(conflicts), tuple(dict.fromkeys(unmatched)), tuple(refused))


def _kept(payload: dict[str, Any], section: str, screened: Screened) -> list[Any]:
    return [e for i, e in enumerate(payload.get(section, [])) if screened.keeps(section, i)]


def _tally(state: str, kind: str, added: dict[str, int], same: dict[str, int]) -> None:
    if state == "added":
        added[kind] += 1
    elif state == "same":
        same[kind] += 1


def _import_session(store: Store, entry: dict[str, Any], origin: str) -> tuple[int, str]:
    repo = AgreementRepository(store)
    incoming = [(i["ordinal"], i["kind"], i["replay_answer"], i["rule"]["origin"], i["rule"]["version"])
                for i in sorted(entry["items"], key=lambda i: i["ordinal"])]
    try:
        local = repo.session(entry["uid"])
    except LookupError:
        local = None
    if local is not None and local.uid == entry["uid"]:
        mine = [(i.ordinal, i.kind, i.replay_answer, i.rule_origin, i.rule_version)
                for i in repo.items_with_answers(local.id)]
        return local.id, "same" if mine == incoming else "conflict"
    labels = LabelRepository(store)
    run = entry.get("run") or {}
    items = []
    for i in sorted(entry["items"], key=lambda i: i["ordinal"]):
        pk = None
        if i.get("trajectory"):
            pk, _how = labels.find_trajectory(TrajectoryKey.from_dict(i["trajectory"]))
        rule = i["rule"]
        items.append(PopulationItem(
            kind=i["kind"], result_id=repo.find_result(run.get("config_hash"), run.get("corpus_hash"), rule["origin"],
                                                       rule.get("version")),
            rule_origin=rule["origin"], rule_version=rule.get("version"), trigger=rule["trigger"],
            directive=rule["directive"], trajectory_pk=pk, trajectory_key=i.get("trajectory"),
            corpus=(i.get("trajectory") or {}).get("corpus"), replay_answer=i["replay_answer"], stratum=i["stratum"],
            failure=i.get("scope_replay") is not None, rule_pool=i.get("rule_pool"),
        ))
    with store.session() as session:  # the merge's one transaction (``one_transaction``)
        info = insert_session_in(
            session, items=items, created_by=entry["created_by"], seed=int(entry["seed"]),
            assumed_p=float(entry["assumed_p"]), target_half_width=entry.get("target_half_width"),
            blind=bool(entry["blind"]), allocation=entry["allocation"], min_per_stratum=int(entry["min_per_stratum"]),
            gate=float(entry["gate"]), strata=entry["strata"], run_id=None,
            # Keep the run's identity so the gate for a local run with the same evidence finds it.
            run_identity=run if run.get("config_hash") else None, created_at=entry["created_at"],
            # A file written before the two questions holds single-question sessions.
            question=entry.get("question", QUESTION_SINGLE), name=entry.get("name"), uid=entry["uid"], origin=origin,
        )
    return info.id, "added"


def _import_judgements(
    store: Store, entries: list[dict[str, Any]], session_ids: dict[str, int], origin: str,
    added: dict[str, int], same: dict[str, int], conflicts: list[MergeConflict],
) -> None:
    repo = AgreementRepository(store)
    for entry in entries:
        session_id = session_ids.get(entry["session"])
        if session_id is None:
            continue
        item_id = repo.item_id(session_id, int(entry["ordinal"]))
        if item_id is None:
            conflicts.append(MergeConflict("judgement", f"session {entry['session']} #{entry['ordinal']}",
                                           entry["reviewer"], "no such item", entry["answer"]))
            continue
        existing = [j for j in repo.judgements(session_id, entry["reviewer"]) if j.item_id == item_id]
        if existing:
            if existing[0].answer == entry["answer"]:
                same["judgements"] += 1
            else:
                conflicts.append(MergeConflict("judgement", f"session {entry['session']} #{entry['ordinal']}",
                                               entry["reviewer"], existing[0].answer, entry["answer"]))
            continue
        commit_judgement(store, item_id, entry["reviewer"], entry["answer"], rubric=entry.get("rubric"),
                         note=entry.get("note"), scope=entry.get("scope"), origin=origin,
                         committed_at=entry["committed_at"])
        added["judgements"] += 1
