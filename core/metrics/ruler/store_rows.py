"""The ruler's rows, built from the store's own data (read-only).

* extraction rows: every distinct ``expected_rule`` (trigger and directive halves), as a
  correct pair (prediction = ground truth); mutations and shuffles make the wrong ones;
* matcher rows: each failure trajectory that carries an ``expected_rule``, with that rule's
  trigger, at the threshold replay uses for its corpus;
* paraphrases: the paraphrase-diversity trajectories (same failure class, different words),
  other ``expected_rule`` phrasings of the same specific failure class, and the hand-written
  must-hold pairs of ``canaries.json``;
* agreement rows: committed human judgements against replay's answers; when the store has
  none, a "perfect rater" over a seeded sample of the run's replay answers (so the
  comparator is still checked; the report says which).
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from core.metrics.extraction import parse_expected_rule
from core.metrics.ruler.harness import Row
from core.replay.profiles import threshold_for_corpus
from core.store.dto import TrajectoryDetail

CANARIES_FILE = Path(__file__).with_name("canaries.json")
AGREEMENT_SAMPLE = 300


@lru_cache(maxsize=1)
def hand_canaries() -> dict[str, list[dict[str, Any]]]:
    data: dict[str, list[dict[str, Any]]] = json.loads(CANARIES_FILE.read_text(encoding="utf-8"))
    return data


def klass(failure_class: str | None) -> str | None:
    """The coarse error class: the first two segments (``git/push`` for ``git/push/non-fast-forward``)."""
    if not failure_class:
        return None
    return "/".join(failure_class.split("/")[:2])


def _key(text: str) -> str:
    return " ".join(text.lower().split())


def is_paraphrase_record(d: TrajectoryDetail) -> bool:
    tags = d.record.get("tags") or []
    return "paraphrase" in d.corpus or (isinstance(tags, list) and "paraphrase-diversity" in tags)


@dataclass
class StoreRows:
    triggers: list[Row] = field(default_factory=list)
    directives: list[Row] = field(default_factory=list)
    matcher: list[Row] = field(default_factory=list)
    trigger_paraphrases: dict[str, list[str]] = field(default_factory=dict)  # key(trigger) -> texts
    directive_paraphrases: dict[str, list[str]] = field(default_factory=dict)
    record_paraphrases: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # failure_class -> records
    notes: list[str] = field(default_factory=list)

    def trigger_paraphrase(self, row: Row) -> list[str]:
        return self.trigger_paraphrases.get(_key(row.ref), [])

    def directive_paraphrase(self, row: Row) -> list[str]:
        return self.directive_paraphrases.get(_key(row.ref), [])

    def record_paraphrase(self, row: Row) -> list[dict[str, Any]]:
        return self.record_paraphrases.get(row.meta.get("failure_class") or "", [])


def build_rows(details: list[TrajectoryDetail]) -> StoreRows:
    rows = StoreRows()
    seen_rules: dict[tuple[str, str], Row] = {}
    by_class_trigger: dict[tuple[str, str], set[str]] = defaultdict(set)
    by_class_triggers: dict[str, set[str]] = defaultdict(set)
    para_records: dict[str, list[dict[str, Any]]] = defaultdict(list)
    matcher_seen: set[tuple[str, str]] = set()
    for d in details:
        if is_paraphrase_record(d) and d.failure_class:
            para_records[d.failure_class].append(d.record)
        sentence = (d.expected_rule or "").strip()
        if not sentence:
            continue
        trigger, directive = parse_expected_rule(sentence)
        meta: dict[str, Any] = {"id": d.trajectory_id, "domain": d.domain, "klass": klass(d.failure_class) or _key(trigger),
                "failure_class": d.failure_class, "rule": _key(sentence), "corpus": d.corpus}
        group = d.domain or meta["klass"]
        key = (_key(trigger), _key(directive))
        if key not in seen_rules and trigger:
            row = Row(trigger, trigger, group, meta)
            seen_rules[key] = row
            rows.triggers.append(row)
            if directive:
                rows.directives.append(Row(directive, directive, group, meta))
        if d.failure_class and d.failure_class.count("/") >= 2:
            by_class_triggers[d.failure_class].add(trigger)
        by_class_trigger[(d.failure_class or "", _key(trigger))].add(directive)
        hay = json.dumps([d.task, d.record.get("steps")], sort_keys=True, default=str)
        if not d.success and trigger and (_key(trigger), hay) not in matcher_seen:
            matcher_seen.add((_key(trigger), hay))
            rows.matcher.append(Row((trigger, threshold_for_corpus(d.corpus)), d.record, group, meta))

    # Trigger paraphrases: paraphrase-diversity tasks of the same failure class; other
    # phrasings of the same specific (3-segment) class; the hand-written must-hold pairs.
    trig_para: dict[str, list[str]] = defaultdict(list)
    for row in rows.triggers:
        fc = row.meta.get("failure_class") or ""
        for record in para_records.get(fc, []):
            task = str(record.get("task") or "").strip()
            if task:
                trig_para[_key(row.ref)].append(task)
        for other in sorted(by_class_triggers.get(fc, set())):
            if _key(other) != _key(row.ref):
                trig_para[_key(row.ref)].append(other)
    for c in hand_canaries()["trigger"]:
        if c.get("requires") == "paraphrase":
            trig_para[_key(c["ref"])].append(c["pred"])
    rows.trigger_paraphrases = {k: list(dict.fromkeys(v)) for k, v in trig_para.items()}

    # Directive paraphrases: another directive for the same trigger and failure class.
    dir_para: dict[str, list[str]] = defaultdict(list)
    for directives in by_class_trigger.values():
        for a in directives:
            for b in directives:
                if a and b and _key(a) != _key(b):
                    dir_para[_key(a)].append(b)
    for c in hand_canaries()["directive"]:
        if c.get("requires") == "paraphrase":
            dir_para[_key(c["ref"])].append(c["pred"])
    rows.directive_paraphrases = {k: list(dict.fromkeys(v)) for k, v in dir_para.items()}
    rows.record_paraphrases = dict(para_records)
    if not para_records:
        rows.notes.append("no paraphrase-diversity trajectories in this store: matcher paraphrases not measured")
    if not rows.triggers:
        rows.notes.append("no expected_rule in this store: extraction comparators checked on hand-written canaries only")
    return rows


# -- human-vs-replay rows -------------------------------------------------------------------
@dataclass(frozen=True)
class AgreementRows:
    rows: list[Row]
    source: str  # "judgements" | "perfect rater over replay answers" | "none"
    kinds: dict[str, tuple[str, ...]]


def agreement_rows(judgements: list[Any], population: list[Any], seed: int) -> AgreementRows:
    from core.domain.agreement import CANT_TELL, EVIDENCE_ANSWERS, VERDICT_ANSWERS

    kinds = {"verdict": VERDICT_ANSWERS, "evidence": EVIDENCE_ANSWERS}
    decisive = [j for j in judgements if j.answer != CANT_TELL]
    if decisive:
        rows = [Row(j.answer, j.replay_answer, str(i), {"kind": j.kind}) for i, j in enumerate(decisive)]
        return AgreementRows(rows, "judgements", kinds)
    if population:
        rng = random.Random(seed)
        sample = rng.sample(population, min(AGREEMENT_SAMPLE, len(population)))
        rows = [Row(p.replay_answer, p.replay_answer, str(i), {"kind": p.kind}) for i, p in enumerate(sample)]
        return AgreementRows(rows, "perfect rater over replay answers (no committed judgements)", kinds)
    return AgreementRows([], "none", kinds)
