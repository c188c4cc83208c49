"""Writing a candidate from a failure: prefill, a what-if preview of the unsaved text, save.

Prefill comes from the trajectory's ``expected_rule`` ("when <trigger>, <directive>"), else
its failure class and first error line. The preview replays the unsaved text against the
store's trajectories (lexical matcher, the rule's own source excluded) without writing
anything. Saving adds a rule of kind ``user`` whose first version's author is the reviewer and
whose provenance (``source_trajectory`` / ``source_trajectory_pk``) is the trajectory.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from core.domain.names import checked_name, checked_reason
from core.hashing import sha256_text
from core.replay.engine import replay
from core.replay.profiles import ReplayProfile, profile_by_name
from core.replay.types import ReplayRule, ReplayTrajectory
from core.store.corpus_repo import CorpusRepository
from core.store.dto import TrajectoryDetail
from core.store.engine import Store
from core.store.rule_repo import NewRule, RuleRepository, RuleText

USER_KIND = "user"


class CandidateError(ValueError):
    """A candidate cannot be written (blank text, unknown trajectory, no author)."""


@dataclass(frozen=True)
class Prefill:
    trigger: str
    directive: str
    because: str | None
    source: str  # "expected_rule" | "failure"


_WHEN = re.compile(r"^\s*when\s+", re.IGNORECASE)


def split_expected_rule(sentence: str) -> tuple[str, str]:
    """"when X, do Y" -> ("X", "do Y"), splitting at the first comma as 0.3.1's extraction
    accuracy does; without a comma the whole sentence is the trigger."""
    body = _WHEN.sub("", sentence.strip(), count=1)
    trigger, sep, directive = body.partition(",")
    return (trigger.strip(), directive.strip()) if sep else (body.strip(), "")


def first_error_line(record: dict[str, object]) -> str | None:
    steps = record.get("steps")
    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict):
            continue
        for name in ("error", "output"):
            text = step.get(name)
            if isinstance(text, str) and text.strip() and (name == "error" or "error" in text.lower()):
                return next(line.strip() for line in text.replace("\\n", "\n").splitlines() if line.strip())
    return None


def prefill(detail: TrajectoryDetail) -> Prefill:
    if detail.expected_rule and detail.expected_rule.strip():
        trigger, directive = split_expected_rule(detail.expected_rule)
        return Prefill(trigger, directive, None, "expected_rule")
    error = first_error_line(detail.record)
    parts = [p for p in ((detail.failure_class or "").replace("/", " ").strip(), error or "") if p]
    return Prefill(" ".join(parts) or detail.task, "", error, "failure")


def find_trajectory(store: Store, ident: str, corpus: str | None = None) -> int:
    """A trajectory's primary key from ``#pk`` or its id (and corpus when the id repeats)."""
    repo = CorpusRepository(store)
    if ident.startswith("#") and ident[1:].isdigit():
        if repo.get_trajectory(int(ident[1:])) is None:
            raise CandidateError(f"no trajectory with primary key {ident}")
        return int(ident[1:])
    matches = [d for d in repo.get_trajectories(corpus=corpus) if d.trajectory_id == ident]
    if not matches:
        raise CandidateError(f"no trajectory {ident!r}" + (f" in corpus {corpus!r}" if corpus else ""))
    if len(matches) > 1:
        where = ", ".join(f"#{d.id} ({d.corpus})" for d in matches)
        raise CandidateError(f"trajectory id {ident!r} repeats: {where}; give --corpus or #pk")
    return matches[0].id


@dataclass(frozen=True)
class CreatedCandidate:
    rule_id: int
    version: int
    origin: str
    state: str  # imported (new) | unchanged (the same text from the same trajectory was saved before)


def create_candidate(store: Store, trajectory_pk: int, trigger: str, directive: str, author: str, *,
                     because: str | None = None, context: Sequence[str] = ()) -> CreatedCandidate:
    trigger, directive, author = trigger.strip(), directive.strip(), checked_name(author, "author name")
    because = checked_reason(because, "reason (--because)")
    if not author:
        raise CandidateError("a candidate needs an author (the reviewer's name)")
    if not trigger:
        raise CandidateError("the trigger (when ...) is empty")
    if not directive:
        raise CandidateError("the directive (do ...) is empty")
    detail = CorpusRepository(store).get_trajectory(trajectory_pk)
    if detail is None:
        raise CandidateError(f"no trajectory with primary key #{trajectory_pk}")
    text = RuleText(trigger=trigger, directive=directive, context=tuple(c.strip() for c in context if c.strip()),
                    because=(because or "").strip() or None)
    data = {"when": {"trigger": text.trigger, "context": list(text.context)},
            "do": {"directive": text.directive, "because": text.because},
            "provenance": {"source_trajectory": detail.trajectory_id, "extracted_by": f"reviewer:{author}",
                           "corpus": detail.corpus, "file": detail.file, "line": detail.line}}
    content_hash = sha256_text(json.dumps(data, sort_keys=True, ensure_ascii=False))
    origin = f"reviewer:{detail.corpus}/{detail.trajectory_id}@{content_hash[:10]}"
    repo = RuleRepository(store)
    rule_id, state = repo.upsert(NewRule(
        origin=origin, kind=USER_KIND, text=text, content_hash=content_hash, status="candidate",
        source_trajectory=detail.trajectory_id, source_trajectory_pk=detail.id, domain=detail.domain,
        data_json=json.dumps(data, ensure_ascii=False)), author=author)
    info = repo.get(rule_id)
    assert info is not None
    return CreatedCandidate(rule_id, info.latest.version, origin, state)


# -- what-if preview ------------------------------------------------------------------------
@dataclass(frozen=True)
class Preview:
    verdict: str
    reason: str
    prevented: tuple[str, ...]  # trajectory ids
    broken: tuple[str, ...]
    near_miss: tuple[str, ...]
    missed: int
    precision: float | None
    recall: float | None


def load_pool(store: Store) -> list[ReplayTrajectory]:
    return [ReplayTrajectory(d.id, d.trajectory_id, d.corpus, d.domain, d.success, d.failure_class, d.record)
            for d in CorpusRepository(store).get_trajectories()]


def preview(pool: Sequence[ReplayTrajectory], source: ReplayTrajectory | None, trigger: str, directive: str,
            profile: ReplayProfile | None = None) -> Preview:
    """Replay the unsaved text (lexical; nothing written). Fast enough to run on each pause
    in typing: one rule against the pool."""
    prof = (profile or profile_by_name("workbench")).with_(semantic=False)
    rule = ReplayRule(key="draft", trigger=trigger, directive=directive,
                      source_trajectory_id=source.trajectory_id if source else None,
                      source_key=source.key if source else None, domain=source.domain if source else None,
                      corpus=source.corpus if source else None, origin="draft")
    (result,) = replay([rule], list(pool), prof).results
    ids = {t.key: t.trajectory_id for t in pool}
    return Preview(result.verdict, result.reason, tuple(ids[k] for k in result.prevented),
                   tuple(ids[k] for k in result.broken), tuple(ids[k] for k in result.near_miss),
                   len(result.missed), result.precision, result.recall)
