"""The rule-file pass of an import: each rule YAML file read and its rule stored.

A rule file runs after the trajectory pass (``core.importing.import_paths``), whose corpus ids
and stored file hashes it shares (``RuleContext``): a file whose bytes did not change is
skipped. The rule and its file row are written by two repositories, so the file row first
carries a ``pending:`` hash that matches no content, and gets its real hash only once the rule
is stored: a kill in between costs a re-read next time, never a skipped rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from core.corpus.hostile import DEFAULT_MAX_FILE_BYTES, read_regular_file
from core.corpus.rules import RuleRecord, read_rule_bytes
from core.corpus.walk import CorpusFile
from core.hashing import sha256_bytes
from core.import_counts import CorpusCounts, set_role
from core.store.corpus_repo import CorpusRepository
from core.store.dto import ImportIssue
from core.store.rule_repo import NewRule, RuleRepository, RuleText

PENDING = "pending:"


@dataclass
class RuleContext:
    """What the rule files share with the trajectory pass: corpus ids and stored file hashes."""

    corpus_ids: dict[str, int]
    hashes: dict[tuple[int, str], str]


def import_rule_file(
    corpora: CorpusRepository, rules: RuleRepository, all_counts: dict[str, CorpusCounts], source: CorpusFile,
    known: RuleContext, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> tuple[list[ImportIssue], str | None]:
    """One rule file read and its rule stored (unless its bytes did not change): the file's
    issues, and a note for the import summary or None."""
    loaded = read_regular_file(source.abs_path, max_file_bytes)
    if loaded.data is None:
        return [ImportIssue(source.corpus_name, source.rel_path, None, None, str(loaded.problem))], None
    data = loaded.data
    result = read_rule_bytes(data, source.rel_path)
    issues = [ImportIssue(source.corpus_name, i.file, i.line, i.field, i.reason) for i in result.issues]
    if result.rule is None:
        note = None if issues else f"{source.rel_path}: {result.kind} file, not a rule (kept out)"
        return issues, note
    # A corpus exists only once it holds something: a catalog alone does not make one.
    if source.corpus_name not in known.corpus_ids:
        known.corpus_ids[source.corpus_name] = set_role(corpora, all_counts, source.corpus_name, [])
    counts = all_counts[source.corpus_name]
    corpus_id = known.corpus_ids[source.corpus_name]
    if known.hashes.get((corpus_id, source.rel_path)) == sha256_bytes(data):
        return issues, None
    # The rule and the file row are written by two repositories; the pending hash makes a
    # kill between them cost only a re-read next time, never a skipped rule.
    file_id = corpora.upsert_file(corpus_id, source.rel_path, "rule_yaml", PENDING + sha256_bytes(data), len(data))
    rule: RuleRecord = result.rule
    origin, note = rule_origin(rules, source, corpus_id)
    source_pk, domain = (None, None)
    if rule.source_trajectory:
        source_pk, domain = rules.resolve_trajectory(rule.source_trajectory, corpus_id)
    _rule_id, state = rules.upsert(
        NewRule(
            origin=origin,
            kind=rule.kind,
            text=RuleText(
                trigger=rule.trigger, directive=rule.directive, context=tuple(rule.context),
                signature=rule.signature, because=rule.because, confidence=rule.confidence,
            ),
            content_hash=sha256_bytes(data),
            corpus_id=corpus_id,
            file_id=file_id,
            rule_ref=rule.rule_id,
            status=rule.status,
            source_trajectory=rule.source_trajectory,
            source_trajectory_pk=source_pk,
            domain=domain,
            raw_text=result.raw_text,
            data_json=json.dumps(rule.data, ensure_ascii=False, default=str),
        )
    )
    corpora.set_file_hash(file_id, sha256_bytes(data))
    if state == "imported":
        counts.rules_imported += 1
    return issues, note


def rule_origin(rules: RuleRepository, source: CorpusFile, corpus_id: int) -> tuple[str, str | None]:
    """A rule's identity: its path, qualified by its corpus when another corpus already
    holds a rule at that path (two import roots each with ``R-1.yaml`` are two rules, not
    two versions of one). Stores made before keep their plain origins; nothing is renamed."""
    owner = rules.origin_owner(source.rel_path)
    if owner is None or owner[0] == corpus_id:
        return source.rel_path, None
    qualified = f"{source.corpus_name}:{source.rel_path}"
    if rules.origin_owner(qualified) is not None:
        return qualified, None  # reported when it was first imported
    return qualified, (
        f"{source.corpus_name}/{source.rel_path}: corpus {owner[1] or '?'} already has a rule at "
        f"{source.rel_path}; kept as a separate rule, {qualified!r}"
    )
