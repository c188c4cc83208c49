"""Import CauterRule corpora into the store, losing nothing and repeating nothing.

Records are keyed by corpus + file + line, never by trajectory id alone (ids repeat across
and even within folders). A file whose bytes did not change is skipped; a changed file is
reconciled record by record, so only what changed is written. Bad records are reported
(file, line, field, reason) in a stored import report and never stop their neighbours.

Why a file's new hash is committed in the same transaction as its records: the hash is
what makes the next import skip the file, so a hash stored ahead of its records (a kill,
a crash, a bad record in between) would lose those records for good. Trajectory files are
written in batches of many files, each batch one transaction with the files' hashes
(``core.store.import_batch``); an unchanged file costs no transaction at all. A rule file,
written by two repositories, carries a ``pending:`` hash that matches no content until its
rule is stored (the rule-file pass, ``core.import_rules``). Only regular files are read, up
to a size limit; links to nowhere, FIFOs and devices are reported and skipped.
"""

from __future__ import annotations

import json
import logging
import os
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import text

from core.corpus.hostile import (
    DEFAULT_MAX_FILE_BYTES,
    cap_issues,
    escape_surrogates,
    read_regular_file,
    surrogate_field,
)
from core.corpus.jsonl import TrajectoryRecord, read_trajectory_bytes
from core.corpus.limits import path_oversize
from core.corpus.roles import role_for_outcome
from core.corpus.strict_json import NUL_REASON, nul_field
from core.corpus.walk import CorpusFile, walk_import_root
from core.hashing import canonical_json, hash_json_streamed, sha256_bytes, sha256_text
from core.import_counts import CorpusCounts, set_role
from core.import_rules import RuleContext, import_rule_file
from core.publish.snapshot import record_rule_stores
from core.store.corpus_repo import CorpusRepository
from core.store.dto import CorpusImportCounts, ImportIssue, ImportSummary
from core.store.engine import Store
from core.store.import_batch import FileChange, batches, stored_file_hashes, write_trajectory_files
from core.store.import_repo import ImportReportRepository
from core.store.rule_repo import RuleRepository

log = logging.getLogger(__name__)

ProgressCallback = Callable[[int, int, str], None]


class ImportCancelled(Exception):
    """Raised between files when the caller asked to stop; files done so far stay imported."""


@dataclass
class _ReadFile:
    source: CorpusFile
    content_hash: str
    size: int
    # None: not kept after the first pass (over ``KEEP_PARSED_BYTES``); read again when written.
    records: list[TrajectoryRecord] | None = field(default_factory=list)
    issues: list[ImportIssue] = field(default_factory=list)
    count: int = 0  # records read in the first pass


# Parsed records cost about ten times their file's bytes. Up to this many file bytes (a 10^5
# corpus) the first pass keeps what it parsed; beyond it, a file's records are dropped after
# the first pass and parsed again when its batch is written, so an import of 10^6 records
# holds one batch, not the whole corpus (which took ~10x the corpus size in memory).
KEEP_PARSED_BYTES = 128 * 1024 * 1024


def import_paths(
    store: Store,
    paths: Sequence[Path],
    progress: ProgressCallback | None = None,
    cancel: Any = None,
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> ImportSummary:
    """Import every corpus file under ``paths`` (folders walked recursively).

    Files bigger than ``max_file_bytes`` and anything that is not a regular file are
    reported as issues and skipped.
    """
    corpora = CorpusRepository(store)
    rules = RuleRepository(store)
    reports = ImportReportRepository(store)
    report_id = reports.start([str(p) for p in paths])

    files: list[CorpusFile] = []
    notes: list[str] = []
    for path in paths:
        if not os.path.lexists(path):
            notes.append(f"{escape_surrogates(str(path))}: no such file or folder")
            continue
        skipped: list[str] = []
        files.extend(walk_import_root(path, skipped))
        notes.extend(escape_surrogates(note) for note in skipped)

    counts: dict[str, CorpusCounts] = defaultdict(CorpusCounts)
    all_issues: list[ImportIssue] = []
    # A file or folder name that is not valid UTF-8 arrives as surrogate escapes: it can be
    # neither stored nor shown, so the file is reported (name escaped) and skipped.
    for bad in [f for f in files if surrogate_field([f.rel_path, f.corpus_name]) is not None]:
        all_issues.append(ImportIssue(escape_surrogates(bad.corpus_name), escape_surrogates(bad.rel_path), None, None,
                                      "file or folder name is not valid UTF-8; skipped (rename it to import it)"))
    files = [f for f in files if surrogate_field([f.rel_path, f.corpus_name]) is None]
    # A path is part of unique keys: too long for an index entry, it is refused on both back ends.
    for long_path in [f for f in files if path_oversize(f.rel_path)]:
        all_issues.append(ImportIssue(long_path.corpus_name, long_path.rel_path[:200] + "…", None, None,
                                      str(path_oversize(long_path.rel_path))))
    files = [f for f in files if not path_oversize(f.rel_path)]
    trajectory_files = [f for f in files if f.kind == "trajectories"]
    rule_files = [f for f in files if f.kind == "rule_yaml"]
    total = len(trajectory_files) + len(rule_files)

    # Pass 1: read trajectory files, so each corpus's role can be decided from all its records.
    read: list[_ReadFile] = []
    outcomes: dict[str, list[str | None]] = defaultdict(list)
    kept_bytes = 0
    for source in trajectory_files:
        item, problem = _read_trajectory_file(source, max_file_bytes)
        if item is None:
            all_issues.append(ImportIssue(source.corpus_name, source.rel_path, None, None, str(problem)))
            continue
        records = item.records or []
        notes.extend(_duplicate_key_notes(source, records))
        outcomes[source.corpus_name].extend(r.expected_outcome for r in records)
        kept_bytes += item.size
        if kept_bytes > KEEP_PARSED_BYTES:
            item.records = None  # parsed again with its batch (_file_changes)
        read.append(item)

    # Each corpus's role once, then every stored file hash in one query: an unchanged file
    # costs no transaction, and changed files are written in batches (core.store.import_batch).
    corpus_ids: dict[str, int] = {}
    for item in read:
        name = item.source.corpus_name
        if name not in corpus_ids:
            corpus_ids[name] = set_role(corpora, counts, name, outcomes[name])
    importing = {f.corpus_name for f in files}  # only this import's corpora: others are not read
    hashes = stored_file_hashes(store, [cid for name, cid in corpora.corpus_ids().items() if name in importing])
    done = 0
    changed: list[_ReadFile] = []
    for item in read:
        name = item.source.corpus_name
        counts[name].rejected += len(item.issues)
        all_issues.extend(item.issues)
        if hashes.get((corpus_ids[name], item.source.rel_path)) == item.content_hash:
            counts[name].unchanged += item.count
            done += 1
            if progress:
                progress(done, total, item.source.rel_path)
        else:
            changed.append(item)
    for batch in batches(_file_changes(changed, corpus_ids, all_issues, max_file_bytes)):
        _check_cancel(cancel)
        for outcome, corpus in zip(write_trajectory_files(store, batch), (c.corpus for c in batch), strict=True):
            file_counts = counts[corpus]
            file_counts.imported += outcome.inserted
            file_counts.updated += outcome.updated
            file_counts.removed += outcome.removed
            file_counts.unchanged += outcome.unchanged
            if outcome.kept:
                notes.append(f"{escape_surrogates(outcome.path)}: {outcome.kept} record(s) no longer in the file were kept, "
                             "because reviewers' work (opened evidence, waivers, agreement marks) points at them")
            done += 1
            if progress:
                progress(done, total, outcome.path)

    for source in rule_files:
        _check_cancel(cancel)
        issues, note = import_rule_file(corpora, rules, counts, source, RuleContext(corpus_ids, hashes),
                                        max_file_bytes)
        if issues:
            counts[source.corpus_name].rejected += len(issues)
        all_issues.extend(issues)
        if note:
            notes.append(note)
        done += 1
        if progress:
            progress(done, total, source.rel_path)

    if rule_files:
        # What each rule store folder holds now, so a publish can tell if it changed since.
        record_rule_stores(store, [Path(p) for p in paths], [f.abs_path for f in rule_files])
    reports.add_issues(report_id, all_issues)
    summary = ImportSummary(
        report_id=report_id,
        corpora=tuple(
            CorpusImportCounts(
                corpus=name, role=c.role, role_source=c.role_source, imported=c.imported, updated=c.updated,
                unchanged=c.unchanged, rejected=c.rejected, removed=c.removed, rules_imported=c.rules_imported,
            )
            for name, c in sorted(counts.items())
        ),
        issues=tuple(all_issues),
        rules_imported=sum(c.rules_imported for c in counts.values()),
        notes=tuple(notes),
    )
    reports.finish(report_id, summary.to_json())
    _keep_trajectory_side(store)
    return summary


# The real corpora's largest file is 12 KB; a file bigger than this is someone's huge record.
SIDE_MAX_FILE_BYTES = 8 * 1024 * 1024


def _duplicate_key_notes(source: CorpusFile, records: list[TrajectoryRecord]) -> list[str]:
    """Duplicate JSON keys at file:line: the record is kept (last value wins, as in every JSON
    reader), but a reviewer should know that the stored value is not the first one written."""
    found = [f"{source.rel_path}:{r.line} [{n.field}]: {n.reason}" for r in records for n in r.notes
             if n.reason.startswith("key ") and "appears more than once" in n.reason]
    return cap_issues(found, lambda more: f"{source.rel_path}: … and {more:,} more duplicate keys")


def _keep_trajectory_side(store: Store) -> None:
    """Build the trajectory side the next replay looks for and keep it in the store
    (``side_cache_repo.keep_side``), so the first replay after an import is warm even in a new
    process. Only for sets up to ``view_cache.MAX_TRAJECTORIES`` (counted before any record
    is read). A cache: a failure here is logged and never fails the import."""
    from core.replay import view_cache
    from core.replaying import load_trajectories
    from core.store.side_cache_repo import keep_side

    try:
        with store.read_session() as session:
            count = int(session.execute(text("SELECT count(*) FROM trajectory")).scalar_one())
            largest = session.execute(text("SELECT max(size) FROM source_file WHERE kind = 'trajectories'"))
            largest_file = int(largest.scalar_one() or 0)
        # Building the side costs ~19x the text it indexes: kept ahead only for ordinary files,
        # so a huge record's import stays within a few times its size (its replay builds it).
        if 0 < count <= view_cache.MAX_TRAJECTORIES and largest_file <= SIDE_MAX_FILE_BYTES:
            keep_side(store, load_trajectories(store))
    except Exception:
        log.warning("the trajectory side could not be kept after the import", exc_info=True)


def _check_cancel(cancel: Any) -> None:
    if cancel is not None and cancel.is_set():
        raise ImportCancelled("import cancelled; files imported so far are kept")


def _record_values(corpus_id: int, record: TrajectoryRecord) -> dict[str, Any]:
    data = record.data
    expected_rule = data.get("expected_rule")
    return {
        "corpus_id": corpus_id,
        "line": record.line,
        "end_line": record.end_line,
        "trajectory_id": record.trajectory_id,
        "success": bool(record.success),
        "domain": _text_or_none(data.get("domain")),
        "failure_class": _text_or_none(data.get("failure_class")),
        "failure_point": _text_or_none(data.get("failure_point")),
        "task": str(data.get("task", "")),
        "expected_outcome": _text_or_none(data.get("expected_outcome")),
        "expected_rule": expected_rule if isinstance(expected_rule, str) else None,
        "role": role_for_outcome(_text_or_none(data.get("expected_outcome"))),
        "raw_text": record.raw_text,
        # Key order and every unknown key are kept: export writes this object back as it was.
        "record_json": json.dumps(data, ensure_ascii=False),
        "content_hash": _content_hash(record),
    }


# Above this many characters a record's hash is computed streamed (no canonical copy held).
_STREAMED_HASH_CHARS = 1_000_000


def _content_hash(record: TrajectoryRecord) -> str:
    if len(record.raw_text) > _STREAMED_HASH_CHARS:
        return hash_json_streamed(record.data)
    return sha256_text(canonical_json(record.data))


def _text_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _read_trajectory_file(source: CorpusFile, max_file_bytes: int) -> tuple[_ReadFile | None, str | None]:
    """One trajectory file read and parsed: its hash, size, records and issues (or why not)."""
    loaded = read_regular_file(source.abs_path, max_file_bytes)
    if loaded.data is None:
        return None, str(loaded.problem)
    data = loaded.data
    result = read_trajectory_bytes(data, source.rel_path)
    issues = [ImportIssue(source.corpus_name, i.file, i.line, i.field, i.reason) for i in result.issues]
    # PostgreSQL text cannot hold NUL: such a record is an issue, not a failed import, and on
    # SQLite too, so one input gets one answer (and any store can be copied to any other).
    nul = [(r, nul_field(r.data, r.raw_text)) for r in result.records]
    issues += [ImportIssue(source.corpus_name, source.rel_path, r.line, where or None, NUL_REASON)
               for r, where in nul if where is not None]
    records = [r for r, where in nul if where is None]
    return _ReadFile(source, sha256_bytes(data), len(data), records, issues, len(records)), None


def _file_changes(changed: list[_ReadFile], corpus_ids: dict[str, int], issues: list[ImportIssue],
                  max_file_bytes: int) -> Iterator[FileChange]:
    """Each changed file's rows, built only when its batch is about to be written. A file whose
    records were not kept is parsed again; if its bytes changed since the first pass it is not
    written (its role and counts came from the other bytes) and ``issues`` says so."""
    for item in changed:
        corpus_id = corpus_ids[item.source.corpus_name]
        records = item.records
        if records is None:
            again, _problem = _read_trajectory_file(item.source, max_file_bytes)
            if again is None or again.content_hash != item.content_hash:
                issues.append(ImportIssue(item.source.corpus_name, item.source.rel_path, None, None,
                                          "the file changed while it was being imported; not imported: import again"))
                continue
            records = again.records or []
        yield FileChange(
            corpus_id=corpus_id, path=item.source.rel_path, content_hash=item.content_hash, size=item.size,
            records=[_record_values(corpus_id, r) for r in records], corpus=item.source.corpus_name,
        )
        item.records = []  # written with its batch: let the parsed records go
