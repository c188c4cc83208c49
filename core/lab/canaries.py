"""The ruler's hand-written matcher canaries, run through each setting's own decisions.

A must-fail canary is a trigger against a failure it must NOT prevent (another error class,
another tool, another status code); a setting that claims to prevent it is *blind* to it and
is flagged (never shipped). A must-hold canary is the failure itself or a paraphrase of it;
a setting that does not prevent it *misses* it (reported beside the flags). The canaries are
``core/metrics/ruler/canaries.json``'s ``matcher`` section, replayed with the same
``ScoredPairs`` machinery as the sweep, so a canary is decided exactly as replay would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core.lab.scores import EmbedFn, ScoredPairs
from core.lab.settings import Setting
from core.matching.profile import SemanticTarget
from core.replay.inputs import trajectory_from_record
from core.replay.types import ReplayRule

CANARIES_FILE = Path(__file__).resolve().parent.parent / "metrics" / "ruler" / "canaries.json"


@dataclass(frozen=True)
class Canary:
    name: str
    kind: str  # must_fail | must_hold
    trigger: str
    record: dict[str, Any]


def load_canaries(path: Path = CANARIES_FILE) -> list[Canary]:
    data = json.loads(path.read_text(encoding="utf-8"))
    return [Canary(c["name"], c["kind"], c["trigger"], c["record"]) for c in data["matcher"]]


@dataclass(frozen=True)
class CanaryVerdict:
    blind_to: tuple[str, ...]  # must-fail canaries the setting claims to prevent
    misses: tuple[str, ...]  # must-hold canaries it does not prevent

    @property
    def flagged(self) -> bool:
        return bool(self.blind_to)

    def to_dict(self) -> dict[str, Any]:
        return {"flagged": self.flagged, "blind_to": list(self.blind_to), "misses": list(self.misses)}


class CanaryBench:
    """Each canary as one rule (no source: the whole set is its pool) and one trajectory."""

    def __init__(self, canaries: list[Canary], embed: EmbedFn | None) -> None:
        self.canaries = canaries
        self.embed = embed
        self.rules = [ReplayRule(key=f"canary:{i}", trigger=c.trigger) for i, c in enumerate(canaries)]
        self.trajectories = [trajectory_from_record(i, dict(c.record), "lab/canaries")
                             for i, c in enumerate(canaries)]
        self.scored: dict[tuple[bool, SemanticTarget], ScoredPairs] = {}

    def check(self, setting: Setting) -> CanaryVerdict:
        scoring = setting.scoring
        if scoring not in self.scored:
            self.scored[scoring] = ScoredPairs.build(self.rules, self.trajectories, embed=self.embed,
                                                     read_failure_class=scoring[0], semantic_target=scoring[1])
        results = self.scored[scoring].decide(setting.profile())
        blind, misses = [], []
        for i, (canary, result) in enumerate(zip(self.canaries, results)):
            prevents = i in result.prevented
            if canary.kind == "must_fail" and prevents:
                blind.append(canary.name)
            elif canary.kind == "must_hold" and not prevents:
                misses.append(canary.name)
        return CanaryVerdict(tuple(blind), tuple(misses))
