"""Agreement-protocol values: sessions, blind items, reveals, judgements (frozen DTOs)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

VERDICT_ANSWERS: tuple[str, ...] = ("pass", "fail", "inconclusive")
# The old single evidence question (sessions made before schema step 7 keep it and its results).
EVIDENCE_ANSWERS: tuple[str, ...] = ("prevented", "broken", "near_miss", "missed", "no_effect")
EVIDENCE_BUCKETS: tuple[str, ...] = ("prevented", "broken", "near_miss", "missed")
CANT_TELL = "cant_tell"  # committed, but left out of every agreement statistic (counted as abstained)
DEFAULT_GATE = 0.80

# The two questions (schema step 7). Firing: what the rule DOES on this trajectory, one answer
# per replay bucket, with missed and no_effect both "does not fire" (replay's `missed` only
# says "a recall-pool failure it did not prevent", not "a failure it is meant for").
FIRING_ANSWERS: tuple[str, ...] = ("prevents", "breaks", "near_miss", "does_not_fire")
FIRING_OF_BUCKET: dict[str, str] = {"prevented": "prevents", "broken": "breaks", "near_miss": "near_miss",
                                    "missed": "does_not_fire", "no_effect": "does_not_fire"}
# Scope, asked only on failures: is this a failure the rule is meant for? Replay's implied
# answer is "in_scope" for every failure in its recall pool (its recall denominator).
SCOPE_ANSWERS: tuple[str, ...] = ("in_scope", "out_of_scope", CANT_TELL)
IN_SCOPE = "in_scope"
QUESTION_SINGLE = "single"  # sessions made before the two questions (reported as such)
QUESTION_FIRING_SCOPE = "firing_scope"
GATE_KINDS: tuple[str, ...] = ("verdict", "firing")  # only these feed the gate

GATE_PASS = "pass"
GATE_FAIL = "fail"
GATE_NOT_ENOUGH = "not enough data"


def answers_for(kind: str) -> tuple[str, ...]:
    """The choices a reviewer has for an item of this kind (``cant_tell`` always allowed)."""
    if kind == "verdict":
        return VERDICT_ANSWERS + (CANT_TELL,)
    if kind == "evidence":
        return EVIDENCE_ANSWERS + (CANT_TELL,)
    if kind == "firing":
        return FIRING_ANSWERS + (CANT_TELL,)
    raise ValueError(f"unknown item kind {kind!r}")


@dataclass(frozen=True)
class PopulationItem:
    """One thing replay decided that a session may sample: a rule's verdict or one piece of evidence."""

    kind: str  # "verdict" | "evidence" (old sessions) | "firing"
    result_id: int | None
    rule_origin: str
    rule_version: int | None
    trigger: str
    directive: str
    trajectory_pk: int | None
    trajectory_key: dict[str, Any] | None
    corpus: str | None
    replay_answer: str
    stratum: str
    failure: bool = False  # the trajectory failed: the scope question is asked
    rule_pool: str | None = None  # the rule's recall pool: "domain" (scoped) | "all" | "fallback"

    @property
    def sort_key(self) -> tuple[str, int, str, int]:
        tid = (self.trajectory_key or {}).get("trajectory_id", "")
        return (self.rule_origin, self.rule_version or 0, str(tid), self.trajectory_pk or 0)


@dataclass(frozen=True)
class SessionInfo:
    id: int
    uid: str
    name: str | None
    run_id: int | None
    run_profile: str | None
    run_config_hash: str | None
    run_corpus_hash: str | None
    seed: int
    target_half_width: float | None
    assumed_p: float
    size: int
    blind: bool
    allocation: str
    min_per_stratum: int
    gate: float
    strata: dict[str, dict[str, int]]  # stratum -> {"population": N, "sampled": n}
    created_by: str
    origin: str
    created_at: str
    question: str = QUESTION_FIRING_SCOPE  # QUESTION_SINGLE: made before the two questions

    @property
    def old_question(self) -> bool:
        return self.question == QUESTION_SINGLE


@dataclass(frozen=True)
class BlindItem:
    """What a reviewer sees before committing. Replay's answer is NOT here (nor the stratum,
    which would give it away); ``replay_answer`` is filled only for unblinded sessions."""

    item_id: int
    session_id: int
    ordinal: int
    kind: str
    result_id: int | None
    rule_origin: str
    rule_version: int | None
    trigger: str
    directive: str
    trajectory_pk: int | None  # to load the record; never shown (the screen numbers items)
    choices: tuple[str, ...]
    # Verdict items: the trajectories replay says the rule fires on, WITHOUT their buckets.
    evidence_pks: tuple[int, ...] = ()
    replay_answer: str | None = None  # unblinded sessions only
    scope_choices: tuple[str, ...] = ()  # firing items on a failure: the scope question is asked
    session_size: int = 0


@dataclass(frozen=True)
class Progress:
    committed: int
    size: int

    @property
    def fraction(self) -> float:
        return self.committed / self.size if self.size else 0.0

    @property
    def done(self) -> bool:
        return self.committed >= self.size


@dataclass(frozen=True)
class Reveal:
    """Returned by ``commit_judgement``: the reviewer's answer and, now, replay's."""

    item_id: int
    reviewer: str
    answer: str
    replay_answer: str
    agrees: bool | None  # None for cant_tell
    committed_at: str
    progress: Progress
    scope: str | None = None
    replay_scope: str | None = None  # "in_scope" when replay counted this failure in its recall denominator
    revealed: dict[str, Any] | None = None  # what was hidden before commit: ids, corpus, file, expected_*


@dataclass(frozen=True)
class Judgement:
    item_id: int
    session_id: int
    ordinal: int
    kind: str
    stratum: str
    reviewer: str
    answer: str
    replay_answer: str
    rubric: dict[str, bool] | None
    note: str | None
    origin: str
    committed_at: str
    scope: str | None = None
    replay_scope: str | None = None
    rule_pool: str | None = None
    question: str = QUESTION_FIRING_SCOPE


@dataclass(frozen=True)
class ItemRecord:
    """A session item with replay's answer (for results and exports, never for the blind screen)."""

    id: int
    session_id: int
    ordinal: int
    kind: str
    result_id: int | None
    rule_origin: str
    rule_version: int | None
    trigger: str
    directive: str
    trajectory_pk: int | None
    trajectory_key: dict[str, Any] | None
    stratum: str
    replay_answer: str
    scope_replay: str | None = None
    rule_pool: str | None = None
